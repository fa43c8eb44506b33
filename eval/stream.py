"""Stream-file evaluation: replay each scenario into a fresh store and ask its probes,
host alone and/or host + overlay; closed-pool grading; results, report and chart.

    python -m eval.stream FILE --out DIR [--overlay on|off|both] [--host builtin]
        [--llm SPEC] [--judge-llm SPEC [--judge-all]] [--gate cosine|sentry]
        [--controller off|online|shadow] [--max-events N] [--max-probes N] [--fresh]
    atma eval stream FILE --out DIR ...

Output dir: ``results.json`` (metrics per row, per-probe rows, manifest), ``report.md``,
``report.png``, and per row ``<row>/config.json``, ``<row>/probes.jsonl`` (resumable
log) and ``<row>/work/`` (one SQLite store per scenario). Probes with ``meta``
``target_cue_id``/``other_cue_id`` (event ids; LTP has them) get bank and retrieval
diagnostics; others get evidence support by alias match only.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .runner import (
    ARMS,
    HOST_ROW,
    OVERLAY_ROW,
    Ask,
    Components,
    EvalError,
    Response,
    Row,
    Task,
    atomic_write_json,
    final_store,
    prepare_row_dir,
    rows_for,
    run_row,
)

__all__ = ["add_common_args", "load_components", "main", "make_parser", "reset_answer_memo", "run_stream", "scenario_tasks"]

log = logging.getLogger(__name__)

from adapters.registry import HOSTS

SCHEMA = "atma-eval/1"


# ------------------------------------------------------------------ arguments


def add_common_args(p: argparse.ArgumentParser) -> None:
    from atma.llm.spec import DEFAULT_LLM

    p.add_argument("--out", required=True, help="output directory (resumable: rerun with the same --out)")
    p.add_argument("--host", default="builtin", help="host memory system: builtin, insideout, amem, graphiti")
    p.add_argument("--overlay", choices=("on", "off", "both"), default="both",
                   help="on: host + overlay; off: host alone; both: both rows (default: %(default)s)")
    p.add_argument("--llm", default=os.environ.get("ATMA_LLM", DEFAULT_LLM),
                   help="answer model, also the controller and the audit Judge of --judge llm or cascade (default: %(default)s)")
    p.add_argument("--judge-llm", default=None, help="offline answer judge for ambiguous grades (LLM spec)")
    p.add_argument("--judge-all", action="store_true", help="ask the answer judge about every answer (judge score)")
    p.add_argument("--gate", default="sentry",
                   help="pair gate: sentry (the shipped checkpoint), cosine, or a Sentry checkpoint folder")
    p.add_argument("--controller", choices=("off", "online", "shadow"), default="off")
    p.add_argument("--packet-order", choices=("retrieval", "time"), default="time",
                   help="overlay packet rows oldest first (as the builtin host shows them) or in rank order (the "
                        "paper's) (default: %(default)s)")
    p.add_argument("--packet-mode", choices=("resolved", "labelled", "checked"), default="checked",
                   help="overlay packet: view-shaped rows with plain state notes (resolved), the paper's five labels "
                        "(labelled), or the host's own answer re-asked from a resolved packet only when it names a "
                        "stale value (checked) (default: %(default)s)")
    p.add_argument("--resolve-top", type=int, default=2,
                   help="resolved packets: resolve the chains of the host's first N hits only (default: %(default)s; "
                        "0: none)")
    p.add_argument("--reask-packet", choices=("asked", "focused", "resolved"), default="asked",
                   help="checked packets: what a re-ask shows (asked: a question about now sees the live record "
                        "alone, others as focused; focused: the host's rows without the stale one plus the asked "
                        "state's record; resolved: the resolved packet) (default: %(default)s)")
    p.add_argument("--close-pair-a", type=float, default=None,
                   help="a cheap Judge (the rule, the verdict model) also judges pairs with gate a at or above this "
                        "that the Sentry does not escalate (default: OverlayConfig's, 0.65; a negative value: the "
                        "Sentry alone)")
    p.add_argument("--arms", default="",
                   help="attribution arms answered from the overlay row's replay, comma-separated: labelled (the "
                        "paper's labelled packet), control (length-matched host rows, no state), oracle (the "
                        "overlay with gold states from the probes' cues: a diagnostic upper bound), resolved / "
                        "checked (the overlay with that packet mode)")
    p.add_argument("--no-audit-judge", action="store_true", help="overlay writes use the rule (same as --judge rule)")
    p.add_argument("--judge", default="rule",
                   help="audit Judge for overlay writes: rule (the deterministic anchored rule), verdict (the "
                        "packaged verdict model), agree (both must see a change), llm (--llm with the Judge prompt), "
                        "cascade (verdict model; --llm for uncertain pairs), or a verdict checkpoint "
                        "(default: %(default)s)")
    p.add_argument("--embedder", default="minilm", help="embedder (default: %(default)s)")
    p.add_argument("--k", type=int, default=5, help="retrieval budget, both rows (default: %(default)s)")
    p.add_argument("--n-ctx", type=int, default=4096, help="llama.cpp context (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-answer-memo", action="store_true",
                   help="ask the LLM every time, even a prompt it answered before in this run (default: one "
                        "answer per prompt per run folder, so rows differ only where their prompts do)")
    p.add_argument("--max-events", type=int, default=None, help="debug: first N events per task (partial run)")
    p.add_argument("--max-probes", type=int, default=None, help="debug: first N questions per row (partial run)")
    p.add_argument("--shared-host", action="store_true",
                   help="with --overlay both: run the overlay row first and let the host-alone row answer from a copy "
                        "of its host store (same add calls; hosts that call an LLM per event pay once)")
    p.add_argument("--fresh", action="store_true", help="discard an existing run in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    from .fanout import add_fanout_args

    add_fanout_args(p)


def check_common_args(args: argparse.Namespace) -> None:
    if args.host not in HOSTS:
        raise EvalError(f"unknown host {args.host!r} (available: {', '.join(HOSTS)})")
    if args.k < 1:
        raise EvalError("--k must be at least 1")
    for flag in ("max_events", "max_probes"):
        v = getattr(args, flag)
        if v is not None and v < 0:
            raise EvalError(f"--{flag.replace('_', '-')} must be >= 0")
    if args.judge_all and not args.judge_llm:
        raise EvalError("--judge-all needs --judge-llm")
    if getattr(args, "shared_host", False) and args.overlay != "both":
        raise EvalError("--shared-host needs --overlay both")
    rows_for(args.overlay, arm_names(args))  # unknown arm / arms without the overlay row: EvalError
    from atma.llm.spec import parse_spec

    for spec in (args.llm, args.judge_llm):
        if spec is not None:
            parse_spec(spec)  # ValueError with the reason
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise EvalError(f"--out {out} exists and is not a directory")


def row_config(args: argparse.Namespace, row: Row, benchmark: str, source: Mapping[str, Any]) -> dict[str, Any]:
    """What must match for a run dir to be resumed (not --max-probes: a budget, not a setting)."""
    cfg = {"benchmark": benchmark, "source": dict(source), "row": row.name, "host": args.host, "llm": args.llm,
           "embedder": args.embedder, "k": args.k, "n_ctx": args.n_ctx, "seed": args.seed,
           "max_events": args.max_events, "judge_llm": args.judge_llm, "judge_all": args.judge_all}
    if getattr(args, "shared_host", False) and not row.overlay:
        cfg["shared_host"] = True
    if row.overlay:
        cfg.update({"gate": args.gate, "controller": args.controller, "audit_judge": not args.no_audit_judge})
        cfg["packet_order"] = args.packet_order
        cfg["packet_mode"] = row.packet_mode or getattr(args, "packet_mode", "checked")
        cfg["resolve_top"] = getattr(args, "resolve_top", 2)
        cfg["close_pair_a"] = _close_pair_a(args)
        if cfg["packet_mode"] == "checked":
            cfg["reask_packet"] = getattr(args, "reask_packet", "asked")
        if getattr(args, "judge", "rule") != "llm":  # absent for the LLM Judge, so older run dirs still resume
            cfg["judge"] = args.judge
    return cfg


def _close_pair_a(args: argparse.Namespace) -> float | None:
    from atma import OverlayConfig

    v = getattr(args, "close_pair_a", None)
    if v is None:
        return OverlayConfig.close_pair_a  # the dataclass default
    return None if v < 0 else float(v)


def arm_names(args: argparse.Namespace) -> list[str]:
    return [a.strip() for a in (getattr(args, "arms", "") or "").split(",") if a.strip()]


# ------------------------------------------------------------------ models


def _load_llm(spec: str, args: argparse.Namespace) -> Any:
    from atma import factory
    from atma.llm.spec import parse_spec

    opts = {"n_ctx": args.n_ctx, "seed": args.seed} if parse_spec(spec).backend == "llamacpp" else {}
    return factory.default_llm(spec, load=True, **opts)  # a missing model fails here, before anything is written


def reset_answer_memo(args: argparse.Namespace) -> None:
    """``--fresh`` starts the run's answer memo over too (main process only, before any
    worker opens it)."""
    from .memo import MEMO_FILE

    if getattr(args, "fresh", False) and getattr(args, "out", None):
        for suffix in ("", "-wal", "-shm"):
            (Path(args.out) / f"{MEMO_FILE}{suffix}").unlink(missing_ok=True)


def load_components(args: argparse.Namespace, rows: Sequence[Row]) -> Components:
    """Load the models once; a missing model raises before any file is written."""
    from adapters.registry import make_host as registry_make_host
    from atma import OverlayConfig, factory
    from atma.controller import ControllerConfig

    llm = _load_llm(args.llm, args)
    if getattr(args, "out", None) and not getattr(args, "no_answer_memo", False):
        from .memo import MEMO_FILE, MemoLLM

        llm = MemoLLM(llm, Path(args.out) / MEMO_FILE)  # one answer per prompt in a run (eval/memo.py)
    judge = _load_llm(args.judge_llm, args) if args.judge_llm else None
    embedder = factory.default_embedder(args.embedder)
    gate = None
    if any(r.overlay for r in rows):
        gate = factory.default_gate(embedder, spec=args.gate)
    cfg = OverlayConfig(k=args.k, use_judge=not args.no_audit_judge, controller=ControllerConfig(mode=args.controller),
                        packet_order=args.packet_order, packet_mode=getattr(args, "packet_mode", "checked"),
                        resolve_top=getattr(args, "resolve_top", 2), reask_packet=getattr(args, "reask_packet", "asked"),
                        close_pair_a=_close_pair_a(args))
    audit_judge = None
    if any(r.overlay for r in rows):
        audit_judge = factory.default_judge(getattr(args, "judge", "rule"), llm=llm)

    def make_host(path: str, emb: Any, answerer: Any) -> Any:
        # Hosts that maintain their store with an LLM (insideout, amem, graphiti) always get one.
        return registry_make_host(args.host, path=path, embedder=emb, llm=answerer or llm)

    return Components(llm=llm, embedder=embedder, make_host=make_host, gate=gate, judge_llm=judge, overlay_config=cfg,
                      audit_judge=audit_judge)


# ------------------------------------------------------------------ manifest


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_hashes() -> dict[str, str]:
    """sha256 of each prompt's fingerprint (its version constant and all its text)."""
    from adapters import builtin
    from atma import controller, judge, serializer

    from . import grading

    return {
        "audit_judge": _sha(judge.prompt_fingerprint()),
        "qa": _sha(serializer.prompt_fingerprint()),
        "controller": _sha(controller.prompt_fingerprint()),
        "host_plain_qa": _sha(builtin.prompt_fingerprint()),
        "answer_judge": _sha(grading.prompt_fingerprint()),
    }


