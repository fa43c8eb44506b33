"""Accuracy of time-expression resolution on the hand-written expression set.

    python -m eval.timeexpr_eval [--file tests/data/time_expressions.tsv] [--errors MODE]

For each approach (``parser``: dateparser's search_dates alone; ``rules``: atma.timeexpr's
own grammar; ``combined``: rules, then dateparser for what they left) it prints

* accuracy: gold expressions whose span is found (overlapping) AND resolved to the gold
  start date, end date and granularity, over all gold expressions;
* found: gold expressions with an overlapping prediction, whatever its resolution;
* false positives: predictions overlapping no gold expression (the "-" lines are
  sentences that name no time at all);
* ms per sentence.

The file format is described in its header; its gold follows the conventions in
atma/timeexpr.py's docstring.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Sequence

from atma.timeexpr import find_times

__all__ = ["GoldItem", "load_gold", "score", "main"]

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "tests" / "data" / "time_expressions.tsv"
MODES = ("parser", "rules", "combined")


@dataclass(frozen=True)
class GoldItem:
    said: date
    expression: str | None  # None: the text names no time
    start: date | None
    end: date | None
    granularity: str | None
    text: str

    @property
    def span(self) -> tuple[int, int] | None:
        if self.expression is None:
            return None
        a = self.text.lower().find(self.expression.lower())
        if a < 0:
            raise ValueError(f"expression {self.expression!r} not in {self.text!r}")
        return a, a + len(self.expression)


def load_gold(path: Path = DEFAULT_FILE) -> list[GoldItem]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ", 5)]
        if len(parts) != 6:
            raise ValueError(f"{path}:{n}: expected 6 fields")
        said, expr, s, e, gran, text = parts
        none = expr == "-"
        items.append(GoldItem(said=date.fromisoformat(said), expression=None if none else expr,
                              start=None if none else date.fromisoformat(s), end=None if none else date.fromisoformat(e),
                              granularity=None if none else gran, text=text))
        items[-1].span  # validates
    return items


@dataclass(frozen=True)
class Score:
    mode: str
    n: int
    correct: int
    found: int
    false_positives: int
    ms_per_text: float
    errors: tuple[str, ...]

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


def score(items: Sequence[GoldItem], mode: str) -> Score:
    by_text: dict[tuple[date, str], list[GoldItem]] = {}
    for it in items:
        by_text.setdefault((it.said, it.text), []).append(it)
    correct = found = fp = 0
    n = sum(it.expression is not None for it in items)
    errors = []
    t0 = time.perf_counter()
    for (said, text), golds in by_text.items():
        preds = find_times(text, said, mode=mode)  # type: ignore[arg-type]
        spans = [g.span for g in golds if g.span is not None]
        for p in preds:
            if not any(p.span[0] < b and a < p.span[1] for a, b in spans):
                fp += 1
                errors.append(f"FP  {said} {text!r}: {p.expression!r} -> {p.start}..{p.end} {p.granularity}")
        for g in golds:
            if g.span is None:
                continue
            a, b = g.span
            over = [p for p in preds if p.span[0] < b and a < p.span[1]]
            if not over:
                errors.append(f"MISS {said} {text!r}: {g.expression!r}")
                continue
            found += 1
            p = max(over, key=lambda p: min(b, p.span[1]) - max(a, p.span[0]))
            if (p.start, p.end, p.granularity) == (g.start, g.end, g.granularity):
                correct += 1
            else:
                errors.append(f"WRONG {said} {text!r}: {g.expression!r} gold {g.start}..{g.end} {g.granularity}, "
                              f"got {p.expression!r} {p.start}..{p.end} {p.granularity}")
    ms = (time.perf_counter() - t0) * 1000 / max(1, len(by_text))
    return Score(mode=mode, n=n, correct=correct, found=found, false_positives=fp, ms_per_text=ms, errors=tuple(errors))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.timeexpr_eval", description=__doc__.split("\n")[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated: parser,rules,combined")
    ap.add_argument("--errors", default=None, help="print the errors of this mode")
    args = ap.parse_args(argv)
    items = load_gold(args.file)
    n_neg = sum(it.expression is None for it in items)
    print(f"{args.file.name}: {sum(it.expression is not None for it in items)} expressions, "
          f"{len({(i.said, i.text) for i in items})} sentences ({n_neg} with no time expression)")
    print(f"{'approach':<10} {'accuracy':>9} {'found':>7} {'false+':>7} {'ms/text':>8}")
    for mode in args.modes.split(","):
        s = score(items, mode)
        print(f"{mode:<10} {s.accuracy:>9.3f} {s.found / s.n:>7.3f} {s.false_positives:>7d} {s.ms_per_text:>8.2f}")
        if args.errors == mode:
            print("\n".join("  " + e for e in s.errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
