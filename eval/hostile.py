"""Fuzz the overlay with hostile model replies (issue 12 item 4) and print the figures.

    python -m eval.hostile --replies 10000 --seed 1

Every Judge and controller reply is hostile (deep nesting, 64k whitespace runs, megabyte strings, NUL,
lone surrogates, huge integers, NaN, out-of-pool ids, non-text objects, exceptions from the LLM object).
Counts: exceptions that reached the caller, out-of-pool ids in packets, calls that spent >= 50 ms
outside the model. In-process fakes only (hash embedder, in-memory host): no model is loaded.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from atma import ATMAOverlay, OverlayConfig
from atma.controller import ControllerConfig
from atma.protocols import Completion, LLMError
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, InMemoryHost

__all__ = ["CTRL", "VERDICT", "HostileLLM", "hostile", "hostile_overlay", "main"]

VERDICT = {"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
           "conflict_type": "temporal_update", "links": ["supersedes"], "reason": "moved", "clarification_needed": False}
SEL = {"candidate_id": "c1", "rank": 1, "role": "current", "state_fit": 1, "scope_fit": 1, "change_fit": 0,
       "noise_risk": 0, "reason": "x"}
CTRL = {"query_mode": "current", "confidence": 0.9, "fallback_recommended": False, "selected": [SEL],
        "packing_hints": {"transition_evidence": False, "contrast_pairs": False, "weak_hops": False}}


class Boom(Exception):
    def __str__(self):  # an exception whose message itself fails
        raise RuntimeError("no message")


class NoText:
    latency_s = "slow"  # not a number either


def hostile(rng: random.Random, good: dict) -> object:
    """One hostile reply: a string, a non-text object, or an exception to raise."""
    g = json.dumps(good)
    kind = rng.randrange(24)
    n = rng.choice([10, 100, 1000, 5000, 70000])
    if kind == 0:
        return "[" * n
    if kind == 1:
        return "{" * n + "}" * rng.randrange(n + 1)
    if kind == 2:
        return '{"a":' * n + "1" + "}" * n
    if kind == 3:
        return g + " " * 65536
    if kind == 4:
        return "```json" + " " * 65536 + g + "\n" * 65536 + "```"
    if kind == 5:
        return " \t" * 40000 + "```"
    if kind == 6:
        return "x" * rng.choice([9000, 1_000_000])
    if kind == 7:
        return g[: rng.randrange(len(g))] + "\x00" + g[rng.randrange(len(g)):]
    if kind == 8:
        return json.dumps({**good, "reason": "r" * rng.choice([300, 100_000])})
    if kind == 9:
        return "1" * rng.choice([4301, 8000]) if rng.random() < 0.5 else '{"confidence": ' + "9" * 5000 + "}"
    if kind == 10:
        return g.replace("0.9", "NaN").replace("false", "Infinity")
    if kind == 11:
        return rng.choice([None, 0, 17, 1.5, True, b'{"action": "none"}', bytearray(b"x"), dict(good), [g], NoText()])
    if kind == 12:
        return rng.choice([ValueError("bad"), RuntimeError("boom"), RecursionError("deep"), KeyError("k"),
                           TypeError("t"), MemoryError(), Boom(), LLMError("timed out"), TimeoutError(), OSError("io")])
    if kind == 13:
        return "".join(chr(rng.randrange(0x20, 0x2FF)) for _ in range(rng.randrange(1, 400)))
    if kind == 14:
        return g[: rng.randrange(len(g) + 1)]
    if kind == 15:
        return "\ud800" + g
    if kind == 16:  # out-of-pool and hostile ids
        sel = [{**SEL, "candidate_id": rng.choice(["c99", "r1", "host:x", "", "c1' OR 1=1", "c" + "9" * 50])}]
        return json.dumps({**good, "selected": sel}) if "selected" in good else json.dumps({**good, "links": ["x"] * 50})
    if kind == 17:
        return json.dumps([good] * rng.randrange(1, 50))
    if kind == 18:  # a fence around a valid reply, whitespace galore
        return "```json\n" + g + "\n" + " " * rng.randrange(70000) + "```"
    if kind == 19:
        return "\n".join("```" for _ in range(rng.randrange(1, 3000)))
    if kind == 20:
        return '"' + "\\" * rng.randrange(10000) + '"'
    if kind == 21:
        mutated = dict(good)
        key = rng.choice(list(mutated))
        mutated[key] = rng.choice([None, -1, 1e308, "x" * 500, [], {}, [[[[]]]], "supersede"])
        return json.dumps(mutated)
    if kind == 22:
        return json.dumps({"k" * rng.randrange(1, 7000): 1})
    return g  # a well-formed reply now and then


class HostileLLM:
    """A user's LLM object serving Judge, controller and QA calls, each with the reply script's next item."""

    name = "hostile"

    def __init__(self, judge, ctrl, qa=lambda: "ok"):
        self.judge, self.ctrl, self.qa = judge, ctrl, qa
        self.inside_s = 0.0  # wall seconds inside complete()
        self.inside_cpu_s = 0.0  # this thread's CPU seconds inside complete()

    def complete(self, messages, *, max_tokens, temperature=0.0, json_schema=None, timeout=None):
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            system = messages[0]["content"]
            reply = self.judge() if "audit a personal memory" in system else (
                self.ctrl() if "retrieve controller" in system else self.qa())
            if isinstance(reply, BaseException):
                raise reply
            if isinstance(reply, str) or reply is None:
                return Completion(text=reply, prompt_tokens=1, completion_tokens=1, latency_s=0.0, model=self.name)
            return reply if isinstance(reply, NoText) else Completion(text=reply, prompt_tokens=1, completion_tokens=1,
                                                                       latency_s=0.0, model=self.name)
        finally:
            self.inside_s += time.perf_counter() - t0
            self.inside_cpu_s += time.thread_time() - c0


def hostile_overlay(llm, ns: str = "u1") -> ATMAOverlay:
    """An overlay on the shipped fakes whose every pair escalates and whose controller is online."""
    emb = HashEmbedder()
    return ATMAOverlay(InMemoryHost(embedder=emb), namespace=ns, llm=llm, judge_llm=llm, gate=CosineGate(emb, threshold=0.0),
                       config=OverlayConfig(controller=ControllerConfig(mode="online")))


def run(n_replies: int, seed: int) -> dict:
    rng = random.Random(seed)
    half = n_replies // 2
    exc = judge_n = ctrl_n = oop = slow = slow_cpu = 0
    worst = worst_cpu = 0.0
    statuses: dict[str, int] = {}
    while judge_n < half or ctrl_n < n_replies - half:
        llm = HostileLLM(lambda: hostile(rng, VERDICT), lambda: hostile(rng, CTRL), qa=lambda: "ok")
        ov = hostile_overlay(llm)
        for i in range(100):
            for op in ("add", "answer"):
                llm.inside_s = llm.inside_cpu_s = 0.0
                t0, c0 = time.perf_counter(), time.thread_time()
                try:
                    if op == "add":
                        r = ov.add(f"I moved to city{i % 7} now, my home changed to town{i % 5} {i}", speaker="Dana")
                        for c in r.trace.judge:
                            judge_n += 1
                            statuses["judge:" + c.status] = statuses.get("judge:" + c.status, 0) + 1
                    else:
                        a = ov.answer("Where do I live now?")
                        ctrl_n += 1
                        oop += len(set(a.trace.packet) - {row["id"] for row in a.trace.pool})
                        s = "controller:" + a.trace.controller["status"]
                        statuses[s] = statuses.get(s, 0) + 1
                except Exception as e:  # noqa: BLE001 - counted: this is what must not happen
                    exc += 1
                    print(f"exception from {op}: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
                dt = time.perf_counter() - t0 - llm.inside_s
                dc = time.thread_time() - c0 - llm.inside_cpu_s
                worst, worst_cpu = max(worst, dt), max(worst_cpu, dc)
                slow += dt >= 0.05
                slow_cpu += dc >= 0.05
    return {"judge_replies": judge_n, "controller_replies": ctrl_n, "exceptions": exc, "out_of_pool_ids": oop,
            "calls_over_50ms_outside_model_wall": slow, "worst_ms_outside_model_wall": round(worst * 1000, 1),
            "calls_over_50ms_outside_model_cpu": slow_cpu, "worst_ms_outside_model_cpu": round(worst_cpu * 1000, 1),
            "statuses": dict(sorted(statuses.items())), "seed": seed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.hostile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--replies", type=int, default=10000, help="hostile replies in all (half Judge, half controller)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    out = run(args.replies, args.seed)
    print(json.dumps(out, indent=1))
    return 0 if out["exceptions"] == 0 and out["out_of_pool_ids"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
