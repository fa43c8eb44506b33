"""The orchestrator with shipped fakes: write path, read path, fallbacks, namespaces, erase."""

from __future__ import annotations

import json

import numpy as np
import pytest

from atma import ATMAOverlay, OverlayConfig, StateBank
from atma.controller import ControllerConfig
from atma.sentry import CosineGate
from atma.protocols import LLMError
from atma.records import LinkType, Status
from atma.testing import HashEmbedder, InMemoryHost, ScriptedLLM

SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})
JUDGE = "audit a personal memory"
QA = "answer a question"
CTRL = "retrieve controller"


class CountingGate(CosineGate):
    def __init__(self, emb):
        super().__init__(emb, threshold=0.0)
        self.encoded: list[str] = []

    def features(self, texts):
        self.encoded.extend(texts)
        return super().features(texts)


def make(judge=SUPERSEDE, qa=lambda m: "ok", ctrl=None, config=None, bank=None, ns="u1", host=None):
    emb = HashEmbedder()
    route = {JUDGE: (judge if callable(judge) else (lambda m: judge)), QA: qa}
    if ctrl is not None:
        route[CTRL] = ctrl
    llm = ScriptedLLM(route=route)
    gate = CountingGate(emb)
    ov = ATMAOverlay(host or InMemoryHost(embedder=emb), namespace=ns, llm=llm, judge_llm=llm, gate=gate, bank=bank,
                     config=config or OverlayConfig())
    return ov, llm, gate


def story(ov):
    ov.add("I rent a flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    return ov.add("Big news: I moved to Bristol from Leeds last weekend.", time="2024-06-02T10:00", speaker="Dana")


@pytest.mark.parametrize("mode,past,now_label", [("resolved", "past", "now"),
                                                  ("labelled", "historical memory", "current memory")])
def test_supersede_end_to_end_labels_and_links(mode, past, now_label):
    ov, llm, _ = make(qa=lambda m: "Leeds" if ("past state" in m[1]["content"] or "earlier state" in m[1]["content"])
                      else "Bristol", config=OverlayConfig(packet_mode=mode))
    res = story(ov)
    assert res.trace.judge[0].status == "ok" and res.trace.changes == ({"action": "supersede", "old_id": "r1"},)
    a = ov.answer("Where did I live before?")
    assert a.answer == "Leeds"
    assert a.trace.labels["r1"] == past
    old = ov.bank.get("u1", "r1")
    assert old.linked(LinkType.SUPERSEDED_BY) == ["r2"]
    now = ov.answer("Where do I live now?")
    assert now.answer == "Bristol" and now.trace.packet[0] == "r2"
    assert now.trace.labels["r2"] == now_label
    # the trace is data: JSON round trip, stored in the bank
    assert json.loads(json.dumps(now.trace.to_json()))["answer"] == "Bristol"
    assert ov.bank.traces("u1", kind="query")[0]["body"]["query"] == "Where do I live now?"


@pytest.mark.parametrize("reply,status", [
    ("garbage", "invalid_json"),
    (json.dumps({"action": "supersede"}), "schema_error"),
    (LLMError("timed out after 60s", kind="timeout"), "timeout"),
    (LLMError("connection refused"), "error"),
])
def test_judge_failures_fall_back_to_rule_and_are_traced(reply, status):
    ov, _, _ = make(judge=(lambda m: reply) if not isinstance(reply, Exception) else (lambda m: reply))
    res = story(ov)
    call = res.trace.judge[0]
    assert call.status == status and call.fallback
    assert call.verdict["reason"].startswith(f"fallback rule ({status})")
    # a far pair by the topic score, but the old value's name stands beside the change wording
    # ("moved to Bristol from Leeds"): the rule retires it (atma.judge.ends_old_name)
    assert res.trace.candidates[0].a < 0.3 and res.trace.changes == ({"action": "supersede", "old_id": "r1"},)
    assert ov.bank.check_invariants("u1") == []


def test_fallback_rule_supersedes_a_close_pair_with_change_wording():
    ov, _, _ = make(judge=lambda m: "garbage")
    ov.add("I live in a small flat in Leeds with Sam.", speaker="Dana")
    res = ov.add("Now I live in a small flat in Bristol with Sam.", speaker="Dana")
    assert res.trace.candidates[0].a >= 0.6
    assert res.trace.changes == ({"action": "supersede", "old_id": "r1"},)
    assert ov.bank.get("u1", "r1").status is Status.SUPERSEDED


def test_fallback_rule_decides_when_judge_disabled():
    ov, llm, _ = make(config=OverlayConfig(use_judge=False))
    ov.add("I live in Leeds.", speaker="Dana")
    res = ov.add("I live in Bristol now, not Leeds.", speaker="Dana")
    assert res.trace.judge[0].status == "skipped"
    assert not any(JUDGE in c.messages[0]["content"] for c in llm.calls)


def test_no_escalation_means_no_judge_call():
    emb = HashEmbedder()
    llm = ScriptedLLM(route={JUDGE: lambda m: SUPERSEDE})
    ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=llm, judge_llm=llm, gate=CosineGate(emb, threshold=0.99))
    ov.add("I live in Leeds.")
    ov.add("I like jazz.")
    assert llm.calls == []


