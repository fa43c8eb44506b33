"""GraphitiHost: Graphiti / Zep temporal knowledge graph as a host (extra ``atma[graphiti]``).

``graphiti-core`` 0.31.x on embedded Kuzu (``<path>.kuzu``, or in memory), fully
offline:

* LLM: ``OpenAIGenericClient`` against an OpenAI-compatible server, structured
  output mode ``json_schema``, temperature 0, ``max_tokens`` capped in the client
  (edge extraction asks for 16384). Without ``base_url`` the adapter serves the
  packaged GGUF itself over loopback (:class:`adapters._llm_server.LocalLLMServer`,
  one thread) and stops it on :meth:`close`.
* Embedder and reranker: in-process atma embedder (packaged MiniLM by default)
  behind Graphiti's ``EmbedderClient`` / ``CrossEncoderClient`` (the reranker is the
  bi-encoder's cosine; ``EMBEDDING_DIM`` is set to the embedder's width).
* Kuzu fixes for 0.31.2: ``driver._database = ''`` and the full-text indices that
  ``build_indices_and_constraints`` does not create (graphiti #1258, #1112).
* The async API runs on one event loop per adapter, in its own thread, so the sync
  Host protocol works even when the caller already runs a loop.

Mapping to the Host protocol:
  * ``add`` -> ``add_episode`` (``group_id`` = namespace, in call order). The host id
    is the episode uuid Graphiti returns; when extraction fails the event is still
    kept adapter-side under ``local:<uuid4>`` and the error in ``graphiti_episodes.error``.
  * ``search`` -> ``Graphiti.search`` (hybrid, reranked) -> the ``EntityEdge`` facts as
    they come: ``host_id = "fact:<edge uuid>"``, ``text = fact``, ``native`` =
    ``{kind, valid_at, invalid_at, expired_at, episodes, status, name}``. A fact is not an
    event: ``native["episodes"]`` names the episode uuids (= host ids from ``add``) it
    was extracted from, which is how the overlay relates it to its event records.
  * ``native_state(host_id)``: a fact's ``status`` is ``"superseded"`` when Graphiti set
    ``invalid_at`` or ``expired_at``, else ``"active"``. Graphiti's invalidation with a
    small model is noisy (it retires unrelated facts, graphiti #1728): *evidence*, not truth.
  * ``answer``: host alone, the facts as returned, unlabelled, invalidated ones included.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import sys
import threading
import time as _time
import uuid as _uuid
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

from adapters.kit import check_namespace, normalise_item, transaction
from atma.bank import connect_wal
from atma.protocols import LLM, Embedder, HostHit

__all__ = ["GraphitiHost", "fact_qa_messages"]

log = logging.getLogger(__name__)

FACT_PREFIX = "fact:"
LOCAL_PREFIX = "local:"  # an event whose add_episode failed (no episode in the graph)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS graphiti_episodes (
    episode   TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    text      TEXT NOT NULL,
    speaker   TEXT NOT NULL DEFAULT '',
    time      TEXT,
    meta      TEXT NOT NULL DEFAULT '{}',
    error     TEXT,
    seconds   REAL NOT NULL DEFAULT 0,
    llm_calls INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS graphiti_episodes_ns ON graphiti_episodes(namespace, seq);
"""


def _prepare_env(dim: int) -> None:
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    # Read by graphiti_core.embedder.client at import time.
    os.environ.setdefault("EMBEDDING_DIM", str(dim))


def _import_graphiti() -> Any:
    # Measured here: importing xllamacpp after kuzu aborts the process (std::bad_alloc
    # in xllamacpp's module init); the other order works. Load it first when present.
    if "kuzu" not in sys.modules:
        try:
            import xllamacpp  # noqa: F401
        except ImportError:
            pass
    elif "xllamacpp" not in sys.modules:
        log.warning("kuzu was imported before xllamacpp: loading a llama.cpp model in this process will abort")
    try:
        import graphiti_core  # noqa: F401
        import httpx  # noqa: F401  (graphiti-core imports it without declaring it)
    except ImportError as e:
        raise ImportError("GraphitiHost needs graphiti-core: pip install 'atma[graphiti]'") from e
    return graphiti_core


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _aware(t: datetime | None) -> datetime:
    if t is None:
        return datetime.now(timezone.utc)
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def fact_qa_messages(query: str, facts: Sequence[HostHit]) -> list[dict[str, str]]:
    """Graphiti alone: the facts in the order search returned them, each with the
    date it became valid, no validity labels (invalidated facts look like the rest)."""
    lines = []
    for n, h in enumerate(facts, 1):
        when = h.time.strftime("%Y-%m-%d") if h.time else "undated"
        lines.append(f"[{n}] ({when}) {h.text}")
    rows = "\n".join(lines) if lines else "(no facts found)"
    system = (
        "You answer questions about a person using only the facts listed. Answer concisely, "
        "in a few words. If the facts do not contain the answer, say you don't know."
    )
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Facts:\n{rows}\n\nQuestion: {query}\nAnswer:"}]


