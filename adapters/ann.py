"""Approximate nearest-neighbour index for one namespace's dense vectors (HNSW, usearch).

What it is for: the builtin host's exact dense search is one matrix-vector product over
every row of a namespace, linear in its size (at 10,000 rows it was most of a retrieve's
time). Above a size threshold the host asks this index for a short list of candidates and
re-scores them exactly against its own matrix, so scores and tie order stay those of exact
search and only the candidate list is approximate.

Why usearch (``pip install 'atma[ann]'``): of the maintained libraries it is the one that
installs here as a binary wheel (hnswlib 0.8.0 is a source tarball that needs a compiler),
it can remove keys (the host hard-deletes on erase; faiss' HNSW cannot remove), it adds one
vector at a time cheaply (the host appends on every write) and it saves and restores an
index to a file. sqlite-vec 0.1's ``vec0`` is exact (a scan), not an ANN.

Truth and safety: the SQLite file is the source of truth. The index is saved beside it
(``<db>.ann-<n>.usearch``) only as a cache; whatever is loaded is reconciled key by key
and vector by vector against the rows the host just read from SQLite (missing keys added,
unknown keys removed, changed vectors replaced), so an index that is stale, from another
file state, corrupt or missing is repaired or rebuilt, never trusted. After an erase the
file is deleted (it would keep the erased vectors) and written again, from the live rows
only, when the host closes.

Without usearch installed :func:`available` is False and the host keeps exact search.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

__all__ = ["AnnIndex", "available", "DEFAULT_THRESHOLD"]

log = logging.getLogger(__name__)

# Rows from which the host searches through the index. Exact search is cheap below it (retrieve
# p50 3.2 ms at 10,000 rows of 384-d vectors, ``python -m eval.bench scale``, 2 loaded cores) and
# exact; the index costs memory, an add per write, and a one-off build when a namespace crosses it.
DEFAULT_THRESHOLD = 20_000

# Graph and search widths, raised from usearch's defaults for recall on the benchmark's 384-d hash
# vectors (sparse bags of words, a hard case for HNSW); ``python -m eval.bench scale`` reports
# recall@10 against exact search at each size.

_CONNECTIVITY = 32
_EXPANSION_ADD = 128
_EXPANSION_SEARCH = 256


def available() -> bool:
    """Whether usearch can be imported (the ``[ann]`` extra)."""
    try:
        import usearch.index  # noqa: F401
    except ImportError:
        return False
    return True


def _new(dim: int) -> Any:
    from usearch.index import Index

    # Inner product on normalised vectors is cosine; f16 halves memory and file size and
    # only orders candidates (the host re-scores them in float32).
    return Index(ndim=dim, metric="ip", dtype="f16", connectivity=_CONNECTIVITY,
                 expansion_add=_EXPANSION_ADD, expansion_search=_EXPANSION_SEARCH)


class AnnIndex:
    """An HNSW index keyed by host row seq. Build it with :meth:`build` or :meth:`load`."""

    def __init__(self, index: Any, dim: int) -> None:
        self._index = index
        self.dim = dim
        self.erased = False  # keys were removed: a saved file would still hold their vectors

    @classmethod
    def build(cls, seqs: np.ndarray, vecs: np.ndarray) -> "AnnIndex":
        ann = cls(_new(vecs.shape[1]), vecs.shape[1])
        ann.add(seqs, vecs)
        return ann

    @classmethod
    def load(cls, path: str, seqs: np.ndarray, vecs: np.ndarray) -> tuple["AnnIndex", dict[str, int]]:
        """The index saved at ``path`` made equal to (``seqs``, ``vecs``), the rows just read from
        SQLite; a file that is missing or unreadable gives a fresh build. Returns the index and
        what reconciling changed (``added``, ``removed``, ``replaced``, ``rebuilt``)."""
        from usearch.index import Index

        dim = vecs.shape[1]
        index = None
        if os.path.exists(path):
            try:
                index = Index.restore(path)
            except Exception as exc:  # noqa: BLE001 - any unreadable cache is rebuilt
                log.warning("ANN index %s unreadable (%s); rebuilding from SQLite", path, exc)
                index = None
            if index is not None and (index.ndim != dim or str(index.metric_kind).lower().find("ip") < 0):
                log.warning("ANN index %s has another shape or metric; rebuilding from SQLite", path)
                index = None
        if index is None:
            return cls.build(seqs, vecs), {"added": len(seqs), "removed": 0, "replaced": 0, "rebuilt": 1}
        ann = cls(index, dim)
        return ann, {**ann.reconcile(seqs, vecs), "rebuilt": 0}

    def __len__(self) -> int:
        return len(self._index)

    def add(self, seqs: np.ndarray, vecs: np.ndarray) -> None:
        if len(seqs):
            self._index.add(np.asarray(seqs, dtype=np.uint64), np.asarray(vecs, dtype=np.float32), threads=1)

    def remove(self, seqs: np.ndarray) -> None:
        if len(seqs):
            self._index.remove(np.asarray(seqs, dtype=np.uint64))
            self.erased = True

    def keys(self) -> np.ndarray:
        return np.sort(np.asarray(self._index.keys, dtype=np.int64))

    def reconcile(self, seqs: np.ndarray, vecs: np.ndarray) -> dict[str, int]:
        """Make the index hold exactly ``seqs`` with exactly ``vecs`` (as float16)."""
        have = self.keys()
        gone = np.setdiff1d(have, seqs, assume_unique=True)
        new_mask = ~np.isin(seqs, have, assume_unique=True)
        both = ~new_mask
        replaced = 0
        if both.any():
            stored = self._index.get(np.asarray(seqs[both], dtype=np.uint64))
            stored = np.asarray(stored, dtype=np.float16).reshape(-1, self.dim)
            differs = np.any(stored != vecs[both].astype(np.float16), axis=1)
            if differs.any():
                stale = seqs[both][differs]
                self._index.remove(np.asarray(stale, dtype=np.uint64))
                self.add(stale, vecs[both][differs])
                replaced = int(differs.sum())
        self.remove(gone)
        self.add(seqs[new_mask], vecs[new_mask])
        return {"added": int(new_mask.sum()), "removed": len(gone), "replaced": replaced}

    def candidates(self, q: np.ndarray, count: int) -> np.ndarray:
        """Seqs of up to ``count`` approximate nearest rows to ``q``."""
        found = self._index.search(np.asarray(q, dtype=np.float32), count, threads=1)
        return np.asarray(found.keys, dtype=np.int64)

    def save(self, path: str) -> None:
        """Write the index to ``path`` atomically (a temporary file, then a rename)."""
        tmp = f"{path}.tmp"
        self._index.save(tmp)
        os.replace(tmp, path)
