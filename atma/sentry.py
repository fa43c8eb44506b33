"""Sentry: the routing rule that decides which (old, new) record pairs go to the Judge.

Paper §4.3, Eq. 3–4, App. A.8. Each record has a row ``[z_top | z_log]`` (two L2-normalised
projections of its embedding, made by :class:`atma.sentry_encoder.SentryEncoder`)::

    a = <z_top_i, z_top_j>             topic agreement  (same state slot?)
    b = <z_log_i, z_log_j>             logic compatibility (do they agree?)
    d = a - b                          gap: topically close but logically apart

    escalate  <=>  a > tau_top  and  (b < tau_log  or  d > tau_gap)          (Eq. 4)

``SentryGate.features`` returns one row per record; the overlay caches rows under
``cache_key``, so ``route`` is two dot products per pair and never re-encodes.
``CosineGate`` is the plain-similarity baseline with the same protocol.

This module is pure numpy: the encoder, its backbone and checkpoints are the backend
module :mod:`atma.sentry_encoder` (torch, sentence-transformers), loaded only when a gate
needs to encode text with a model.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from atma.protocols import Embedder, GateScore

if TYPE_CHECKING:
    from atma.sentry_encoder import SentryEncoder

__all__ = [
    "DEFAULT_COSINE_THRESHOLD",
    "CosineGate",
    "SentryGate",
    "Thresholds",
    "gap",
    "route_mask",
]

# Chosen on the validation split of the Sentry data with the packaged MiniLM: the highest
# cosine threshold that keeps validation recall >= 0.95 (see checkpoints/sentry/card.md).
DEFAULT_COSINE_THRESHOLD = 0.293


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
    or a backbone name for :func:`atma.sentry_encoder.load_backbone` (``None``: the packaged
    MiniLM; loads sentence-transformers)."""

    name = "cosine"

    def __init__(self, embedder_or_backbone: Any = None, threshold: float = DEFAULT_COSINE_THRESHOLD,
                 *, device: str = "cpu") -> None:
        self.threshold = threshold
        src = embedder_or_backbone
        if src is None or isinstance(src, str):
            from atma.sentry_encoder import MINILM, MINILM_SHA256, canonical_backbone, load_backbone

            name = canonical_backbone(src)
            self._model, self._embedder = load_backbone(name, device=device), None
            ident = f"{name.rsplit('/', 1)[-1]}:{(MINILM_SHA256 if name == MINILM else name)[:16]}"
        elif isinstance(src, Embedder):
            self._model, self._embedder = None, src
            ident = f"{src.name}:{src.dim}"
        else:  # a SentenceTransformer-like object with encode()
            self._model, self._embedder = src, None
            from atma.sentry_encoder import embedding_dim

            ident = f"st:{type(src).__name__}:{embedding_dim(src)}"
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


