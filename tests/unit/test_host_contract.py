"""One Host contract, every host: round trip, times, namespaces, reopen, erase, and the
overlay's labels right after a supersession.

Hosts that need an LLM get a ScriptedLLM (InsideOut's tree operations are scripted);
A-Mem and Graphiti run their adapters over in-process fakes of the libraries (the
real libraries are exercised in tests/integration/test_hosts_real.py).
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np
import pytest

from adapters.amem import AMemHost
from adapters.builtin import BuiltinHost
from adapters.graphiti import GraphitiHost
from adapters.insideout import InsideOutHost
from adapters.registry import HOSTS, make_host
from atma import ATMAOverlay, OverlayConfig
from atma.protocols import Host
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM

JUDGE = "audit a personal memory"
QA = "answer a question"
SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})

SCHEMA = {"Identity": {"Residence": "", "Occupation": ""}, "Family": {"Pets": ""}}


def scripted_ops(messages) -> str:
    """InsideOut's op model, scripted: a few keyword rules over the chunk's text."""
    chunk = messages[-1]["content"].split("Dialogue chunk:", 1)[1]
    ops = []
    for city in ("Leeds", "Bristol", "Porto", "Oslo"):
        if city in chunk:
            ops.append({"op": "UPDATE", "path": "Identity.Residence", "value": city})
    if "bakery" in chunk:
        ops.append({"op": "ADD", "path": "Identity.Occupation", "value": "pastry chef"})
    return json.dumps({"operations": ops or [{"op": "NO_OP", "path": "", "value": ""}]})


# ---------------------------------------------------------------- library fakes


class FakeAgenticMemory:
    """The slice of A-Mem's AgenticMemorySystem the adapter uses, persisted as JSON in
    its storage folder. Evolution is imitated: every note links to the previous one and
    rewrites its context in place (as A-Mem's evolution does)."""

    def __init__(self, storage_path: str) -> None:
        self.folder = Path(storage_path)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.file = self.folder / "notes.json"
        self.notes: dict[str, dict[str, Any]] = json.loads(self.file.read_text()) if self.file.exists() else {}
        self.emb = HashEmbedder()
        self.llm_controller = SimpleNamespace(llm=None)

    def _save(self) -> None:
        self.file.write_text(json.dumps(self.notes))

    def add_note(self, content: str, time: str | None = None, **kw: Any) -> str:
        nid = str(uuid.uuid4())
        analysis = json.loads(self.llm_controller.llm.get_completion(
            "Generate keywords, context, tags for: " + content,
            {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object", "properties": {
                "keywords": {"type": "array"}, "context": {"type": "string"}, "tags": {"type": "array"}}}}}))
        prev = list(self.notes)[-1:] 
        for p in prev:  # evolution rewrites the neighbour in place
            self.notes[p]["context"] = "rewritten by evolution"
            self.notes[p]["content"] = "EVOLVED " + self.notes[p]["content"]
        self.notes[nid] = {"content": content, "timestamp": time, "links": prev + ["invented-id"],
                           "context": analysis.get("context", ""), "keywords": [], "tags": []}
        self._save()
        return nid

    def read(self, nid: str) -> Any:
        n = self.notes.get(nid)
        return SimpleNamespace(id=nid, **n) if n else None

    def delete(self, nid: str) -> bool:
        self.notes.pop(nid, None)
        self._save()
        return True

    def search_agentic(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        if not self.notes:
            return []
        ids = list(self.notes)
        vecs = self.emb.encode([self.notes[i]["content"] for i in ids])
        dist = 1.0 - vecs @ self.emb.encode([query])[0]
        order = sorted(range(len(ids)), key=lambda i: (dist[i], i))[:k]
        return [{"id": ids[i], "score": float(dist[i]), "is_neighbor": False} for i in order] + [
            {"id": "invented-id", "is_neighbor": True}]


class FakeGraphiti:
    """Graphiti's add_episode/search/remove_episode/close: one fact per episode (the
    episode body), reranked by a hash embedder; a fact mentioning a city retires the
    earlier facts that mention another city (invalid_at set, nothing deleted)."""

    def __init__(self) -> None:
        self.edges: list[SimpleNamespace] = []
        self.emb = HashEmbedder()
        self.driver = None

    async def add_episode(self, *, name, episode_body, source_description, reference_time, source, group_id):
        ep = SimpleNamespace(uuid=str(uuid.uuid4()))
        city = re.search(r"\b(Leeds|Bristol|Porto|Oslo)\b", episode_body)
        if city:
            for e in self.edges:
                if e.group_id == group_id and e.invalid_at is None and re.search(r"\b(Leeds|Bristol|Porto|Oslo)\b", e.fact) \
                        and city.group(1) not in e.fact:
                    e.invalid_at = e.expired_at = reference_time
        self.edges.append(SimpleNamespace(uuid=f"edge-{len(self.edges)}", fact=episode_body, name="SAYS",
                                          group_id=group_id, valid_at=reference_time, invalid_at=None,
                                          expired_at=None, episodes=[ep.uuid], created_at=reference_time))
        return SimpleNamespace(episode=ep)

    async def search(self, query, group_ids=None, num_results=10, search_filter=None):
        mine = [e for e in self.edges if e.group_id in (group_ids or [])]
        if not mine:
            return []
        s = self.emb.encode([e.fact for e in mine]) @ self.emb.encode([query])[0]
        return [mine[i] for i in sorted(range(len(mine)), key=lambda i: (-s[i], i))[:num_results]]

    async def remove_episode(self, ep: str) -> None:
        self.edges = [e for e in self.edges if ep not in e.episodes]

    async def close(self) -> None:
        pass


# ---------------------------------------------------------------- host factories

HostFactory = Callable[[str], Host]


def make(kind: str, path: str, llm: ScriptedLLM | None = None) -> Host:
    emb = HashEmbedder()
    llm = llm or ScriptedLLM(route={"PersonaTree": scripted_ops}, default=lambda m: "ok")
    if kind == "builtin":
        return BuiltinHost(path, embedder=emb, answerer=llm)
    if kind == "insideout":
        return InsideOutHost(path, llm=llm, embedder=emb, schema=SCHEMA)
    if kind == "amem":
        amem_llm = ScriptedLLM(default=json.dumps({"keywords": ["k"], "context": "ctx", "tags": ["t"]}),
                               route=dict(llm._route))
        return AMemHost(path, llm=amem_llm, answerer=llm, embedder=emb, system_factory=FakeAgenticMemory)
    if kind == "graphiti":
        return GraphitiHost(path, graphiti=_graphiti_store.setdefault(path, FakeGraphiti()), embedder=emb, answerer=llm)
    raise AssertionError(kind)


_graphiti_store: dict[str, FakeGraphiti] = {}  # the fake "graph database", per path

EVENTS = [
    ("2024-01-10T10:00", "Dana", "I rent a small flat in Leeds, close to the canal."),
    ("2024-01-22T19:30", "Dana", "Work at the bakery was hectic, I am a pastry chef there."),
    ("2024-02-03T09:15", "Dana", "My cat Biscuit knocked the plant off the windowsill."),
    ("2024-03-14T20:00", "Sam", "You should try climbing with me sometime, Dana!"),
]


@pytest.fixture(params=HOSTS)
def kind(request) -> str:
    return request.param


@pytest.fixture
def host(kind, tmp_path):
    h = make(kind, str(tmp_path / "h.db"))
    yield h
    h.close()


def add_events(host: Host, ns: str = "u1") -> list[str]:
    return [host.add(text, namespace=ns, time=datetime.fromisoformat(t), speaker=who) for t, who, text in EVENTS]


def texts(hits) -> str:
    return " | ".join(h.text for h in hits)


# ---------------------------------------------------------------- contract


def test_is_a_host(host) -> None:
    assert isinstance(host, Host) and host.name


def test_add_search_round_trip(host) -> None:
    ids = add_events(host)
    assert len(set(ids)) == len(ids) and all(isinstance(i, str) and i for i in ids)
    hits = host.search("Biscuit the cat and the plant", namespace="u1", k=5)
    assert hits and "Biscuit" in texts(hits[:2])
    assert all(h.host_id for h in hits) and len(hits) <= 5
    assert host.search("anything", namespace="u1", k=0) == []


def test_times_and_order_kept(host) -> None:
    ids = add_events(host)
    got = [host.get(i, namespace="u1") for i in ids]
    assert [g.time for g in got] == [datetime.fromisoformat(t) for t, _, _ in EVENTS]
    assert [g.speaker for g in got] == [w for _, w, _ in EVENTS]
    assert [g.text for g in got] == [x for _, _, x in EVENTS]  # the original event, never a rewrite
    assert host.count("u1") == len(EVENTS)


def test_namespaces_are_isolated(host) -> None:
    add_events(host, "u1")
    host.add("I live in Oslo with my parrot Kiwi.", namespace="u2", speaker="Eve")
    for q in ("parrot Kiwi Oslo", "Leeds canal flat"):
        assert "Kiwi" not in texts(host.search(q, namespace="u1", k=10))
        assert "Leeds" not in texts(host.search(q, namespace="u2", k=10))
    assert host.search("parrot", namespace="nobody", k=5) == []


def test_persists_across_reopen(kind, tmp_path) -> None:
    path = str(tmp_path / "p.db")
    h = make(kind, path)
    ids = add_events(h)
    h.close()
    h2 = make(kind, path)
    try:
        assert h2.count("u1") == len(EVENTS)
        assert h2.get(ids[2], namespace="u1").text == EVENTS[2][2]
        assert "Biscuit" in texts(h2.search("Biscuit the cat", namespace="u1", k=5))
    finally:
        h2.close()


def test_erase_removes_from_search(host) -> None:
    ids = add_events(host)
    host.erase([ids[2]], namespace="u1")
    assert host.get(ids[2], namespace="u1") is None
    assert "Biscuit" not in texts(host.search("Biscuit the cat and the plant", namespace="u1", k=10))
    assert host.count("u1") == len(EVENTS) - 1
    host.erase(["no-such-id"], namespace="u1")  # unknown ids are ignored


def test_registry_builds_each_host(kind, tmp_path) -> None:
    llm = ScriptedLLM(default="{}")
    extra = {"insideout": {"schema": SCHEMA}, "amem": {"system_factory": FakeAgenticMemory},
             "graphiti": {"graphiti": FakeGraphiti()}}.get(kind, {})
    h = make_host(kind, path=str(tmp_path / "r.db"), embedder=HashEmbedder(), llm=llm, **extra)
    try:
        assert h.name == kind and isinstance(h, Host)
    finally:
        h.close()
    with pytest.raises(ValueError, match="unknown host"):
        make_host("mem0")


def _overlay_story(kind: str, tmp_path: Path) -> ATMAOverlay:
    llm = ScriptedLLM(route={"PersonaTree": scripted_ops, JUDGE: lambda m: SUPERSEDE,
                             QA: lambda m: "Leeds" if ("past state" in m[1]["content"] or "earlier state" in m[1]["content"]) else "Bristol"},
                      default=lambda m: json.dumps({"keywords": [], "context": "c", "tags": []}))
    h = make(kind, str(tmp_path / "o.db"), llm=llm)
    ov = ATMAOverlay(h, namespace="dana", llm=llm, judge_llm=llm, gate=CosineGate(HashEmbedder(), threshold=0.0),
                     config=OverlayConfig(packet_mode="resolved"))  # the labels of the resolved packet
    ov.add("I rent a flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    ov.add("Big news: I moved to Bristol from Leeds last weekend.", time="2024-06-02T10:00", speaker="Dana")
    return ov


@pytest.mark.parametrize("kind", HOSTS)
def test_overlay_labels_right_after_supersession(kind, tmp_path) -> None:
    ov = _overlay_story(kind, tmp_path)
    try:
        old, new = ov.bank.records("dana")
        assert old.status.value == "superseded" and new.status.value == "active"
        before = ov.answer("Where did I live before?")
        assert before.answer == "Leeds" and before.trace.labels[old.id] == "past"
        now = ov.answer("Where do I live now?")
        assert now.trace.labels[new.id] == "now" and old.id not in now.trace.packet
    finally:
        ov.host.close()
