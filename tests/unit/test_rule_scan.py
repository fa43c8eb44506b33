"""eval.rule_scan: comparing two scans of the rule's verdicts, and its argument errors."""

from __future__ import annotations

import json
from pathlib import Path

from eval.rule_scan import compare, main


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _row(new: int, action: str) -> dict:
    return {"sample": "conv-1", "old": 0, "new": new, "a": 0.5, "action": action, "reason": "r",
            "old_text": "I live in Leeds.", "new_text": f"turn {new}"}


def test_compare_lists_pairs_whose_verdict_changed(tmp_path: Path, capsys) -> None:
    old = _write(tmp_path / "old.jsonl", [_row(1, "coexist"), _row(2, "supersede")])
    new = _write(tmp_path / "new.jsonl", [_row(1, "coexist"), _row(3, "scoped_exception")])
    diff = compare(old, new)
    assert [(a, b, r["new"]) for a, b, r in diff] == [("supersede", "none", 2), ("none", "scoped_exception", 3)]
    assert main(["--compare", str(old), str(new)]) == 0
    assert "2 pairs changed" in capsys.readouterr().out


def test_bad_arguments_exit_non_zero_with_one_line(tmp_path: Path, capsys) -> None:
    assert main(["--compare", str(tmp_path / "nope.jsonl"), str(tmp_path / "nope2.jsonl")]) == 2
    assert main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("error:") for line in err)
