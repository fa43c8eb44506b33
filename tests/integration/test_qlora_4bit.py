"""bitsandbytes is part of the set-up (it installs on CPU machines); its 4-bit NF4 path runs only on CUDA."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

HINT = "needs the [train] extra with bitsandbytes: pip install 'atma[qlora]'"
torch = pytest.importorskip("torch", reason=HINT)
pytest.importorskip("trl", reason=HINT)
pytest.importorskip("bitsandbytes", reason=HINT)


def test_cpu_loads_unquantized():
    if torch.cuda.is_available():
        pytest.skip("checks the CPU path; this machine has CUDA")
    from training.judge_config import JudgeModelConfig
    from training.judge_sft import model_init_kwargs

    kw = model_init_kwargs(JudgeModelConfig(load_in_4bit=True))
    assert "quantization_config" not in kw and kw["dtype"] == torch.float32


def test_cuda_loads_the_tiny_judge_in_4bit(tmp_path):
    if not torch.cuda.is_available():
        pytest.skip("the 4-bit NF4 path (bitsandbytes) runs only on CUDA")
    from transformers import AutoModelForCausalLM

    from training.judge_config import JudgeModelConfig, write_tiny_checkpoint
    from training.judge_sft import model_init_kwargs

    path = write_tiny_checkpoint(tmp_path / "tiny", vocab_size=3000, n_items=60)
    kw = model_init_kwargs(JudgeModelConfig(model_name_or_path=str(path), load_in_4bit=True))
    assert kw["quantization_config"].load_in_4bit
    model = AutoModelForCausalLM.from_pretrained(str(path), **kw)
    assert getattr(model, "is_loaded_in_4bit", False)
