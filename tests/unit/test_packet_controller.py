import json

from hypothesis import given, settings
from hypothesis import strategies as st

from atma.controller import ControllerConfig, controller_messages, parse_controller
from atma.packet import apply_selection, build_pool, prerank, top_k
from atma.profiler import profile
from atma.records import Link, LinkType, Record, Status


def chain():
    """r1 Leeds (superseded) -> r2 Bristol (active); r3 unrelated; r4 coexists with r2."""
    recs = {
        "r1": Record(id="r1", namespace="u", text="Leeds", status=Status.SUPERSEDED,
                     links=(Link(LinkType.SUPERSEDED_BY, "r2"),)),
        "r2": Record(id="r2", namespace="u", text="Bristol", links=(Link(LinkType.SUPERSEDES, "r1"), Link(LinkType.COEXISTS_WITH, "r4"))),
        "r3": Record(id="r3", namespace="u", text="pizza"),
        "r4": Record(id="r4", namespace="u", text="also a flat in Bath", links=(Link(LinkType.COEXISTS_WITH, "r2"),)),
    }
    return recs, (lambda ids: {i: recs[i] for i in ids if i in recs})


def ids(pool):
    return [c.id for c in pool]


def test_current_view_puts_live_successor_in_place_of_stale_seed():
    recs, fetch = chain()
    pool = build_pool([(recs["r1"], 1.0), (recs["r3"], 0.5)], "current", fetch)
    assert ids(pool) == ["r2", "r1", "r3"]  # semantic hops hang off seeds only (Eq. 9)
    assert pool[0].bucket == "relation" and pool[0].source == "superseded_by<-r1"


def test_historical_view_adds_predecessors_not_successors():
    recs, fetch = chain()
    pool = build_pool([(recs["r2"], 1.0), (recs["r3"], 0.5)], "historical", fetch)
    assert ids(pool)[:3] == ["r2", "r1", "r3"]
    pool = build_pool([(recs["r1"], 1.0)], "historical", fetch)
    assert ids(pool) == ["r1"]  # no successor for historical views


def test_bucket_mode_is_eq10_literally():
    recs, fetch = chain()
    pool = build_pool([(recs["r1"], 1.0), (recs["r3"], 0.5)], "neutral", fetch, mode="bucket")
    assert ids(pool) == ["r1", "r3", "r2"]


def test_dedup_keeps_first_occurrence():
    recs, fetch = chain()
    pool = build_pool([(recs["r2"], 1.0), (recs["r1"], 0.9)], "transition", fetch)
    assert ids(pool) == ["r2", "r1", "r4"]


def test_selection_and_topk():
    assert apply_selection(["a", "b", "c", "d"], ["c", "zz", "c"], 2) == ["c", "a"]
    assert top_k(["a", "b"], 5) == ["a", "b"]


def _reply(sel, **kw):
    return json.dumps({"query_mode": "current", "confidence": 0.9, "fallback_recommended": False,
                       "selected": [{"candidate_id": c, "rank": i + 1, "role": "current", "state_fit": 1, "scope_fit": 1,
                                     "change_fit": 0, "noise_risk": 0, "reason": "fits"} for i, c in enumerate(sel)],
                       "packing_hints": {"transition_evidence": False, "contrast_pairs": False, "weak_hops": False}, **kw})


def test_controller_parse_maps_aliases_and_drops_unknown():
    recs, fetch = chain()
    pool = build_pool([(recs["r1"], 1.0), (recs["r3"], 0.5)], "current", fetch)
    cfg = ControllerConfig(mode="online")
    res = parse_controller(_reply(["c3", "c99", "c1"]), pool, 5, cfg)
    assert res.applied and res.selected == ("r3", "r2") and res.dropped == ("c99",)
    assert parse_controller("{", pool, 5, cfg).status == "invalid_json"
    assert parse_controller(_reply(["c99"]), pool, 5, cfg).status == "no_valid_ids"
    shadow = parse_controller(_reply(["c3"]), pool, 5, ControllerConfig(mode="shadow"))
    assert shadow.status == "ok" and not shadow.applied


def test_controller_prompt_is_bounded():
    recs = [Record(id=f"r{i}", namespace="u", text="x" * 500) for i in range(30)]
    pool = build_pool([(r, 1.0) for r in recs], "current", lambda ids: {})
    msgs = controller_messages("q?", profile("q?"), pool, 5, ControllerConfig(mode="online"))
    body = json.loads(msgs[1]["content"])
    assert len(body["candidates"]) == 10
    assert all(len(c["content"]) == 220 for c in body["candidates"])
    assert body["max_selected"] == 3


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.lists(st.text(alphabet="cr0123456789", max_size=4), max_size=12),
       st.integers(1, 8), st.integers(1, 25))
def test_any_controller_output_gives_subset_of_pool_no_longer_than_k(garbage, picked, k, n):
    recs = [Record(id=f"r{i}", namespace="u", text=f"t{i}") for i in range(n)]
    pool = build_pool([(r, 1.0) for r in recs], "neutral", lambda ids: {})
    pi0 = prerank(pool)
    cfg = ControllerConfig(mode="online")
    for text in (garbage, _reply(picked)):
        res = parse_controller(text, pool, k, cfg)
        final = apply_selection(pi0, res.selected, k) if res.applied else top_k(pi0, k)
        assert set(final) <= set(pi0)
        assert len(final) <= k and len(final) == len(set(final))
        assert len(res.selected) <= min(k, 3)
