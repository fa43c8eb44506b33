"""LoCoMo through the replay runner: each conversation replayed turn by turn with its
session dates (image turns carry their BLIP caption), QA asked after the replay, scored
with the official token F1 (eval.locomo_scoring), BLEU-1 by the A-Mem convention, and an
optional LLM judge (LoCoMo rubric: semantic match with the gold answer).

    python -m eval.locomo --out DIR [--samples conv-26,conv-30 | --samples 0,1]
        [--categories single-hop,temporal] [--limit-qa N] [--overlay on|off|both] [--llm SPEC] ...
    atma eval locomo --out DIR ...

Adversarial (category 5) questions get the official two-option framing in the question
text both rows pass to their answerer: "... Select the correct answer: (a) … (b) …",
one option "Not mentioned in the conversation", the other the adversarial answer, in a
seeded random order. Output dir as in eval.stream; per row the F1 / BLEU-1 per category
(by name) and overall, judge accuracy when judged, and evidence recall of the packets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from .runner import Ask, Components, EvalError, Event, Response, Task, prepare_row_dir, rows_for, run_row
from .stream import (add_common_args, arm_names, check_common_args, comparisons, finish, guard, load_components,
                     manifest, planned_rows, reset_answer_memo, row_config)

__all__ = ["JUDGE_PROMPT_VERSION", "adversarial_question", "judge_messages", "main", "make_parser", "parse_categories",
           "prompt_fingerprint", "sample_tasks"]

JUDGE_PROMPT_VERSION = "locomo-judge/v1"
NOT_MENTIONED = "Not mentioned in the conversation"

_JUDGE_SYSTEM = """You grade one answer of a memory assistant on the LoCoMo benchmark.
Label the response "correct" when it gives the same answer as the gold answer (allow different wording, partial dates that match, and relative dates that resolve to the gold date), otherwise "incorrect". Abstaining ("I don't know", "not mentioned") is incorrect unless the gold answer says the information is not mentioned.
Reply with only a JSON object: {"label": "correct" | "incorrect"}"""
_JUDGE_SCHEMA = {"type": "object", "properties": {"label": {"type": "string", "enum": ["correct", "incorrect"]}},
                 "required": ["label"], "additionalProperties": False}


def adversarial_question(question: str, adversarial_answer: str, *, seed: int, key: str) -> str:
    """The official category-5 framing; the option order is seeded per question.

    >>> q = adversarial_question("What did Sam paint?", "a cat", seed=0, key="conv-26/q1")
    >>> "Select the correct answer: (a)" in q and "Not mentioned in the conversation" in q and "a cat" in q
    True
    """
    rng = random.Random(f"{seed}:{key}")
    a, b = (NOT_MENTIONED, adversarial_answer) if rng.random() < 0.5 else (adversarial_answer, NOT_MENTIONED)
    return f"{question} Select the correct answer: (a) {a} (b) {b}."


def parse_categories(text: str | None) -> list[int] | None:
    """Names or numbers, comma-separated -> category numbers; None -> all.

    >>> parse_categories("temporal,5")
    [2, 5]
    """
    from .locomo_scoring import CATEGORY_NAMES

    if text is None:
        return None
    by_name = {v: k for k, v in CATEGORY_NAMES.items()}
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part.isdigit() and int(part) in CATEGORY_NAMES:
            out.append(int(part))
        elif part in by_name:
            out.append(by_name[part])
        else:
            raise EvalError(f"unknown LoCoMo category {part!r} (use {', '.join(CATEGORY_NAMES.values())})")
    return out


def _pick_samples(samples: Sequence[Any], text: str | None) -> list[Any]:
    if text is None:
        return list(samples)
    ids = [s.sample_id for s in samples]
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part in ids:
            out.append(samples[ids.index(part)])
        elif part.isdigit() and int(part) < len(samples):
            out.append(samples[int(part)])
        else:
            raise EvalError(f"unknown LoCoMo sample {part!r} (ids {ids[0]}…{ids[-1]} or indices 0-{len(samples) - 1})")
    return out


def sample_tasks(samples: Sequence[Any], *, categories: list[int] | None, limit_qa: int | None, seed: int) -> list[Task]:
    tasks = []
    for s in samples:
        qa = [q for q in s.qa if categories is None or q.category in categories]
        if limit_qa is not None:
            qa = qa[:limit_qa]
        asks = []
        for q in qa:
            key = f"{s.sample_id}/q{q.index}"
            text = adversarial_question(q.question, q.answer, seed=seed, key=key) if q.category == 5 else q.question
            asks.append(Ask(id=f"q{q.index}", question=text, data=q))
        events = tuple(Event(id=t.dia_id, time=t.time, speaker=t.speaker, text=t.text) for t in s.turns)
        tasks.append(Task(id=s.sample_id, events=events, asks=tuple(asks), data=s))
    return tasks


def make_evaluator(comps: Components) -> Callable[[Task, Ask, Response], dict[str, Any]]:
    from .locomo_scoring import CATEGORY_NAMES, score_item

    def evaluate(task: Task, ask: Ask, resp: Response) -> dict[str, Any]:
        q = ask.data
        s = score_item(resp.answer, q.answer, q.category)
        evidence = {e.strip() for ev in q.evidence for e in str(ev).replace(";", ",").split(",") if e.strip()}
        turn_ids = {e.id for e in task.events}
        evidence &= turn_ids
        got = set(resp.packet) & evidence
        row = {"sample": task.id, "qa_index": q.index, "category": CATEGORY_NAMES[q.category], "question": ask.question,
               "gold": q.answer, "answer": resp.answer, "f1": s.f1, "bleu1": s.bleu1,
               "evidence": sorted(evidence), "evidence_recall": len(got) / len(evidence) if evidence else None,
               "packet": [{"id": r["id"], "event_id": r["event_id"], "label": r["label"], "text": r["text"][:300]}
                          for r in resp.packet_rows], "timings": resp.timings, "trace": resp.trace}
        if comps.judge_llm is not None:
            row.update(_judge(comps.judge_llm, q, ask.question, resp.answer))
        return row

    return evaluate


def judge_messages(question: str, gold: str, answer: str) -> list[dict[str, str]]:
    """The LLM judge's prompt for one answer (version :data:`JUDGE_PROMPT_VERSION`)."""
    user = f"Question: {question}\nGold answer: {gold}\nResponse (between the markers):\n<<<RESPONSE\n{answer}\nRESPONSE>>>\nGrade the response."
    return [{"role": "system", "content": _JUDGE_SYSTEM}, {"role": "user", "content": user}]


