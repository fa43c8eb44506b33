"""One write = one unit (issue 12 items 2 and 3): with the builtin host on the bank's file, host rows,
FTS, vectors, bank record and write trace commit together; a second writer that changes the state a
write was planned against sends it back to planning instead of raising."""

from __future__ import annotations

import json
import sqlite3

import pytest

from adapters.builtin import BuiltinHost
from atma import ATMAOverlay, OverlayConfig
from atma.records import Status
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM
from eval.writers import count_orphans

SUPERSEDE = json.dumps({"same_attribute": True, "old_still_true": False, "action": "supersede",
                        "conflict_status": "conflict", "conflict_type": "temporal_update", "links": ["supersedes"],
                        "reason": "moved", "clarification_needed": False})


def overlay(path, emb=None):
    emb = emb or HashEmbedder()
    llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUPERSEDE, "answer a question": lambda m: "ok"})
    return ATMAOverlay(BuiltinHost(str(path), embedder=emb), namespace="u", llm=llm, judge_llm=llm,
                       gate=CosineGate(emb, threshold=0.0), config=OverlayConfig())


def orphans(path) -> tuple[int, int, int]:
    """(host rows without a bank record, records without a write trace, records) in the file."""
    out = count_orphans(path)
    return out["orphan_host_rows"], out["records_without_trace"], out["records"]


def test_builtin_host_and_bank_share_one_connection(tmp_path):
    ov = overlay(tmp_path / "m.db")
    assert ov.bank.shared and ov.bank.connection is ov.host.conn
    # a bank opened separately on the same file (as the eval runner does) is switched over too
    emb = HashEmbedder()
    from atma.bank import StateBank

    bank = StateBank(str(tmp_path / "m.db"))
    ov2 = ATMAOverlay(BuiltinHost(str(tmp_path / "m.db"), embedder=emb), namespace="u", bank=bank,
                      gate=CosineGate(emb, threshold=0.0))
    assert ov2.bank is bank and bank.shared and bank.connection is ov2.host.conn


def test_a_failed_commit_leaves_no_host_row(tmp_path, monkeypatch):
    path = tmp_path / "m.db"
    ov = overlay(path)
    ov.add("I rent a flat in Leeds near the canal.", speaker="Dana")

    def broken(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ov.bank, "commit", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        ov.add("I moved to Bristol from Leeds last weekend.", speaker="Dana")
    monkeypatch.undo()
    assert orphans(path) == (0, 0, 1)
    # the rolled-back row is not served from the host's caches either, and its id is not reused wrongly
    assert all("Bristol" not in h.text for h in ov.host.search("Bristol", namespace="u", k=10))
    res = ov.add("I moved to York from Leeds last weekend.", speaker="Dana")
    assert ov.host.search("York", namespace="u", k=1)[0].host_id == res.record.host_id
    assert orphans(path) == (0, 0, 2)


def test_a_second_writer_between_plan_and_commit_is_replanned(tmp_path, monkeypatch):
    """The issue's reproduction: B commits into the slot after A planned and before A commits."""
    path = tmp_path / "m.db"
    a, b = overlay(path), overlay(path)
    a.add("my home is now in Leeds home", speaker="Dana")
    real_judge = a._judge
    fired = []

    def judge_then_b_writes(old, new, score):
        out = real_judge(old, new, score)
        if not fired:  # once: B's write lands between A's plan and A's commit
            fired.append(b.add("my home changed now to York home", speaker="Dana"))
        return out

    monkeypatch.setattr(a, "_judge", judge_then_b_writes)
    res = a.add("my home changed now to Bristol home", speaker="Dana")  # no InvariantError
    recs = {r.text: r for r in a.records()}
    assert [r.text for r in recs.values() if r.status is Status.ACTIVE] == ["my home changed now to Bristol home"]
    york = recs["my home changed now to York home"]
    assert york.status is Status.SUPERSEDED and res.trace.changes == ({"action": "supersede", "old_id": york.id},)
    assert res.trace.timings["plan_attempts"] == 2.0
    assert a.bank.check_invariants("u") == [] and orphans(path) == (0, 0, 3)


def test_final_attempt_commits_against_the_state_it_reads(tmp_path, monkeypatch):
    """A writer that loses every race still commits, with the slot's live members coexisting."""
    path = tmp_path / "m.db"
    a, b = overlay(path), overlay(path)
    a.add("my home is now in Leeds home", speaker="Dana")
    real_judge = a._judge
    n = []

    def judge_then_b_writes(old, new, score):
        out = real_judge(old, new, score)
        n.append(b.add(f"my home changed now to York{len(n)} home", speaker="Dana"))
        return out

    monkeypatch.setattr(a, "_judge", judge_then_b_writes)
    res = a.add("my home changed now to Bristol home", speaker="Dana")
    assert res.trace.timings["plan_attempts"] == 3.0 and len(n) == 3
    assert a.bank.check_invariants("u") == [] and orphans(path) == (0, 0, 5)


def test_external_host_row_is_undone_when_the_bank_commit_fails(monkeypatch):
    from atma.testing import InMemoryHost

    emb = HashEmbedder()
    host = InMemoryHost(embedder=emb)
    llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUPERSEDE})
    ov = ATMAOverlay(host, namespace="u", llm=llm, judge_llm=llm, gate=CosineGate(emb, threshold=0.0))
    ov.add("I rent a flat in Leeds near the canal.", speaker="Dana")

    def broken(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ov.bank, "commit", broken)
    with pytest.raises(RuntimeError):
        ov.add("I moved to Bristol from Leeds last weekend.", speaker="Dana")
    assert [it.text for it in host._items["u"]] == ["I rent a flat in Leeds near the canal."]
    assert ov.bank.stale_intents("u") == [] and ov.bank._db.execute("SELECT COUNT(*) FROM bank_intents").fetchone()[0] == 0


def test_intent_of_a_killed_writer_is_recovered(tmp_path):
    """A writer killed between host.add and the bank commit left an intent; the next overlay erases the row."""
    import subprocess
    import sys

    from atma.testing import InMemoryHost

    emb = HashEmbedder()
    host = InMemoryHost(embedder=emb)
    ov = ATMAOverlay(host, namespace="u", gate=CosineGate(emb, threshold=0.0), bank=None)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host_id = host.add("half written", namespace="u")
    ov.bank._db.execute("INSERT INTO bank_intents(namespace, token, pid, created, host_id) VALUES (?,?,?,?,?)",
                        ("u", "t1", dead.pid, "2026-01-01", host_id))
    again = ATMAOverlay(host, namespace="u", gate=CosineGate(emb, threshold=0.0), bank=ov.bank)
    assert host._items["u"] == [] and again.bank.stale_intents("u") == []
