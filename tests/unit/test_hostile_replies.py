"""Hostile model output (issue 12 item 4): Judge and controller replies that are huge, deeply nested,
not text, or raise from a user's LLM object never reach the caller; the fallback decides, the trace says
why, packets name only pool ids, and no call spends 50 ms outside the model."""

from __future__ import annotations

import json
import random
import time

import pytest

from atma.controller import ControllerConfig, parse_controller
from atma.judge import MAX_RAW_CHARS, json_depth, load_reply, parse_verdict, strip_fence
from atma.protocols import LLMError
from eval.hostile import CTRL, VERDICT, Boom, HostileLLM, hostile, hostile_overlay as _overlay


def _timed(fn, llm):
    """CPU seconds this thread spent in ``fn`` outside the model (CPU time, not wall time: the machine
    is shared, and a quadratic parse shows up in CPU time just the same)."""
    llm.inside_cpu_s = 0.0
    c0 = time.thread_time()
    out = fn()
    return out, time.thread_time() - c0 - llm.inside_cpu_s


def test_strip_fence_and_depth_scan_are_linear_and_total():
    g = json.dumps(VERDICT)
    t0 = time.thread_time()
    assert strip_fence(g + " " * 65536) == g
    assert strip_fence("```json\n" + g + "\n```") == g
    assert strip_fence("```" + g + "```") == g
    assert strip_fence(" " * 200_000 + "```") == ""
    assert strip_fence(None) == "" and strip_fence(b"x") == ""
    assert json_depth("[" * 1_000_000) == 21 and json_depth('["[[[[[[[[[[[[[[[[[[[[[[[["]') == 1
    assert json_depth('{"a": "\\"[[[["}') == 1
    assert time.thread_time() - t0 < 0.5
    assert load_reply("[" * 1000)[1] == "too_deep"
    assert load_reply("x" * 9000)[1] == "too_long"
    assert load_reply(None)[1] == "not_text" and load_reply({"a": 1})[1] == "not_text"
    assert load_reply("1" * 5000)[1] == "invalid_json"  # int digit limit: ValueError, not JSONDecodeError
    assert load_reply('{"c": NaN}')[1] == "invalid_json"
    assert parse_verdict(g + " " * 65536).status == "ok"


def test_fuzzed_replies_to_the_parsers():
    rng = random.Random(12)
    cfg = ControllerConfig(mode="online")
    ov = _overlay(HostileLLM(lambda: json.dumps(VERDICT), lambda: json.dumps(CTRL)))
    ov.add("I rent a flat in Leeds.", speaker="Dana")
    ov.add("I moved to Bristol from Leeds.", speaker="Dana")
    _, part = ov.retrieve("Where do I live now?")
    pool = _pool(ov, "Where do I live now?")
    pool_ids = {c.id for c in pool}
    assert pool_ids == {row["id"] for row in part["pool"]}
    n = 0
    for i in range(5000):
        for good in (VERDICT, CTRL):
            reply = hostile(rng, good)
            if isinstance(reply, BaseException):
                continue
            t0 = time.thread_time()
            if good is VERDICT:
                p = parse_verdict(reply)
                assert p.status in {"ok", "invalid_json", "schema_error", "empty", "not_text", "too_long", "too_deep"}
                assert (p.verdict is None) == (p.status != "ok") and len(p.error) <= 300
            else:
                r = parse_controller(reply, pool, 5, cfg)
                assert set(r.selected) <= pool_ids and len(r.raw) <= MAX_RAW_CHARS and len(r.error) <= 300
            dt = time.thread_time() - t0  # CPU time: immune to the shared machine's scheduling
            assert dt < 0.05, (type(reply), repr(reply)[:80], dt)
            n += 1
    assert n > 9000


def _pool(ov, query):
    from atma.packet import build_pool
    from atma.profiler import profile

    ns = ov.namespace
    seeds = [(rec, h.score) for h, recs in ov._map_hits(ov.host.search(query, namespace=ns, k=10)) for rec in recs]
    return build_pool(seeds, profile(query).view, lambda ids: ov.bank.get_many(ns, ids))


def test_fuzzed_replies_through_the_overlay():
    """Every Judge reply and every controller reply hostile: add() and answer() never raise."""
    rng = random.Random(7)
    llm = HostileLLM(lambda: hostile(rng, VERDICT), lambda: hostile(rng, CTRL),
                     qa=lambda: rng.choice(["Bristol", None, 5, b"x", " " * 70000 + "Leeds", "y" * 100_000]))
    cities = ["Leeds", "York", "Bristol", "Bath", "Derby", "Hull"]
    n_add = n_ans = 0
    statuses: dict[str, int] = {}
    for i in range(300):
        if i % 100 == 0:  # a fresh store every 100 writes: the cost measured is the reply's, not a 300-row slot's
            if i:
                assert ov.bank.check_invariants("u1") == []
            ov = _overlay(llm)
        text = f"I moved to {cities[i % len(cities)]} now, my home changed to {cities[(i + 1) % len(cities)]} {i}"
        res, spent = _timed(lambda: ov.add(text, speaker="Dana"), llm)
        assert spent < 0.05, (i, spent)
        for call in res.trace.judge:
            statuses[call.status] = statuses.get(call.status, 0) + 1
            assert len(call.raw) <= MAX_RAW_CHARS and len(call.error) <= 300
        n_add += 1
        a, spent = _timed(lambda: ov.answer("Where do I live now?"), llm)
        assert spent < 0.05, (i, spent)
        pool = {row["id"] for row in a.trace.pool}
        assert set(a.trace.packet) <= pool and {r.id for r in a.packet} <= pool
        assert isinstance(a.answer, str) and len(a.answer) <= MAX_RAW_CHARS
        assert len(a.trace.controller["raw"]) <= MAX_RAW_CHARS
        n_ans += 1
    assert n_add == n_ans == 300
    # the hostile kinds were really exercised, and each rejection was traced with its reason
    assert {"too_deep", "too_long", "not_text", "error", "invalid_json"} <= set(statuses), statuses
    # invariants intact after all of it
    assert ov.bank.check_invariants("u1") == []


def test_answer_model_exception_is_one_llm_error():
    ov = _overlay(HostileLLM(lambda: json.dumps(VERDICT), lambda: json.dumps(CTRL), qa=lambda: Boom()))
    ov.add("I rent a flat in Leeds.", speaker="Dana")
    with pytest.raises(LLMError, match="answer model failed: Boom"):
        ov.answer("Where do I live now?")
