"""View-shaped packets, plain state notes, the answer check and prompt budgeting."""

from __future__ import annotations

import doctest
import json

import pytest

import atma.answercheck
import atma.profiler
from atma import ATMAOverlay, OverlayConfig
from atma.packet import shape_packet
from atma.protocols import LLMError
from atma.records import Link, LinkType, Record, Status
from atma.sentry import CosineGate
from atma.serializer import state_rows
from atma.testing import HashEmbedder, InMemoryHost, ScriptedLLM

SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})
NO_CHANGE = json.dumps({"reason": "other topic", "conflict_status": "no_conflict", "conflict_type": "none",
                        "action": "none", "links": [], "clarification_needed": False})


def test_doctests():
    assert doctest.testmod(atma.answercheck).failed == 0


def chain():
    old = Record(id="r1", namespace="n", text="I live in Leeds.", status=Status.SUPERSEDED,
                 links=(Link(LinkType.SUPERSEDED_BY, "r2"),))
    new = Record(id="r2", namespace="n", text="I moved to Bristol.", links=(Link(LinkType.SUPERSEDES, "r1"),))
    other = Record(id="r3", namespace="n", text="My cat is called Tom.")
    return old, new, other


def fetcher(*recs):
    by = {r.id: r for r in recs}
    return lambda ids: {i: by[i] for i in ids if i in by}


def test_current_view_shows_the_live_successor_in_the_stale_hits_place():
    old, new, other = chain()
    rows = shape_packet([old, other], "current", fetcher(old, new, other), 5, relevant={"r1", "r2", "r3"})
    assert [r.record.id for r in rows] == ["r2", "r3"] and rows[0].source == "successor<-r1"
    # a successor the host did not find relevant: likely a wrong state decision; the hit stays
    rows = shape_packet([old, other], "current", fetcher(old, new, other), 5)
    assert [r.record.id for r in rows] == ["r1", "r3"]
    # both states retrieved: the stale one is not a separate fact
    rows = shape_packet([old, other, new], "current", fetcher(old, new, other), 5)
    assert [r.record.id for r in rows] == ["r2", "r3"]


def test_historical_view_leads_with_the_replaced_state_and_keeps_host_hits():
    old, new, other = chain()
    rel = {"r1", "r2", "r3"}
    rows = shape_packet([new, other], "historical", fetcher(old, new, other), 5, relevant=rel)
    assert [r.record.id for r in rows] == ["r1", "r2", "r3"]
    assert [r.record.id for r in shape_packet([new, other], "historical", fetcher(old, new, other), 5)] == ["r2", "r3"]
    # k=2: the asked-for state pushes the lowest host hit out, never a host hit of its own state
    rows = shape_packet([new, other], "historical", fetcher(old, new, other), 2, relevant=rel)
    assert [r.record.id for r in rows] == ["r1", "r2"]


def test_hops_only_fill_room_and_adaptive_k():
    from atma.packet import Candidate

    old, new, other = chain()
    extra = Record(id="r4", namespace="n", text="Tom likes fish.")
    hop = Candidate(record=extra, bucket="semantic", source="neighbour<-r3", seed_rank=0)
    assert [r.record.id for r in shape_packet([other], "neutral", fetcher(other, extra), 1, hops=[hop])] == ["r3"]
    assert [r.record.id for r in shape_packet([other], "neutral", fetcher(other, extra), 3, hops=[hop])] == ["r3", "r4"]
    rows = shape_packet([old, other], "current", fetcher(old, new, other), 5, resolved_k=1, relevant={"r1", "r2"})
    assert [r.record.id for r in rows] == ["r2"]