def prompt_fingerprint() -> str:
    """All text of the LLM judge's prompt: version, system text and user-message template. Run
    manifests hash it (``locomo_judge_prompt``)."""
    return "\n".join([JUDGE_PROMPT_VERSION, *(m["content"] for m in judge_messages("{question}", "{gold}", "{answer}"))])


def _judge(llm: Any, q: Any, question: str, answer: str) -> dict[str, Any]:
    from atma.protocols import LLMError

    gold = NOT_MENTIONED if q.category == 5 else q.answer
    try:
        c = llm.complete(judge_messages(question, gold, answer), max_tokens=24, temperature=0.0, json_schema=_JUDGE_SCHEMA, timeout=None)
        label = json.loads(c.text.strip()).get("label")
        if label not in ("correct", "incorrect"):
            raise ValueError(label)
        return {"judge_label": label, "judge_error": ""}
    except (LLMError, ValueError, AttributeError) as e:
        return {"judge_label": None, "judge_error": str(e)[:200]}


def row_results(tasks: Sequence[Task], plog: Any, max_probes: int | None) -> dict[str, Any]:
    from .locomo_scoring import CATEGORY_NAMES, ItemScore, aggregate

    keys = [f"{t.id}/{a.id}" for t in tasks for a in t.asks]
    if max_probes is not None:
        keys = keys[:max_probes]
    done = [plog.rows[k] for k in keys if k in plog.rows]
    by_name = {v: k for k, v in CATEGORY_NAMES.items()}
    scores = aggregate(ItemScore(category=by_name[r["category"]], f1=r["f1"], bleu1=r["bleu1"]) for r in done)
    judge_acc = None
    if any(r.get("judge_label") for r in done):
        judge_acc = {}
        for name in [*CATEGORY_NAMES.values(), "overall"]:
            sel = [r for r in done if name == "overall" or r["category"] == name]
            if sel:
                judge_acc[name] = sum(r.get("judge_label") == "correct" for r in sel) / len(sel)
    rec = [r["evidence_recall"] for r in done if r.get("evidence_recall") is not None and r["category"] != "adversarial"]
    return {"n": len(done), "selected": len(keys), "done": len(done), "scores": scores, "judge_acc": judge_acc,
            "evidence_recall": sum(rec) / len(rec) if rec else None, "probes": done}