def _clients(embedder: Embedder) -> tuple[Any, Any]:
    """Graphiti EmbedderClient / CrossEncoderClient over an atma embedder, in-process."""
    import numpy as np
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.embedder.client import EmbedderClient

    class AtmaEmbedderClient(EmbedderClient):
        async def create(self, input_data: Any) -> list[float]:
            text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
            return [float(x) for x in embedder.encode([text])[0]]

        async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
            return [[float(x) for x in row] for row in embedder.encode(list(input_data_list))]

    class AtmaCosineReranker(CrossEncoderClient):
        async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
            if not passages:
                return []
            vecs = np.asarray(embedder.encode([query, *passages]), dtype=np.float32)
            scores = vecs[1:] @ vecs[0]
            return sorted(zip(passages, (float(s) for s in scores)), key=lambda p: -p[1])

    return AtmaEmbedderClient(), AtmaCosineReranker()


def _llm_client(base_url: str, model: str, max_tokens: int) -> Any:
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

    class CappedClient(OpenAIGenericClient):
        """Caps every request's max_tokens and counts calls (edge extraction asks for
        16384, and the server's own limit does not cap a request)."""

        calls = 0

        async def _generate_response(self, messages, response_model=None, max_tokens=max_tokens, model_size=None,
                                     **kw):  # type: ignore[override]
            type(self).calls += 1
            args = {} if model_size is None else {"model_size": model_size}
            return await super()._generate_response(messages, response_model, min(max_tokens or self.max_tokens,
                                                                                     self.max_tokens), **args, **kw)

    cfg = LLMConfig(api_key="sk-local", model=model, small_model=model, base_url=base_url, temperature=0.0,
                    max_tokens=max_tokens)
    return CappedClient(cfg, max_tokens=max_tokens, structured_output_mode="json_schema")