def test_state_notes_are_plain_and_said_once():
    old, new, other = chain()
    from datetime import datetime

    new = Record(**{**new.__dict__, "time": datetime(2024, 6, 2)})
    rows = state_rows([old, new, other], {})
    assert rows[0].note == "no longer true: replaced on 2 June 2024 by [2]" and rows[0].state == "past"
    assert rows[1].note == "true now; it replaced [1]" and rows[2].note == ""
    assert state_rows([old], {"r2": new})[0].note == "no longer true: replaced on 2 June 2024"
    # the other end of the chain unknown (not relevant to the question): no note at all
    assert state_rows([old], {})[0].note == "" and state_rows([new], {})[0].state == "plain"


def make(qa, **cfg):
    emb = HashEmbedder()
    llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUPERSEDE, "answer a question": qa})
    ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=llm, judge_llm=llm,
                     gate=CosineGate(emb, threshold=0.0), config=OverlayConfig(**cfg))
    ov.add("I rent a flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    ov.add("Big news: I moved to Bristol from Leeds last weekend.", time="2024-06-02T10:00", speaker="Dana")
    return ov, llm


def test_answer_check_reasks_once_without_the_wrong_state():
    # a reader that names the newer value whatever it is asked, unless told otherwise
    ov, llm = make(lambda m: "Leeds" if "later state" in m[1]["content"] else "Bristol")
    a = ov.answer("Where did I live before?")
    assert a.answer == "Leeds" and a.trace.check["reasked"] and a.trace.check["first_answer"] == "Bristol"
    assert "r2" not in a.trace.packet and "bristol" in a.trace.check["stale_words"]
    n = len(llm.calls)
    b = ov.answer("Where do I live now?")
    assert b.answer == "Bristol" and not b.trace.check["reasked"] and len(llm.calls) == n + 1
    ov2, _ = make(lambda m: "Bristol", answer_check=False)
    assert ov2.answer("Where did I live before?").answer == "Bristol"


def test_prompt_fits_the_budget_and_a_refusal_for_length_is_no_exception():
    seen = []

    def qa(m):
        seen.append(m[1]["content"])
        if m[1]["content"].count("\n[") >= 1:  # refuses anything with two rows or more
            return LLMError("request (4188 tokens) exceeds the available context size (4096 tokens)")
        return "Bristol"

    ov, _ = make(qa, context_tokens=600)
    for i in range(20):
        ov.add(f"Note {i}: " + "a long line about the garden and the weather " * 20, speaker="Dana")
    a = ov.answer("Where do I live now? Tell me about the garden and weather notes.")
    assert a.answer == "Bristol" and len(a.trace.packet) <= 1
    assert all(len(p) // 3 < 600 for p in seen)


def test_config_rejects_typos():
    import pytest

    with pytest.raises(ValueError, match="packet_mode"):
        OverlayConfig(packet_mode="resolve")
    with pytest.raises(ValueError, match="packet_order"):
        OverlayConfig(packet_order="rank")


def test_llm_error_kind():
    assert LLMError("x: timed out after 3s", kind="timeout").kind == "timeout"
    assert LLMError("request (4188 tokens) exceeds the available context size (4096 tokens)").kind == "context"
    assert LLMError("HTTP 500: boom").kind == "error"


def test_rows_resolve_time_expressions_and_when_questions_order_by_event_time():
    emb = HashEmbedder()
    seen = []
    llm = ScriptedLLM(route={"answer a question": lambda m: seen.append(m[1]["content"]) or "7 May 2023"})
    ov = ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=llm, gate=CosineGate(emb, threshold=0.99))
    ov.add("I went to a support group yesterday.", time="2023-05-08T13:56", speaker="Caroline")
    ov.add("The support group in 2019 was my first one.", time="2023-05-09T10:00", speaker="Caroline")
    ov.answer("When did Caroline go to the support group?")
    user = seen[-1]
    assert "(said 8 May 2023) Caroline: I went to a support group yesterday (7 May 2023)." in user
    assert "answer with the date the memory gives" in user
    # by event time: the 2019 memory (said later) comes first
    assert user.index("2019") < user.index("yesterday")


def test_resolve_top_leaves_lower_hits_as_the_host_ranked_them():
    old, new, other = chain()
    stale2 = Record(id="r5", namespace="n", text="I had a red car.", status=Status.SUPERSEDED,
                    links=(Link(LinkType.SUPERSEDED_BY, "r6"),))
    live2 = Record(id="r6", namespace="n", text="I drive a blue van.", links=(Link(LinkType.SUPERSEDES, "r5"),))
    f = fetcher(old, new, other, stale2, live2)
    rel = {"r1", "r2", "r3", "r5", "r6"}
    rows = shape_packet([old, other, stale2, live2], "current", f, 5, relevant=rel, resolve_top=1)
    assert [(r.record.id, r.resolved) for r in rows] == [("r2", True), ("r3", False), ("r5", False), ("r6", False)]
    rows = shape_packet([old, other, stale2, live2], "current", f, 5, relevant=rel)
    assert [r.record.id for r in rows] == ["r2", "r3", "r6"]
    assert state_rows([stale2, live2], {}, noted={"r1"})[0].note == ""


def test_checked_mode_keeps_the_host_answer_unless_it_names_a_stale_value():
    # the first pass is the host's own rows (no state) and answer; only a stale value is re-asked
    ov, llm = make(lambda m: "Leeds" if "earlier state" in m[1]["content"] or "later state" in m[1]["content"]
                   else ("Bristol" if "live now" in m[1]["content"] else "Leeds"), packet_mode="checked")
    a = ov.answer("Where do I live now?")  # host pass answers Bristol: consistent, kept, one call
    assert a.answer == "Bristol" and not a.trace.check["reasked"] and a.trace.check["first_pass"] == "host"
    n = len(llm.calls)
    b = ov.answer("Where did I live before?")  # host pass answers Leeds: the earlier state, kept
    assert b.answer == "Leeds" and not b.trace.check["reasked"] and len(llm.calls) == n + 1
    ov2, llm2 = make(lambda m: "Bristol" if "earlier state" in m[1]["content"] else "Leeds", packet_mode="checked")
    c = ov2.answer("Where do I live now?")  # host pass says Leeds (stale): re-asked with the hint
    assert c.trace.check["reasked"] and c.trace.check["first_answer"] == "Leeds" and c.answer == "Bristol"
    assert "leeds" in c.trace.check["stale_words"] and "r1" not in c.trace.packet


def test_answer_check_reads_numbers_and_only_the_asked_person_s_chains():
    from atma.answercheck import check_answer

    def pair(a, b, who, i):
        old = Record(id=f"o{i}", namespace="n", text=a, speaker=who, status=Status.SUPERSEDED,
                     links=(Link(LinkType.SUPERSEDED_BY, f"n{i}"),))
        return old, Record(id=f"n{i}", namespace="n", text=b, speaker=who, links=(Link(LinkType.SUPERSEDES, f"o{i}"),))

    jon = pair("I run a 5K in 35 minutes.", "5K update: 27 minutes these days.", "Jon", 1)
    gina = pair("I read about 6 books a month.", "I get through 4 books a month lately.", "Gina", 2)
    jon_books = pair("I read 4 books a month.", "Now I read 6 books a month.", "Jon", 3)
    # a stale number is a stale value
    assert check_answer("35", "What is Jon's 5K time now, in minutes?", "current", [jon]).stale_words == ("35",)
    assert not check_answer("27 minutes", "What is Jon's 5K time now, in minutes?", "current", [jon]).suspect
    # Jon's chain never judges an answer about Gina, whose own chain agrees with the answer
    q = "How many books a month does Gina read now?"
    assert not check_answer("4", q, "current", [jon_books, gina]).suspect
    assert check_answer("6", q, "current", [jon_books, gina]).suspect
    # a chain about something else (shares no word or attribute with the question) judges nothing
    assert check_answer("35", "How many books does Jon read now?", "current", [jon]).reason == \
        "no chain about the question"


class _TopN(InMemoryHost):
    """A host whose search returns its ``top`` best rows, whatever k is asked."""

    def __init__(self, top, **kw):
        super().__init__(**kw)
        self.top = top

    def search(self, query, *, namespace="default", k=10):
        return super().search(query, namespace=namespace, k=self.top)


def top_one(qa, old, new, *, other=None, **cfg):
    """A checked overlay over a top-one :class:`_TopN` holding ``old`` then ``new`` (the Judge
    supersedes); with ``other`` (a row of another slot, added first) the host returns its top two."""
    emb = HashEmbedder()
    judge = (lambda m: NO_CHANGE if "gym" in m[1]["content"] else SUPERSEDE) if other else (lambda m: SUPERSEDE)
    llm = ScriptedLLM(route={"audit a personal memory": judge, "answer a question": qa})
    host = _TopN(2 if other else 1, embedder=emb)
    ov = ATMAOverlay(host, namespace="u", llm=llm, judge_llm=llm,
                     gate=CosineGate(emb, threshold=0.0), config=OverlayConfig(packet_mode="checked", **cfg))
    if other:
        ov.add(other, time="2024-01-01T10:00", speaker="Dana")
    ov.add(old, time="2024-01-10T10:00", speaker="Dana")
    ov.add(new, time="2024-06-02T10:00", speaker="Dana")
    return ov


def test_checked_mode_sees_a_predecessor_the_host_did_not_retrieve():
    # the host's top hit is the new statement only; the old one is one link away in the bank
    ov = top_one(lambda m: "Leeds" if "later state" in m[1]["content"] else "Bristol",
                 "I rent a flat in Leeds.", "Big news: I moved to Bristol last weekend.")
    a = ov.answer("Where did I live before I moved?")
    assert a.trace.check["first_answer"] == "Bristol" and a.trace.check["reasked"] and a.answer == "Leeds"


def test_focused_reask_shows_the_asked_state_and_the_host_rows_only():
    # the host finds only the stale row (top 1); the re-ask must show the replacing record, not the
    # resolved packet's hops (a row of another slot that the reader could pick)
    prompts = []

    def qa(m):
        prompts.append(m[1]["content"])
        return "Bristol" if "Bristol" in m[1]["content"] else "Leeds"

    ov = top_one(qa, "I live in Leeds, in a flat by the canal.",
                 "I no longer live in Leeds: I moved to Bristol last weekend.", reask_packet="focused")
    a = ov.answer("Where do I live in a flat now?")
    assert a.trace.check["first_answer"] == "Leeds" and a.trace.check["reasked"] and a.answer == "Bristol"
    assert a.trace.check["want"] == ["r2"] and [r.id for r in a.packet] == ["r2"]
    assert "Bristol" in prompts[-1] and "flat by the canal" not in prompts[-1]
    with pytest.raises(ValueError, match="reask_packet"):
        OverlayConfig(reask_packet="wide")


@pytest.mark.parametrize("mode,alone", [("asked", True), ("focused", False)])
def test_asked_reask_shows_a_question_about_now_the_live_record_alone(mode, alone):
    # the host's top two: the stale row and a row of another slot (the gym), whose value the
    # small reader picked on a focused re-ask; "asked" shows the live record of the slot alone
    prompts = []

    def qa(m):
        prompts.append(m[1]["content"])
        return "Leeds" if len(prompts) == 1 else "Bristol"

    ov = top_one(qa, "I live in Leeds, in a flat by the canal.",
                 "I no longer live in Leeds: I moved to a flat in Bristol last weekend.",
                 other="My gym is in a flat part of town near the canal.", reask_packet=mode)
    a = ov.answer("Where do I live in a flat by the canal now?")
    assert a.trace.check["first_answer"] == "Leeds" and a.trace.check["reasked"] and a.answer == "Bristol"
    assert a.trace.check["reask_packet"] == ("asked state alone" if alone else "focused")
    assert "Bristol" in prompts[-1] and "in Leeds, in a flat" not in prompts[-1]
    assert ("gym" in prompts[-1]) is not alone