def test_gate_features_encoded_once_per_record():
    ov, _, gate = make()
    story(ov)
    ov.add("Bristol is lovely in June.", speaker="Dana")
    assert len(gate.encoded) == 3  # one encode per new record; old rows come from the bank cache


def test_namespaces_do_not_leak():
    host = InMemoryHost(embedder=HashEmbedder())
    bank = StateBank()
    ov1, _, _ = make(host=host, bank=bank, ns="user-1")
    story(ov1)
    ov2, llm2, _ = make(host=host, bank=bank, ns="user-2")
    a = ov2.answer("Where do I live now?")
    assert a.trace.pool == () and a.trace.packet == ()
    assert "Leeds" not in llm2.calls[-1].messages[1]["content"]
    assert ov2.records() == []


def test_controller_online_reorders_shadow_logs_and_failure_falls_back():
    def ctrl(m):
        return json.dumps({"query_mode": "historical", "confidence": 0.9, "fallback_recommended": False,
                           "selected": [{"candidate_id": "c2", "rank": 1, "role": "historical", "state_fit": 1,
                                         "scope_fit": 1, "change_fit": 0, "noise_risk": 0, "reason": "old"}],
                           "packing_hints": {"transition_evidence": False, "contrast_pairs": True, "weak_hops": False}})
    for mode, applied in (("online", True), ("shadow", False)):
        ov, _, _ = make(ctrl=ctrl, config=OverlayConfig(packet_mode="labelled", controller=ControllerConfig(mode=mode)))
        story(ov)
        t = ov.answer("Where did I live?").trace
        assert t.controller["status"] == "ok" and t.controller["applied"] is applied
        second = t.prerank[1]
        assert (t.packet[0] == second) is applied
    ov, _, _ = make(ctrl=lambda m: "{not json", config=OverlayConfig(packet_mode="labelled",
                                                                      controller=ControllerConfig(mode="online")))
    story(ov)
    t = ov.answer("Where did I live?").trace
    assert t.controller["status"] == "invalid_json" and list(t.packet) == list(t.prerank[:5])


def test_unknown_host_rows_are_retrieved_memory():
    emb = HashEmbedder()
    host = InMemoryHost(embedder=emb)
    host.add("I live in Leeds.", namespace="u")
    ov = ATMAOverlay(host, namespace="u", llm=(_x := ScriptedLLM(default="x")), judge_llm=_x, gate=CosineGate(emb),
                     config=OverlayConfig(packet_mode="labelled"))
    t = ov.answer("Where do I live?").trace
    assert list(t.labels.values()) == ["retrieved memory"]
    ov = ATMAOverlay(host, namespace="u", llm=_x, judge_llm=_x, gate=CosineGate(emb))
    t = ov.answer("Where do I live?").trace
    assert list(t.labels.values()) == ["plain"] and "[" not in t.prompt[1]["content"].split("] ", 1)[1]


def test_erase_reaches_bank_host_and_traces():
    ov, _, _ = make()
    story(ov)
    ov.answer("Where do I live now?")
    ov.erase(["r1"])
    assert ov.bank.get("u1", "r1") is None
    assert all("Leeds." not in h.text for h in ov.host.search("Leeds flat", namespace="u1"))
    assert ov.bank.traces("u1", kind="query") == []


