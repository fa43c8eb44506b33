"""The builtin host's ANN index (adapters.ann): used above the threshold, close to exact search,
saved beside the file, reconciled with SQLite when loaded, dropped on erase, optional."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from adapters.ann import AnnIndex
from adapters.builtin import BuiltinHost
from atma.testing import HashEmbedder

WORDS = [f"w{i}" for i in range(400)]


def texts(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(6)) + f" item{i}" for i in range(n)]


def vec(emb: HashEmbedder, text: str) -> np.ndarray:
    return emb.encode([text])[0]


def open_host(path, threshold=200) -> BuiltinHost:
    return BuiltinHost(path, embedder=HashEmbedder(64), ann_threshold=threshold)


def exact(path) -> BuiltinHost:
    return open_host(path, threshold=10**9)


def sidecars(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.glob("*.usearch"))


def test_search_goes_through_the_ann_above_the_threshold_and_keeps_exact_recall(tmp_path):
    emb = HashEmbedder(64)
    queries = [vec(emb, q) for q in texts(40, seed=7)]
    with open_host(tmp_path / "m.db") as h:
        h.add_many(texts(150), namespace="u")
        assert h.dense_kind("u") == "exact" and h.dense_recall(queries, namespace="u") is None
        h.add_many(texts(350, seed=2), namespace="u")
        assert h.dense_kind("u") == "ann"
        assert h.dense_recall(queries, namespace="u", k=10) >= 0.95
        with exact(":memory:") as ref:
            ref.add_many(texts(150) + texts(350, seed=2), namespace="u")
            same = sum(h.search(q, namespace="u", k=5) == ref.search(q, namespace="u", k=5) for q in texts(40, seed=7))
        assert same >= 36  # the fused top 5 of exact search, nearly always


def test_the_index_is_saved_on_close_and_reloaded_as_is(tmp_path):
    with open_host(tmp_path / "m.db") as h:
        h.add_many(texts(300), namespace="u")
        assert h.dense_kind("u") == "ann"
    [saved] = sidecars(tmp_path)
    with exact(tmp_path / "m.db") as h:
        index = h._index("u")
        ann, changed = AnnIndex.load(str(saved), index.seqs[: index.n], index.vecs[: index.n])
    assert changed == {"added": 0, "removed": 0, "replaced": 0, "rebuilt": 0} and len(ann) == 300


def test_a_stale_or_corrupt_index_file_is_repaired_never_trusted(tmp_path):
    db = tmp_path / "m.db"
    with open_host(db) as h:
        ids = h.add_many(texts(300), namespace="u")
        h.search("w1", namespace="u")
    [saved] = sidecars(tmp_path)
    old = saved.read_bytes()
    with open_host(db) as h:  # rows added and erased after the file was written
        h.erase(ids[:20], namespace="u")
        h.add_many(texts(60, seed=3), namespace="u")
    saved.write_bytes(old)  # an older file comes back (a crash before the save, a restored copy)
    queries = texts(30, seed=9)
    with open_host(db) as h, exact(db) as ref:
        assert [h.search(q, namespace="u", k=5) for q in queries] == [ref.search(q, namespace="u", k=5) for q in queries]
        assert list(h._ann["u"].keys()) == list(ref._index("u").seqs[: ref._index("u").n])
    saved.write_bytes(b"not an index")
    with open_host(db) as h, exact(db) as ref:
        assert [h.search(q, namespace="u", k=5) for q in queries] == [ref.search(q, namespace="u", k=5) for q in queries]


def test_reconcile_replaces_a_vector_that_changed_under_the_same_key():
    emb = HashEmbedder(64)
    a, b = texts(2, seed=5)
    seqs = np.array([1, 2], dtype=np.int64)
    ann = AnnIndex.build(seqs, emb.encode([a, a]))
    changed = ann.reconcile(seqs, emb.encode([a, b]))
    assert changed == {"added": 0, "removed": 0, "replaced": 1}
    assert ann.candidates(vec(emb, b), 1)[0] == 2


def test_erase_deletes_the_saved_index_and_no_file_keeps_erased_rows(tmp_path):
    db = tmp_path / "m.db"
    with open_host(db) as h:
        ids = h.add_many(texts(300), namespace="u")
        h.search("w1", namespace="u")
    assert sidecars(tmp_path)
    with open_host(db) as h:
        h.search("w1", namespace="u")
        h.erase(ids[:5], namespace="u")
        assert not sidecars(tmp_path)  # removed at once, not at close
        assert h.dense_kind("u") == "ann"
    assert not sidecars(tmp_path)  # an index with removed rows is not written
    with open_host(db) as h:
        assert h.dense_kind("u") == "ann"
        assert not set(h._ann["u"].keys()) & {int(i[1:]) for i in ids[:5]}


def test_dropping_below_the_threshold_returns_to_exact_search(tmp_path):
    with open_host(tmp_path / "m.db") as h:
        ids = h.add_many(texts(220), namespace="u")
        assert h.dense_kind("u") == "ann"
        h.erase(ids[:40], namespace="u")
        assert h.dense_kind("u") == "exact"


def test_without_usearch_search_is_exact_and_works(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "usearch.index", None)  # import fails as if not installed
    with open_host(tmp_path / "m.db") as h:
        h.add_many(texts(300), namespace="u")
        assert h.dense_kind("u") == "exact"
        assert h.search("w1 w2", namespace="u", k=3)
    assert not sidecars(tmp_path)
