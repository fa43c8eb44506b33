"""StateBank: operations of A-TMA §4.3 and the invariants of DESIGN.md, with property tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atma.bank import BankError, InvariantError, StateBank, UnknownNamespace
from atma.judge import Verdict, plan_commit
from atma.records import Action, Change, Commit, LinkType, Record, Status


def new(bank: StateBank, ns: str, text: str, **kw) -> Record:
    rid, seq = bank.next_id(ns)
    return Record(id=rid, seq=seq, namespace=ns, text=text, **kw)


def put(bank: StateBank, ns: str, text: str, *changes: Change) -> Record:
    return bank.commit(Commit(record=new(bank, ns, text), changes=changes))


def test_supersede_is_reciprocal_and_keeps_old():
    b = StateBank()
    leeds = put(b, "u", "I rent a flat in Leeds.")
    bristol = put(b, "u", "I moved to Bristol.", Change(action=Action.SUPERSEDE, old_id=leeds.id))
    old = b.get("u", leeds.id)
    assert old.status is Status.SUPERSEDED
    assert old.linked(LinkType.SUPERSEDED_BY) == [bristol.id]
    assert bristol.linked(LinkType.SUPERSEDES) == [leeds.id]
    assert bristol.status is Status.ACTIVE and bristol.slot == old.slot
    assert b.head("u", leeds.id) == bristol.id
    assert b.check_invariants("u") == []


def test_transition_records_source_target_and_type():
    b = StateBank()
    tennis = put(b, "u", "I play tennis every week.")
    t = put(b, "u", "I'm switching from tennis to padel.",
            Change(action=Action.TRANSITION, old_id=tennis.id, transition_type="scope_mismatch", summary="plays padel"))
    assert t.status is Status.TRANSITION
    assert t.transition.source == "I play tennis every week." and t.transition.target == "plays padel"
    assert t.transition.type == "scope_mismatch"
    assert b.get("u", tennis.id).linked(LinkType.EVOLVES_TO) == [t.id]
    assert b.get("u", tennis.id).status is Status.SUPERSEDED


def test_coexist_and_scoped_exception_keep_both_active():
    b = StateBank()
    dog = put(b, "u", "I have a dog.")
    cat = put(b, "u", "I also have a cat.", Change(action=Action.COEXIST, old_id=dog.id))
    veg = put(b, "u", "I don't eat meat.")
    exc = put(b, "u", "Except fish on Fridays.", Change(action=Action.SCOPED_EXCEPTION, old_id=veg.id))
    assert {b.get("u", i).status for i in (dog.id, cat.id, veg.id, exc.id)} == {Status.ACTIVE}
    assert b.get("u", dog.id).linked(LinkType.COEXISTS_WITH) == [cat.id]
    assert exc.linked(LinkType.SCOPED_EXCEPTION) == [veg.id]
    assert b.check_invariants("u") == []


def test_two_active_in_a_slot_without_link_is_refused_and_nothing_is_written():
    b = StateBank()
    a = put(b, "u", "I live in Leeds.")
    rec = new(b, "u", "I live in York.")
    with pytest.raises(InvariantError):
        b.commit(Commit(record=Record(**{**rec.__dict__, "slot": a.slot})))
    assert b.get("u", rec.id) is None
    assert b.count("u") == 1


def test_unknown_old_record_is_refused_atomically():
    b = StateBank()
    with pytest.raises(BankError):
        put(b, "u", "x", Change(action=Action.SUPERSEDE, old_id="r999"))
    assert b.count("u") == 0


def test_namespaces_never_leak():
    b = StateBank()
    a = put(b, "alice", "I live in Leeds.")
    put(b, "bob", "I live in Paris.")
    assert b.get("bob", a.id) is None or b.get("bob", a.id).text != "I live in Leeds."
    assert [r.text for r in b.records("bob")] == ["I live in Paris."]
    with pytest.raises(BankError):  # cannot link across namespaces: the old id is looked up in bob's namespace
        b.commit(Commit(record=new(b, "bob", "moved"), changes=(Change(action=Action.SUPERSEDE, old_id="r2"),)))
    with pytest.raises(UnknownNamespace):
        b.require_namespace("carol")


def test_erase_removes_record_links_features_and_traces():
    b = StateBank()
    a = put(b, "u", "I live in Leeds.")
    c = put(b, "u", "I moved to Bristol.", Change(action=Action.SUPERSEDE, old_id=a.id))
    import numpy as np
    b.put_features("u", {a.id: np.ones(3, np.float32)}, "k")
    b.save_trace("u", "query", {"q": "where"}, [a.id, c.id])
    b.save_trace("u", "query", {"q": "other"}, [c.id])
    b.erase("u", [a.id])
    assert b.get("u", a.id) is None
    assert b.get("u", c.id).links == ()
    assert b.features("u", [a.id], "k", 3) == {}
    assert [t["body"]["q"] for t in b.traces("u")] == ["other"]


def test_persists_across_reopen(tmp_path):
    path = tmp_path / "bank.db"
    b = StateBank(path)
    a = put(b, "u", "I live in Leeds.")
    put(b, "u", "I moved to Bristol.", Change(action=Action.SUPERSEDE, old_id=a.id))
    b.close()
    b2 = StateBank(path)
    assert [r.status for r in b2.records("u")] == [Status.SUPERSEDED, Status.ACTIVE]
    assert b2._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


ACTIONS = st.sampled_from(["supersede", "transition", "coexist", "scoped_exception", "none"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.tuples(st.integers(0, 30), ACTIONS), max_size=3), min_size=1, max_size=25))
def test_planned_commits_always_keep_invariants(script):
    """Whatever the Judge decides, planned commits keep every invariant and delete nothing."""
    b = StateBank()
    written: list[str] = []
    for decisions in script:
        rec = new(b, "u", f"event {len(written)}")
        pairs = []
        for idx, action in decisions:
            if not written:
                break
            old = b.get("u", written[idx % len(written)])
            links = {"supersede": ["supersedes"], "transition": ["evolves_from"], "coexist": ["coexists_with"],
                     "scoped_exception": ["scoped_exception"], "none": []}[action]
            v = Verdict(reason="r", conflict_status="conflict" if action != "none" else "no_conflict",
                        conflict_type="none", action=action, links=links)
            pairs.append((old, v))
        members = {o.slot: b.slot_members("u", o.slot) for o, v in pairs if v.action != "none"}
        b.commit(plan_commit(rec, pairs, members))
        written.append(rec.id)
        assert b.check_invariants("u") == []
    assert b.count("u") == len(written)  # nothing deleted by state changes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10), st.sampled_from(list(Action)), st.booleans()), max_size=20))
def test_raw_commits_are_all_or_nothing(ops):
    """Arbitrary commits either apply whole or leave the bank exactly as it was."""
    b = StateBank()
    ids: list[str] = []
    for idx, action, force_slot in ops:
        before = ([r.to_json() for r in b.records("u")] if b.has_namespace("u") else [])
        rec = new(b, "u", "x")
        old_id = ids[idx % len(ids)] if ids else "missing"
        slot = b.get("u", old_id).slot if (force_slot and ids) else ""
        try:
            b.commit(Commit(record=Record(**{**rec.__dict__, "slot": slot}), changes=(Change(action=action, old_id=old_id),)))
            ids.append(rec.id)
        except BankError:
            assert [r.to_json() for r in b.records("u")] == before
        assert b.check_invariants("u") == []


def test_erased_text_leaves_no_bytes_in_the_file(tmp_path):
    path = tmp_path / "bank.db"
    b = StateBank(path)
    a = put(b, "u", "my secret address is Zanzibarstrasse 42")
    put(b, "u", "unrelated")
    b.save_trace("u", "query", {"answer": "Zanzibarstrasse 42"}, [a.id])
    b.erase("u", [a.id])
    b._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    b.close()
    for f in tmp_path.iterdir():
        assert b"Zanzibarstrasse" not in f.read_bytes(), f


def test_head_follows_a_long_chain_to_its_end():
    """40 successive updates of one slot: head() reaches the live end, however many hops."""
    from atma.records import Action, Change, Commit, Record

    b = StateBank()
    prev = None
    for i in range(1, 41):
        rec = Record(id=f"r{i}", seq=i, namespace="u", text=f"home {i}")
        changes = (Change(action=Action.SUPERSEDE, old_id=prev),) if prev else ()
        prev = b.commit(Commit(record=rec, changes=changes)).id
    assert b.head("u", "r1") == "r40" and b.head("u", "r25") == "r40" and b.head("u", "r40") == "r40"
    assert [r.id for r in b.records("u") if r.status.value == "active"] == ["r40"]


def test_bank_refuses_a_lone_surrogate_namespace():
    from atma.bank import BankError

    with pytest.raises(BankError, match="lone surrogate"):
        StateBank().ensure_namespace("u\ud800")
