"""In-loop state quality of a finished overlay row, from its bank and write traces: update cues
committed with the right action, spurious state changes per 100 non-update events, Judge calls
and seconds per event, and the Judge's verdicts by kind on update cues and on other events
(supersede, transition, coexist, scoped_exception, same_value; :func:`eval.metrics.state_change_stats`). Units (which cue updates which)
come from the LTP units file's cue ids.

    python -m eval.state_loop runs/v11-loop [--units data/ltp/units.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from .metrics import Unit, items_from_records, merge_state_change_stats, state_change_stats

__all__ = ["main", "run_dir_state_loop"]

DEFAULT_UNITS = Path(__file__).resolve().parents[1] / "data" / "ltp" / "units.jsonl"


def run_dir_state_loop(run: Path, units_file: Path = DEFAULT_UNITS) -> dict[str, Any]:
    from atma.bank import StateBank

    units = []
    for line in units_file.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            old, new = row["cue_ids"][:2]
            units.append(Unit(id=row["unit_id"], old_cue=old, new_cue=new))
    dbs = sorted((run / "overlay" / "work").glob("*.db"))
    if not dbs:
        raise FileNotFoundError(f"no overlay stores under {run / 'overlay' / 'work'}")
    parts = []
    for db in dbs:
        bank = StateBank(str(db))
        try:
            for ns in bank.namespaces():
                items = items_from_records(bank.records(ns))
                events = {i.event_id for i in items}
                mine = [u for u in units if u.old_cue in events and u.new_cue in events]
                writes = [t["body"] for t in bank.traces(ns, kind="write", limit=10**9)]
                parts.append(state_change_stats(writes, items, mine))
        finally:
            bank.close()
    return merge_state_change_stats(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.state_loop", description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="run directories (atma eval ltp --out ...)")
    ap.add_argument("--units", default=str(DEFAULT_UNITS))
    args = ap.parse_args(argv)
    for run in args.runs:
        try:
            r = run_dir_state_loop(Path(run), Path(args.units))
        except FileNotFoundError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(json.dumps({"run": run, **{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
