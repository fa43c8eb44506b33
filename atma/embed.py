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
        rows = self._st.encode(
            [prefix + t for t in texts],
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(rows, dtype=np.float32)
