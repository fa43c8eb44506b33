"""CPU smoke runs of the Judge SFT and GRPO scripts on a tiny random Qwen2.

Proves the loops run end to end on the real data format and prompt: SFT loss falls and the
adapter merges; GRPO samples completions and logs every rule reward. Kept to a few steps.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("trl", reason="needs the [train] extra")
pytest.importorskip("peft", reason="needs the [train] extra")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from training.judge_config import write_tiny_checkpoint

    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny"), vocab_size=3000, n_items=120)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    from training import judge_data as jd

    out = tmp_path_factory.mktemp("judge-data")
    jd.write_items(jd.generate(5, n_train=16, n_heldout=4), out, seed=5)
    return out


@pytest.fixture(scope="module")
def sft_run(tiny, data_dir, tmp_path_factory):
    from training.judge_config import JudgeModelConfig, JudgeScriptArguments, JudgeSFTConfig
    from training.judge_sft import main

    out = tmp_path_factory.mktemp("sft")
    script = JudgeScriptArguments(data=str(data_dir), train_limit=8, eval_limit=-1)
    args = JudgeSFTConfig(output_dir=str(out), max_steps=8, per_device_train_batch_size=2,
                          gradient_accumulation_steps=1, learning_rate=5e-3, logging_steps=1, warmup_ratio=0.0,
                          lr_scheduler_type="constant", gradient_checkpointing=False, use_cpu=True, seed=0)
    model = JudgeModelConfig(model_name_or_path=str(tiny), lora_r=8, lora_alpha=16)
    return main(script, args, model), out


def test_sft_loss_falls_and_merges(sft_run):
    summary, out = sft_run
    losses = summary["logged_losses"]
    assert summary["steps"] == 8 and not summary["quantized"]
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3, losses
    assert (out / "adapter_config.json").is_file()
    assert (out / "merged" / "config.json").is_file()
    assert json.loads((out / "judge_sft_summary.json").read_text())["steps"] == 8


def test_grpo_computes_rewards(sft_run, data_dir, tmp_path):
    from training.judge_config import JudgeGRPOConfig, JudgeScriptArguments
    from training.judge_grpo import GRPOModelConfig, main
    from training.rewards import REWARD_FUNCS

    _summary, sft_out = sft_run
    script = JudgeScriptArguments(data=str(data_dir), train_limit=4, merge=False)
    args = JudgeGRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2,
                           gradient_accumulation_steps=1, num_generations=2, max_completion_length=8,
                           logging_steps=1, use_cpu=True, seed=0)
    model = GRPOModelConfig(model_name_or_path=str(sft_out / "merged"), lora_r=4, lora_alpha=8)
    summary = main(script, args, model)
    assert summary["steps"] == 1
    logged = summary["rewards"][0]
    for fn in REWARD_FUNCS:
        assert f"rewards/{fn.__name__}/mean" in logged
    assert (tmp_path / "adapter_config.json").is_file()
