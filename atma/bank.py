"""StateBank: the SQLite store of records, statuses, links, cached gate features and traces.

I/O module. Every ``commit`` is one SQLite transaction (WAL journal): after a crash
the bank holds the whole commit or none of it. Every query is filtered by namespace.
Invariants (checked inside the transaction; a violating commit is rolled back):

* a slot never holds two ``active`` records without a ``coexists_with`` or
  ``scoped_exception`` link between them;
* ``supersedes``/``superseded_by``, ``evolves_from``/``evolves_to`` and
  ``coexists_with`` links are written in pairs;
* nothing is deleted by a state change; only :meth:`StateBank.erase` deletes.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .records import (
    COEXISTENCE,
    RECIPROCAL,
    Action,
    Commit,
    Link,
    LinkType,
    Record,
    Status,
    TransitionInfo,
)

__all__ = ["BankError", "InvariantError", "StateBank", "UnknownNamespace", "check_namespace"]

log = logging.getLogger(__name__)

# Feature and trace-reference rows are small and found by their keys: WITHOUT ROWID tables
# store each once, in its primary-key tree (no separate rowid table beside the key's index).
# Links keep their rowid: it is their order.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS bank_namespaces (
    name TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    next_seq INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS bank_records (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    time TEXT,
    speaker TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL,
    slot TEXT NOT NULL,
    host_id TEXT NOT NULL DEFAULT '',
    transition TEXT,
    meta TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (namespace, id)
);
CREATE INDEX IF NOT EXISTS bank_records_host ON bank_records(namespace, host_id);
CREATE INDEX IF NOT EXISTS bank_records_slot ON bank_records(namespace, slot);
CREATE TABLE IF NOT EXISTS bank_links (
    namespace TEXT NOT NULL,
    src TEXT NOT NULL,
    type TEXT NOT NULL,
    dst TEXT NOT NULL,
    PRIMARY KEY (namespace, src, type, dst)
);
CREATE INDEX IF NOT EXISTS bank_links_dst ON bank_links(namespace, dst);
CREATE TABLE IF NOT EXISTS bank_features (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    key TEXT NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (namespace, id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bank_traces (
    trace_id INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    created TEXT NOT NULL,
    body BLOB NOT NULL  -- zlib-compressed JSON (see _pack_trace), plain JSON text in older banks
);
CREATE INDEX IF NOT EXISTS bank_traces_ns ON bank_traces(namespace, trace_id);
CREATE TABLE IF NOT EXISTS bank_trace_refs (
    trace_id INTEGER NOT NULL,
    namespace TEXT NOT NULL,
    record_id TEXT NOT NULL,
    PRIMARY KEY (trace_id, record_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bank_trace_refs_rec ON bank_trace_refs(namespace, record_id);
CREATE TABLE IF NOT EXISTS bank_intents (
    namespace TEXT NOT NULL,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    created TEXT NOT NULL,
    host_id TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (namespace, token)
);
"""


class BankError(RuntimeError):
    """A bank operation was refused."""


class InvariantError(BankError):
    """A commit would break a bank invariant; nothing was written."""


class UnknownNamespace(BankError):
    """The namespace has never been written to."""


def check_namespace(namespace: Any, error: type[Exception] = ValueError) -> str:
    """A namespace is a non-empty string that UTF-8 can encode (no lone surrogates); else ``error``."""
    if not isinstance(namespace, str) or not namespace:
        raise error("namespace must be a non-empty string")
    try:
        namespace.encode("utf-8")
    except UnicodeEncodeError:
        raise error(f"namespace {namespace!r} is not valid text (lone surrogate)") from None
    return namespace


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


def _parse_time(s: str | None) -> datetime | None:
    return datetime.fromisoformat(s) if s else None


