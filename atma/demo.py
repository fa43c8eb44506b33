"""A scripted walk through a few state changes: host alone vs host + overlay, with a trace.

Run: ``atma demo`` (or ``python -m atma.demo``). Uses the builtin host on a fresh
SQLite file, the packaged MiniLM and the embedded LLM default unless told otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

STORY = [
    ("2024-01-10T10:00", "Dana", "I rent a small flat in Leeds, close to the canal."),
    ("2024-01-22T19:30", "Dana", "Work at the bakery was hectic again, I'm a pastry chef there and we had three weddings."),
    ("2024-02-03T09:15", "Dana", "My cat Biscuit knocked the plant off the windowsill this morning."),
    ("2024-03-14T20:00", "Sam", "You should really try climbing with me sometime, Dana!"),
    ("2024-04-02T08:45", "Dana", "I usually sleep about six hours a night, which is not enough."),
    ("2024-06-02T10:00", "Dana", "Big news: I moved to Bristol last weekend, the new place is near the harbour."),
    ("2024-07-19T18:10", "Dana", "I quit the bakery. I'm a software tester at a game studio now."),
    ("2024-08-30T21:00", "Dana", "Since I started going to bed earlier I get a solid eight hours of sleep."),
]

QUESTIONS = [
    ("Where did Dana live before?", "Leeds"),
    ("Where does Dana live now?", "Bristol"),
    ("What does Dana do for work now?", "tester"),
    ("What was Dana's job before?", "pastry"),
    ("How many hours does Dana sleep these days?", "eight"),
]


def run(llm_spec: str, db: Path, show_trace: int) -> int:
    from adapters.registry import make_host
    from atma import ATMAOverlay, factory

    t0 = time.perf_counter()
    llm = factory.default_llm(llm_spec)
    embedder = factory.default_embedder()
    host = make_host("builtin", path=db, embedder=embedder, llm=llm)
    overlay = ATMAOverlay(host, namespace="dana", llm=llm)
    print(f"host: builtin ({db}), llm: {llm.name}, gate: {overlay.gate.name}")
    print("\n== writing the story ==")
    for when, who, text in STORY:
        res = overlay.add(text, time=when, speaker=who)
        changes = ", ".join(f"{c['action']} {c['old_id']}" for c in res.trace.changes) or "new state"
        print(f"{res.record.id:>4} [{when[:10]}] {who}: {text[:60]:<60} -> {changes}")
    print("\n== asking ==")
    print(f"{'question':<45} {'host alone':<40} {'host + overlay':<40}")
    last = None
    hits_alone = hits_overlay = 0
    for q, expect in QUESTIONS:
        alone, _ = overlay.host_answer(q)
        ans = overlay.answer(q)
        last = ans
        hits_alone += expect.lower() in alone.lower()
        hits_overlay += expect.lower() in ans.answer.lower()
        print(f"{q:<45} {_cut(alone):<40} {_cut(ans.answer):<40}")
    print(f"\nexpected value named: host alone {hits_alone}/{len(QUESTIONS)}, host + overlay {hits_overlay}/{len(QUESTIONS)}")
    if show_trace and last is not None:
        first = overlay.bank.traces("dana", kind="query", limit=len(QUESTIONS))[-1]["body"]
        from atma.trace import QueryTrace

        print("\n== trace of the first question ==")
        print(QueryTrace(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in first.items() if k != "kind"}).render())
    print(f"\ndone in {time.perf_counter() - t0:.1f}s")
    return 0


def _cut(s: str, n: int = 38) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def main(argv: list[str] | None = None) -> int:
    from atma.factory import llm_spec

    ap = argparse.ArgumentParser(prog="atma demo", description=__doc__.splitlines()[0])
    ap.add_argument("--llm", default=llm_spec(), help="LLM spec (default: %(default)s, from $ATMA_LLM when set)")
    ap.add_argument("--db", type=Path, default=None, help="SQLite file (default: a fresh temporary file)")
    ap.add_argument("--no-trace", action="store_true", help="do not print the trace")
    args = ap.parse_args(argv)
    if args.db is None:
        args.db = Path(tempfile.mkdtemp(prefix="atma-demo-")) / "mem.db"
    elif args.db.exists():
        print(f"error: {args.db} exists; the demo needs a fresh file", file=sys.stderr)
        return 2
    return run(args.llm, args.db, 0 if args.no_trace else 1)


if __name__ == "__main__":
    raise SystemExit(main())
