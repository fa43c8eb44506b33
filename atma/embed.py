"""SentenceTransformer embedder (extra ``atma[embed]``).

``model`` is a registry name (``"minilm"``: the packaged all-MiniLM-L6-v2, sha256-verified,
no hub), a local folder, or a hub id (users with a hub, e.g. ``nomic-ai/nomic-embed-text-v1.5``).
Loaded models are cached per (model, device) for the whole process, so constructing
an embedder again is free.

nomic models need a task prefix on every text and ``trust_remote_code``; both are set
for them automatically (``prefix="search_document: "``, ``query_prefix="search_query: "``).
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["SentenceTransformerEmbedder", "clear_cache"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_models: dict[tuple[str, str], Any] = {}


def clear_cache() -> None:
    """Forget every loaded model (they are freed when no embedder holds them)."""
    with _lock:
        _models.clear()


def _is_nomic(model: str) -> bool:
    return "nomic" in model.lower()


def _load(source: str, device: str, trust_remote_code: bool) -> Any:
    with _lock:
        key = (source, device)
        if key in _models:
            return _models[key]
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ImportError("the embedder needs sentence-transformers: pip install 'atma[embed]'") from e
        t0 = time.perf_counter()
        st = SentenceTransformer(source, device=device, trust_remote_code=trust_remote_code)
        logger.info("loaded embedder %s on %s in %.2fs", source, device, time.perf_counter() - t0)
        _models[key] = st
        return st


class SentenceTransformerEmbedder:
    """:class:`atma.protocols.Embedder`: texts to L2-normalised float32 rows of width ``dim``.

    ``prefix`` is prepended to every text :meth:`encode` gets, ``query_prefix`` to those of
    :meth:`encode_queries`; None means the model's convention ("" except for nomic).
    """

    def __init__(
        self,
        model: str = "minilm",
        *,
        device: str = "cpu",
        batch_size: int = 64,
        prefix: str | None = None,
        query_prefix: str | None = None,
    ) -> None:
        from atma import models

        self.model = model
        self.device = device
        self.batch_size = batch_size
        nomic = _is_nomic(model)
        self.prefix = prefix if prefix is not None else ("search_document: " if nomic else "")
        self.query_prefix = query_prefix if query_prefix is not None else ("search_query: " if nomic else self.prefix)
        self._sha256: str | None = None
        if model in models.REGISTRY:
            entry = models.REGISTRY[model]
            if entry.kind != "sentence-transformers":
                raise ValueError(f"{model} is a {entry.kind} model, not an embedder")
            source = str(models.resolve_model(model))
            self._sha256 = entry.sha256
        elif os.path.exists(os.path.expanduser(model)):
            source = str(Path(model).expanduser().resolve())
        else:
            source = model  # a hub id; needs a hub or a local HF cache
        self.source = source
        self.name = model
        self._st = _load(source, device, trust_remote_code=nomic)
        get_dim = getattr(self._st, "get_embedding_dimension", None) or self._st.get_sentence_embedding_dimension
        dim = get_dim()
        if dim is None:  # some models only know it after one forward pass
            dim = int(self._st.encode(["x"], convert_to_numpy=True).shape[1])
        self.dim = int(dim)
        self.recent_size = 2048
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def sha256(self) -> str | None:
        """sha256 of the weights file where known (registry models, local folders with
        ``model.safetensors``), else None."""
        if self._sha256 is None:
            weights = Path(self.source) / "model.safetensors"
            if weights.is_file():
                from atma.models import model_manifest

                self._sha256 = model_manifest(self.source)["sha256"]
        return self._sha256

    def manifest(self) -> dict[str, str | None]:
        """``{"name", "path", "sha256"}`` for result manifests."""
        return {"name": self.name, "path": self.source, "sha256": self.sha256}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts`` (with ``prefix``), shape (len(texts), dim), float32, unit norm."""
        return self._encode(texts, self.prefix)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Like :meth:`encode` but with ``query_prefix`` (asymmetric models such as nomic)."""
        return self._encode(texts, self.query_prefix)

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A write searches the host with the event text, stores it and gates it: the same
        # text reaches the embedder more than once in a row. Recent rows are kept.
        keys = [prefix + t for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._recent))
        if missing:
            rows = self._st.encode(
                missing,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
            rows = np.ascontiguousarray(rows, dtype=np.float32)
            for k, row in zip(missing, rows):
                self._recent[k] = row
            while len(self._recent) > self.recent_size:
                self._recent.popitem(last=False)
        out = np.empty((len(keys), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            row = self._recent.get(k)
            if row is None:  # evicted within this very batch (batch larger than the cache)
                row = np.asarray(self._st.encode([k], convert_to_numpy=True, normalize_embeddings=True,
                                                 show_progress_bar=False)[0], dtype=np.float32)
            else:
                self._recent.move_to_end(k)
            out[i] = row
        return out