def connect_wal(path: str, *, busy_ms: int = 30000, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A connection on the file ``path`` in WAL mode that waits up to ``busy_ms`` for other writers.

    The busy timeout is set when the connection opens, before the journal-mode switch, because
    that switch takes a lock of its own: two processes opening a new file at once must wait for
    each other, not fail with "database is locked". SQLite can still answer BUSY without calling
    the busy handler (another connection recovering the WAL), so the switch is retried until the
    timeout is spent."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=busy_ms / 1000.0)
    try:
        conn.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
        deadline = time.monotonic() + busy_ms / 1000.0
        delay = 0.005
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
        conn.execute(f"PRAGMA synchronous={synchronous}")
    except BaseException:
        conn.close()
        raise
    return conn


_TRACE_MAGIC = b"z1"  # a trace body stored compressed: magic + zlib(JSON) with the preset dictionary below
#: zlib's preset dictionary for trace bodies: the keys and words every write and query trace
#: repeats, so a one-line write's trace compresses to ~200 bytes instead of ~530. Never edit it:
#: stored traces need it to decompress (a new dictionary takes a new magic).
_TRACE_DICT = (
    b'"query":"","namespace":"","profile":{"view":"current","guards":{"temporal":false},"cues":[]},"pool":[{"id":"r",'
    b'"bucket":"seed","score":0.,"source":"host#1"}],"prerank":[],"controller":{"mode":"off","status":"off",'
    b'"applied":false},"packet":[],"labelled":[{"id":"r","label":"","text":"","state":"plain","note":""}],'
    b'"prompt":[{"role":"system","content":""},{"role":"user","content":""}],"answer":"","check":{"suspect":false,'
    b'"reason":"consistent with the view","stale_words":[],"drop":[],"hint":"","first_pass":"host","first_answer":"",'
    b'"reasked":false},"sources":{},"config":{"k":5,"gate":"sentry","llm":"","packet_mode":"checked"},'
    b'"timings":{"retrieve_s":0.0,"controller_s":0.0,"controller_llm_s":0.0,"qa_llm_s":0.0,"non_llm_s":0.0,'
    b'"search_s":0.0,"gate_s":0.0,"judge_s":0.0,"judge_llm_s":0.0,"commit_s":0.0,"total_s":0.0,"plan_attempts":1.0}'
    b'{"kind":"write","audit":"audited","record_id":"r","host_id":"h","gate":"cosine","candidates":[{"id":"r",'
    b'"status":"active","source":"host#1","a":0.,"b":null,"d":null,"escalate":true},{"id":"r","status":"active",'
    b'"source":"head<-r","a":0.,"b":0.,"d":0.,"escalate":false}],"judge":[{"old_id":"r","status":"skipped",'
    b'"verdict":{"same_attribute":null,"old_still_true":null,"action":"supersede","conflict_status":"conflict",'
    b'"conflict_type":"temporal_update","links":["supersedes"],"reason":"fallback rule (rule judge): same topic, '
    b'change wording","transition_summary":"","old_state":"","clarification_needed":false,"same_value":null,'
    b'"confidence":0.},"fallback":true,"raw":"","error":"rule judge","latency_s":0.0}],"changes":[{"action":'
    b'"supersede","old_id":"r"}],"slot":"r","status":"active","timings":{"search_s":0.0,"gate_s":0.0,"judge_s":0.0,'
    b'"judge_llm_s":0.0,"commit_s":0.0,"total_s":0.0,"plan_attempts":1.0}}'
)


def _pack_trace(body: Mapping[str, Any]) -> bytes:
    """A trace body as stored: compact JSON, zlib-compressed with the preset dictionary."""
    z = zlib.compressobj(9, zdict=_TRACE_DICT)
    return _TRACE_MAGIC + z.compress(json.dumps(body, default=str, separators=(",", ":")).encode()) + z.flush()


def _trace_text(raw: bytes | str) -> str:
    if isinstance(raw, (bytes, memoryview)):
        raw = bytes(raw)
        if raw.startswith(_TRACE_MAGIC):
            z = zlib.decompressobj(zdict=_TRACE_DICT)
            return (z.decompress(raw[len(_TRACE_MAGIC):]) + z.flush()).decode()
        return raw.decode()
    return raw  # written before traces were compressed


def unpack_trace(raw: bytes | str) -> dict[str, Any]:
    """A stored trace body (compressed or, from older banks, plain JSON) as a dict."""
    return json.loads(_trace_text(raw))


def _pack_vec(vec: Any) -> bytes:
    """A cached gate feature row as stored: float16 (half the bytes; scores move by < 1e-3)."""
    return np.asarray(vec, dtype=np.float16).tobytes()


def _unpack_vec(blob: bytes, dim: int) -> np.ndarray | None:
    """float16 rows, or float32 rows from older banks; None when the width is not ``dim``."""
    for dtype in (np.float16, np.float32):
        if len(blob) == dim * np.dtype(dtype).itemsize:
            return np.frombuffer(blob, dtype=dtype).astype(np.float32)
    return None


class _RowConn:
    """A connection view whose statements return :class:`sqlite3.Row` rows without changing the
    connection's own ``row_factory`` (the connection may be a host's, shared for one transaction)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur.execute(sql, params)

    def executemany(self, sql: str, seq: Any) -> sqlite3.Cursor:
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur.executemany(sql, seq)

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def close(self) -> None:
        self.conn.close()


class StateBank:
    """SQLite-backed state bank. ``path`` may be ``":memory:"`` or a file shared with a host.

    ``connection`` (and its ``lock``): use a connection the bank shares with a host on the same
    file (see :meth:`share_connection`), so that one :meth:`unit` holds host rows and bank rows in
    one transaction."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, connection: sqlite3.Connection | None = None,
                 lock: Any = None) -> None:
        self.path = str(path)
        self._lock = lock or threading.RLock()
        self._sp = 0  # savepoint counter
        self._shared = connection is not None
        if connection is not None:
            conn = connection
        elif self.path == ":memory:":
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30.0)
        else:
            conn = connect_wal(self.path)
        self._db = _RowConn(conn)
        self._db.execute("PRAGMA foreign_keys=OFF")
        # Erased text is zeroed in the file, not left in free pages.
        self._db.execute("PRAGMA secure_delete=ON")
        with self._tx():
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    self._db.execute(stmt)

    @property
    def connection(self) -> sqlite3.Connection:
        return self._db.conn

    @property
    def shared(self) -> bool:
        """True when the bank writes through a connection it shares with its host."""
        return self._shared

    def share_connection(self, connection: sqlite3.Connection, lock: Any) -> None:
        """Write through ``connection`` (a host's, on the same file) from now on, serialised by
        ``lock``; the bank's own connection is closed. Then :meth:`unit` makes a host write and a
        bank commit one SQLite transaction."""
        with self._lock:
            if self._db.in_transaction:
                raise BankError("cannot switch connections inside a transaction")
            if not self._shared:
                self._db.close()
            self._db = _RowConn(connection)
            self._lock = lock
            self._shared = True
            self._db.execute("PRAGMA secure_delete=ON")
            with self._tx():
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        self._db.execute(stmt)

    # ----------------------------------------------------------------- plumbing
    @contextmanager
    def _tx(self) -> Iterator[_RowConn]:
        """One transaction; inside an open one (a :meth:`unit`), a savepoint of it."""
        with self._lock:
            if self._db.in_transaction:
                self._sp += 1
                name = f"bank_sp{self._sp}"
                self._db.execute(f"SAVEPOINT {name}")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute(f"ROLLBACK TO {name}")
                    self._db.execute(f"RELEASE {name}")
                    raise
                else:
                    self._db.execute(f"RELEASE {name}")
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    @contextmanager
    def unit(self) -> Iterator[None]:
        """One write transaction (``BEGIN IMMEDIATE``: the file's write lock is taken first, so
        what is read inside is what the commit applies to). Everything written inside, by the
        bank or by a host sharing the connection, commits together or not at all."""
        with self._tx():
            yield

    def close(self) -> None:
        with self._lock:
            if not self._shared:  # a shared connection belongs to the host
                self._db.close()

    def __enter__(self) -> "StateBank":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------- namespaces
    def namespaces(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT name FROM bank_namespaces ORDER BY name")]

    def has_namespace(self, namespace: str) -> bool:
        return self._db.execute("SELECT 1 FROM bank_namespaces WHERE name=?", (namespace,)).fetchone() is not None

    def require_namespace(self, namespace: str) -> None:
        if not self.has_namespace(namespace):
            known = ", ".join(self.namespaces()) or "none"
            raise UnknownNamespace(f"unknown namespace {namespace!r} (known: {known})")

    def ensure_namespace(self, namespace: str) -> None:
        check_namespace(namespace, BankError)
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO bank_namespaces(name, created) VALUES (?, ?)",
                       (namespace, datetime.now(timezone.utc).isoformat()))

    def next_id(self, namespace: str) -> tuple[str, int]:
        """Reserve the next record id of a namespace (``r<seq>``)."""
        self.ensure_namespace(namespace)
        with self._tx() as db:
            seq = db.execute("SELECT next_seq FROM bank_namespaces WHERE name=?", (namespace,)).fetchone()[0]
            db.execute("UPDATE bank_namespaces SET next_seq=? WHERE name=?", (seq + 1, namespace))
        return f"r{seq}", seq

    # -------------------------------------------------------------------- reads
    def _load(self, namespace: str, rows: Sequence[sqlite3.Row]) -> list[Record]:
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        links: dict[str, list[Link]] = {i: [] for i in ids}
        for chunk in _chunks(ids, 500):
            q = f"SELECT src, type, dst FROM bank_links WHERE namespace=? AND src IN ({','.join('?' * len(chunk))}) ORDER BY rowid"
            for src, typ, dst in self._db.execute(q, (namespace, *chunk)):
                links[src].append(Link(LinkType(typ), dst))
        out = []
        for r in rows:
            tr = json.loads(r["transition"]) if r["transition"] else None
            out.append(Record(
                id=r["id"], namespace=namespace, text=r["text"], time=_parse_time(r["time"]),
                speaker=r["speaker"], status=Status(r["status"]), slot=r["slot"],
                links=tuple(links[r["id"]]), host_id=r["host_id"],
                transition=TransitionInfo(**tr) if tr else None, seq=r["seq"],
                meta=json.loads(r["meta"]),
            ))
        return out

    def get(self, namespace: str, record_id: str) -> Record | None:
        got = self.get_many(namespace, [record_id])
        return got.get(record_id)

    def get_many(self, namespace: str, ids: Iterable[str]) -> dict[str, Record]:
        ids = list(dict.fromkeys(ids))
        rows: list[sqlite3.Row] = []
        for chunk in _chunks(ids, 500):
            q = f"SELECT * FROM bank_records WHERE namespace=? AND id IN ({','.join('?' * len(chunk))})"
            rows.extend(self._db.execute(q, (namespace, *chunk)))
        return {r.id: r for r in self._load(namespace, rows)}

    def by_host_ids(self, namespace: str, host_ids: Iterable[str]) -> dict[str, Record]:
        """Records keyed by host id (the first record written for each host id)."""
        host_ids = list(dict.fromkeys(host_ids))
        rows: list[sqlite3.Row] = []
        for chunk in _chunks(host_ids, 500):
            q = (f"SELECT * FROM bank_records WHERE namespace=? AND host_id IN ({','.join('?' * len(chunk))}) "
                 "ORDER BY seq")
            rows.extend(self._db.execute(q, (namespace, *chunk)))
        out: dict[str, Record] = {}
        for rec in self._load(namespace, rows):
            out.setdefault(rec.host_id, rec)
        return out

    def slot_members(self, namespace: str, slot: str) -> list[Record]:
        rows = self._db.execute("SELECT * FROM bank_records WHERE namespace=? AND slot=? ORDER BY seq",
                                (namespace, slot)).fetchall()
        return self._load(namespace, rows)

    def records(self, namespace: str) -> list[Record]:
        """Every record of a namespace in insertion order (for inspection and metrics, not per query)."""
        rows = self._db.execute("SELECT * FROM bank_records WHERE namespace=? ORDER BY seq", (namespace,)).fetchall()
        return self._load(namespace, rows)

    def count(self, namespace: str) -> int:
        return self._db.execute("SELECT COUNT(*) FROM bank_records WHERE namespace=?", (namespace,)).fetchone()[0]

    def head(self, namespace: str, record_id: str) -> str:
        """Follow ``superseded_by``/``evolves_to`` links to the live end of a chain, however long
        (chains are acyclic by invariant; a visited set guards against a corrupt file anyway)."""
        cur, seen = record_id, {record_id}
        while True:
            row = self._db.execute(
                "SELECT dst FROM bank_links WHERE namespace=? AND src=? AND type IN (?, ?) ORDER BY rowid DESC LIMIT 1",
                (namespace, cur, LinkType.SUPERSEDED_BY.value, LinkType.EVOLVES_TO.value)).fetchone()
            if row is None or row[0] in seen:
                return cur
            cur = row[0]
            seen.add(cur)

    # ------------------------------------------------------------------- writes
    def commit(self, commit: Commit, *, features: Mapping[str, np.ndarray] | None = None) -> Record:
        """Apply a :class:`Commit` in one transaction and return the stored new record."""
        rec = commit.record
        if not rec.namespace:
            raise BankError("record has no namespace")
        self.ensure_namespace(rec.namespace)
        ns = rec.namespace
        with self._tx() as db:
            olds = self._rows(db, ns, [c.old_id for c in commit.changes])
            status, slot, transition = rec.status, rec.slot or rec.id, rec.transition
            joined = bool(rec.slot)
            link_rows: list[tuple[str, LinkType, str]] = []
            status_updates: dict[str, Status] = {}
            for ch in commit.changes:
                if ch.action is Action.NONE:
                    continue
                old = olds.get(ch.old_id)
                if old is None:
                    raise BankError(f"commit refers to unknown record {ch.old_id!r} in namespace {ns!r}")
                if ch.old_id == rec.id:
                    raise BankError("a record cannot relate to itself")
                if ch.action in (Action.SUPERSEDE, Action.TRANSITION, Action.COEXIST, Action.SCOPED_EXCEPTION) and not joined:
                    slot, joined = old["slot"], True
                if ch.action is Action.SUPERSEDE:
                    status_updates[ch.old_id] = Status.SUPERSEDED
                    link_rows.append((rec.id, LinkType.SUPERSEDES, ch.old_id))
                elif ch.action is Action.TRANSITION:
                    status_updates[ch.old_id] = Status.SUPERSEDED
                    status = Status.TRANSITION
                    transition = TransitionInfo(source=old["text"], target=ch.summary or rec.text,
                                                type=ch.transition_type or "change")
                    link_rows.append((rec.id, LinkType.EVOLVES_FROM, ch.old_id))
                elif ch.action is Action.COEXIST:
                    link_rows.append((rec.id, LinkType.COEXISTS_WITH, ch.old_id))
                elif ch.action is Action.SCOPED_EXCEPTION:
                    link_rows.append((rec.id, LinkType.SCOPED_EXCEPTION, ch.old_id))
            for link in rec.links:
                link_rows.append((rec.id, link.type, link.target))
            db.execute(
                "INSERT INTO bank_records(namespace, id, seq, text, time, speaker, status, slot, host_id, transition, meta) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (ns, rec.id, rec.seq, rec.text, _iso(rec.time), rec.speaker, status.value, slot, rec.host_id,
                 json.dumps(transition.to_json()) if transition else None, json.dumps(dict(rec.meta), default=str)),
            )
            for rid, st in status_updates.items():
                db.execute("UPDATE bank_records SET status=? WHERE namespace=? AND id=?", (st.value, ns, rid))
            for src, typ, dst in link_rows:
                self._link(db, ns, src, typ, dst)
            for key, vec in (features or {}).items():
                db.execute("INSERT OR REPLACE INTO bank_features(namespace, id, key, vec) VALUES (?,?,?,?)",
                           (ns, rec.id, key, _pack_vec(vec)))
            self._check_slots(db, ns, {slot} | {o["slot"] for o in olds.values()})
        stored = self.get(ns, rec.id)
        assert stored is not None
        return stored

    def _rows(self, db: sqlite3.Connection, ns: str, ids: Sequence[str]) -> dict[str, sqlite3.Row]:
        out: dict[str, sqlite3.Row] = {}
        for chunk in _chunks(list(dict.fromkeys(ids)), 500):
            q = f"SELECT * FROM bank_records WHERE namespace=? AND id IN ({','.join('?' * len(chunk))})"
            out.update({r["id"]: r for r in db.execute(q, (ns, *chunk))})
        return out

    @staticmethod
    def _link(db: sqlite3.Connection, ns: str, src: str, typ: LinkType, dst: str) -> None:
        db.execute("INSERT OR IGNORE INTO bank_links(namespace, src, type, dst) VALUES (?,?,?,?)", (ns, src, typ.value, dst))
        partner = RECIPROCAL.get(typ)
        if partner is not None:
            db.execute("INSERT OR IGNORE INTO bank_links(namespace, src, type, dst) VALUES (?,?,?,?)",
                       (ns, dst, partner.value, src))

    @staticmethod
    def _check_slots(db: sqlite3.Connection, ns: str, slots: Iterable[str]) -> None:
        for slot in slots:
            active = [r[0] for r in db.execute(
                "SELECT id FROM bank_records WHERE namespace=? AND slot=? AND status=?", (ns, slot, Status.ACTIVE.value))]
            if len(active) < 2:
                continue
            marks = ",".join("?" * len(active))
            pairs = {
                frozenset((a, b)) for a, b in db.execute(
                    f"SELECT src, dst FROM bank_links WHERE namespace=? AND type IN (?, ?) AND src IN ({marks}) AND dst IN ({marks})",
                    (ns, *(t.value for t in COEXISTENCE), *active, *active))
            }
            for i, a in enumerate(active):
                for b in active[i + 1:]:
                    if frozenset((a, b)) not in pairs:
                        raise InvariantError(
                            f"slot {slot!r} in namespace {ns!r} would hold two active records {a} and {b} "
                            "without a coexists_with or scoped_exception link")

    # ----------------------------------------------------------------- features
    def features(self, namespace: str, ids: Sequence[str], key: str, dim: int) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for chunk in _chunks(list(ids), 500):
            q = f"SELECT id, vec FROM bank_features WHERE namespace=? AND key=? AND id IN ({','.join('?' * len(chunk))})"
            for rid, blob in self._db.execute(q, (namespace, key, *chunk)):
                v = _unpack_vec(blob, dim)
                if v is not None:
                    out[rid] = v
        return out

    def put_features(self, namespace: str, rows: Mapping[str, np.ndarray], key: str) -> None:
        with self._tx() as db:
            for rid, vec in rows.items():
                db.execute("INSERT OR REPLACE INTO bank_features(namespace, id, key, vec) VALUES (?,?,?,?)",
                           (namespace, rid, key, _pack_vec(vec)))

    # ------------------------------------------------------------------ intents
    def open_intent(self, namespace: str) -> str:
        """Write-ahead record of a host write about to happen (for hosts outside the bank's
        transaction). Holds no text: a token, the writer's pid and, once known, the host id."""
        token = f"{os.getpid()}-{threading.get_ident()}-{time.time_ns()}"
        with self._tx() as db:
            db.execute("INSERT INTO bank_intents(namespace, token, pid, created) VALUES (?,?,?,?)",
                       (namespace, token, os.getpid(), datetime.now(timezone.utc).isoformat()))
        return token

    def set_intent_host(self, namespace: str, token: str, host_id: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE bank_intents SET host_id=? WHERE namespace=? AND token=?", (host_id, namespace, token))

    def close_intent(self, namespace: str, token: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM bank_intents WHERE namespace=? AND token=?", (namespace, token))

    def stale_intents(self, namespace: str) -> list[tuple[str, str]]:
        """``(token, host_id)`` of open intents whose writer process is gone (this machine's pids)."""
        out = []
        for token, pid, host_id in self._db.execute(
                "SELECT token, pid, host_id FROM bank_intents WHERE namespace=? ORDER BY created", (namespace,)):
            if pid != os.getpid() and not _pid_alive(pid):
                out.append((token, host_id))
        return out

    # ------------------------------------------------------------------- traces
    def save_trace(self, namespace: str, kind: str, body: Mapping[str, Any], record_ids: Iterable[str], *,
                   keep: int | None = None) -> int:
        """Store a trace; ``keep``: None keeps every trace, 0 stores none (returns 0), N keeps the
        newest N of this namespace and kind (older ones are deleted in the same transaction)."""
        if keep is not None and keep <= 0:
            return 0
        with self._tx() as db:
            cur = db.execute("INSERT INTO bank_traces(namespace, kind, created, body) VALUES (?,?,?,?)",
                             (namespace, kind, datetime.now(timezone.utc).isoformat(), _pack_trace(body)))
            tid = int(cur.lastrowid)
            db.executemany("INSERT OR IGNORE INTO bank_trace_refs(trace_id, namespace, record_id) VALUES (?,?,?)",
                           [(tid, namespace, rid) for rid in dict.fromkeys(record_ids)])
            if keep is not None:
                old = [r[0] for r in db.execute(
                    "SELECT trace_id FROM bank_traces WHERE namespace=? AND kind=? ORDER BY trace_id DESC LIMIT -1 OFFSET ?",
                    (namespace, kind, keep))]
                self._delete_traces(db, old)
        return tid

    def traces(self, namespace: str, *, kind: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        q = "SELECT trace_id, kind, created, body FROM bank_traces WHERE namespace=?"
        args: list[Any] = [namespace]
        if kind:
            q += " AND kind=?"
            args.append(kind)
        q += " ORDER BY trace_id DESC LIMIT ?"
        args.append(limit)
        return [{"trace_id": r[0], "kind": r[1], "created": r[2], "body": unpack_trace(r[3])}
                for r in self._db.execute(q, args)]

    # -------------------------------------------------------------------- erase
    def erase(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Hard delete records, their links, cached features, every trace that mentions them (by
        reference or by a copy of their text), and every copy of their text in other records'
        transition summaries. Call :meth:`compact` afterwards to push the zeroed pages out of the
        WAL (``secure_delete`` zeroes deleted content in place).

        Returns the host ids of the erased records so the caller can erase them in the host.
        """
        ids = list(dict.fromkeys(ids))
        with self._tx() as db:
            rows = self._rows(db, namespace, ids)
            texts = [r["text"] for r in rows.values() if r["text"]]
            for chunk in _chunks(ids, 400):
                marks = ",".join("?" * len(chunk))
                tids = [r[0] for r in db.execute(
                    f"SELECT trace_id FROM bank_trace_refs WHERE namespace=? AND record_id IN ({marks})", (namespace, *chunk))]
                self._delete_traces(db, tids)
                db.execute(f"DELETE FROM bank_records WHERE namespace=? AND id IN ({marks})", (namespace, *chunk))
                db.execute(f"DELETE FROM bank_links WHERE namespace=? AND (src IN ({marks}) OR dst IN ({marks}))",
                           (namespace, *chunk, *chunk))
                db.execute(f"DELETE FROM bank_features WHERE namespace=? AND id IN ({marks})", (namespace, *chunk))
            if texts:
                # traces that copied a text without naming the record (a prompt, an answer, a host
                # row); bodies are compressed, so they are read here (erase is rare, writes are not)
                needles = {n for text in texts
                           for n in (text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1])}
                tids = [tid for tid, body in db.execute("SELECT trace_id, body FROM bank_traces WHERE namespace=?",
                                                        (namespace,))
                        if any(n in _trace_text(body) for n in needles)]
                self._delete_traces(db, tids)
            if texts:  # transition summaries of other records that quote an erased record
                for r in db.execute("SELECT id, transition FROM bank_records WHERE namespace=? AND transition IS NOT NULL",
                                    (namespace,)).fetchall():
                    tr = json.loads(r["transition"])
                    scrubbed = {k: (_scrub(v, texts) if isinstance(v, str) else v) for k, v in tr.items()}
                    if scrubbed != tr:
                        db.execute("UPDATE bank_records SET transition=? WHERE namespace=? AND id=?",
                                   (json.dumps(scrubbed), namespace, r["id"]))
        return [r["host_id"] for r in rows.values() if r["host_id"]]

    @staticmethod
    def _delete_traces(db: Any, tids: Sequence[int]) -> None:
        for tchunk in _chunks(list(dict.fromkeys(tids)), 400):
            tm = ",".join("?" * len(tchunk))
            db.execute(f"DELETE FROM bank_traces WHERE trace_id IN ({tm})", tchunk)
            db.execute(f"DELETE FROM bank_trace_refs WHERE trace_id IN ({tm})", tchunk)

    def compact(self, *, vacuum: bool = False) -> bool:
        """Move committed pages into the database file and truncate the WAL, so deleted text has no
        copy left in the WAL; with ``vacuum``, rebuild the file too (no free page keeps old bytes).
        False when another connection kept the WAL from being truncated (then run it again later)."""
        if self.path == ":memory:":
            return True
        with self._lock:
            if self._db.in_transaction:
                raise BankError("compact() inside a transaction")
            if vacuum:
                self._db.execute("VACUUM")
            row = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            return row is None or not row[0]

    # ------------------------------------------------------------- diagnostics
    def check_invariants(self, namespace: str) -> list[str]:
        """Every invariant violation in a namespace (empty when the bank is sound)."""
        problems: list[str] = []
        links = {(r[0], r[1], r[2]) for r in self._db.execute(
            "SELECT src, type, dst FROM bank_links WHERE namespace=?", (namespace,))}
        for src, typ, dst in links:
            partner = RECIPROCAL.get(LinkType(typ))
            if partner is not None and (dst, partner.value, src) not in links:
                problems.append(f"{src} -{typ}-> {dst} has no reciprocal {partner.value}")
        slots = [r[0] for r in self._db.execute("SELECT DISTINCT slot FROM bank_records WHERE namespace=?", (namespace,))]
        try:
            self._check_slots(self._db, namespace, slots)
        except InvariantError as e:
            problems.append(str(e))
        return problems


def _scrub(value: str, texts: Sequence[str]) -> str:
    """``value`` with every erased text in it replaced by ``[erased]``."""
    for t in texts:
        if t in value:
            value = value.replace(t, "[erased]")
    return value


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _chunks(items: Sequence[Any], n: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]