def test_bad_input_is_one_line_value_error():
    ov, _, _ = make()
    with pytest.raises(ValueError, match="malformed time"):
        ov.add("x", time="yesterday-ish")
    with pytest.raises(ValueError):
        ov.add("   ")
    with pytest.raises(ValueError):
        ATMAOverlay(InMemoryHost(), namespace="")
    assert ov.records() == []


def test_questions_and_other_speakers_never_reach_the_judge():
    ov, llm, _ = make()
    ov.add("I rent a flat in Leeds near the canal.", speaker="Dana")
    q = ov.add("Do you still rent that flat in Leeds?", speaker="Sam")
    assert q.trace.audit == "a question states no fact" and q.trace.judge == ()
    s = ov.add("I rent a flat in Leeds near the canal too.", speaker="Sam")
    assert s.trace.candidates and s.trace.judge == ()  # Dana's record is a candidate, but not Sam's state
    d = ov.add("I moved from the flat in Leeds near the canal.", speaker="Dana")
    assert [j.old_id for j in d.trace.judge] == ["r1"]
    assert sum(JUDGE in c.messages[0]["content"] for c in llm.calls) == 1


def test_host_neighbours_become_semantic_hops():
    emb = HashEmbedder()

    class LinkedHost(InMemoryHost):
        def search(self, query, *, namespace, k=10):
            return [h for h in super().search(query, namespace=namespace, k=k) if h.host_id == "m1"]

        def neighbors(self, host_id, *, namespace):
            return ["m2"] if host_id == "m1" else []

    ov = ATMAOverlay(LinkedHost(embedder=emb), namespace="u", llm=(_x := ScriptedLLM(default="x")), judge_llm=_x,
                     gate=CosineGate(emb, threshold=0.99))
    ov.add("Dana adopted a beagle called Pip.")
    ov.add("Quantum chromodynamics lecture notes.")
    t = ov.answer("Tell me about the beagle Pip").trace
    assert [(row["id"], row["bucket"], row["source"]) for row in t.pool] == [
        ("r1", "seed", "host#1"), ("r2", "semantic", "host-link<-r1")]


def test_packet_order_rank_by_default_time_on_request():
    ov, llm, _ = make(config=OverlayConfig(packet_mode="labelled", packet_order="retrieval"))
    story(ov)
    t = ov.answer("Where do I live now?").trace
    assert t.packet[0] == "r2"  # rank order: the live successor first
    assert [row["id"] for row in t.labelled] == ["r2", "r1"]
    ov2, _, _ = make(config=OverlayConfig(packet_mode="labelled", packet_order="time"))
    story(ov2)
    assert [row["id"] for row in ov2.answer("Where do I live now?").trace.labelled] == ["r1", "r2"]  # oldest first


def test_forty_updates_of_one_slot_leave_exactly_one_active_record():
    """The write path reaches the live state through a 40-record chain (head() has no hop cap)."""

    class FirstOnlyHost(InMemoryHost):
        def search(self, query, *, namespace, k=10):  # the host's only hit is ever the first row
            return [h for h in super().search(query, namespace=namespace, k=10_000) if h.host_id == "m1"]

    emb = HashEmbedder()
    llm = ScriptedLLM(route={JUDGE: lambda m: SUPERSEDE, QA: lambda m: "ok"})
    host = FirstOnlyHost(embedder=emb)
    ov = ATMAOverlay(host, namespace="u1", llm=llm, judge_llm=llm, gate=CosineGate(emb, threshold=-1.0), config=OverlayConfig())
    for i in range(40):
        ov.add(f"I moved home, now I live in town number {i}.", speaker="Dana")
    active = [r.id for r in ov.records() if r.status is Status.ACTIVE]
    assert active == ["r40"]
    assert ov.bank.check_invariants("u1") == []


def test_constructor_refuses_a_lone_surrogate_namespace_and_text():
    emb = HashEmbedder()
    host = InMemoryHost(embedder=emb)
    with pytest.raises(ValueError, match="lone surrogate"):
        ATMAOverlay(host, namespace="u\ud800", gate=CosineGate(emb))
    ov = ATMAOverlay(host, namespace="u", gate=CosineGate(emb))
    with pytest.raises(ValueError, match="lone surrogate"):
        ov.add("I live in \udc80 Leeds now")
    assert host._items == {} and ov.records() == []


