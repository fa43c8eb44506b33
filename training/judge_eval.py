"""Held-out evaluation of an audit Judge (App. A.8 metrics).

What: runs a judge over the held-out audit items (:mod:`training.judge_data`) with the
overlay's own prompt (:func:`atma.judge.judge_messages`) and reports action accuracy,
precision/recall/F1 of the binary "needs a state change" label (supersede or transition vs
the rest, the paper's headline), implicit-violation accuracy, and how often the reply was
invalid (the overlay then uses :func:`atma.judge.fallback_verdict`, and so does this).

Judges (``--judge``):
  rule                 the deterministic fallback, topic score = MiniLM cosine of the pair
  rule:sentry          the fallback with the Sentry topic agreement ``a`` stored in the items
  verdict[:<ckpt>]     the trained verdict model (atma/verdict.py; default: the packaged checkpoint)
  cascade:<llm spec>[@band]  the verdict model; items whose top probability is below band
                       (default 0.9) go to that LLM Judge
  hf:<folder>[+<adapter>]  an HF causal LM (optionally with a LoRA adapter), see training/hf_judge.py
  any atma.llm spec    qwen2.5-coder-1.5b, /path/judge.gguf, llamacpp:..., openai:<url>#<model>, ollama:<model>

Run: ``python -m training.judge_eval --judge rule --out checkpoints/judge/eval``; writes
``<name>.json`` (metrics + per-item predictions) and ``<name>.md`` (one table row), and
``--table`` merges every ``*.json`` there into ``results.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from atma.judge import JUDGE_SCHEMA, Verdict, fallback_verdict, parse_verdict
from atma.protocols import GateScore, LLM, LLMError
from training.judge_data import item_messages, item_record_pair, load_items, needs_change, split_think, strip_think

__all__ = ["JudgeResult", "evaluate", "judge_fn", "main", "metrics", "parse_judge_reply", "results_table"]

log = logging.getLogger(__name__)

DEFAULT_DATA = Path(__file__).resolve().parents[1] / "checkpoints" / "judge" / "data"


def parse_judge_reply(text: str):
    """:func:`atma.judge.parse_verdict` after dropping a ``<think>`` block (CoT judges)."""
    return parse_verdict(strip_think(text))


@dataclass(frozen=True)
class JudgeResult:
    verdict: Verdict
    status: str  # "ok" | parse status of an invalid reply | "llm_error" | "rule"
    latency_s: float = 0.0
    raw: str = ""
    has_think: bool = False


JudgeFn = Callable[[Mapping[str, Any]], JudgeResult]


def _cosine_scores(items: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    from atma.sentry import CosineGate

    gate = CosineGate()
    olds = gate.features([i["old_text"] for i in items])
    news = gate.features([i["new_text"] for i in items])
    return {i["id"]: float(olds[k] @ news[k]) for k, i in enumerate(items)}


def _llm_judge(llm: LLM, *, max_tokens: int, schema: bool) -> JudgeFn:
    def run(item: Mapping[str, Any]) -> JudgeResult:
        old, new, score = item_record_pair(item)
        t0 = time.perf_counter()
        try:
            comp = llm.complete(item_messages(item), max_tokens=max_tokens, temperature=0.0,
                                json_schema=JUDGE_SCHEMA if schema else None, timeout=600)
        except LLMError as e:
            return JudgeResult(fallback_verdict(old, new, score, why="llm error"), "llm_error",
                               time.perf_counter() - t0, str(e))
        parsed = parse_judge_reply(comp.text)
        think = split_think(comp.text)[0] is not None
        if parsed.verdict is None:
            return JudgeResult(fallback_verdict(old, new, score, why=parsed.status), parsed.status,
                               comp.latency_s, comp.text, think)
        return JudgeResult(parsed.verdict, "ok", comp.latency_s, comp.text, think)

    return run


def judge_fn(spec: str, items: Sequence[Mapping[str, Any]], *, max_tokens: int = 400,
             schema: bool | None = None) -> tuple[JudgeFn, str]:
    """Build the judge for ``spec`` (forms in the module docstring); returns (fn, name).

    ``schema``: ask the backend to constrain output to :data:`atma.judge.JUDGE_SCHEMA`
    (default: yes for llama.cpp/OpenAI/Ollama, as the overlay does; a constrained CoT model
    cannot write its ``<think>`` block, so pass False for those)."""
    if spec in ("rule", "rule:cosine", "rule:sentry"):
        source = "sentry" if spec == "rule:sentry" else "cosine"
        topic = ({i["id"]: i["sentry"]["a"] for i in items} if source == "sentry" else _cosine_scores(items))

        def rule(item: Mapping[str, Any]) -> JudgeResult:
            old, new, _ = item_record_pair(item)
            score = GateScore(a=topic[item["id"]], b=None, d=None, escalate=True)
            return JudgeResult(fallback_verdict(old, new, score, why="rule eval"), "rule")

        return rule, f"rule ({source} topic score)"
    if spec == "verdict" or spec.startswith("verdict:"):
        from training.judge_verdict import verdict_judge_fn

        path = spec.partition(":")[2] or None
        return verdict_judge_fn(path), "verdict model" + (f" ({path})" if path else "")
    if spec.startswith("cascade:"):
        from atma.llm import load_llm
        from training.judge_verdict import verdict_judge_fn

        llm_spec, _, band = spec[len("cascade:"):].partition("@")
        first = verdict_judge_fn(None)
        second = _llm_judge(load_llm(llm_spec), max_tokens=max_tokens, schema=True if schema is None else schema)
        cut = float(band or 0.9)

        def cascade(item: Mapping[str, Any]) -> JudgeResult:
            r = first(item)
            if (r.verdict.confidence or 0.0) >= cut:
                return r
            r2 = second(item)
            return JudgeResult(r2.verdict, r2.status, r.latency_s + r2.latency_s, "cascade->llm " + r2.raw, r2.has_think)

        return cascade, f"cascade: verdict model, {llm_spec} below p={cut}"
    if spec.startswith("hf:"):
        from training.hf_judge import HFJudge

        folder, _, adapter = spec[3:].partition("+")
        return _llm_judge(HFJudge(folder, adapter=adapter or None, keep_think=True), max_tokens=max_tokens,
                          schema=bool(schema)), spec
    from atma.llm import load_llm

    return _llm_judge(load_llm(spec), max_tokens=max_tokens, schema=True if schema is None else schema), spec


def metrics(items: Sequence[Mapping[str, Any]], results: Sequence[JudgeResult]) -> dict[str, Any]:
    """Action accuracy, binary P/R/F1 (needs a state change), implicit-violation accuracy.

    >>> from atma.judge import Verdict
    >>> none = Verdict(action="none", conflict_status="no_conflict", conflict_type="none")
    >>> sup = Verdict(action="supersede", conflict_status="conflict", conflict_type="temporal_update")
    >>> items = [{"verdict": {"action": "supersede"}, "implicit": True},
    ...          {"verdict": {"action": "none"}, "implicit": False}]
    >>> m = metrics(items, [JudgeResult(sup, "ok"), JudgeResult(sup, "ok")])
    >>> m["accuracy"], m["precision"], m["recall"], m["f1"], m["implicit_accuracy"]
    (0.5, 0.5, 1.0, 0.6667, 1.0)
    """
    gold = [i["verdict"]["action"] for i in items]
    pred = [r.verdict.action for r in results]
    tp = sum(1 for g, p in zip(gold, pred) if needs_change(g) and needs_change(p))
    fp = sum(1 for g, p in zip(gold, pred) if not needs_change(g) and needs_change(p))
    fn = sum(1 for g, p in zip(gold, pred) if needs_change(g) and not needs_change(p))
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    imp = [k for k, i in enumerate(items) if i["implicit"]]
    lat = [r.latency_s for r in results if r.latency_s]
    return {
        "n": len(items),
        "accuracy": round(sum(g == p for g, p in zip(gold, pred)) / max(len(items), 1), 4),
        "precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
        "binary_accuracy": round(sum(needs_change(g) == needs_change(p) for g, p in zip(gold, pred))
                                 / max(len(items), 1), 4),
        "implicit_n": len(imp),
        "implicit_accuracy": round(sum(gold[k] == pred[k] for k in imp) / len(imp), 4) if imp else None,
        "invalid": sum(1 for r in results if r.status not in ("ok", "rule")),
        "with_think": sum(1 for r in results if r.has_think),
        "mean_latency_s": round(sum(lat) / len(lat), 3) if lat else 0.0,
        "confusion": {g: dict(Counter(p for gg, p in zip(gold, pred) if gg == g)) for g in sorted(set(gold))},
    }


def evaluate(fn: JudgeFn, items: Sequence[Mapping[str, Any]], *, progress: Callable[[int, int], None] | None = None,
             partial: Path | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Judge every item; with ``partial``, append each row to that JSONL as it is done (and
    resume from the rows already there, so a long CPU run can be stopped and restarted)."""
    results, rows = [], []
    done: dict[str, dict[str, Any]] = {}
    if partial is not None and partial.is_file():
        done = {r["id"]: r for r in map(json.loads, partial.read_text().splitlines()) if r}
    for k, item in enumerate(items):
        if item["id"] in done:
            row = done[item["id"]]
            r = JudgeResult(Verdict.model_validate(row["verdict"]), row["status"], row["latency_s"], row["raw"],
                            row.get("has_think", False))
        else:
            r = fn(item)
        results.append(r)
        row = {"id": item["id"], "kind": item["kind"], "gold": item["verdict"]["action"],
               "pred": r.verdict.action, "status": r.status, "latency_s": round(r.latency_s, 3),
               "has_think": r.has_think, "raw": r.raw[:800], "verdict": r.verdict.model_dump()}
        rows.append(row)
        if partial is not None and item["id"] not in done:
            with partial.open("a") as f:
                f.write(json.dumps(row) + "\n")
        if progress:
            progress(k + 1, len(items))
    return metrics(items, results), rows