def make_parser(prog: str = "python -m eval.locomo") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="LoCoMo: host alone and/or host + overlay; official F1.")
    ap.add_argument("--locomo", default=None, help="locomo10.json (default: $ATMA_LOCOMO or ../shared/data/locomo/)")
    ap.add_argument("--samples", default=None, help="sample ids (conv-26,conv-30) or indices (0,1); default: all")
    ap.add_argument("--categories", default=None, help="names or numbers, e.g. single-hop,temporal (default: all)")
    ap.add_argument("--limit-qa", type=int, default=None, help="first N questions per sample (after --categories)")
    add_common_args(ap)
    return ap


def main(argv: Sequence[str] | None = None, *, comps: Components | None = None, prog: str | None = None) -> int:
    args = make_parser(prog or "python -m eval.locomo").parse_args(argv)
    return guard(lambda: _main(args, comps))


def _main(args: argparse.Namespace, comps: Components | None) -> int:
    from . import report
    from .locomo_data import default_locomo_path, load_locomo

    check_common_args(args)
    if args.limit_qa is not None and args.limit_qa < 0:
        raise EvalError("--limit-qa must be >= 0")
    cats = parse_categories(args.categories)
    path = Path(args.locomo) if args.locomo else default_locomo_path()
    samples = _pick_samples(load_locomo(path), args.samples)
    tasks = sample_tasks(samples, categories=cats, limit_qa=args.limit_qa, seed=args.seed)
    source = {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
              "samples": [s.sample_id for s in samples], "categories": cats, "limit_qa": args.limit_qa}
    from .fanout import fanout_from_args

    out = Path(args.out)
    plan = planned_rows(args, out)
    reset_answer_memo(args)
    fanout = fanout_from_args(args, comps, make_evaluator)
    comps = comps or load_components(args, [r for r, _ in plan])
    evaluate = make_evaluator(comps)
    results: dict[str, Any] = {}
    for row, share in plan:
        row_dir = out / row.dirname
        prepare_row_dir(row_dir, row_config(args, row, "locomo", source), fresh=args.fresh)
        plog = run_row(tasks, row, comps, row_dir, evaluate=evaluate, max_events=args.max_events,
                       max_probes=args.max_probes, progress=not args.quiet, share_from=share, fanout=fanout)
        results[row.name] = row_results(tasks, plog, args.max_probes)
    results = {r.name: results[r.name] for r in rows_for(args.overlay, arm_names(args))}  # table order: host first
    total = sum(len(t.asks) for t in tasks)
    partial = bool(args.max_events is not None or (args.max_probes is not None and args.max_probes < total)
                   or any(r["done"] < r["selected"] for r in results.values()))
    man = manifest(args, comps, partial=partial, extra={"locomo_judge_prompt": hashlib.sha256(
        prompt_fingerprint().encode()).hexdigest(),
        "comparisons": comparisons(results, seed=args.seed, score="f1")})
    finish(out, "locomo", source, results, man, report.render_locomo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