# ---------------------------------------------------------------- ATMAOverlay(host): defaults on first use


def test_overlay_of_a_host_alone_loads_its_models_on_first_use(monkeypatch):
    from atma import factory

    emb = HashEmbedder()
    built: list[tuple[str, dict]] = []
    qa = ScriptedLLM(default="Bristol")

    def fake_llm(spec=None, **kw):
        built.append(("llm", kw))
        return qa

    def fake_gate(embedder=None, spec=None):
        built.append(("gate", {"embedder": embedder}))
        return CosineGate(embedder)

    monkeypatch.setattr(factory, "default_llm", fake_llm)
    monkeypatch.setattr(factory, "default_gate", fake_gate)
    ov = ATMAOverlay(InMemoryHost(embedder=emb))
    assert built == [] and ov.namespace == "default"  # constructing loads nothing
    assert ov.retrieve("Where do I live?")[0] == [] and built == []  # neither does reading
    ov.add("I moved to Bristol.", speaker="Dana")
    assert built == [("gate", {"embedder": emb})]  # the first write builds the gate, over the host's embedder
    assert ov.answer("Where do I live?").answer == "Bristol"
    assert ov.answer("Where do I live now?").answer == "Bristol"
    assert built[1:] == [("llm", {"load": True})]  # the first answer loads the model, once
    assert ov.bank.namespaces() == ["default"]


def test_a_missing_default_model_is_one_clear_error_line_and_stores_nothing(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-model.gguf"
    monkeypatch.setenv("ATMA_LLM", str(missing))
    emb = HashEmbedder()
    ov = ATMAOverlay(InMemoryHost(embedder=emb), gate=CosineGate(emb))
    ov.add("I moved to Bristol.")
    with pytest.raises(LLMError) as err:
        ov.answer("Where do I live?")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("no answer model:") and str(missing) in msg
    assert "does not exist" in msg and "llm=..." in msg
    assert ov.bank.traces("default", kind="query", limit=5) == []


def test_controller_without_a_loadable_default_model_keeps_the_prerank(monkeypatch, tmp_path):
    monkeypatch.setenv("ATMA_LLM", str(tmp_path / "no-such-model.gguf"))
    emb = HashEmbedder()
    ov = ATMAOverlay(InMemoryHost(embedder=emb), gate=CosineGate(emb),
                     config=OverlayConfig(controller=ControllerConfig(mode="online")))
    ov.add("I moved to Bristol.")
    packet, part = ov.retrieve("Where do I live?")
    assert [r.text for r in packet] == ["I moved to Bristol."]
    assert part["controller"]["status"] == "error" and "no answer model" in part["controller"]["error"]


def test_retrieve_reads_a_flat_number_of_rows_as_the_bank_grows(tmp_path, monkeypatch):
    """The overlay's per-query work (host search, bank lookups by id and host id, chains)
    never scans the namespace: SQLite steps per retrieve stay flat from 150 to 600 records."""
    import adapters.builtin as builtin
    from adapters.builtin import BuiltinHost
    from atma.judging import RuleJudge

    monkeypatch.setattr(builtin, "_FTS_DF_CAP", 100)  # the BM25 trim applies from 100 rows here
    emb = HashEmbedder()
    host = BuiltinHost(tmp_path / "m.db", embedder=emb)
    ov = ATMAOverlay(host, namespace="u", gate=CosineGate(emb), judge=RuleJudge(), config=OverlayConfig(use_judge=False))
    ov.add("I moved to Bristol in May.", speaker="Dana")
    ov.add("Now I live in Leeds, not Bristol.", speaker="Dana")
    conn = host.conn
    steps = []
    for size in (150, 600):
        for i in range(ov.bank.count("u"), size):
            ov.add(f"Today I met friend{i} for coffee at cafe{i % 97}.", speaker="Dana")
        ov.retrieve("Where do I live now, Bristol?")  # warm (matrix load)
        count = [0]

        def tick():
            count[0] += 1
            return 0

        conn.set_progress_handler(tick, 1)
        try:
            packet, _ = ov.retrieve("Where do I live now, Bristol?")
        finally:
            conn.set_progress_handler(None, 1)
        assert any("Leeds" in r.text for r in packet)
        steps.append(count[0])
    host.close()
    assert steps[1] < 1.3 * steps[0], steps
