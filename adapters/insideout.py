"""InsideOutHost: the InsideOut method (MemTensor/InsideOut, arXiv 2601.05171) as a host.

InsideOut ships as scripts, not a package, so this module re-implements the method
from its description: a PersonaTree profile (the Biopsychosocial schema of
``human_tree_en.json``, every leaf empty at start) is maintained by an LLM that reads
the dialogue in chunks of at most three exchanges and emits operations on leaf paths:

    ADD(path, value)  UPDATE(path, value)  DELETE(path)  NO_OP()

ADD and UPDATE overwrite the leaf, DELETE blanks it. That is the host's native
behaviour: the tree itself keeps no history, and answers are generated from the
tree's non-empty leaves (``answer_mode="tree"``) or the tree plus BM25/dense-retrieved
raw turns (``"tree+turns"``).

What this adapter adds for the overlay (the tree alone would hide every old state):

* Every raw event is stored (an internal :class:`~adapters.builtin.BuiltinHost` on
  the same SQLite file: hybrid BM25 + dense retrieval) and ``add`` returns that
  event's id (``h<seq>``). ``search`` returns the tree's current leaves *and* the
  event hits, fused by reciprocal rank; the overlay maps the event hits to its bank
  records (it adds every event through ``host.add``), so its status/links apply.
* Every applied operation is a new *version* of its leaf (``insideout_versions``);
  the tree is the latest version of each path. An overwritten or blanked version is
  a superseded state: :meth:`snapshots` lists them with the events that wrote and
  overwrote them, and :meth:`native_state` reports a leaf version's or an event's
  status as evidence (``active`` / ``superseded`` / ``deleted`` / ``pending``).

Lexical ranking: events rank through the internal BuiltinHost's FTS5 index; the tree's
leaves and the schema's field names are short lists held in memory that change with
every chunk, so they rank with :func:`adapters.kit.bm25_rank` (one BM25, in the kit
beside the FTS5 query builder) rather than through an FTS5 table kept in step with them.

Leaf hits have ids ``leaf:<path>#<version>`` and text ``"<path>: <value>"``. Chunk
boundaries: an exchange opens with a speaker's turn and runs until that speaker talks
again (a monologue is one event per exchange); a chunk is processed once a fourth
exchange starts, on :meth:`flush`, and before :meth:`answer`. ``search`` does not flush
by default: the overlay searches before every write, which would cut every chunk down
to one event (set ``flush_on_search=True`` to flush anyway). Pending events are
searchable as raw events at once.

Cost control (a deviation, on by default): the full schema lists 305 leaf paths
(~6k tokens). Each chunk prompt shows the ``path_hints`` paths most similar to the
chunk's turns, the ``core_paths`` (residence, job, family, pets, ...) and every
non-empty leaf; ``path_hints=None`` shows the whole schema (needs a context of >= 8k
tokens).

Example::

    from adapters.insideout import InsideOutHost
    host = InsideOutHost("memory.db", llm=load_llm(), embedder=SentenceTransformerEmbedder())
    host.add("I moved to Bristol", namespace="u1", speaker="Dana")
    host.flush("u1")
    host.tree("u1")   # {'4_Identity_Characteristics....Residence': 'Bristol', ...}
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
import time as _time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping, Sequence

import numpy as np

from adapters.builtin import BuiltinHost
from adapters.kit import bm25_rank, date_label, sort_time, transaction
from atma.protocols import LLM, Embedder, HostHit, LLMError

__all__ = [
    "InsideOutConfig",
    "InsideOutHost",
    "OPS_SCHEMA",
    "Snapshot",
    "find_schema",
    "leaf_paths",
    "parse_ops",
]

log = logging.getLogger(__name__)

SCHEMA_FILE = "human_tree_en.json"
OP_NAMES = ("ADD", "UPDATE", "DELETE", "NO_OP")
LEAF_PREFIX = "leaf:"

#: Fields every chunk prompt shows when they are in the schema: the slots personal
#: conversations change most (where one lives, works, who with, pets, habits). Matching
#: a turn to 305 field *names* by similarity misses them (measured with MiniLM on the
#: Dana story: "I rent a flat in Leeds" never ranked Residence in the top 40).
CORE_PATHS = (
    "4_Identity_Characteristics.Social_Identity.Legal_and_Civic_Status.Name",
    "1_Biological_Characteristics.Physiological_Status.Age_Related_Characteristics.Chronological_Age",
    "1_Biological_Characteristics.Physiological_Status.Health_Status",
    "1_Biological_Characteristics.Biological_Rhythms.Sleep_Characteristics",
    "4_Identity_Characteristics.Social_Identity.Migration_and_Mobility.Residence",
    "4_Identity_Characteristics.Social_Identity.Migration_and_Mobility.Place_of_Birth",
    "4_Identity_Characteristics.Social_Identity.Occupational_Role.Position",
    "4_Identity_Characteristics.Social_Identity.Occupational_Role.Industry",
    "4_Identity_Characteristics.Social_Identity.Educational_Background.Educational_Attainment",
    "4_Identity_Characteristics.Family_System.Family_Roles.Marital_Status",
    "4_Identity_Characteristics.Family_System.Family_Structure.Relationships",
    "4_Identity_Characteristics.Family_System.Caregiving_Responsibilities.Pet_Care",
    "5_Behavioral_Characteristics.Lifestyle.Residential_Environment.Housing_Type",
    "5_Behavioral_Characteristics.Behavioral_Habits.Dietary_Habits",
    "5_Behavioral_Characteristics.Interests_and_Skills.Interests_and_Hobbies",
)

#: The JSON schema the op-emitting LLM is constrained to. Paths are free strings on
#: purpose: a path the schema does not have is the model's error, counted in stats.
OPS_SCHEMA: dict[str, Any] = {
    "title": "persona_tree_ops",
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "maxItems": 6,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(OP_NAMES)},
                    "path": {"type": "string", "maxLength": 160},
                    # Bounded: the 1.5B model can loop inside a value ("theater, cinema,
                    # museum, ...") until max_tokens and the reply no longer parses.
                    "value": {"type": "string", "maxLength": 160},
                },
                "required": ["op", "path", "value"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["operations"],
    "additionalProperties": False,
}

_SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS insideout_events (
    host_id   TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    speaker   TEXT NOT NULL DEFAULT '',
    chunk     INTEGER            -- NULL while the event waits in the buffer
);
CREATE INDEX IF NOT EXISTS insideout_events_ns ON insideout_events(namespace, chunk, seq);
CREATE TABLE IF NOT EXISTS insideout_chunks (
    chunk     INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    events    TEXT NOT NULL,     -- JSON list of host ids
    status    TEXT NOT NULL,     -- ok | invalid_json | llm_error
    reply     TEXT NOT NULL DEFAULT '',
    stats     TEXT NOT NULL DEFAULT '{}',
    latency_s REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS insideout_versions (
    namespace TEXT NOT NULL,
    path      TEXT NOT NULL,
    version   INTEGER NOT NULL,
    value     TEXT NOT NULL,     -- '' after DELETE
    op        TEXT NOT NULL,
    chunk     INTEGER NOT NULL,
    time      TEXT,
    embedding BLOB,
    PRIMARY KEY (namespace, path, version)
);
"""


