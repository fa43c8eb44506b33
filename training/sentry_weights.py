"""What training does to the Sentry's weights: which to train, and writing a checkpoint.

:func:`freeze_all_but_last` leaves only the heads and the backbone's last N transformer layers
trainable; :func:`save_checkpoint` writes the file :func:`atma.sentry_encoder.load_encoder`
reads (format :data:`atma.sentry_encoder.CHECKPOINT_FORMAT`): heads, config, Eq. 4 thresholds,
meta and, for a fine-tuned backbone, the tuned weights (:func:`atma.sentry_encoder.tuned_state`,
which the encoder also hashes into its ``weights_digest``). Used by ``python -m training.sentry``.
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from atma.sentry import Thresholds
from atma.sentry_encoder import CHECKPOINT_FORMAT, SentryEncoder, tuned_state

__all__ = ["freeze_all_but_last", "save_checkpoint"]


def freeze_all_but_last(backbone: Any, tuned_layers: int) -> list[Any]:
    """Freeze the backbone except its last ``tuned_layers`` transformer layers (0: nothing
    frozen); returns the trainable parameters."""
    keep = set(tuned_state(backbone, tuned_layers)) if tuned_layers > 0 else None
    out = []
    for name, prm in backbone.named_parameters():
        prm.requires_grad_(keep is None or name in keep)
        if prm.requires_grad:
            out.append(prm)
    return out


def save_checkpoint(encoder: SentryEncoder, path: str | Path, *, thresholds: Thresholds = Thresholds(),
                    meta: dict[str, Any] | None = None) -> Path:
    """Write ``encoder``'s heads (and, when fine-tuned, its tuned backbone weights), config,
    ``thresholds`` and ``meta`` to ``path``; returns the path."""
    import torch

    payload: dict[str, Any] = {
        "format": CHECKPOINT_FORMAT,
        "config": asdict(encoder.config),
        "thresholds": asdict(thresholds),
        "heads": {k: v.detach().cpu() for k, v in encoder.heads.state_dict().items()},
        "meta": json.dumps(meta or {}),
    }
    if encoder.config.backbone_finetuned:
        payload["backbone_state"] = {k: v.detach().cpu()
                                     for k, v in tuned_state(encoder.backbone, encoder.config.tuned_layers).items()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save(payload, buf)
    path.write_bytes(buf.getvalue())
    return path
