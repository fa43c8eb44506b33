"""Judge backends (LLM, rule, cascade) and the overlay's use of them, with fakes only."""

from __future__ import annotations

import json

from atma import ATMAOverlay, OverlayConfig
from atma.judge import Verdict, plan_commit, value_root
from atma.judging import CascadeJudge, LLMJudge, RuleJudge
from atma.protocols import Completion, GateScore
from atma.records import Action, Record, Status
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, InMemoryHost, ScriptedLLM
from atma.trace import JudgeCall

OLD = Record(id="r1", namespace="u", text="I rent a flat in Leeds.", speaker="Dana")
NEW = Record(id="r2", namespace="u", text="I moved to Bristol last weekend.", speaker="Dana")
CLOSE = GateScore(a=0.9, b=0.1, d=0.8, escalate=True)
SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})


class Weird:
    """An LLM object that misbehaves in ways LLMError does not cover."""

    name = "weird"

    def __init__(self, reply):
        self.reply = reply

    def complete(self, messages, **kw):
        if isinstance(self.reply, BaseException):
            raise self.reply
        return self.reply


def test_llm_judge_ok():
    v, call = LLMJudge(ScriptedLLM(default=SUPERSEDE)).decide(OLD, NEW, CLOSE)
    assert v.action == "supersede" and call.status == "ok" and not call.fallback


def test_llm_judge_any_exception_or_non_text_reply_falls_back():
    for reply, status in ((RuntimeError("boom"), "error"), (KeyError("x"), "error"), (TimeoutError("timed out"), "timeout"),
                          (Completion(text=None), "not_text"), (Completion(text={"action": "none"}), "not_text"),
                          ("not a completion", "not_text"), (Completion(text="{"), "invalid_json")):
        v, call = LLMJudge(Weird(reply)).decide(OLD, NEW, CLOSE)
        assert call.fallback and call.status == status, (reply, call)
        assert v.reason.startswith("fallback rule")


def test_rule_judge():
    v, call = RuleJudge().decide(OLD, NEW, CLOSE)
    assert v.action == "supersede" and call.fallback and call.status == "skipped"


class FakeVerdict:
    """A verdict-model stand-in: a fixed verdict with a confidence."""

    handles_speakers = True
    max_pairs = 3
    name = "fake-verdict"

    def __init__(self, table, default=("none", 0.99, False)):
        self.table, self.default, self.seen = table, default, []

    def decide(self, old, new, score):
        self.seen.append((old.text, new.text))
        action, p, same = self.table.get((old.text, new.text), self.default)
        links = {"supersede": ["supersedes"], "transition": ["evolves_from"], "coexist": ["coexists_with"],
                 "scoped_exception": ["scoped_exception"], "none": []}[action]
        v = Verdict(action=action, conflict_status="conflict" if action in ("supersede", "transition") else "no_conflict",
                    conflict_type="temporal_update" if action in ("supersede", "transition") else "none", links=links,
                    same_value=same, confidence=p)
        return v, JudgeCall(old_id=old.id, status="ok", verdict=v.model_dump(), fallback=False, raw=json.dumps({"p": p}))


def test_cascade_sends_only_uncertain_pairs_to_the_llm():
    llm = ScriptedLLM(default=SUPERSEDE)
    first = FakeVerdict({(OLD.text, NEW.text): ("none", 0.55, False)})
    c = CascadeJudge(first, LLMJudge(llm), band=0.9)
    v, call = c.decide(OLD, NEW, CLOSE)
    assert v.action == "supersede" and len(llm.calls) == 1 and c.escalated == 1
    sure = FakeVerdict({(OLD.text, NEW.text): ("none", 0.97, False)})
    v, _ = CascadeJudge(sure, LLMJudge(llm), band=0.9).decide(OLD, NEW, CLOSE)
    assert v.action == "none" and len(llm.calls) == 1


def _overlay(judge, **cfg):
    emb = HashEmbedder()
    return ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=ScriptedLLM(default="x"),
                       gate=CosineGate(emb, threshold=0.0), judge=judge, config=OverlayConfig(**cfg))