class GraphitiHost:
    """Graphiti on embedded Kuzu; see the module docstring.

    ``base_url``/``model``: an OpenAI-compatible server; if ``base_url`` is None the
    packaged ``gguf`` is served in-process (``n_threads``, ``n_ctx``). ``embedder``:
    an atma embedder (default packaged MiniLM). ``answerer``: an atma LLM for
    :meth:`answer`. ``graphiti``: a ready Graphiti-like object (tests pass a fake; the
    adapter then builds no driver, server or clients).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        base_url: str | None = None,
        model: str = "local",
        gguf: str = "qwen2.5-coder-1.5b",
        n_threads: int = 1,
        n_ctx: int = 8192,
        max_tokens: int = 1024,
        embedder: Embedder | None = None,
        answerer: LLM | None = None,
        graphiti: Any = None,
        name: str = "graphiti",
    ) -> None:
        self.name = name
        self.path = os.fspath(path)
        self.answerer = answerer
        if embedder is None:
            from atma.embed import SentenceTransformerEmbedder

            embedder = SentenceTransformerEmbedder()
        self.embedder = embedder
        self._facts: dict[str, dict[str, Any]] = {}
        self._lock = threading.RLock()
        self._server = None
        self._llm_client = None
        conn = connect_wal(self.path)
        with transaction(conn):
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                conn.execute(stmt)
        self._conn: sqlite3.Connection | None = conn
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="atma-graphiti", daemon=True)
        self._thread.start()
        try:
            self.graphiti = graphiti if graphiti is not None else self._build(base_url, model, gguf, n_threads, n_ctx,
                                                                               max_tokens)
        except BaseException:
            self.close()
            raise

    def _build(self, base_url: str | None, model: str, gguf: str, n_threads: int, n_ctx: int, max_tokens: int) -> Any:
        _prepare_env(int(self.embedder.dim))
        _import_graphiti()  # before the local server: it orders the native imports
        from graphiti_core import Graphiti
        from graphiti_core.driver.kuzu_driver import KuzuDriver
        from graphiti_core.graph_queries import GraphProvider, get_fulltext_indices

        if int(os.environ["EMBEDDING_DIM"]) != int(self.embedder.dim):
            raise ValueError(f"EMBEDDING_DIM={os.environ['EMBEDDING_DIM']} but the embedder has dim {self.embedder.dim}")
        if base_url is None:
            from adapters._llm_server import LocalLLMServer

            self._server = LocalLLMServer(gguf, n_threads=n_threads, n_ctx=n_ctx)
            base_url = self._server.start()
            model = self._server.model_name
        db = ":memory:" if self.path == ":memory:" else self.path + ".kuzu"
        driver = KuzuDriver(db=db)
        driver._database = ""  # never set by KuzuDriver in 0.31.2
        emb, rerank = _clients(self.embedder)
        self._llm_client = _llm_client(base_url, model, max_tokens)
        g = Graphiti(graph_driver=driver, llm_client=self._llm_client, embedder=emb, cross_encoder=rerank)
        self._run(g.build_indices_and_constraints())
        for stmt in get_fulltext_indices(GraphProvider.KUZU):  # not created by build_indices on Kuzu
            try:
                self._run(driver.execute_query(stmt))
            except Exception as e:  # already there on reopen
                if "already exists" not in str(e).lower():
                    raise
        return g

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # ------------------------------------------------------------------ lifecycle

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("GraphitiHost is closed")
        return self._conn

    @property
    def llm_calls(self) -> int:
        return type(self._llm_client).calls if self._llm_client is not None else 0

    def close(self) -> None:
        with self._lock:
            g = getattr(self, "graphiti", None)
            if g is not None and self._loop.is_running():
                try:
                    self._run(g.close())
                except Exception as e:  # closing must not raise
                    log.debug("graphiti close: %s", e)
            self.graphiti = None
            if self._loop.is_running():
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=10)
            if self._server is not None:
                self._server.stop()
                self._server = None
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "GraphitiHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GraphitiHost({self.path!r})"

    # ------------------------------------------------------------------ writing

    def add(self, text: str, *, namespace: str, time: datetime | str | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> str:
        """One ``add_episode`` (message source, ``"<speaker>: <text>"``); returns the episode uuid."""
        return self.add_many([{"text": text, "time": time, "speaker": speaker, "meta": meta}], namespace=namespace)[0]

    def add_many(self, items: Iterable[Mapping[str, Any] | str], *, namespace: str) -> list[str]:
        """Episodes in order, one ``add_episode`` each (Graphiti requires the order)."""
        try:
            from graphiti_core.nodes import EpisodeType

            source: Any = EpisodeType.message
        except ImportError:  # an injected graphiti (tests) without graphiti-core installed
            source = "message"
        check_namespace(namespace)
        ids = []
        with self._lock:
            for text, t, speaker, meta in (normalise_item(it) for it in items):
                body = f"{speaker}: {text}" if speaker else text
                calls0 = self.llm_calls
                t0 = _time.perf_counter()
                error = None
                try:
                    # add_episode(uuid=...) means "re-process that stored episode": let Graphiti pick it.
                    res = self._run(self.graphiti.add_episode(
                        name=f"{namespace}-{_uuid.uuid4().hex[:8]}", episode_body=body,
                        source_description="conversation turn", reference_time=_aware(t), source=source,
                        group_id=namespace,
                    ))
                    ep = str(res.episode.uuid)
                except Exception as e:  # extraction failed: keep the event under a local id, say so
                    ep = f"{LOCAL_PREFIX}{_uuid.uuid4()}"
                    error = f"{type(e).__name__}: {e}"[:500]
                    log.warning("graphiti add_episode failed in %s: %s", namespace, error)
                seconds = _time.perf_counter() - t0
                with transaction(self.conn):
                    seq = self.conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM graphiti_episodes").fetchone()[0]
                    self.conn.execute(
                        "INSERT INTO graphiti_episodes(episode, namespace, seq, text, speaker, time, meta, error, seconds, llm_calls)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?)",
                        (ep, namespace, seq, text, speaker, _iso(t), meta, error, seconds, self.llm_calls - calls0),
                    )
                ids.append(ep)
        return ids

    # ------------------------------------------------------------------ reading

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]:
        """Graphiti's fact search for ``namespace`` in its own order (see module docstring).
        ``score`` is ``1/rank`` (Graphiti returns no score)."""
        if k <= 0:
            return []
        check_namespace(namespace)
        with self._lock:
            edges = self._run(self.graphiti.search(query, group_ids=[namespace], num_results=k))
        hits = []
        for rank, e in enumerate(edges[:k], 1):
            if getattr(e, "group_id", namespace) != namespace:  # never cross namespaces
                continue
            native = _edge_native(e)
            hid = FACT_PREFIX + str(e.uuid)
            self._facts[hid] = native
            hits.append(HostHit(host_id=hid, text=str(e.fact), score=1.0 / rank,
                                time=e.valid_at or getattr(e, "created_at", None), native=native))
        return hits

    def native_state(self, host_id: str, *, namespace: str) -> dict[str, Any]:
        """``{"kind": "fact", "status": "superseded"|"active", "valid_at", "invalid_at",
        "expired_at", "episodes"}`` for a fact; ``{"kind": "episode", "error", ...}`` for an
        episode id; ``{}`` if unknown."""
        if host_id.startswith(FACT_PREFIX):
            native = self._facts.get(host_id)
            if native is None:
                native = self._fetch_fact(host_id[len(FACT_PREFIX):], namespace)
            return dict(native) if native else {}
        row = self.conn.execute(
            "SELECT error FROM graphiti_episodes WHERE episode = ? AND namespace = ?", (host_id, namespace)
        ).fetchone()
        return {"kind": "episode", "status": "unknown", "error": row[0]} if row else {}

    def _fetch_fact(self, edge_uuid: str, namespace: str) -> dict[str, Any] | None:
        from graphiti_core.edges import EntityEdge

        try:
            e = self._run(EntityEdge.get_by_uuid(self.graphiti.driver, edge_uuid))
        except Exception:
            return None
        if getattr(e, "group_id", None) != namespace:
            return None
        native = _edge_native(e)
        self._facts[FACT_PREFIX + edge_uuid] = native
        return native

    def get(self, host_id: str, *, namespace: str) -> HostHit | None:
        """An episode (the original event) by its uuid."""
        row = self.conn.execute(
            "SELECT text, speaker, time FROM graphiti_episodes WHERE episode = ? AND namespace = ?", (host_id, namespace)
        ).fetchone()
        if row is None:
            return None
        return HostHit(host_id=host_id, text=row[0], speaker=row[1], time=datetime.fromisoformat(row[2]) if row[2] else None)

    def count(self, namespace: str) -> int:
        return int(self.conn.execute("SELECT count(*) FROM graphiti_episodes WHERE namespace = ?", (namespace,)).fetchone()[0])

    def episode_stats(self, namespace: str) -> list[dict[str, Any]]:
        """Per episode: seconds, LLM calls and extraction error, in order (cost reports)."""
        return [{"episode": r[0], "seconds": r[1], "llm_calls": r[2], "error": r[3]} for r in self.conn.execute(
            "SELECT episode, seconds, llm_calls, error FROM graphiti_episodes WHERE namespace = ? ORDER BY seq", (namespace,))]

    # ------------------------------------------------------------------ answering / erasing

    def answer(self, query: str, evidence: Sequence[HostHit], *, namespace: str) -> str:
        """Graphiti alone: the facts as returned, unlabelled (see :func:`fact_qa_messages`)."""
        if self.answerer is None:
            raise RuntimeError("GraphitiHost.answer needs answerer=<an atma LLM>")
        facts = [h for h in evidence if h.host_id.startswith(FACT_PREFIX)] or list(evidence)
        return self.answerer.complete(fact_qa_messages(query, facts), max_tokens=64, temperature=0.0).text.strip()

    def erase(self, host_ids: Sequence[str], *, namespace: str) -> None:
        """Hard delete episodes (Graphiti's ``remove_episode`` drops the episode and the
        nodes/edges only it produced) and facts (the edge)."""
        with self._lock:
            for hid in host_ids:
                if hid.startswith(FACT_PREFIX):
                    from graphiti_core.edges import EntityEdge

                    if self._fetch_fact(hid[len(FACT_PREFIX):], namespace) is None:
                        continue
                    e = self._run(EntityEdge.get_by_uuid(self.graphiti.driver, hid[len(FACT_PREFIX):]))
                    self._run(e.delete(self.graphiti.driver))
                    self._facts.pop(hid, None)
                    continue
                if self.get(hid, namespace=namespace) is None:
                    continue
                try:
                    if not hid.startswith(LOCAL_PREFIX):
                        self._run(self.graphiti.remove_episode(hid))
                except Exception as e:  # the episode may not exist if extraction failed
                    log.warning("graphiti remove_episode(%s): %s", hid, e)
                with transaction(self.conn):
                    self.conn.execute("DELETE FROM graphiti_episodes WHERE episode = ?", (hid,))


def _edge_native(e: Any) -> dict[str, Any]:
    invalid, expired = getattr(e, "invalid_at", None), getattr(e, "expired_at", None)
    return {
        "kind": "fact",
        "status": "superseded" if (invalid or expired) else "active",
        "name": getattr(e, "name", ""),
        "valid_at": _iso(getattr(e, "valid_at", None)),
        "invalid_at": _iso(invalid),
        "expired_at": _iso(expired),
        "episodes": [str(x) for x in (getattr(e, "episodes", None) or [])],
    }