# ---------------------------------------------------------------------- schema


def find_schema(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The PersonaTree schema file: ``explicit``, else ``$ATMA_INSIDEOUT_SCHEMA``, else
    ``adapters/human_tree_en.json``, else ``../shared/data/insideout/human_tree_en.json``
    beside the checkout. Raises FileNotFoundError naming the places tried."""
    here = Path(__file__).resolve().parent
    tried = [Path(p) for p in (explicit, os.environ.get("ATMA_INSIDEOUT_SCHEMA")) if p]
    tried += [here / SCHEMA_FILE, here.parent.parent / "shared" / "data" / "insideout" / SCHEMA_FILE]
    for p in tried:
        if p.is_file():
            return p
    raise FileNotFoundError(
        "PersonaTree schema not found; pass schema=<path or dict> or set ATMA_INSIDEOUT_SCHEMA. Tried: "
        + ", ".join(map(str, tried))
    )


def leaf_paths(tree: Mapping[str, Any]) -> list[str]:
    """Dotted paths of every leaf, in schema order.

    >>> leaf_paths({"A": {"B": "", "C": {"D": ""}}})
    ['A.B', 'A.C.D']
    """
    out: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, f"{prefix}.{key}" if prefix else str(key))
        else:
            out.append(prefix)

    walk(tree, "")
    return out


def path_words(path: str) -> str:
    """A path as words, for matching and embedding.

    >>> path_words("4_Identity_Characteristics.Social_Identity.Migration_and_Mobility.Residence")
    'Identity Characteristics / Social Identity / Migration and Mobility / Residence'
    """
    return " / ".join(re.sub(r"^\d+_", "", part).replace("_", " ") for part in path.split("."))


# ---------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Op:
    op: str
    path: str
    value: str


def parse_ops(text: str, paths: frozenset[str] | set[str]) -> tuple[list[Op] | None, Counter[str]]:
    """Strictly parse an LLM reply into operations.

    Returns ``(ops, stats)``; ``ops`` is None when the reply is not a JSON object with an
    ``operations`` list. Each bad item is skipped and counted: ``bad_op`` (unknown op
    name or not an object), ``unknown_path``, ``missing_value`` (ADD/UPDATE without a
    non-empty string value). ``NO_OP`` items are counted and dropped.

    >>> ops, st = parse_ops('{"operations": [{"op": "ADD", "path": "a.b", "value": "x"},'
    ...                     ' {"op": "MOVE", "path": "a.b", "value": ""}, {"op": "DELETE", "path": "z", "value": ""}]}',
    ...                     {"a.b"})
    >>> ops, dict(st)
    ([Op(op='ADD', path='a.b', value='x')], {'ops_returned': 3, 'bad_op': 1, 'unknown_path': 1})
    """
    stats: Counter[str] = Counter()
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None, Counter(invalid_json=1)
    items = data.get("operations") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None, Counter(invalid_json=1)
    ops: list[Op] = []
    for item in items:
        stats["ops_returned"] += 1
        if not isinstance(item, dict) or item.get("op") not in OP_NAMES:
            stats["bad_op"] += 1
            continue
        name = item["op"]
        if name == "NO_OP":
            stats["no_op"] += 1
            continue
        path = item.get("path")
        if not isinstance(path, str) or path.strip() not in paths:
            stats["unknown_path"] += 1
            continue
        value = item.get("value")
        if name in ("ADD", "UPDATE"):
            if not isinstance(value, str) or not value.strip():
                stats["missing_value"] += 1
                continue
            ops.append(Op(name, path.strip(), value.strip()))
        else:
            ops.append(Op(name, path.strip(), ""))
    return ops, stats


# ---------------------------------------------------------------------- prompts

_OPS_SYSTEM = (
    "You maintain a PersonaTree: a profile of a person as a tree of leaf fields. "
    "Read a short dialogue chunk and the current non-empty fields, then output operations "
    "that keep the profile true after this chunk.\n"
    "Operations (JSON, key \"operations\", a list of {op, path, value}):\n"
    "- ADD: fill an empty field with a new fact.\n"
    "- UPDATE: replace a field whose value has changed (the new value replaces the old).\n"
    "- DELETE: blank a field that is no longer true (value \"\").\n"
    "- NO_OP: nothing to change (path \"\", value \"\").\n"
    "Use only paths exactly as listed. Values are short facts in English, with the person's "
    "own words where possible. Record only what the dialogue states; never guess. Ignore small talk. "
    "At most six operations.\n"
    "Example. Current: 4_Identity_Characteristics.Social_Identity.Migration_and_Mobility.Residence: Paris. "
    "Chunk: \"Ana: We finally moved to Rome!\" -> "
    '{"operations": [{"op": "UPDATE", "path": '
    '"4_Identity_Characteristics.Social_Identity.Migration_and_Mobility.Residence", "value": "Rome"}]}'
)


def ops_messages(chunk: Sequence[HostHit], leaves: Mapping[str, str], hints: Sequence[str],
                 subject: str | None) -> list[dict[str, str]]:
    """The op-emitting prompt for one chunk (pure). The system part is constant, so a
    server with prefix caching reads it once."""
    who = f"The profile describes {subject}.\n" if subject else ""
    filled = "\n".join(f"- {p}: {v}" for p, v in leaves.items()) or "(all fields are empty)"
    turns = "\n".join(
        f"[{date_label(h.time)}] {h.speaker + ': ' if h.speaker else ''}{h.text}" for h in chunk
    )
    user = (
        f"{who}Fields you may use:\n" + "\n".join(hints)
        + f"\n\nCurrent non-empty fields:\n{filled}\n\nDialogue chunk:\n{turns}\n\nOperations:"
    )
    return [{"role": "system", "content": _OPS_SYSTEM}, {"role": "user", "content": user}]


def tree_qa_messages(query: str, leaves: Mapping[str, str], turns: Sequence[HostHit]) -> list[dict[str, str]]:
    """InsideOut's answer prompt: the profile's non-empty leaves (and retrieved turns)."""
    profile = "\n".join(f"- {path_words(p)}: {v}" for p, v in leaves.items()) or "(empty profile)"
    extra = ""
    if turns:
        extra = "\n\nDialogue excerpts:\n" + "\n".join(
            f"[{date_label(h.time)}] {h.speaker + ': ' if h.speaker else ''}{h.text}" for h in turns
        )
    system = (
        "You answer questions about a person from their profile. Answer concisely, in a few "
        "words. If the profile does not contain the answer, say you don't know."
    )
    user = f"Profile:\n{profile}{extra}\n\nQuestion: {query}\nAnswer:"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# ---------------------------------------------------------------------- config / data


@dataclass(frozen=True, kw_only=True)
class InsideOutConfig:
    """Run configuration."""

    chunk_exchanges: int = 3  # exchanges per chunk (InsideOut: at most three)
    path_hints: int | None = 30  # leaf paths matched to the chunk per prompt; None = the whole schema
    core_paths: tuple[str, ...] = CORE_PATHS  # always shown (those the schema has)
    ops_max_tokens: int = 640
    ops_timeout_s: float | None = 300.0
    answer_mode: Literal["tree", "tree+turns"] = "tree"
    answer_turns: int = 5  # raw turns added in "tree+turns"
    answer_max_leaves: int = 60  # most relevant non-empty leaves in the answer prompt
    answer_max_tokens: int = 64
    search_events: bool = True  # search returns raw-event hits beside the leaves (the overlay needs them)
    search_history: bool = False  # also rank overwritten / blanked leaf versions
    flush_on_search: bool = False
    subject: str | None = None  # whom the tree describes; None: the people speaking
    rrf_k: int = 60


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """One superseded leaf state: ``value`` held ``path`` at ``version`` until the chunk
    with ``overwritten_by`` replaced it with ``new_value`` (``""``: DELETE)."""

    path: str
    version: int
    value: str
    op: str  # the op that wrote this value
    written_by: tuple[str, ...]  # event host ids of the chunk that wrote it
    new_value: str
    new_op: str
    overwritten_by: tuple[str, ...]
    host_id: str  # leaf:<path>#<version>
    time: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["written_by"], d["overwritten_by"] = list(self.written_by), list(self.overwritten_by)
        d["time"] = self.time.isoformat() if self.time else None
        return d


def leaf_id(path: str, version: int) -> str:
    return f"{LEAF_PREFIX}{path}#{version}"


def _split_leaf_id(host_id: str) -> tuple[str, int] | None:
    if not isinstance(host_id, str) or not host_id.startswith(LEAF_PREFIX) or "#" not in host_id:
        return None
    path, _, v = host_id[len(LEAF_PREFIX):].rpartition("#")
    return (path, int(v)) if v.isdigit() else None


# ---------------------------------------------------------------------- host


class InsideOutHost:
    """PersonaTree memory maintained by an LLM; see the module docstring.

    ``llm`` emits the tree operations (JSON-schema constrained); ``answerer`` answers
    from the tree (defaults to ``llm``). ``schema`` is a path to ``human_tree_en.json`` or
    the tree itself (see :func:`find_schema`). ``path`` is a SQLite file (the overlay's
    bank may share it: this host keeps to ``host_`` and ``insideout_`` tables).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        llm: LLM,
        embedder: Embedder | None = None,
        answerer: LLM | None = None,
        schema: str | os.PathLike[str] | Mapping[str, Any] | None = None,
        config: InsideOutConfig | None = None,
        name: str = "insideout",
    ) -> None:
        self.name = name
        self.llm = llm
        self.answerer = answerer or llm
        self.config = config or InsideOutConfig()
        if self.config.chunk_exchanges < 1:
            raise ValueError("chunk_exchanges must be >= 1")
        tree = schema if isinstance(schema, Mapping) else json.loads(find_schema(schema).read_text(encoding="utf-8"))
        self.schema = tree
        self.paths = leaf_paths(tree)
        if not self.paths:
            raise ValueError("the PersonaTree schema has no leaves")
        self._path_set = frozenset(self.paths)
        self.events = BuiltinHost(path, embedder=embedder, name=f"{name}-events")
        self.path = self.events.path
        self.embedder = self.events.embedder
        self._lock = threading.RLock()
        self.events.conn.executescript(_SCHEMA_SQL)
        self._path_vecs: np.ndarray | None = None
        self.llm_calls = 0
        self.llm_s = 0.0

    # ------------------------------------------------------------------ lifecycle

    @property
    def conn(self) -> sqlite3.Connection:
        return self.events.conn

    def close(self) -> None:
        self.events.close()

    def __enter__(self) -> "InsideOutHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"InsideOutHost({self.path!r}, llm={getattr(self.llm, 'name', '?')!r})"

    # ------------------------------------------------------------------ writing

    def add(self, text: str, *, namespace: str, time: datetime | str | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> str:
        """Store one dialogue event; process the buffered chunk once it is complete."""
        return self.add_many([{"text": text, "time": time, "speaker": speaker, "meta": meta}], namespace=namespace)[0]

    def add_many(self, items: Iterable[Mapping[str, Any] | str], *, namespace: str) -> list[str]:
        """Store events in order (one encode, one transaction), processing chunks as they fill."""
        items = list(items)
        ids = self.events.add_many(items, namespace=namespace)
        with self._lock:
            with transaction(self.conn):
                for hid, item in zip(ids, items):
                    speaker = "" if isinstance(item, str) else str(item.get("speaker") or "")
                    self.conn.execute(
                        "INSERT INTO insideout_events(host_id, namespace, seq, speaker) VALUES (?,?,?,?)",
                        (hid, namespace, int(hid[1:]), speaker),
                    )
            while True:
                ready = self._ready_chunk(namespace)
                if not ready:
                    break
                self._process(namespace, ready)
        return ids

    def flush(self, namespace: str) -> int:
        """Process every buffered event of ``namespace`` now; returns chunks processed."""
        n = 0
        with self._lock:
            while True:
                ready = self._ready_chunk(namespace, final=True)
                if not ready:
                    return n
                self._process(namespace, ready)
                n += 1

    def pending(self, namespace: str) -> list[str]:
        """Host ids of events still in the buffer, oldest first."""
        return [r[0] for r in self._pending_rows(namespace)]

    def _pending_rows(self, namespace: str) -> list[tuple[str, str]]:
        return self.conn.execute(
            "SELECT host_id, speaker FROM insideout_events WHERE namespace = ? AND chunk IS NULL ORDER BY seq",
            (namespace,),
        ).fetchall()

    def _ready_chunk(self, namespace: str, *, final: bool = False) -> list[str]:
        """The first ``chunk_exchanges`` exchanges once a further exchange has begun
        (``final``: whatever is buffered, up to that many exchanges)."""
        rows = self._pending_rows(namespace)
        exchanges: list[list[str]] = []
        opener = None
        for hid, speaker in rows:
            if not exchanges or (speaker or None) == opener or not speaker:
                exchanges.append([])
                opener = speaker or None
            exchanges[-1].append(hid)
        n = self.config.chunk_exchanges
        if len(exchanges) > n or (final and exchanges):
            return [h for ex in exchanges[:n] for h in ex]
        return []

    def _process(self, namespace: str, event_ids: list[str]) -> None:
        """One LLM call for one chunk; apply its valid ops as new leaf versions."""
        chunk_hits = [self.events.get(h, namespace=namespace) for h in event_ids]
        chunk_hits = [h for h in chunk_hits if h is not None]
        leaves = self.tree(namespace)
        msgs = ops_messages(chunk_hits, leaves, self._hints(chunk_hits, leaves), self.config.subject)
        t0 = _time.perf_counter()
        reply, status = "", "ok"
        stats: Counter[str] = Counter(chunks=1)
        ops: list[Op] | None = None
        try:
            comp = self.llm.complete(msgs, max_tokens=self.config.ops_max_tokens, temperature=0.0,
                                     json_schema=OPS_SCHEMA, timeout=self.config.ops_timeout_s)
            reply = comp.text
            ops, parsed = parse_ops(reply, self._path_set)
            stats.update(parsed)
            if ops is None:
                status = "invalid_json"
        except LLMError as e:
            status, reply = "llm_error", str(e)[:500]
            stats["llm_error"] += 1
            log.warning("insideout: chunk of %d events in %s failed: %s", len(event_ids), namespace, e)
        latency = _time.perf_counter() - t0
        self.llm_calls += 1
        self.llm_s += latency
        when = max((h.time for h in chunk_hits if h.time is not None), default=None, key=sort_time)
        with transaction(self.conn):
            cur = self.conn.execute(
                "INSERT INTO insideout_chunks(namespace, events, status, reply, latency_s) VALUES (?,?,?,?,?)",
                (namespace, json.dumps(event_ids), status, reply, latency),
            )
            chunk = int(cur.lastrowid)
            marks = ",".join("?" * len(event_ids))
            self.conn.execute(f"UPDATE insideout_events SET chunk = ? WHERE host_id IN ({marks})", (chunk, *event_ids))
            for op in ops or ():
                stats.update(self._apply(namespace, op, chunk, when))
            self.conn.execute("UPDATE insideout_chunks SET stats = ? WHERE chunk = ?", (json.dumps(stats), chunk))

    def _apply(self, namespace: str, op: Op, chunk: int, when: datetime | None) -> Counter[str]:
        row = self.conn.execute(
            "SELECT version, value FROM insideout_versions WHERE namespace = ? AND path = ? ORDER BY version DESC LIMIT 1",
            (namespace, op.path),
        ).fetchone()
        version, current = (int(row[0]), row[1]) if row else (0, "")
        if op.op == "DELETE" and not current:
            return Counter(delete_empty=1)
        if op.op != "DELETE" and op.value == current:
            return Counter(unchanged=1)
        vec = self._encode([f"{path_words(op.path)}: {op.value}"])[0].tobytes() if op.value else None
        self.conn.execute(
            "INSERT INTO insideout_versions(namespace, path, version, value, op, chunk, time, embedding) VALUES (?,?,?,?,?,?,?,?)",
            (namespace, op.path, version + 1, op.value, op.op, chunk, when.isoformat() if when else None, vec),
        )
        kind = {"ADD": "added", "UPDATE": "updated", "DELETE": "deleted"}[op.op]
        return Counter({kind: 1, "overwritten": 1 if current else 0})

    def _hints(self, chunk: Sequence[HostHit], leaves: Mapping[str, str]) -> list[str]:
        n = self.config.path_hints
        if n is None or n >= len(self.paths):
            return list(self.paths)
        # One dense and one BM25 list per turn, fused: a chunk's text as a single query
        # drifts to whatever its turns share, and the fields each turn needs drop out.
        texts = [h.text for h in chunk] or [""]
        vecs = self._leaf_path_vecs()
        qs = self._encode(texts)
        words = [path_words(p) for p in self.paths]
        fused: dict[int, float] = {}
        for text, q in zip(texts, qs):
            for ranked in (np.argsort(-(vecs @ q), kind="stable")[: 4 * n], bm25_rank(text, words)[: 4 * n]):
                for rank, i in enumerate(ranked, 1):
                    fused[int(i)] = fused.get(int(i), 0.0) + 1.0 / (self.config.rrf_k + rank)
        best = sorted(fused, key=lambda i: (-fused[i], i))[:n]
        always = [*self.config.core_paths, *leaves]
        chosen = set(best) | {self.paths.index(p) for p in always if p in self._path_set}
        return [self.paths[i] for i in sorted(chosen)]

    def _leaf_path_vecs(self) -> np.ndarray:
        if self._path_vecs is None:
            self._path_vecs = self._encode([path_words(p) for p in self.paths])
        return self._path_vecs

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self.events.encode(texts)

    # ------------------------------------------------------------------ reading

    def tree(self, namespace: str) -> dict[str, str]:
        """The current non-empty leaves ``{path: value}``, in schema order."""
        cur = self._latest(namespace)
        return {p: cur[p][1] for p in self.paths if p in cur and cur[p][1]}

    def _latest(self, namespace: str) -> dict[str, tuple[int, str, bytes | None, str | None]]:
        rows = self.conn.execute(
            """SELECT v.path, v.version, v.value, v.embedding, v.time FROM insideout_versions v
               JOIN (SELECT path, max(version) AS mv FROM insideout_versions WHERE namespace = ? GROUP BY path) m
                 ON v.path = m.path AND v.version = m.mv
               WHERE v.namespace = ?""",
            (namespace, namespace),
        ).fetchall()
        return {r[0]: (int(r[1]), r[2], r[3], r[4]) for r in rows}

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]:
        """Current tree leaves (and, with ``search_events``, raw events) ranked by RRF of
        BM25 and dense similarity; leaves and events are fused by rank, leaf first on ties."""
        if k <= 0:
            return []
        if self.config.flush_on_search:
            self.flush(namespace)
        with self._lock:
            leaves = self._leaf_hits(query, namespace, history=self.config.search_history)
        lists = [leaves]
        if self.config.search_events:
            lists.append(self.events.search(query, namespace=namespace, k=k))
        fused: dict[str, tuple[float, int, HostHit]] = {}
        for li, ranked in enumerate(lists):
            for rank, hit in enumerate(ranked, 1):
                s = 1.0 / (self.config.rrf_k + rank)
                prev = fused.get(hit.host_id)
                fused[hit.host_id] = ((prev[0] if prev else 0.0) + s, min(li, prev[1]) if prev else li, hit)
        best = sorted(fused.values(), key=lambda t: (-t[0], t[1]))[:k]
        return [_with_score(hit, score) for score, _, hit in best]

    def _leaf_hits(self, query: str, namespace: str, *, history: bool) -> list[HostHit]:
        if history:
            rows = self.conn.execute(
                "SELECT path, version, value, embedding, time FROM insideout_versions WHERE namespace = ? AND value != ''",
                (namespace,),
            ).fetchall()
        else:
            rows = [(p, v, val, emb, t) for p, (v, val, emb, t) in self._latest(namespace).items() if val]
        if not rows:
            return []
        latest = {p: v for p, (v, *_rest) in self._latest(namespace).items()} if history else {}
        texts = [f"{p}: {val}" for p, _, val, _, _ in rows]
        q = self._encode([query])[0]
        vecs = np.stack([np.frombuffer(r[3], dtype="<f4") for r in rows])
        dense = list(np.lexsort((np.arange(len(rows)), -(vecs @ q))))
        lexical = bm25_rank(query, [f"{path_words(p)}: {val}" for p, _, val, _, _ in rows])
        fused: dict[int, float] = {}
        for ranked in (dense, lexical):
            for rank, i in enumerate(ranked, 1):
                fused[int(i)] = fused.get(int(i), 0.0) + 1.0 / (self.config.rrf_k + rank)
        order = sorted(fused, key=lambda i: (-fused[i], i))
        out = []
        for i in order:
            p, v, val, _, t = rows[i]
            status = "active" if not history or latest.get(p) == v else "superseded"
            out.append(HostHit(host_id=leaf_id(p, int(v)), text=texts[i], score=fused[i],
                               time=datetime.fromisoformat(t) if t else None,
                               native={"kind": "leaf", "path": p, "version": int(v), "status": status}))
        return out

    def get(self, host_id: str, *, namespace: str) -> HostHit | None:
        """An event (``h<seq>``) or a leaf version (``leaf:<path>#<v>``)."""
        parsed = _split_leaf_id(host_id)
        if parsed is None:
            return self.events.get(host_id, namespace=namespace)
        row = self.conn.execute(
            "SELECT value, time FROM insideout_versions WHERE namespace = ? AND path = ? AND version = ?",
            (namespace, *parsed),
        ).fetchone()
        if row is None:
            return None
        return HostHit(host_id=host_id, text=f"{parsed[0]}: {row[0]}",
                       time=datetime.fromisoformat(row[1]) if row[1] else None,
                       native=self.native_state(host_id, namespace=namespace))

    def count(self, namespace: str) -> int:
        """Events stored in ``namespace``."""
        return self.events.count(namespace)

    # ------------------------------------------------------------------ history for the overlay

    def snapshots(self, namespace: str) -> list[Snapshot]:
        """Every overwritten or blanked leaf value, oldest first, with the events of the
        chunk that wrote it and of the chunk that replaced it."""
        rows = self.conn.execute(
            "SELECT path, version, value, op, chunk, time FROM insideout_versions WHERE namespace = ? ORDER BY path, version",
            (namespace,),
        ).fetchall()
        chunk_events = self._chunk_events(namespace)
        out = []
        for (p, v, val, op, ch, t), nxt in zip(rows, rows[1:]):
            if nxt[0] != p or not val:  # last version of its path, or a blank (nothing was lost)
                continue
            out.append(Snapshot(path=p, version=int(v), value=val, op=op, written_by=chunk_events.get(ch, ()),
                                new_value=nxt[2], new_op=nxt[3], overwritten_by=chunk_events.get(nxt[4], ()),
                                host_id=leaf_id(p, int(v)), time=datetime.fromisoformat(t) if t else None))
        out.sort(key=lambda s: (min((int(h[1:]) for h in s.overwritten_by), default=0), s.path))
        return out

    def _chunk_events(self, namespace: str) -> dict[int, tuple[str, ...]]:
        return {int(c): tuple(json.loads(e)) for c, e in self.conn.execute(
            "SELECT chunk, events FROM insideout_chunks WHERE namespace = ?", (namespace,))}

    def native_state(self, host_id: str, *, namespace: str) -> dict[str, Any]:
        """State evidence for one hit.

        A leaf version: ``{"kind": "leaf", "status": "active"|"superseded"|"deleted",
        "path", "version", "value", "written_by": [event ids], "superseded_by": [event ids]}``.
        An event: ``{"kind": "event", "status", "chunk", "writes": [{"path", "version",
        "op", "value", "status", "superseded_by"}]}``; its status is ``pending`` (not yet
        read by the LLM), ``unknown`` (its chunk wrote nothing), ``superseded`` (every
        value its chunk wrote was later replaced) or ``active``. Chunk-level: the three
        exchanges of a chunk share their writes. ``{}`` for unknown ids.
        """
        with self._lock:
            parsed = _split_leaf_id(host_id)
            chunk_events = self._chunk_events(namespace)
            if parsed is not None:
                return self._leaf_state(namespace, *parsed, chunk_events)
            row = self.conn.execute(
                "SELECT chunk FROM insideout_events WHERE host_id = ? AND namespace = ?", (host_id, namespace)
            ).fetchone()
            if row is None:
                return {}
            if row[0] is None:
                return {"kind": "event", "status": "pending", "chunk": None, "writes": []}
            writes = [
                self._leaf_state(namespace, p, int(v), chunk_events)
                for p, v in self.conn.execute(
                    "SELECT path, version FROM insideout_versions WHERE namespace = ? AND chunk = ? ORDER BY path",
                    (namespace, row[0]),
                )
            ]
            writes = [{k: w[k] for k in ("path", "version", "op", "value", "status", "superseded_by")} for w in writes]
            live = [w for w in writes if w["op"] != "DELETE"]
            if not live:
                status = "unknown"
            elif all(w["status"] != "active" for w in live):
                status = "superseded"
            else:
                status = "active"
            return {"kind": "event", "status": status, "chunk": int(row[0]), "writes": writes}

    def _leaf_state(self, namespace: str, path: str, version: int,
                    chunk_events: Mapping[int, tuple[str, ...]]) -> dict[str, Any]:
        rows = self.conn.execute(
            "SELECT version, value, op, chunk FROM insideout_versions WHERE namespace = ? AND path = ? AND version >= ? ORDER BY version LIMIT 2",
            (namespace, path, version),
        ).fetchall()
        if not rows or int(rows[0][0]) != version:
            return {}
        _, value, op, chunk = rows[0]
        nxt = rows[1] if len(rows) > 1 else None
        if op == "DELETE":
            status = "deleted"
        elif nxt is None:
            status = "active"
        else:
            status = "superseded"
        return {"kind": "leaf", "status": status, "path": path, "version": version, "value": value, "op": op,
                "written_by": list(chunk_events.get(chunk, ())),
                "superseded_by": list(chunk_events.get(nxt[3], ())) if nxt else [],
                "new_value": nxt[1] if nxt else None}

    def stats(self, namespace: str | None = None) -> dict[str, int]:
        """Op counts summed over processed chunks (``chunks``, ``added``, ``updated``,
        ``deleted``, ``overwritten``, ``no_op``, ``bad_op``, ``unknown_path``,
        ``missing_value``, ``invalid_json``, ``llm_error``, ...)."""
        sql, args = "SELECT stats FROM insideout_chunks", ()
        if namespace is not None:
            sql, args = sql + " WHERE namespace = ?", (namespace,)
        total: Counter[str] = Counter()
        for (s,) in self.conn.execute(sql, args):
            total.update(json.loads(s))
        return dict(total)

    # ------------------------------------------------------------------ answering

    def answer(self, query: str, evidence: Sequence[HostHit] = (), *, namespace: str) -> str:
        """InsideOut's answer: flush, then ask ``answerer`` with the tree's most relevant
        non-empty leaves (plus retrieved raw turns in ``"tree+turns"`` mode). ``evidence``
        is not used: the tree is this host's context."""
        self.flush(namespace)
        cfg = self.config
        leaves = self.tree(namespace)
        if len(leaves) > cfg.answer_max_leaves:
            keep = {h.native["path"] for h in self._leaf_hits(query, namespace, history=False)[: cfg.answer_max_leaves]}
            leaves = {p: v for p, v in leaves.items() if p in keep}
        turns = self.events.search(query, namespace=namespace, k=cfg.answer_turns) if cfg.answer_mode == "tree+turns" else []
        reply = self.answerer.complete(tree_qa_messages(query, leaves, turns), max_tokens=cfg.answer_max_tokens,
                                       temperature=0.0)
        return reply.text.strip()

    # ------------------------------------------------------------------ erasing

    def erase(self, host_ids: Sequence[str], *, namespace: str) -> None:
        """Hard delete. An event id removes the event and every leaf version its chunk
        wrote (derived data goes with its source; the tree falls back to the latest
        remaining version). A leaf id removes that version."""
        with self._lock:
            events = [h for h in host_ids if _split_leaf_id(h) is None]
            leaves = [p for p in map(_split_leaf_id, host_ids) if p is not None]
            with transaction(self.conn):
                chunks = set()
                for h in events:
                    row = self.conn.execute(
                        "SELECT chunk FROM insideout_events WHERE host_id = ? AND namespace = ?", (h, namespace)
                    ).fetchone()
                    if row is None:
                        continue
                    if row[0] is not None:
                        chunks.add(int(row[0]))
                    self.conn.execute("DELETE FROM insideout_events WHERE host_id = ?", (h,))
                for ch in chunks:
                    self.conn.execute("DELETE FROM insideout_versions WHERE namespace = ? AND chunk = ?", (namespace, ch))
                    self.conn.execute("UPDATE insideout_chunks SET reply = '', stats = '{}' WHERE chunk = ?", (ch,))
                for p, v in leaves:
                    self.conn.execute("DELETE FROM insideout_versions WHERE namespace = ? AND path = ? AND version = ?",
                                      (namespace, p, v))
            self.events.erase(events, namespace=namespace)


def _with_score(hit: HostHit, score: float) -> HostHit:
    return HostHit(host_id=hit.host_id, text=hit.text, score=score, time=hit.time, speaker=hit.speaker,
                   native=hit.native)