def _model_entry(obj: Any) -> dict[str, Any]:
    if obj is None:
        return {}
    fn = getattr(obj, "manifest", None)
    try:
        return dict(fn()) if callable(fn) else {"name": getattr(obj, "name", type(obj).__name__)}
    except Exception as e:  # a manifest must not abort a finished run
        return {"name": getattr(obj, "name", type(obj).__name__), "error": str(e)[:200]}


def manifest(args: argparse.Namespace, comps: Components, *, partial: bool, extra: Mapping[str, Any] = ()) -> dict[str, Any]:
    import platform
    import subprocess
    from importlib import metadata

    from .memo import MemoLLM

    try:
        version = metadata.version("atma")
    except metadata.PackageNotFoundError:
        version = "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                                cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    gate = comps.gate
    cfg = comps.overlay_config
    return {
        "package": {"name": "atma", "version": version, "git_commit": commit},
        "python": platform.python_version(),
        "models": {"llm": _model_entry(comps.llm), "embedder": _model_entry(comps.embedder),
                   "judge_llm": _model_entry(comps.judge_llm) or None,
                   "gate": getattr(gate, "cache_key", None),
                   "audit_judge": getattr(comps.audit_judge, "name", None)},
        "prompts": prompt_hashes(),
        "seed": args.seed,
        "config": {**{k: v for k, v in vars(args).items() if k not in ("func", "quiet")},
                   "overlay_config": cfg.to_json() if cfg is not None and hasattr(cfg, "to_json") else None},
        "partial": partial,
        "answer_memo": ({"path": str(comps.llm.path), "hits": comps.llm.hits, "misses": comps.llm.misses}
                        if isinstance(comps.llm, MemoLLM) else None),
        **dict(extra),
    }


