"""Reward-based refinement of the audit Judge: GRPO from the merged SFT checkpoint (App. A.8).

What: TRL ``GRPOTrainer`` with a fresh LoRA adapter (r 16, alpha 32) on the merged SFT model,
the overlay's Judge prompt, and the rule rewards of :mod:`training.rewards` (format, verdict
correctness, implicit-violation success, length, tag cohesion, conclusion conciseness,
prompt echo, old-memory preservation, transition-summary quality). The adapter is saved to
``output_dir`` and, with ``--merge`` (default), merged under ``output_dir/merged``.

Run::

    python -m training.judge_grpo --model_name_or_path runs/judge-sft/merged --output_dir runs/judge-grpo
    python -m training.judge_grpo --config grpo.yaml --max_steps 50

Defaults: lr 2e-5, 200 steps, batch 1, grad-accum 4, 2 generations, max completion 400, KL 0.04.
The base loads unquantized (``--load_in_4bit`` applies to SFT; pass it here to try QLoRA-GRPO).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from training.judge_config import JudgeGRPOConfig, JudgeModelConfig, JudgeScriptArguments

__all__ = ["GRPOModelConfig", "grpo_dataset", "main", "make_parser"]

log = logging.getLogger(__name__)


@dataclass
class GRPOModelConfig(JudgeModelConfig):
    """The GRPO stage's model defaults: the merged SFT checkpoint, LoRA r 16 / alpha 32, no 4-bit."""

    model_name_or_path: str | None = field(default="runs/judge-sft/merged", metadata={
        "help": "The merged SFT checkpoint (output of training.judge_sft)."})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank."})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha."})
    load_in_4bit: bool = field(default=False, metadata={"help": "4-bit base weights (CUDA + bitsandbytes only)."})


def grpo_dataset(items: Sequence[Mapping[str, Any]]):
    """Prompt rows with the columns the rewards read: ``gold`` (verdict JSON), ``implicit``."""
    from datasets import Dataset

    from training.judge_data import item_messages

    return Dataset.from_list([
        {"prompt": [dict(m) for m in item_messages(i)], "gold": json.dumps(i["verdict"]), "implicit": bool(i["implicit"])}
        for i in items])


def main(script_args: JudgeScriptArguments, training_args: JudgeGRPOConfig, model_args: GRPOModelConfig
         ) -> dict[str, Any]:
    from transformers import AutoTokenizer
    from trl import GRPOTrainer, get_peft_config

    from training.judge_data import load_items
    from training.judge_sft import merge_adapter, model_init_kwargs
    from training.rewards import REWARD_FUNCS

    train = load_items(script_args.data, "train")
    if script_args.train_limit:
        train = train[: script_args.train_limit]
    training_args.model_init_kwargs = model_init_kwargs(model_args, quantize_when_cuda=script_args.quantize_when_cuda)
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path, padding_side="left")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    trainer = GRPOTrainer(
        model=model_args.model_name_or_path,
        reward_funcs=list(REWARD_FUNCS),
        args=training_args,
        train_dataset=grpo_dataset(train),
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args) if model_args.use_peft else None,
    )
    t0 = time.perf_counter()
    trainer.train()
    train_s = time.perf_counter() - t0
    out = Path(training_args.output_dir)
    trainer.save_model(str(out))
    tokenizer.save_pretrained(out)
    logs = [h for h in trainer.state.log_history if "reward" in h]
    summary: dict[str, Any] = {
        "base": model_args.model_name_or_path, "train_items": len(train), "steps": trainer.state.global_step,
        "train_s": round(train_s, 2), "s_per_step": round(train_s / max(trainer.state.global_step, 1), 3),
        "rewards": [{k: v for k, v in h.items() if k.startswith("reward") or k in ("step", "kl")} for h in logs],
    }
    if script_args.merge and model_args.use_peft:
        summary["merged"] = str(merge_adapter(model_args.model_name_or_path, out, out / "merged"))
    (out / "judge_grpo_summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    log.info("GRPO done: %s", summary)
    return summary


def make_parser(subparsers: Any = None):
    from trl import TrlParser

    dataclass_types = (JudgeScriptArguments, JudgeGRPOConfig, GRPOModelConfig)
    if subparsers is not None:
        return subparsers.add_parser("judge-grpo", help="Judge GRPO", dataclass_types=dataclass_types)
    return TrlParser(dataclass_types)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    parser = make_parser()
    script_args, training_args, model_args = parser.parse_args_and_config()
    main(script_args, training_args, model_args)