def test_acknowledgement_joins_the_slot_and_is_retired_with_the_value():
    a = "I rent a flat in Leeds."
    ack = "Noted: Dana rents a flat in Leeds."
    upd = "I moved to Bristol last weekend."
    judge = FakeVerdict({(a, ack): ("none", 0.95, True), (ack, upd): ("supersede", 0.97, False),
                         (a, upd): ("supersede", 0.97, False)})
    ov = _overlay(judge, max_judge_pairs=1)
    r1 = ov.add(a, speaker="Dana").record
    r2 = ov.add(ack, speaker="Assistant").record  # a cross-speaker pair reaches a speaker-aware Judge
    assert (a, ack) in judge.seen
    assert r2.slot == r1.slot and value_root(r2) == r1.id and r2.status is Status.ACTIVE
    r3 = ov.add(upd, speaker="Dana").record  # the Judge sees only its strongest pair
    assert ov.bank.get("u", r1.id).status is Status.SUPERSEDED
    assert ov.bank.get("u", r2.id).status is Status.SUPERSEDED
    assert ov.bank.get("u", r3.id).status is Status.ACTIVE
    assert ov.bank.check_invariants("u") == []


def test_cross_speaker_pairs_never_reach_a_judge_that_cannot_tell_speakers_apart():
    llm = ScriptedLLM(default=SUPERSEDE)
    ov = _overlay(LLMJudge(llm))
    ov.add("I rent a flat in Leeds.", speaker="Dana")
    res = ov.add("I moved to Bristol last weekend.", speaker="Sam")
    assert res.trace.judge == () and llm.calls == []


def test_a_failing_backend_never_loses_the_write():
    class Broken:
        name = "broken"
        handles_speakers = True
        max_pairs = 2

        def decide(self, old, new, score):
            raise RuntimeError("model exploded")

    ov = _overlay(Broken())
    ov.add("I rent a flat in Leeds.", speaker="Dana")
    res = ov.add("I moved to Bristol from Leeds.", speaker="Dana")
    assert res.trace.judge and all(c.fallback and c.status == "error" for c in res.trace.judge)
    assert len(ov.records()) == 2


def test_max_pairs_comes_from_the_judge():
    judge = FakeVerdict({})
    ov = _overlay(judge)
    for t in ("I rent a flat in Leeds.", "I work at the bakery in town.", "I have a dog named Rex.",
              "I play tennis on most weekends."):
        ov.add(t, speaker="Dana")
    res = ov.add("I moved to Bristol and changed jobs.", speaker="Dana")
    assert len(res.trace.judge) == 3


def test_plan_commit_restatement_without_a_change_is_coexist():
    old = Record(id="r1", namespace="u", text="I live in Leeds.", slot="r1")
    new = Record(id="r2", namespace="u", text="Noted: you live in Leeds.")
    v = Verdict(action="none", conflict_status="no_conflict", conflict_type="none", same_value=True)
    c = plan_commit(new, [(old, v)], {"r1": [old]})
    assert c.record.slot == "r1" and c.record.meta["value_of"] == "r1"
    assert [(ch.action, ch.old_id) for ch in c.changes] == [(Action.COEXIST, "r1")]
    plain = Verdict(action="none", conflict_status="no_conflict", conflict_type="none")
    assert plan_commit(new, [(old, plain)], {"r1": [old]}).changes == ()


def test_a_restatement_of_a_slot_member_links_the_slot_s_other_members():
    """Regression (found replaying LTP profile 0): a restatement joins a slot that already holds
    two coexisting records; the slot's other live member must get its link in the same commit,
    or the bank refuses the write with an InvariantError."""
    a, b = "I rent a flat in Leeds.", "I also keep a caravan in Whitby."
    again = "Still renting that flat in Leeds, by the way."
    judge = FakeVerdict({(a, b): ("coexist", 0.95, False), (b, again): ("none", 0.95, True),
                         (a, again): ("none", 0.95, True)})
    ov = _overlay(judge, max_judge_pairs=1)
    r1 = ov.add(a, speaker="Dana").record
    r2 = ov.add(b, speaker="Dana").record
    assert r2.slot == r1.slot
    r3 = ov.add(again, speaker="Dana").record  # joins via one member only (max one pair)
    assert r3.slot == r1.slot and ov.bank.check_invariants("u") == []


def _rule_overlay():
    emb = HashEmbedder()
    return ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=ScriptedLLM(default="x"),
                       gate=CosineGate(emb, threshold=0.0), judge=RuleJudge(), config=OverlayConfig())