# ------------------------------------------------------------------ stream tasks


def planned_rows(args: argparse.Namespace, out: Path) -> list[tuple[Row, Path | None]]:
    """The rows to run, in order, each with the dir it may adopt host stores from
    (``--shared-host``: the overlay row runs first and the host row reuses its stores)."""
    rows = rows_for(args.overlay, arm_names(args))
    main = [r for r in rows if not r.arm]
    over = [r for r in main if r.overlay]
    if getattr(args, "shared_host", False):
        plan = [(r, None) for r in over] + [(r, out / over[0].dirname) for r in main if not r.overlay]
    else:
        plan = [(r, None) for r in main]
    return plan + [(r, out / over[0].dirname) for r in rows if r.arm]


def host_cost(stores: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Host LLM calls per event and replay seconds per event over finished replays (calls
    are None when the host does not count them)."""
    n = sum(s["n_events"] for s in stores)
    calls = [s.get("host_llm_calls") for s in stores]
    secs = [s.get("replay_s") for s in stores]
    known = all(isinstance(c, int) for c in calls) and calls
    return {"n_events": n,
            "llm_calls_per_event": (sum(calls) / n if n else 0.0) if known else None,
            "replay_s_per_event": (sum(secs) / n if n else 0.0) if secs and all(isinstance(x, (int, float)) for x in secs)
            else None}  # None for a row that adopted another row's stores (--shared-host)


def scenario_tasks(scenarios: Sequence[Any]) -> list[Task]:
    from .runner import Event

    return [Task(id=s.id, events=tuple(Event(id=e.id, time=e.time, speaker=e.speaker, text=e.text) for e in s.events),
                 asks=tuple(Ask(id=p.id, question=p.question, time=p.time, data=p) for p in s.probes), data=s)
            for s in scenarios]


def make_evaluator(comps: Components, judge_all: bool) -> Callable[[Task, Ask, Response], dict[str, Any]]:
    from .grading import grade, resolve_with_judge
    from .metrics import attribute, probe_diagnostics

    def evaluate(task: Task, ask: Ask, resp: Response) -> dict[str, Any]:
        p = ask.data
        g = grade(resp.answer, p.gold, p.alternates, p.question)
        final = g
        if comps.judge_llm is not None and (g.ambiguous or judge_all):
            j = resolve_with_judge(g, comps.judge_llm, question=p.question, answer=resp.answer, gold=p.gold,
                                   alternates=p.alternates, always=judge_all)
            # The matcher's verdict stands when it was clear; the judge only settles ambiguous ones.
            final = j if g.ambiguous else replace(g, judge_label=j.judge_label, judge_error=j.judge_error)
        diag = probe_diagnostics(pool=resp.pool, packet=resp.packet, target=p.meta.get("target_cue_id"),
                                 other=p.meta.get("other_cue_id"), view=p.view,
                                 packet_texts=[r["text"] for r in resp.packet_rows], gold=p.gold)
        return {
            "scenario": task.id, "probe": p.id, "question": p.question, "view": p.view, "gold": list(p.gold),
            "alternates": list(p.alternates), "answer": resp.answer, "verdict": final.verdict,
            "ambiguous": g.ambiguous, "decided_by": final.decided_by, "judge_label": final.judge_label,
            "judge_error": final.judge_error, "matched": list(final.matched),
            "packet": [{"id": r["id"], "event_id": r["event_id"], "label": r["label"], "text": r["text"][:300]}
                       for r in resp.packet_rows],
            "target_event": p.meta.get("target_cue_id"), "other_event": p.meta.get("other_cue_id"),
            "diag": diag, "attribution": attribute(final.verdict, diag), "timings": resp.timings,
            "trace": resp.trace, "meta": {k: p.meta[k] for k in ("unit_id", "slot", "update_type", "probe_type")
                                          if k in p.meta},
        }

    return evaluate


def row_results(tasks: Sequence[Task], row: Row, comps: Components, row_dir: Path, plog: Any,
                max_events: int | None, max_probes: int | None) -> dict[str, Any]:
    from .metrics import bank_scores, judge_stats, merge_state_change_stats, state_change_stats, summarize, units_from_probes

    keys = [f"{t.id}/{a.id}" for t in tasks for a in t.asks]
    if max_probes is not None:
        keys = keys[:max_probes]
    done = [plog.rows[k] for k in keys if k in plog.rows]
    chosen_tasks = {k.split("/", 1)[0] for k in keys}
    per_unit, writes, n_events, replayed, stores, loop = [], [], 0, 0, [], []
    for t in tasks:
        if t.id not in chosen_tasks:
            continue
        fs = final_store(row_dir, t, row, comps, max_events)
        if fs is None:
            continue
        replayed += 1
        stores.append(fs)
        units = units_from_probes([a.data.meta for a in t.asks], fs["event_order"])
        per_unit += bank_scores(fs["items"], units)["per_unit"]
        if fs["writes"]:
            loop.append(state_change_stats(fs["writes"], fs["items"], units))
        writes += fs["writes"]
        n_events += fs["n_events"]
    n_u = len(per_unit)
    bank = {"n_units": n_u, "coexist": sum(p["coexist"] for p in per_unit) / n_u if n_u else None,
            "role": sum(p["role"] for p in per_unit) / n_u if n_u else None}
    out = summarize(done, bank=bank, writes=judge_stats(writes, n_events))
    out["view_accuracy"] = view_accuracy(done)
    if loop:  # in-loop state quality (overlay rows): right actions on update cues, spurious changes, Judge cost
        out["state_loop"] = merge_state_change_stats(loop)
    out.update({"row": row.name, "selected": len(keys), "done": len(done), "tasks_replayed": replayed,
                "host_cost": host_cost(stores), "probes": done})
    return out


def view_accuracy(done: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The profiler's view against each probe's view, overall and per probe view (overlay
    rows only: the host alone has no profiler)."""
    pairs = [(p["view"], (p.get("trace") or {}).get("view")) for p in done if (p.get("trace") or {}).get("view")]
    if not pairs:
        return None
    per = {}
    for v in sorted({want for want, _ in pairs}):
        got = [g for want, g in pairs if want == v]
        per[v] = {"n": len(got), "acc": sum(g == v for g in got) / len(got)}
    return {"n": len(pairs), "acc": sum(w == g for w, g in pairs) / len(pairs), "per_view": per}


def finish(out: Path, benchmark: str, source: Mapping[str, Any], rows: dict[str, dict[str, Any]], man: dict[str, Any],
           render: Callable[[dict[str, Any], Path], str]) -> dict[str, Any]:
    """Write results.json (atomically), report.md and report.png; print the table."""
    results: dict[str, Any] = {"schema": SCHEMA, "benchmark": benchmark, "source": dict(source),
                               "partial": man["partial"], "manifest": man, "rows": rows}
    if len(rows) == 1:
        only = next(iter(rows.values()))
        results.update({k: v for k, v in only.items() if k != "probes"})
    atomic_write_json(out / "results.json", results)
    text = render(results, out)
    print(text)
    print(f"results: {out / 'results.json'}\nchart: {out / 'report.png'}")
    return results


def run_stream(tasks: Sequence[Task], args: argparse.Namespace, *, benchmark: str, source: Mapping[str, Any],
               comps: Components | None = None) -> dict[str, Any]:
    """Run the selected rows over ``tasks`` and write the output dir. ``comps``: preloaded models (tests)."""
    from . import report

    from .fanout import fanout_from_args

    out = Path(args.out)
    plan = planned_rows(args, out)
    reset_answer_memo(args)
    fanout = fanout_from_args(args, comps, functools.partial(make_evaluator, judge_all=args.judge_all))
    comps = comps or load_components(args, [r for r, _ in plan])
    evaluate = make_evaluator(comps, args.judge_all)
    total = sum(len(t.asks) for t in tasks)
    results: dict[str, dict[str, Any]] = {}
    for row, share in plan:
        row_dir = out / row.dirname
        prepare_row_dir(row_dir, row_config(args, row, benchmark, source), fresh=args.fresh)
        plog = run_row(tasks, row, comps, row_dir, evaluate=evaluate, max_events=args.max_events,
                       max_probes=args.max_probes, progress=not args.quiet, share_from=share, fanout=fanout)
        results[row.name] = row_results(tasks, row, comps, row_dir, plog, args.max_events, args.max_probes)
    results = {r.name: results[r.name] for r in rows_for(args.overlay, arm_names(args))}  # table order: host first
    partial = bool(args.max_events is not None or (args.max_probes is not None and args.max_probes < total)
                   or any(r["done"] < r["selected"] for r in results.values()))
    man = manifest(args, comps, partial=partial, extra={"comparisons": comparisons(results, seed=args.seed)})
    return finish(out, benchmark, source, results, man, report.render_stream)


def comparisons(rows: Mapping[str, Mapping[str, Any]], *, seed: int = 0, score: str = "correct") -> list[dict[str, Any]]:
    """Paired QA differences between rows on the probes both answered, each with a 95%
    bootstrap interval: every row against the host row, and the overlay against the
    length-matched control."""
    from .metrics import paired_bootstrap

    def scores(row: Mapping[str, Any]) -> dict[str, float]:
        out = {}
        for p in row.get("probes", ()):
            if "f1" in p and score == "f1":
                out[p["key"]] = float(p["f1"])
            elif "verdict" in p:
                out[p["key"]] = float(p["verdict"] == "correct")
        return out

    pairs = [(name, HOST_ROW) for name in rows if name != HOST_ROW and HOST_ROW in rows]
    control = ARMS["control"][0]
    if control in rows and OVERLAY_ROW in rows:
        pairs.append((OVERLAY_ROW, control))
    out = []
    for a, b in pairs:
        sa, sb = scores(rows[a]), scores(rows[b])
        keys = sorted(set(sa) & set(sb))
        if keys:
            out.append({"row": a, "vs": b, **paired_bootstrap([sa[k] for k in keys], [sb[k] for k in keys], seed=seed)})
    return out


def file_source(path: str) -> dict[str, Any]:
    p = Path(path)
    return {"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}


def make_parser(prog: str = "python -m eval.stream") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="Evaluate a stream file (JSONL scenarios): host alone and/or "
                                 "host + overlay, closed-pool grading.")
    ap.add_argument("file", help="stream file (JSONL, one scenario a line)")
    add_common_args(ap)
    return ap


def main(argv: Sequence[str] | None = None, *, comps: Components | None = None, prog: str | None = None) -> int:
    args = make_parser(prog or "python -m eval.stream").parse_args(argv)
    return guard(lambda: _main(args, comps))


def _main(args: argparse.Namespace, comps: Components | None) -> int:
    from .stream_format import load_stream

    check_common_args(args)
    if Path(args.file).is_dir():
        raise EvalError(f"{args.file} is a directory, not a stream file (JSONL, one scenario a line)")
    if not Path(args.file).is_file():
        raise EvalError(f"stream file not found: {args.file}")
    scenarios = load_stream(args.file)
    if not scenarios:
        raise EvalError(f"{args.file}: no scenarios")
    run_stream(scenario_tasks(scenarios), args, benchmark="stream", source=file_source(args.file), comps=comps)
    return 0


def guard(fn: Callable[[], int]) -> int:
    """Bad input -> one line on stderr, exit 2."""
    from atma.bank import BankError
    from atma.models import ModelError
    from atma.protocols import LLMError

    try:
        return int(fn() or 0)
    except (EvalError, ValueError, ModelError, LLMError, BankError, OSError) as e:
        msg = " ".join(str(e).split()) or type(e).__name__
        print(f"atma eval: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("atma eval: interrupted (rerun the same command to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
