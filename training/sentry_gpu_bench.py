"""CPU vs CUDA Sentry training speed, one prepared script for the GPU machine.

    python -m training.sentry_gpu_bench [--epochs 3] [--max-interactions 400] [--out DIR]

Trains the Sentry gate for a few epochs with the backbone *unfrozen* (the heads-only path
is too small to show a device difference) once on CPU and once on CUDA, from the same
seed, and writes ``gpu_bench.json`` (seconds per run, epoch seconds, speedup, final val
losses, hardware) to ``--out`` (default: ``$OUT`` if set, else ``runs/sentry_gpu_bench``).
Also times the heads-only path on both devices. Exits 2 when CUDA is unavailable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def _run(device: str, *, freeze: bool, epochs: int, max_interactions: int, work: Path) -> dict:
    from training.sentry import TrainConfig, train

    cfg = TrainConfig(device=device, freeze_backbone=freeze, epochs=epochs,
                      max_interactions=max_interactions, progress=False,
                      out=str(work / f"{device.replace(':', '_')}_{'frozen' if freeze else 'full'}"),
                      cache_dir=str(work / "cache"))
    t0 = time.perf_counter()
    card = train(cfg)
    return {"device": device, "freeze_backbone": freeze, "seconds": round(time.perf_counter() - t0, 3),
            "train_seconds": card["timings_s"]["train"],
            "epoch_seconds": [h["seconds"] for h in card["training"]["history"][1:]],
            "val_loss": card["training"]["best_val_loss"],
            "test_profile_sentry": card["metrics"]["test_profile"]["sentry"],
            "hardware": card["hardware"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.sentry_gpu_bench")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--max-interactions", type=int, default=400)
    p.add_argument("--out", default=os.environ.get("OUT") or "runs/sentry_gpu_bench")
    args = p.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("CUDA is not available on this machine; nothing to compare.", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for freeze in (False, True):
            for device in ("cpu", "cuda"):
                runs.append(_run(device, freeze=freeze, epochs=args.epochs,
                                 max_interactions=args.max_interactions, work=Path(tmp)))
                print(json.dumps({k: runs[-1][k] for k in ("device", "freeze_backbone",
                                                           "train_seconds", "val_loss")}))
    by = {(r["device"], r["freeze_backbone"]): r for r in runs}
    result = {
        "epochs": args.epochs, "max_interactions": args.max_interactions, "runs": runs,
        "speedup_full_finetune": round(by[("cpu", False)]["train_seconds"]
                                       / max(by[("cuda", False)]["train_seconds"], 1e-9), 2),
        "speedup_heads_only": round(by[("cpu", True)]["train_seconds"]
                                    / max(by[("cuda", True)]["train_seconds"], 1e-9), 2),
    }
    (out / "gpu_bench.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"speedup (backbone unfrozen): {result['speedup_full_finetune']}x; "
          f"heads only: {result['speedup_heads_only']}x -> {out / 'gpu_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
