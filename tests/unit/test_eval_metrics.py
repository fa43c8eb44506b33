"""App. A.6 metrics on hand-made banks, packets and write traces."""

from __future__ import annotations

from datetime import datetime

import pytest

from atma.bank import StateBank
from atma.records import Action, Change, Commit, Record
from eval.metrics import (
    StoredItem,
    Unit,
    attribute,
    bank_scores,
    items_from_records,
    judge_stats,
    probe_diagnostics,
    summarize,
    units_from_probes,
)

UNIT = Unit(id="u", old_cue="c1", new_cue="c2")


def _bank_with(action: Action | None) -> StateBank:
    bank = StateBank(":memory:")
    for i, (eid, text) in enumerate((("c1", "I live in Leeds"), ("c2", "I live in Bristol")), 1):
        rid, seq = bank.next_id("u1")
        rec = Record(id=rid, seq=seq, namespace="u1", text=text, time=datetime(2024, i, 1), meta={"event_id": eid})
        changes = (Change(action=action, old_id="r1"),) if (i == 2 and action is not None) else ()
        bank.commit(Commit(record=rec, changes=changes))
    return bank


def test_bank_role_from_supersede_in_a_real_bank():
    items = items_from_records(_bank_with(Action.SUPERSEDE).records("u1"))
    assert {i.event_id for i in items} == {"c1", "c2"}
    s = bank_scores(items, [UNIT])
    assert s["coexist"] == 1.0 and s["role"] == 1.0


def test_bank_role_from_coexist_link_both_active():
    items = items_from_records(_bank_with(Action.COEXIST).records("u1"))
    assert {i.status for i in items} == {"active"}
    assert bank_scores(items, [UNIT])["role"] == 1.0


def test_no_relation_no_role_timestamps_earn_nothing():
    items = items_from_records(_bank_with(None).records("u1"))
    s = bank_scores(items, [UNIT])
    assert s["coexist"] == 1.0 and s["role"] == 0.0


def test_link_to_an_unrelated_record_earns_no_role():
    items = [StoredItem(id="r1", event_id="c1", status="active", links=(("coexists_with", "r9"),)),
             StoredItem(id="r2", event_id="c2", status="active")]
    assert bank_scores(items, [UNIT])["role"] == 0.0


def test_missing_cue_record_breaks_coexist_and_role():
    items = [StoredItem(id="r1", event_id="c1", status="superseded")]
    s = bank_scores(items, [UNIT, Unit(id="v", old_cue="c3", new_cue="c4")])
    assert s["n_units"] == 2 and s["coexist"] == 0.0 and s["role"] == 0.0


def test_units_from_probes_orders_by_replay_and_dedups():
    metas = [{"unit_id": "u", "target_cue_id": "c1", "other_cue_id": "c2"},
             {"unit_id": "u", "target_cue_id": "c2", "other_cue_id": "c1"},
             {"unit_id": "x"}]
    assert units_from_probes(metas, {"c2": 3, "c1": 9}) == [Unit(id="u", old_cue="c2", new_cue="c1")]


@pytest.mark.parametrize("pool, packet, verdict, expected", [
    (["a", "b"], ["a"], "drift", "candidate"),        # target never reached the pool
    (["a", "t"], ["a"], "other", "ranking"),          # in the pool, ranked out of the packet
    (["t"], ["t", "o"], "drift", "qa"),               # in the packet, wrong answer
    (["t"], ["t"], "correct", None),
])
def test_attribution_classes(pool, packet, verdict, expected):
    d = probe_diagnostics(pool=pool, packet=packet, target="t", other="o", view="current")
    assert attribute(verdict, d) == expected


def test_stale_leak_and_future_intrusion():
    d = probe_diagnostics(pool=[], packet=["o", "t"], target="t", other="o", view="current")
    assert d["stale_leak"] is True and d["future_intrusion"] is None
    d = probe_diagnostics(pool=[], packet=["t", "o"], target="t", other="o", view="historical")
    assert d["stale_leak"] is False and d["future_intrusion"] is False and d["evidence_support"] is True
    d = probe_diagnostics(pool=["t"], packet=["o"], target="t", other="o", view="historical")
    assert d["future_intrusion"] is True and d["evidence_support"] is False


def test_alias_evidence_when_no_target_known():
    d = probe_diagnostics(pool=[], packet=[None], target=None, other=None, view="current",
                          packet_texts=["I moved to Bristol"], gold=["Bristol"])
    assert d["evidence_support"] is True and attribute("drift", d) == "unknown"


def test_judge_stats_counts_calls_and_fallbacks():
    traces = [{"judge": [{"status": "ok", "fallback": False}, {"status": "invalid_json", "fallback": True}]},
              {"judge": [{"status": "skipped", "fallback": True}]}, {"judge": []}]
    s = judge_stats(traces, n_events=4)
    assert s["judge_calls"] == 2 and s["fallbacks"] == 1 and s["rule_decisions"] == 1
    assert s["judge_calls_per_100_events"] == 50.0


def _row(view, verdict, in_packet=True, label=None):
    d = probe_diagnostics(pool=["t"], packet=["t"] if in_packet else [], target="t", other="o", view=view)
    return {"view": view, "verdict": verdict, "diag": d, "attribution": attribute(verdict, d), "judge_label": label}


def test_summarize_splits_views_and_rates():
    rows = [_row("current", "correct"), _row("current", "drift"), _row("historical", "correct", in_packet=False),
            _row("historical", "other")]
    s = summarize(rows)
    assert s["n"] == 4 and s["qa_acc"] == 0.5 and s["drift_rate"] == 0.25 and s["other_rate"] == 0.25
    assert s["conflict_acc"] == 0.5 and s["fact_acc"] == 0.5
    assert s["per_view"]["current"] == {"n": 2, "qa_acc": 0.5, "drift_rate": 0.5}
    assert s["evidence_support"] == 0.75 and s["attribution"]["qa"] == 2
    assert s["judge"]["score"] is None  # no judge: no judge column


def test_judge_score_only_when_every_probe_judged():
    rows = [_row("current", "correct", label="correct"), _row("current", "drift", label="partial")]
    assert summarize(rows)["judge"]["score"] == 0.75
    rows[1]["judge_label"] = None
    assert summarize(rows)["judge"]["score"] is None


def test_state_change_stats_counts_verdicts_by_kind_on_update_cues_and_other_events() -> None:
    from eval.metrics import merge_state_change_stats, state_change_stats

    items = [StoredItem(id="r1", event_id="a1", status="superseded"), StoredItem(id="r2", event_id="f"),
             StoredItem(id="r3", event_id="a2")]
    writes = [
        {"record_id": "r2", "changes": [], "judge": [
            {"status": "ok", "verdict": {"action": "coexist"}},
            {"status": "ok", "verdict": {"action": "none", "same_value": True}},
            {"status": "ok", "verdict": {"action": "none"}},
            {"status": "skipped", "verdict": {"action": "scoped_exception"}, "error": "rule judge"}]},
        {"record_id": "r3", "changes": [{"action": "supersede", "old_id": "r1"}],
         "judge": [{"status": "ok", "verdict": {"action": "supersede"}}]},
    ]
    s = state_change_stats(writes, items, [Unit(id="u", old_cue="a1", new_cue="a2")])
    assert s["verdicts"] == {"coexist (other event)": 1, "same_value (other event)": 1,
                             "scoped_exception (other event)": 1, "supersede (update cue)": 1}
    assert merge_state_change_stats([s, s])["verdicts"]["coexist (other event)"] == 2
