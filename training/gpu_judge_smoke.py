"""CUDA smoke run of the Judge pipeline: 4-bit QLoRA SFT, then a few GRPO steps, with step times.

What: builds a tiny random Qwen2 (``--hidden 256``, 2 layers) with an in-memory tokenizer
(:func:`training.judge_config.write_tiny_checkpoint`; or ``--tokenizer DIR`` with real Qwen2.5
tokenizer files), writes a small slice of the audit data, runs :mod:`training.judge_sft` with
NF4 quantization (bitsandbytes) + LoRA r 64 and merges, then :mod:`training.judge_grpo` with
LoRA r 16 on the merged model, and prints one JSON line of timings (also ``--out``/smoke.json).

Why: the GPU machine has torch/transformers/peft but no trl, bitsandbytes or datasets;
bring those wheels (``pip install --no-index --no-deps --target DIR`` and ``PYTHONPATH=DIR``).
It fails fast, with the reason, when CUDA or a needed package is missing: this script does
not fall back to CPU (the CPU path is ``tests/integration/test_judge_train_smoke.py``).

Run: ``python -m training.gpu_judge_smoke --out runs/gpu-judge-smoke``
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Sequence


def _preflight() -> dict[str, str]:
    """Versions of what the run needs; exit 2 with the reason if anything is missing."""
    missing, versions = [], {}
    for mod in ("torch", "transformers", "peft", "trl", "datasets", "accelerate", "bitsandbytes"):
        try:
            versions[mod] = getattr(importlib.import_module(mod), "__version__", "?")
        except Exception as e:  # noqa: BLE001 - report any import failure
            missing.append(f"{mod} ({type(e).__name__}: {e})")
    problems = []
    if missing:
        problems.append("missing packages: " + "; ".join(missing) + " (install the wheels with "
                        "pip install --no-index --no-deps --target DIR, then PYTHONPATH=DIR)")
    if "torch" in versions:
        import torch

        if not torch.cuda.is_available():
            problems.append(f"CUDA is not available (torch {torch.__version__}); this script only runs on a GPU. "
                            "CPU smoke path: pytest -m integration tests/integration/test_judge_train_smoke.py")
        else:
            versions["device"] = torch.cuda.get_device_name(0)
    if problems:
        sys.exit("gpu_judge_smoke: " + " | ".join(problems))
    return versions


def main(argv: Sequence[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m training.gpu_judge_smoke", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="runs/gpu-judge-smoke", help="work and result directory")
    ap.add_argument("--hidden", type=int, default=256, help="tiny model hidden size")
    ap.add_argument("--sft-steps", type=int, default=30, help="QLoRA SFT steps")
    ap.add_argument("--grpo-steps", type=int, default=6, help="GRPO steps")
    ap.add_argument("--tokenizer", default="", help="optional folder with real Qwen2.5 tokenizer files")
    args = ap.parse_args(argv)
    versions = _preflight()

    from training import judge_data as jd
    from training.judge_config import (JudgeGRPOConfig, JudgeModelConfig, JudgeScriptArguments, JudgeSFTConfig,
                                       write_tiny_checkpoint)
    from training.judge_grpo import GRPOModelConfig, main as grpo_main
    from training.judge_sft import main as sft_main

    out = Path(args.out)
    t0 = time.perf_counter()
    tiny = write_tiny_checkpoint(out / "tiny", hidden_size=args.hidden, vocab_size=3000, n_items=120)
    if args.tokenizer:
        from transformers import AutoConfig, AutoTokenizer, Qwen2ForCausalLM

        tok = AutoTokenizer.from_pretrained(args.tokenizer)
        cfg = AutoConfig.from_pretrained(tiny)
        cfg.vocab_size, cfg.eos_token_id, cfg.pad_token_id = len(tok), tok.eos_token_id, tok.pad_token_id
        Qwen2ForCausalLM(cfg).save_pretrained(tiny)
        tok.save_pretrained(tiny)
    data = out / "data"
    jd.write_items(jd.generate(5, n_train=64, n_heldout=8), data, seed=5)
    setup_s = time.perf_counter() - t0

    sft = sft_main(
        JudgeScriptArguments(data=str(data), eval_limit=8),
        JudgeSFTConfig(output_dir=str(out / "sft"), max_steps=args.sft_steps, logging_steps=1, seed=0),
        JudgeModelConfig(model_name_or_path=str(tiny)),  # paper defaults: NF4, r 64, alpha 16, batch 4 x 4
    )
    grpo = grpo_main(
        JudgeScriptArguments(data=str(data), merge=False),
        JudgeGRPOConfig(output_dir=str(out / "grpo"), max_steps=args.grpo_steps, max_completion_length=64,
                        logging_steps=1, seed=0),
        GRPOModelConfig(model_name_or_path=sft["merged"]),
    )
    result = {
        "versions": versions, "setup_s": round(setup_s, 2),
        "sft": {k: sft[k] for k in ("steps", "train_s", "s_per_step", "quantized", "train_loss", "eval_loss")},
        "sft_first_last_loss": [sft["logged_losses"][0], sft["logged_losses"][-1]],
        "grpo": {"steps": grpo["steps"], "train_s": grpo["train_s"], "s_per_step": grpo["s_per_step"],
                 "last_reward": grpo["rewards"][-1].get("reward") if grpo["rewards"] else None},
    }
    (out / "smoke.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))
    if not sft["quantized"]:
        sys.exit("gpu_judge_smoke: SFT ran but the model was not quantized (bitsandbytes/CUDA path not taken)")
    return result


if __name__ == "__main__":
    main()
