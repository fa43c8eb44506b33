"""Pool finished eval runs (e.g. one folder per LTP profile) and compare their rows on the same
probes: QA accuracy and drift per row, per view, and the paired difference of each row against
the host alone with its 95% bootstrap interval.

    python -m eval.compare runs/dev-p0 runs/dev-p1 ... [--base host] [--json out.json]
    python -m eval.compare runs/dev5 --reasks      # + what the answer check's re-asks did

LoCoMo runs are scored by official F1 (QA column), per category instead of per view.
A re-ask tally pairs each re-asked probe's verdict with the base row's verdict on the same
probe (in checked mode the first answer is the host's, so the base row stands for it):
wrong -> right, right -> wrong, stale -> another wrong value, unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from .metrics import paired_bootstrap

__all__ = ["main", "pool"]


def _rows(run: Path) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for f in sorted(run.glob("*/probes.jsonl")):
        got = {}
        for line in f.read_text().splitlines():
            if line.strip():
                p = json.loads(line)
                got[p["key"]] = p
        out[f.parent.name] = got
    return out


def pool(runs: Sequence[Path]) -> dict[str, dict[str, dict[str, Any]]]:
    """row name -> probe key -> probe, over all runs (a key seen twice keeps the later run's)."""
    rows: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for run in runs:
        if not run.is_dir():
            raise FileNotFoundError(f"no run folder {run}")
        for name, probes in _rows(run).items():
            rows[name].update(probes)
    return dict(rows)


def score(p: dict[str, Any]) -> float:
    """A probe's score: 1/0 for a graded LTP/stream answer, the official F1 for LoCoMo."""
    return float(p["verdict"] == "correct") if "verdict" in p else float(p.get("f1") or 0.0)


def summarise(rows: dict[str, dict[str, dict[str, Any]]], base: str) -> dict[str, Any]:
    names = sorted(rows, key=lambda n: (n != base, n))
    common = set.intersection(*(set(v) for v in rows.values())) if rows else set()
    keys = sorted(common)
    res: dict[str, Any] = {"probes": len(keys), "rows": {}, "comparisons": {}}
    for n in names:
        ps = [rows[n][k] for k in keys]
        by_view: dict[str, list[float]] = defaultdict(list)
        for p in ps:  # LTP/stream probes by their view; LoCoMo questions by their category
            by_view[p.get("view", p.get("category", "?"))].append(score(p))
        res["rows"][n] = {"qa": sum(score(p) for p in ps) / len(ps) if ps else None,
                          "drift": sum(p.get("verdict") == "drift" for p in ps) / len(ps) if ps else None,
                          "by_view": {v: sum(x) / len(x) for v, x in sorted(by_view.items())}}
    if base in rows:
        b = [score(rows[base][k]) for k in keys]
        for n in names:
            if n != base:
                a = [score(rows[n][k]) for k in keys]
                res["comparisons"][f"{n} - {base}"] = paired_bootstrap(a, b)
    return res


def _reasked_from_traces(run: Path, row: str) -> dict[str, bool]:
    """(task, question) -> re-asked, read from the query traces stored in a run's work banks
    (runs made before probe records carried the check)."""
    from atma.bank import StateBank

    out: dict[str, bool] = {}
    for db in sorted((run / row / "work").glob("*.db")):
        bank = StateBank(db)
        try:
            for ns in bank.namespaces():
                for t in bank.traces(ns, kind="query", limit=1_000_000):
                    body = t["body"]
                    out[f"{ns}\0{body.get('query', '')}"] = bool((body.get("check") or {}).get("reasked"))
        finally:
            bank.close()
    return out


def reask_tally(runs: Sequence[Path], rows: dict[str, dict[str, dict[str, Any]]], row: str,
                base: str) -> dict[str, Any]:
    """What the re-asks of ``row`` did, against ``base`` on the same probes."""
    keys = sorted(set(rows.get(row, {})) & set(rows.get(base, {})))
    from_traces: dict[str, bool] = {}
    if any("check" not in (rows[row][k].get("trace") or {}) for k in keys):
        for run in runs:
            from_traces.update(_reasked_from_traces(run, row))
    tally = {"reasked": 0, "wrong -> right": 0, "right -> wrong": 0, "stale -> another wrong": 0,
             "stale -> stale": 0, "same verdict": 0, "unknown": 0}
    listed = []
    for k in keys:
        p, b = rows[row][k], rows[base][k]
        chk = (p.get("trace") or {}).get("check")
        if chk is not None:
            re_asked = bool(chk.get("reasked"))
        else:
            got = from_traces.get(f"{p.get('task', '')}\0{p.get('question', '')}")
            if got is None:
                tally["unknown"] += 1
                continue
            re_asked = got
        if not re_asked:
            continue
        tally["reasked"] += 1
        a, h = p.get("verdict"), b.get("verdict")
        if score(p) > score(b):
            kind = "wrong -> right"
        elif score(p) < score(b):
            kind = "right -> wrong"
        elif h == "drift" and a == "drift":
            kind = "stale -> stale"
        elif h == "drift":
            kind = "stale -> another wrong"
        else:
            kind = "same verdict"
        tally[kind] += 1
        listed.append({"key": k, "kind": kind, "question": p.get("question"), "host": b.get("answer"),
                       "overlay": p.get("answer"), "gold": p.get("gold")})
    return {"tally": tally, "probes": listed}


def by_task(rows: dict[str, dict[str, dict[str, Any]]], base: str) -> dict[str, dict[str, float]]:
    """row -> task -> QA difference against ``base`` on the probes both answered."""
    out: dict[str, dict[str, float]] = {}
    for n in rows:
        if n == base:
            continue
        per: dict[str, list[float]] = defaultdict(list)
        for k in sorted(set(rows[n]) & set(rows[base])):
            p = rows[n][k]
            per[str(p.get("task", "?"))].append(score(p) - score(rows[base][k]))
        out[n] = {t: sum(v) / len(v) for t, v in sorted(per.items())}
    return out


def per_task(rows: dict[str, dict[str, dict[str, Any]]], base: str) -> dict[str, dict[str, Any]]:
    """task -> {"n": probes every row answered, row: its QA on them}, tasks in order, then "all".

    >>> r = {"host": {"a/1": {"task": "a", "f1": 0.5}, "b/1": {"task": "b", "f1": 0.0}},
    ...      "overlay": {"a/1": {"task": "a", "f1": 1.0}, "b/1": {"task": "b", "f1": 0.0}}}
    >>> per_task(r, "host")["a"], per_task(r, "host")["all"]["overlay"]
    ({'n': 1, 'host': 0.5, 'overlay': 1.0}, 0.5)
    """
    names = sorted(rows, key=lambda n: (n != base, n))
    keys = sorted(set.intersection(*(set(v) for v in rows.values()))) if rows else []
    groups: dict[str, list[str]] = defaultdict(list)
    for k in keys:
        groups[str(rows[names[0]][k].get("task", "?"))].append(k)
    groups["all"] = keys
    return {t: {"n": len(ks), **{n: sum(score(rows[n][k]) for k in ks) / len(ks) for n in names}}
            for t, ks in groups.items() if ks}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.compare", description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="run folders (atma eval ... --out)")
    ap.add_argument("--base", default="host", help="row the others are compared with (default: host)")
    ap.add_argument("--json", default=None, help="also write the summary here")
    ap.add_argument("--reasks", nargs="?", const="overlay", default=None, metavar="ROW",
                    help="also tally what the answer check's re-asks did in ROW (default: overlay)")
    ap.add_argument("--list", action="store_true", help="with --reasks: list every re-asked probe")
    ap.add_argument("--by-task", action="store_true", help="also each row's QA minus the base row's, per task")
    ap.add_argument("--per-task", action="store_true",
                    help="also a markdown table of each row's QA per task (a LoCoMo sample, an LTP profile) and pooled")
    args = ap.parse_args(argv)
    try:
        rows = pool([Path(r) for r in args.runs])
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("error: no probes.jsonl under the given runs", file=sys.stderr)
        return 2
    if (args.by_task or args.per_task) and args.base not in rows:
        print(f"error: --by-task/--per-task need the base row {args.base!r}", file=sys.stderr)
        return 2
    s = summarise(rows, args.base)
    print(f"{s['probes']} probes answered by every row")
    print(f"{'row':<12} {'QA':>6} {'drift':>6}  by view")
    for n, r in s["rows"].items():
        views = ", ".join(f"{v} {x:.3f}" for v, x in r["by_view"].items())
        print(f"{n:<12} {r['qa']:>6.3f} {r['drift']:>6.3f}  {views}")
    for n, c in s["comparisons"].items():
        print(f"{n}: {c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}] (n={c['n']})")
    if args.per_task:
        s["per_task"] = pt = per_task(rows, args.base)
        names = [n for n in pt["all"] if n != "n"]
        print("| task | N | " + " | ".join(names) + " | " + " | ".join(f"{n} - {args.base}" for n in names[1:]) + " |")
        print("|---|---:|" + "---:|" * (2 * len(names) - 1))
        for t, r in pt.items():
            cells = [f"{r[n]:.3f}" for n in names] + [f"{r[n] - r[names[0]]:+.3f}" for n in names[1:]]
            print(f"| {t} | {r['n']} | " + " | ".join(cells) + " |")
    if args.by_task:
        s["by_task"] = by_task(rows, args.base)
        for n, per in s["by_task"].items():
            print(f"{n} - {args.base} per task: " + ", ".join(f"{t} {d:+.3f}" for t, d in per.items()))
    if args.reasks:
        if args.reasks not in rows or args.base not in rows:
            print(f"error: --reasks needs rows {args.reasks!r} and {args.base!r}", file=sys.stderr)
            return 2
        rt = reask_tally([Path(r) for r in args.runs], rows, args.reasks, args.base)
        s["reasks"] = rt
        print(f"re-asks in {args.reasks} vs {args.base}: " + ", ".join(f"{k} {v}" for k, v in rt["tally"].items()))
        if args.list:
            for p in rt["probes"]:
                print(f"  [{p['kind']}] {p['question']} | gold {p['gold']} | {args.base}: {p['host']!r} "
                      f"| {args.reasks}: {p['overlay']!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(s, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
