"""The eval's answer memo (one answer per prompt per run) and the re-ask tally of
``eval.compare``."""

from __future__ import annotations

import argparse
import json

import pytest

from atma.protocols import LLMError
from atma.testing import ScriptedLLM
from eval import compare
from eval.memo import MemoLLM
from eval.stream import reset_answer_memo

MSG = [{"role": "system", "content": "You answer."}, {"role": "user", "content": "Question: where?"}]


def test_a_repeated_greedy_prompt_is_answered_once_and_survives_a_reopen(tmp_path):
    inner = ScriptedLLM(["Leeds", "York", "Hull"])
    memo = MemoLLM(inner, tmp_path / "llm_memo.db")
    assert memo.complete(MSG, max_tokens=16).text == "Leeds"
    assert memo.complete(MSG, max_tokens=16).text == "Leeds"  # not "York": same prompt, same answer
    assert len(inner.calls) == 1 and (memo.hits, memo.misses) == (1, 1)
    assert memo.complete(MSG, max_tokens=32).text == "York"  # another token limit is another request
    again = MemoLLM(ScriptedLLM([]), tmp_path / "llm_memo.db")  # a resumed run reads the same file
    assert again.complete(MSG, max_tokens=16).text == "Leeds"
    assert again.name == "scripted"  # everything but complete() is the wrapped model's


def test_sampling_and_errors_are_never_remembered(tmp_path):
    inner = ScriptedLLM([LLMError("busy"), "Leeds", "a", "b"])
    memo = MemoLLM(inner, tmp_path / "m.db")
    with pytest.raises(LLMError):
        memo.complete(MSG, max_tokens=8)
    assert memo.complete(MSG, max_tokens=8).text == "Leeds"  # the failed call left nothing behind
    assert memo.complete(MSG, max_tokens=8, temperature=0.7).text == "a"
    assert memo.complete(MSG, max_tokens=8, temperature=0.7).text == "b"


def test_fresh_starts_the_memo_over(tmp_path):
    MemoLLM(ScriptedLLM(["x"]), tmp_path / "llm_memo.db").complete(MSG, max_tokens=8)
    reset_answer_memo(argparse.Namespace(out=str(tmp_path), fresh=False))
    assert (tmp_path / "llm_memo.db").exists()
    reset_answer_memo(argparse.Namespace(out=str(tmp_path), fresh=True))
    assert not (tmp_path / "llm_memo.db").exists()


def _probe(key, verdict, answer, reasked=None):
    p = {"key": key, "task": "t", "question": f"q {key}", "gold": ["g"], "answer": answer, "verdict": verdict,
         "view": "current", "trace": {}}
    if reasked is not None:
        p["trace"]["check"] = {"reasked": reasked, "reason": "", "first_answer": ""}
    return p


def test_reask_tally_pairs_each_reasked_probe_with_the_host_verdict(tmp_path, capsys):
    host = [_probe("a", "drift", "old"), _probe("b", "correct", "new"), _probe("c", "drift", "old"),
            _probe("d", "drift", "old"), _probe("e", "other", "x")]
    over = [_probe("a", "correct", "new", True), _probe("b", "other", "y", True), _probe("c", "other", "z", True),
            _probe("d", "drift", "old", True), _probe("e", "other", "x", False)]
    for name, rows in (("host", host), ("overlay", over)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in rows))
    assert compare.main([str(tmp_path), "--reasks", "--list"]) == 0
    out = capsys.readouterr().out
    assert ("reasked 4, wrong -> right 1, right -> wrong 1, stale -> another wrong 1, stale -> stale 1, "
            "same verdict 0, unknown 0") in out
    assert "[right -> wrong] q b" in out
    assert compare.main([str(tmp_path), "--by-task"]) == 0
    assert "overlay - host per task: t +0.000" in capsys.readouterr().out  # +1 (a), -1 (b), 0, 0, 0


def test_compare_scores_locomo_runs_by_official_f1_per_category(tmp_path, capsys):
    for name, f1 in (("host", 0.5), ("overlay", 1.0)):
        (tmp_path / name).mkdir()
        rows = [{"key": "s/q0", "task": "s", "question": "When?", "category": "temporal", "answer": "x", "f1": f1}]
        (tmp_path / name / "probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in rows))
    assert compare.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "overlay       1.000" in out and "temporal 0.500" in out and "overlay - host: +0.500" in out


def test_compare_per_task_table_pools_samples_and_needs_the_base_row(tmp_path, capsys):
    runs = []
    for sample, (h, o) in (("conv-1", (0.5, 1.0)), ("conv-2", (0.0, 0.0))):
        run = tmp_path / sample
        for name, f1 in (("host", h), ("overlay", o)):
            (run / name).mkdir(parents=True)
            rows = [{"key": f"{sample}/q0", "task": sample, "question": "When?", "category": "temporal", "f1": f1}]
            (run / name / "probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in rows))
        runs.append(str(run))
    assert compare.main([*runs, "--per-task"]) == 0
    out = capsys.readouterr().out
    assert "| conv-1 | 1 | 0.500 | 1.000 | +0.500 |" in out and "| all | 2 | 0.250 | 0.500 | +0.250 |" in out
    assert compare.main([*runs, "--per-task", "--base", "nope"]) == 2
    assert "base row 'nope'" in capsys.readouterr().err
