"""Supervised warm-up of the audit Judge: (Q)LoRA SFT on the CoT audit items (App. A.8).

What: TRL ``SFTTrainer`` + PEFT LoRA on prompt/completion pairs, where the prompt is the
overlay's Judge prompt (:func:`atma.judge.judge_messages`) and the completion is the item's
CoT target (``<think>`` with four labelled steps, then the JSON verdict). Loss is on the
completion only. With CUDA (and ``--load_in_4bit``, the default) the base loads in 4-bit NF4
through bitsandbytes; on CPU it loads unquantized. After training the adapter is saved to
``output_dir`` and, with ``--merge`` (default), merged into the base under ``output_dir/merged``
(the starting point of :mod:`training.judge_grpo`).

Run::

    python -m training.judge_data --out checkpoints/judge/data
    python -m training.judge_sft --model_name_or_path Qwen/Qwen2.5-3B-Instruct --output_dir runs/judge-sft
    python -m training.judge_sft --config sft.yaml --learning_rate 1e-4   # YAML + CLI overrides

Defaults: LoRA r 64, alpha 16, dropout 0.05, batch 4, grad-accum 4, lr 2e-4, max length 2048.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from training.judge_config import JudgeModelConfig, JudgeScriptArguments, JudgeSFTConfig

__all__ = ["main", "make_parser", "merge_adapter", "model_init_kwargs", "sft_dataset"]

log = logging.getLogger(__name__)


def sft_dataset(items: Sequence[Mapping[str, Any]]):
    """Conversational prompt/completion rows (TRL computes the loss on the completion)."""
    from datasets import Dataset

    from training.judge_data import item_messages

    return Dataset.from_list([
        {"prompt": [dict(m) for m in item_messages(i)],
         "completion": [{"role": "assistant", "content": i["target"]}]}
        for i in items])


def model_init_kwargs(model_args: JudgeModelConfig, *, quantize_when_cuda: bool = True) -> dict[str, Any]:
    """dtype, and a 4-bit NF4 ``BitsAndBytesConfig`` + device map when CUDA is present."""
    import torch

    cuda = torch.cuda.is_available()
    dtype = model_args.dtype
    if dtype in (None, "auto"):
        dtype = "bfloat16" if cuda else "float32"
    kwargs: dict[str, Any] = {"dtype": getattr(torch, dtype)}
    if cuda and quantize_when_cuda and (model_args.load_in_4bit or model_args.load_in_8bit):
        try:
            import bitsandbytes  # noqa: F401
        except ImportError as e:
            raise ImportError("4-bit QLoRA needs bitsandbytes (pip install bitsandbytes); "
                              "or pass --load_in_4bit false") from e
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=model_args.load_in_4bit, load_in_8bit=model_args.load_in_8bit,
            bnb_4bit_quant_type=model_args.bnb_4bit_quant_type, bnb_4bit_compute_dtype=kwargs["dtype"],
            bnb_4bit_use_double_quant=model_args.use_bnb_nested_quant)
        kwargs["device_map"] = {"": torch.cuda.current_device()}
    return kwargs


def merge_adapter(base: str, adapter_dir: str | Path, out_dir: str | Path) -> Path:
    """Reload the base unquantized, apply the adapter, merge, save model + tokenizer."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype = torch.bfloat16 if torch.cuda.is_available() else torch.float32
    model = AutoModelForCausalLM.from_pretrained(base, dtype=dtype)
    merged = PeftModel.from_pretrained(model, str(adapter_dir)).merge_and_unload()
    out = Path(out_dir)
    merged.save_pretrained(out)
    AutoTokenizer.from_pretrained(str(adapter_dir)).save_pretrained(out)
    return out


def main(script_args: JudgeScriptArguments, training_args: JudgeSFTConfig, model_args: JudgeModelConfig
         ) -> dict[str, Any]:
    from transformers import AutoTokenizer
    from trl import SFTTrainer, get_peft_config

    from training.judge_data import load_items

    train = load_items(script_args.data, "train")
    if script_args.train_limit:
        train = train[: script_args.train_limit]
    heldout = [] if script_args.eval_limit < 0 else load_items(script_args.data, "heldout")
    if script_args.eval_limit > 0:
        heldout = heldout[: script_args.eval_limit]
    if not heldout:
        training_args.eval_strategy = "no"
    elif training_args.eval_strategy == "no":
        training_args.eval_strategy = "epoch"

    training_args.model_init_kwargs = model_init_kwargs(model_args, quantize_when_cuda=script_args.quantize_when_cuda)
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    trainer = SFTTrainer(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=sft_dataset(train),
        eval_dataset=sft_dataset(heldout) if heldout else None,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args) if model_args.use_peft else None,
    )
    t0 = time.perf_counter()
    result = trainer.train()
    train_s = time.perf_counter() - t0
    out = Path(training_args.output_dir)
    trainer.save_model(str(out))
    tokenizer.save_pretrained(out)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    summary: dict[str, Any] = {
        "base": model_args.model_name_or_path, "train_items": len(train), "eval_items": len(heldout),
        "steps": trainer.state.global_step, "train_loss": result.training_loss, "logged_losses": losses,
        "train_s": round(train_s, 2), "s_per_step": round(train_s / max(trainer.state.global_step, 1), 3),
        "quantized": "quantization_config" in training_args.model_init_kwargs,
    }
    if heldout:
        summary["eval_loss"] = trainer.evaluate().get("eval_loss")
    if script_args.merge and model_args.use_peft:
        summary["merged"] = str(merge_adapter(model_args.model_name_or_path, out, out / "merged"))
    (out / "judge_sft_summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    log.info("SFT done: %s", summary)
    return summary


def make_parser(subparsers: Any = None):
    from trl import TrlParser

    dataclass_types = (JudgeScriptArguments, JudgeSFTConfig, JudgeModelConfig)
    if subparsers is not None:
        return subparsers.add_parser("judge-sft", help="Judge SFT", dataclass_types=dataclass_types)
    return TrlParser(dataclass_types)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    parser = make_parser()
    script_args, training_args, model_args = parser.parse_args_and_config()
    main(script_args, training_args, model_args)
