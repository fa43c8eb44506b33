"""View accuracy of the query profiler: its view against the labelled view of each question.

Sets: our own question set (``tests/data/view_questions.tsv``, written for this purpose, no
benchmark strings) and the LTP reconstruction's probes of the chosen profiles (default: the
dev profiles 0-4; profiles 5-9 are the test split: report them once, never tune on them).

    python -m eval.view_accuracy                 # own set + LTP dev profiles 0-4
    python -m eval.view_accuracy --profiles 5-9  # the test split, for the final report
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
OWN_SET = ROOT / "tests" / "data" / "view_questions.tsv"
LTP = ROOT / "data" / "ltp" / "ltp.jsonl"


def own_set(path: Path = OWN_SET) -> list[tuple[str, str]]:
    rows = [line.split("\t", 1) for line in path.read_text("utf-8").splitlines() if line.strip() and not line.startswith("#")]
    return [(v, q) for v, q in rows]


def ltp_set(profiles: Iterable[int], path: Path = LTP) -> list[tuple[str, str]]:
    want = set(profiles)
    out = []
    for i, line in enumerate(path.read_text("utf-8").splitlines()):
        if i in want:
            out.extend((p["view"], p["question"]) for p in json.loads(line)["probes"])
    return out


def score(rows: Sequence[tuple[str, str]]) -> dict[str, object]:
    from atma.profiler import profile

    confusion = Counter((want, profile(q).view) for want, q in rows)
    per = {v: sum(n for (w, g), n in confusion.items() if w == v and g == v) / max(1, sum(n for (w, _), n in confusion.items() if w == v))
           for v in sorted({w for w, _ in confusion})}
    ok = sum(n for (w, g), n in confusion.items() if w == g)
    return {"n": len(rows), "acc": ok / len(rows) if rows else None, "per_view": per,
            "errors": [(w, profile(q).view, q) for w, q in rows if profile(q).view != w]}


def _profiles(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.view_accuracy", description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", default="0-4", help="LTP profiles (default: the dev split 0-4)")
    args = ap.parse_args(argv)
    print("| set | N | view acc. | per view |\n|---|---:|---:|---|")
    for name, rows in (("own question set", own_set()), (f"LTP profiles {args.profiles}", ltp_set(_profiles(args.profiles)))):
        s = score(rows)
        per = ", ".join(f"{v} {x:.3f}" for v, x in s["per_view"].items())
        print(f"| {name} | {s['n']} | {s['acc']:.3f} | {per} |")
        for w, g, q in s["errors"][:10]:
            print(f"    wrong: {w} -> {g}: {q}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
