"""The rule Judge's verdicts on LoCoMo's own pairs: every pair of turns by one speaker within a
window, MiniLM cosine as the topic score. LoCoMo has almost no state changes, so a change here is
a candidate spurious one; run it before and after a rule change and compare.

    python -m eval.rule_scan --out runs/scan-new.jsonl [--window 40] [--min-a 0.25] [--samples conv-26,...]
    python -m eval.rule_scan --compare runs/scan-old.jsonl runs/scan-new.jsonl

The scan writes one JSON line per pair whose verdict is not "none" (sample, turn indices, topic
score, action, reason, both texts) and prints the counts; ``--compare`` prints the counts of two
scans and every pair whose verdict differs. To scan an older rule, run this from a worktree of
that commit (``git worktree add --detach /tmp/old <commit>``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

__all__ = ["compare", "main", "scan"]


def scan(out: Path, *, window: int = 40, min_a: float = 0.25, samples: Sequence[str] = ()) -> dict[str, Any]:
    from atma.judge import fallback_verdict
    from atma.protocols import GateScore
    from atma.records import Record
    from atma.sentry import CosineGate

    from .locomo_data import load_locomo

    data = [s for s in load_locomo() if not samples or s.sample_id in samples]
    if samples and len(data) != len(set(samples)):
        raise ValueError(f"unknown sample in {','.join(samples)}")
    gate = CosineGate()
    kinds: Counter[str] = Counter()
    pairs = 0
    t0 = time.perf_counter()
    tmp = out.with_name(out.name + ".partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tmp.open("w") as f:
        for s in data:
            turns = s.turns
            feats = gate.features([t.text for t in turns])
            for j, new in enumerate(turns):
                for i in range(max(0, j - window), j):
                    old = turns[i]
                    if old.speaker != new.speaker:
                        continue
                    a = float(feats[i] @ feats[j])
                    if a < min_a:
                        continue
                    pairs += 1
                    v = fallback_verdict(Record(id="o", namespace="scan", text=old.text, speaker=old.speaker),
                                         Record(id="n", namespace="scan", text=new.text, speaker=new.speaker),
                                         GateScore(a=a, b=None, d=None, escalate=True), why="scan")
                    kind = "same_value" if v.same_value else v.action
                    if kind != "none":
                        kinds[kind] += 1
                        f.write(json.dumps({"sample": s.sample_id, "old": i, "new": j, "a": round(a, 3), "action": kind,
                                            "reason": v.reason, "old_text": old.text, "new_text": new.text}) + "\n")
    tmp.replace(out)  # nothing half-written under the final name
    return {"pairs": pairs, "verdicts": dict(sorted(kinds.items())), "wall_s": round(time.perf_counter() - t0, 1)}


def _load(path: Path) -> dict[tuple[str, int, int], dict[str, Any]]:
    rows = {}
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            rows[(r["sample"], r["old"], r["new"])] = r
    return rows


def compare(a: Path, b: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """Pairs whose verdict differs between two scans: (verdict in a, verdict in b, row)."""
    ra, rb = _load(a), _load(b)
    out = []
    for k in sorted(set(ra) | set(rb)):
        va, vb = ra.get(k, {}).get("action", "none"), rb.get(k, {}).get("action", "none")
        if va != vb:
            out.append((va, vb, rb.get(k) or ra[k]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.rule_scan", description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write the scan here (.jsonl)")
    ap.add_argument("--window", type=int, default=40, help="turns back from each turn")
    ap.add_argument("--min-a", type=float, default=0.25, help="lowest MiniLM cosine judged")
    ap.add_argument("--samples", default="", help="comma-separated sample ids (default: all)")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two scans")
    args = ap.parse_args(argv)
    if args.compare:
        paths = [Path(p) for p in args.compare]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            print(f"error: no scan at {missing[0]}", file=sys.stderr)
            return 2
        for p in paths:
            print(json.dumps({"scan": str(p), "verdicts": dict(Counter(r["action"] for r in _load(p).values()))}))
        diff = compare(*paths)
        for va, vb, r in diff:
            print(f"{va} -> {vb} | a={r['a']} | {r['old_text'][:100]!r} || {r['new_text'][:140]!r}")
        print(f"{len(diff)} pairs changed")
        return 0
    if not args.out:
        print("error: give --out FILE (or --compare OLD NEW)", file=sys.stderr)
        return 2
    try:
        res = scan(Path(args.out), window=args.window, min_a=args.min_a,
                   samples=[s for s in args.samples.split(",") if s.strip()])
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"out": args.out, **res}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