def test_rule_judge_joins_another_speakers_acknowledgement_and_retires_it_with_the_value():
    """The default Judge reads pairs by two speakers: "Noted: you live in Leeds." said back to the
    user joins the Leeds record's slot, so the user's move retires it too (else it stays current
    memory beside Bristol and the reader picks it). The other speaker's own Leeds stays theirs."""
    ov = _rule_overlay()
    r1 = ov.add("I live in Leeds with my partner.", speaker="user").record
    r2 = ov.add("Noted: you live in Leeds.", speaker="assistant").record
    r3 = ov.add("I live in Leeds myself, near the station.", speaker="Sam").record
    r4 = ov.add("You should try the market in Leeds.", speaker="Sam").record
    assert r2.slot == r1.slot and value_root(r2) == r1.id
    assert value_root(r3) == r3.id and r3.slot != r1.slot and value_root(r4) == r4.id
    ov.add("I no longer live in Leeds with my partner: I moved to Bristol.", speaker="user")
    status = {r.id: ov.bank.get("u", r.id).status for r in (r1, r2, r3, r4)}
    assert status == {r1.id: Status.SUPERSEDED, r2.id: Status.SUPERSEDED, r3.id: Status.ACTIVE, r4.id: Status.ACTIVE}
    assert ov.bank.check_invariants("u") == []


def test_rule_acknowledgement_needs_the_value_itself():
    from atma.judge import fallback_verdict

    def verdict(old, new, a=0.8):
        return fallback_verdict(Record(id="o", namespace="u", text=old, speaker="Ana"),
                                Record(id="n", namespace="u", text=new, speaker="Ben"),
                                GateScore(a=a, b=None, d=None, escalate=True), why="t")

    commute = "My commute takes about 25 minutes each way."
    assert verdict(commute, "Got it, your commute is 25 minutes.").same_value
    assert verdict("My instrument is the banjo.", "Noted: you play the banjo.").same_value
    assert verdict("I work as a nurse at St Mary's.", "So you're a nurse at St Mary's! That must be tiring.").same_value
    for other in ("Got it, your commute is 40 minutes.",  # another number: another value
                  "My commute takes 25 minutes too.",  # the speaker's own state
                  "Is your commute still 25 minutes?",  # a question
                  "You should cycle, 25 minutes is a lot.",  # a suggestion
                  "So you switched to a 25 minute commute!"):  # says a change, not the value
        v = verdict(commute, other)
        assert v.action == "none" and not v.same_value, other
    # one person's news never retires another's state
    assert verdict("I live in Leeds.", "I moved to Bristol, not Leeds anymore.").action == "none"


def test_the_rule_sees_another_speakers_pairs_besides_its_own_not_instead():
    ov = _rule_overlay()
    mine = [ov.add(t, speaker="Dana").record for t in (
        "I rent a flat in Leeds.", "I work at the bakery in Leeds.", "I have a dog in Leeds.",
        "I play tennis in Leeds.", "I swim in Leeds.")]
    for t in ("Noted: you rent a flat in Leeds.", "So you work at the bakery in Leeds.",
              "Got it, you have a dog in Leeds."):
        ov.add(t, speaker="assistant")
    res = ov.add("I moved out of Leeds to Bristol.", speaker="Dana")
    judged = {c.old_id for c in res.trace.judge}
    assert {r.id for r in mine} <= judged and len(judged) == 8


def test_a_greeting_by_name_is_no_acknowledgement():
    """Found replaying dev profile 0: "Caroline, those lessons are great" names the person it
    greets, it does not say what her state is."""
    from atma.judge import addressed_statements

    assert addressed_statements("Caroline, those lessons are great - self-acceptance is key.", ("Caroline",)) == ""
    # praise and advice found on dev profiles: reactions, not a state said back
    assert addressed_statements("Wow! Your love for your kids is so awesome.") == ""
    assert addressed_statements("Mental health's a priority, so make sure you take care of yourself.") == ""
    assert addressed_statements("You're gonna do great with your dance studio, just keep going.") == ""
    assert addressed_statements("Got it - Caroline's cat is called Miso.", ("Caroline",)) == "Caroline's cat is called Miso."
