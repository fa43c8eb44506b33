"""Erase leaves nothing behind (issue 12 item 5): no copy of the erased text in any table, trace,
transition summary, FTS index, database file or WAL; the CLI checks it can open everything first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.builtin import BuiltinHost
from atma import ATMAOverlay, OverlayConfig
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM

SECRET = "Dana rents the Zqxvbluebell flat at 12 Quarry Lane in Leeds"
TRANSITION = json.dumps({"same_attribute": True, "old_still_true": False, "action": "transition",
                         "conflict_status": "conflict", "conflict_type": "scope_mismatch", "links": ["evolves_from"],
                         "reason": "moving", "transition_summary": "flat to Bristol", "clarification_needed": False})


def build(path: Path):
    emb = HashEmbedder()
    llm = ScriptedLLM(route={"audit a personal memory": lambda m: TRANSITION, "answer a question": lambda m: "Bristol"})
    ov = ATMAOverlay(BuiltinHost(str(path), embedder=emb), namespace="u", llm=llm, judge_llm=llm,
                     gate=CosineGate(emb, threshold=0.0),
                     config=OverlayConfig())
    ov.add(SECRET, speaker="Dana")
    ov.add("Dana is halfway through moving out of the Quarry Lane flat in Leeds to Bristol", speaker="Dana")
    ov.add("Dana likes tea with milk in the morning", speaker="Dana")
    for q in ("Where does Dana live now?", "Where did Dana live before?", "What flat did Dana rent?"):
        ov.answer(q)
    return ov


def hits(path: Path, needle: str) -> int:
    """Occurrences of the text's UTF-8 bytes in the database file and its WAL."""
    n = 0
    for p in (path, Path(str(path) + "-wal")):
        if p.exists():
            n += p.read_bytes().count(needle.encode("utf-8"))
    return n


def test_erase_leaves_no_copy_in_the_database_or_wal(tmp_path):
    path = tmp_path / "m.db"
    ov = build(path)
    r1 = next(r for r in ov.records() if r.text == SECRET)
    r2 = next(r for r in ov.records() if r.text.startswith("Dana is halfway"))
    assert r2.transition is not None and r2.transition.source == SECRET  # the derivative the issue found
    assert hits(path, SECRET) > 0
    ov.erase([r1.id])
    r2 = ov.bank.get("u", r2.id)
    assert SECRET not in json.dumps(r2.transition.to_json())
    assert hits(path, SECRET) == 0
    # later answers do not bring it back
    ov.answer("Where does Dana live now?")
    assert hits(path, SECRET) == 0
    assert all(SECRET not in json.dumps(t["body"]) for t in ov.bank.traces("u", limit=100))
    assert ov.bank.check_invariants("u") == []


def test_erase_refuses_unknown_ids_before_deleting_anything(tmp_path):
    from atma.bank import BankError

    path = tmp_path / "m.db"
    ov = build(path)
    with pytest.raises(BankError, match="unknown record ids"):
        ov.erase(["r1", "r99"])
    assert ov.bank.get("u", "r1") is not None and hits(path, SECRET) > 0


def test_cli_erase_opens_everything_before_deleting(tmp_path, capsys, monkeypatch):
    import atma.embed
    from atma.cli import main

    path = tmp_path / "m.db"
    build(path).host.close()

    class OtherEmbedder(HashEmbedder):
        name = "other-model"

    monkeypatch.setattr(atma.embed, "SentenceTransformerEmbedder", lambda *a, **k: OtherEmbedder())
    code = main(["--db", str(path), "erase", "--ns", "u", "r1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "built with embedder" in err
    # nothing was deleted: a retry with the right embedder finds the record and erases it everywhere
    monkeypatch.setattr(atma.embed, "SentenceTransformerEmbedder", lambda *a, **k: HashEmbedder())
    assert main(["--db", str(path), "erase", "--ns", "u", "r1"]) == 0
    assert "erased 1 records" in capsys.readouterr().out
    assert hits(path, SECRET) == 0