_COLS = ("judge", "n", "accuracy", "precision", "recall", "f1", "implicit_accuracy", "invalid", "mean_latency_s")


def results_table(results: Iterable[Mapping[str, Any]]) -> str:
    """One markdown table, one row per result JSON."""
    lines = ["| " + " | ".join(_COLS) + " |", "|" + "---|" * len(_COLS)]
    for r in results:
        m = {**r["metrics"], "judge": r["judge"]}
        lines.append("| " + " | ".join("" if m.get(c) is None else str(m.get(c)) for c in _COLS) + " |")
    return "\n".join(lines) + "\n"


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", spec).strip("-")[:80]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m training.judge_eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", required=True,
                    help="rule | rule:sentry | verdict[:<ckpt>] | cascade:<llm>[@band] | hf:<folder>[+<adapter>] | an atma.llm spec")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="judge_data directory or a .jsonl file")
    ap.add_argument("--split", default="heldout", help="split to evaluate")
    ap.add_argument("--limit", type=int, default=0, help="first N items only (0: all)")
    ap.add_argument("--max-tokens", type=int, default=400, help="generation cap (CoT needs ~300)")
    ap.add_argument("--no-schema", action="store_true", help="do not constrain output to JUDGE_SCHEMA")
    ap.add_argument("--out", default="checkpoints/judge/eval", help="output directory")
    ap.add_argument("--name", default="", help="file stem for the results (default: from --judge)")
    ap.add_argument("--fresh", action="store_true",
                    help="judge every item again (default: resume from <out>/<stem>.partial.jsonl, whose rows "
                         "were made by the judge as it was then)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    items = load_items(args.data, args.split)
    if args.limit:
        items = items[: args.limit]
    fn, name = judge_fn(args.judge, items, max_tokens=args.max_tokens, schema=False if args.no_schema else None)
    t0 = time.time()

    def progress(k: int, n: int) -> None:
        if k % 5 == 0 or k == n:
            log.info("%d/%d items, %.0f s", k, n, time.time() - t0)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = args.name or _slug(args.judge)
    partial = out / f"{stem}.partial.jsonl"
    if args.fresh:
        partial.unlink(missing_ok=True)
    elif partial.is_file():
        log.info("resuming from %s (its rows are not judged again; --fresh to start over)", partial)
    m, rows = evaluate(fn, items, progress=progress, partial=partial)
    result = {"judge": name, "spec": args.judge, "split": args.split, "data": args.data,
              "schema": not args.no_schema, "wall_s": round(time.time() - t0, 1), "metrics": m, "items": rows}
    (out / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / f"{stem}.md").write_text(results_table([result]))
    every = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    (out / "results.md").write_text(results_table(every))
    print(results_table([result]))
    return result


if __name__ == "__main__":
    main()
