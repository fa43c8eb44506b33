"""How far the write path got with each LTP update: from a finished overlay row's write
traces, the share of candidate pairs the gate escalated and, for every update cue
(``cue-…-2``), whether its own old cue (``cue-…-1``) was among the candidates, escalated,
and actually audited (within ``max_judge_pairs``).

    python -m eval.audit_reach runs/ltp-p0-sentry runs/ltp-p0-rule
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["audit_reach", "main"]


def audit_reach(writes: Iterable[Mapping[str, Any]], record_events: Mapping[str, str]) -> dict[str, Any]:
    """Counts over write-trace bodies; ``record_events`` maps record id -> event id.

    >>> ev = {"r1": "cue-p0-u1-1", "r2": "f1", "r3": "cue-p0-u1-2"}
    >>> w = [{"record_id": "r3", "candidates": [{"id": "r1", "escalate": True}, {"id": "r2", "escalate": False}],
    ...       "judge": [{"old_id": "r1"}]}]
    >>> r = audit_reach(w, ev)
    >>> (r["candidate_pairs"], r["escalated_share"], r["updates"], r["old_in_candidates"], r["old_audited"])
    (2, 0.5, 1, 1, 1)
    """
    pairs = escalated = updates = cand = esc = audited = 0
    for body in writes:
        cands = body.get("candidates", ())
        pairs += len(cands)
        escalated += sum(bool(c.get("escalate")) for c in cands)
        ev = record_events.get(body.get("record_id", ""), "")
        if not (ev.startswith("cue-") and ev.endswith("-2")):
            continue
        updates += 1
        old = ev[:-1] + "1"
        mine = [c for c in cands if record_events.get(c.get("id", "")) == old]
        cand += bool(mine)
        esc += any(c.get("escalate") for c in mine)
        audited += any(record_events.get(j.get("old_id", "")) == old for j in body.get("judge", ()))
    return {"candidate_pairs": pairs, "escalated_share": escalated / pairs if pairs else 0.0, "updates": updates,
            "old_in_candidates": cand, "old_escalated": esc, "old_audited": audited}


def run_dir_reach(run: Path) -> dict[str, Any]:
    """``audit_reach`` summed over every task store of ``run``'s overlay row."""
    from atma.bank import StateBank

    writes: list[Mapping[str, Any]] = []
    events: dict[str, str] = {}
    dbs = sorted((run / "overlay" / "work").glob("*.db"))
    if not dbs:
        raise FileNotFoundError(f"no overlay stores under {run / 'overlay' / 'work'}")
    for db in dbs:
        bank = StateBank(str(db))
        try:
            for ns in bank.namespaces():
                recs = bank.records(ns)
                events.update({f"{ns}/{r.id}": str(r.meta.get("event_id")) for r in recs})
                for t in bank.traces(ns, kind="write", limit=10**9):
                    b = t["body"]
                    writes.append({**b, "record_id": f"{ns}/{b.get('record_id')}",
                                   "candidates": [{**c, "id": f"{ns}/{c.get('id')}"} for c in b.get("candidates", ())],
                                   "judge": [{**j, "old_id": f"{ns}/{j.get('old_id')}"} for j in b.get("judge", ())]})
        finally:
            bank.close()
    return audit_reach(writes, events)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.audit_reach", description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="run directories (atma eval ltp --out ...)")
    args = ap.parse_args(argv)
    print(f"{'run':<28} {'pairs':>6} {'escal.':>7} {'updates':>7} {'old cand.':>9} {'old esc.':>8} {'audited':>7}")
    for run in args.runs:
        try:
            r = run_dir_reach(Path(run))
        except FileNotFoundError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(f"{run:<28} {r['candidate_pairs']:>6} {r['escalated_share']:>7.3f} {r['updates']:>7} "
              f"{r['old_in_candidates']:>9} {r['old_escalated']:>8} {r['old_audited']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
