"""HFJudge: the LLM-protocol backend for an HF folder (+ LoRA adapter), on a tiny random Qwen2."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("transformers", reason="needs the [train] extra: pip install 'atma[train]'")
# the tiny checkpoint is written through training.judge_config, which needs trl
pytest.importorskip("trl", reason="needs the [train] extra: pip install 'atma[train]'")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from training.judge_config import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny"), vocab_size=3000, n_items=60)


def test_complete_is_greedy_and_follows_the_protocol(tiny):
    from atma.protocols import LLM, Completion
    from training.hf_judge import HFJudge

    judge = HFJudge(tiny)
    assert isinstance(judge, LLM)
    msgs = [{"role": "system", "content": "You audit a memory bank."}, {"role": "user", "content": "{}"}]
    a = judge.complete(msgs, max_tokens=6)
    b = judge.complete(msgs, max_tokens=6, json_schema={"type": "object"})
    assert isinstance(a, Completion) and a.text == b.text
    assert 0 < a.completion_tokens <= 6 and a.prompt_tokens > 0 and a.model == judge.name


def test_think_block_is_stripped(tiny, monkeypatch):
    from training.hf_judge import HFJudge

    judge = HFJudge(tiny)
    judge.load()
    monkeypatch.setattr(judge._tok, "decode", lambda *a, **k: '<think>\nStep 1 (entity and attribute): x\n</think>\n{"a": 1}')
    out = judge.complete([{"role": "user", "content": "hi"}], max_tokens=2)
    assert out.text == '{"a": 1}' and "Step 1" in judge.last_think


def test_adapter_and_eval_backend(tiny, tmp_path):
    """A LoRA adapter folder loads on top of the base, and judge_eval runs it (invalid replies fall back)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training import judge_data as jd
    from training.judge_eval import evaluate, judge_fn

    peft_model = get_peft_model(AutoModelForCausalLM.from_pretrained(tiny),
                                LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"]))
    peft_model.save_pretrained(tmp_path / "adapter")
    AutoTokenizer.from_pretrained(tiny).save_pretrained(tmp_path / "adapter")
    items = jd.generate(2, n_train=0, n_heldout=2, heldout_profiles=2)["heldout"]
    fn, name = judge_fn(f"hf:{tiny}+{tmp_path / 'adapter'}", items, max_tokens=4)
    m, rows = evaluate(fn, items)
    assert m["n"] == 2 and m["invalid"] == 2 and all(r["status"] != "ok" for r in rows)
