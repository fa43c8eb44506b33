"""Replay LTP profiles through the write path only (builtin host, packaged MiniLM, a Judge
backend; no LLM, no questions) and report the in-loop state quality of each Judge: update cues
committed with the right action, old cues retired, spurious state changes per 100 non-update
events, where each missed update was lost (not a candidate / not escalated / judged "none"), and
the bank role of every cue at the end (old cue retired, new cue live).

This is the cheap loop for choosing a Judge on the dev profiles (0-4)::

    python -m eval.write_loop --profiles 0,1,2,3,4 --judges rule,verdict,agree --out runs/write-loop
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time as _time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from atma.judge import admission

from .metrics import Unit, items_from_records, merge_state_change_stats, state_change_stats

__all__ = ["main", "replay_profile"]

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / "data" / "ltp" / "ltp.jsonl"
DEFAULT_UNITS = ROOT / "data" / "ltp" / "units.jsonl"
DEV_PROFILES = (0, 1, 2, 3, 4)


def _units(units_file: Path) -> dict[str, list[dict[str, Any]]]:
    by: dict[str, list[dict[str, Any]]] = {}
    for line in units_file.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            by.setdefault(row["profile_id"], []).append(row)
    return by


def replay_profile(scenario: dict[str, Any], units: Sequence[dict[str, Any]], *, judge: str, embedder: Any,
                   gate: Any, workdir: Path, max_events: int | None = None, samples: int = 5,
                   config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write one profile's events through a fresh overlay (``config``: OverlayConfig fields that
    differ from the default); returns its state figures."""
    from adapters.builtin import BuiltinHost
    from atma import ATMAOverlay, OverlayConfig, factory

    db = workdir / f"{scenario['id']}-{judge}.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    host = BuiltinHost(str(db), embedder=embedder)
    ov = ATMAOverlay(host, namespace="u", gate=gate, embedder=embedder, judge=factory.default_judge(judge),
                     config=OverlayConfig(**(config or {})))
    events = scenario["events"][:max_events] if max_events else scenario["events"]
    t0 = _time.perf_counter()
    traces: dict[str, Any] = {}
    for e in events:
        res = ov.add(e["text"], time=e["time"], speaker=e.get("speaker", ""), meta={"event_id": e["id"]})
        traces[e["id"]] = res.trace
    wall = _time.perf_counter() - t0
    recs = ov.bank.records("u")
    items = items_from_records(recs)
    ev_of = {r.id: str(r.meta.get("event_id")) for r in recs}
    status = {ev_of[r.id]: r.status.value for r in recs}
    present = {e["id"] for e in events}
    mine = [u for u in units if u["cue_ids"][0] in present and u["cue_ids"][1] in present]
    writes = [t["body"] for t in ov.bank.traces("u", kind="write", limit=10**9)]
    stats = state_change_stats(writes, items, [Unit(id=u["unit_id"], old_cue=u["cue_ids"][0], new_cue=u["cue_ids"][1])
                                               for u in mine])
    # where each missed update was lost
    lost: Counter[str] = Counter()
    miss_samples: list[dict[str, Any]] = []
    for u in mine:
        old_ev, new_ev = u["cue_ids"][:2]
        tr = traces[new_ev]
        old_rid = next((rid for rid, ev in ev_of.items() if ev == old_ev), None)
        changes = [c for c in tr.changes if c["action"] in ("supersede", "transition")]
        if any(c["old_id"] == old_rid for c in changes):
            continue
        cand = next((c for c in tr.candidates if c.id == old_rid), None)
        if tr.audit != "audited":
            why = f"not audited ({tr.audit})"
        elif cand is None:
            why = "old cue not a candidate"
        elif not cand.escalate:
            why = "not escalated"
        else:
            call = next((j for j in tr.judge if j.old_id == old_rid), None)
            if call is not None:
                why = f"judged {call.verdict.get('action')}"
            elif admission(u["cue_texts"][0]):  # the overlay drops old questions and reactions
                why = f"old cue not audited ({admission(u['cue_texts'][0])})"
            else:
                why = "escalated, not judged (max pairs or reported earlier)"
        lost[why] += 1
        if len(miss_samples) < samples:
            miss_samples.append({"unit": u["unit_id"], "type": u["update_type"], "why": why, "old": u["cue_texts"][0],
                                 "new": u["cue_texts"][1]})
    cue_ids = {c for u in units for c in u["cue_ids"][:2]}
    spurious_samples: list[dict[str, Any]] = []
    spurious_kinds: Counter[str] = Counter()
    new_cues = {u["cue_ids"][1] for u in mine}
    text_of = {r.id: r.text for r in recs}
    for e in events:
        if e["id"] in new_cues:
            continue
        tr = traces[e["id"]]
        for c in tr.changes:
            if c["action"] not in ("supersede", "transition"):
                continue
            old_ev = ev_of.get(c["old_id"], "")
            kind = ("cue retired" if old_ev in cue_ids else "turn retired") + (
                " by a cue" if e["id"] in cue_ids else " by a turn")
            spurious_kinds[kind] += 1
            if len(spurious_samples) < samples:
                spurious_samples.append({"kind": kind, "action": c["action"], "old": text_of.get(c["old_id"], "")[:160],
                                         "new": e["text"][:160]})
    roles = sum(1 for u in mine if status.get(u["cue_ids"][0]) != "active" and status.get(u["cue_ids"][1]) == "active")
    host.close()
    ov.bank.close()
    stats.update({"bank_role_right": roles, "wall_s": round(wall, 1), "lost": dict(lost),
                  "spurious_kinds": dict(spurious_kinds), "miss_samples": miss_samples,
                  "spurious_samples": spurious_samples})
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.write_loop", description=__doc__.split("\n")[0])
    ap.add_argument("--profiles", default=",".join(map(str, DEV_PROFILES)), help="profile indices (default: dev 0-4)")
    ap.add_argument("--judges", default="rule,verdict,agree", help="comma-separated Judge specs (atma.judging)")
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--units", default=str(DEFAULT_UNITS))
    ap.add_argument("--gate", default="sentry", help="sentry | cosine")
    ap.add_argument("--max-events", type=int, default=None, help="first N events per profile")
    ap.add_argument("--max-judge-pairs", type=int, default=None,
                    help="pairs the Judge sees per write (default: the Judge's own, 5 per side for the rule)")
    ap.add_argument("--candidate-k", type=int, default=None, help="host hits searched per write (default 12)")
    ap.add_argument("--named-search-k", type=int, default=None,
                    help="hits of the second search for a value the statement ended (default 4; 0: off)")
    ap.add_argument("--out", default=None, help="write results.json here")
    args = ap.parse_args(argv)
    if args.named_search_k is not None and args.named_search_k < 0:
        print(f"error: --named-search-k wants 0 or more (got {args.named_search_k})", file=sys.stderr)
        return 2
    for flag, v in (("--max-judge-pairs", args.max_judge_pairs), ("--candidate-k", args.candidate_k)):
        if v is not None and v < 1:
            print(f"error: {flag} wants a positive number (got {v})", file=sys.stderr)
            return 2
    config = {k: v for k, v in (("max_judge_pairs", args.max_judge_pairs), ("candidate_k", args.candidate_k),
                                ("named_search_k", args.named_search_k)) if v is not None}
    try:
        profiles = [int(x) for x in args.profiles.split(",") if x.strip()]
    except ValueError:
        print(f"error: --profiles wants indices like 0,1,2 (got {args.profiles!r})", file=sys.stderr)
        return 2
    judges = [j.strip() for j in args.judges.split(",") if j.strip()]
    scenarios = [json.loads(l) for l in Path(args.data).read_text().splitlines() if l.strip()]
    bad = [p for p in profiles if not 0 <= p < len(scenarios)]
    if bad:
        print(f"error: no profile {bad[0]} (the file has {len(scenarios)})", file=sys.stderr)
        return 2
    units = _units(Path(args.units))
    from atma import factory

    embedder = factory.default_embedder()
    gate = factory.default_gate(embedder, spec=args.gate)
    results: dict[str, Any] = {"profiles": profiles, "gate": args.gate, "config": config, "judges": {}}
    with tempfile.TemporaryDirectory(prefix="atma-write-loop-") as tmp:
        for j in judges:
            parts = []
            for p in profiles:
                sc = scenarios[p]
                pid = sc["id"].removeprefix("ltp-")
                r = replay_profile(sc, units.get(pid, []), judge=j, embedder=embedder, gate=gate, workdir=Path(tmp),
                                   max_events=args.max_events, config=config)
                print(json.dumps({"judge": j, "profile": p, **{k: r[k] for k in (
                    "updates", "updates_right", "old_retired", "bank_role_right", "spurious_changes",
                    "non_update_events", "wall_s", "lost", "spurious_kinds")}}), flush=True)
                parts.append(r)
            tot = merge_state_change_stats(parts)
            tot["bank_role_right"] = sum(p["bank_role_right"] for p in parts)
            tot["bank_role_share"] = tot["bank_role_right"] / tot["updates"] if tot["updates"] else None
            lost: Counter[str] = Counter()
            kinds: Counter[str] = Counter()
            for p in parts:
                lost.update(p["lost"])
                kinds.update(p["spurious_kinds"])
            tot.update({"lost": dict(lost), "spurious_kinds": dict(kinds),
                        "per_profile": parts, "wall_s": round(sum(p["wall_s"] for p in parts), 1)})
            results["judges"][j] = tot
    print(f"{'judge':<10} {'updates':>7} {'right':>6} {'retired':>7} {'role':>6} {'spur/100':>8} {'s/event':>8}")
    for j, t in results["judges"].items():
        def f(x: Any, w: int, d: int) -> str:
            return f"{x:>{w}.{d}f}" if x is not None else f"{'-':>{w}}"

        print(f"{j:<10} {t['updates']:>7} {f(t['update_right_share'], 6, 3)} {f(t['old_retired_share'], 7, 3)} "
              f"{f(t['bank_role_share'], 6, 3)} {f(t['spurious_per_100_non_update'], 8, 2)} "
              f"{t['wall_s'] / max(t['events'], 1):>8.4f}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
