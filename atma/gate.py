"""The embedding-similarity pair gate: the baseline behind the ``PairGate`` protocol.

A pair goes to the Judge when the cosine of the two records' embeddings reaches the
threshold. The trained Sentry (``atma.sentry``) implements the same protocol.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .protocols import Embedder, GateScore

__all__ = ["CosineGate"]


class CosineGate:
    """``a`` = cosine similarity; ``b`` and ``d`` are undefined for this gate."""

    def __init__(self, embedder: Embedder, threshold: float = 0.5) -> None:
        self.embedder = embedder
        self.threshold = float(threshold)
        self.name = f"cosine@{self.threshold:g}"
        self.cache_key = f"cos:{embedder.name}:{embedder.dim}"
        self.dim = embedder.dim

    def features(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder.encode(list(texts)), dtype=np.float32)

    def route(self, new: np.ndarray, olds: np.ndarray) -> list[GateScore]:
        if len(olds) == 0:
            return []
        sims = np.asarray(olds, dtype=np.float32) @ np.asarray(new, dtype=np.float32)
        return [GateScore(a=float(s), b=None, d=None, escalate=bool(s >= self.threshold)) for s in sims]
