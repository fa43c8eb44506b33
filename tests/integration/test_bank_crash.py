"""A writer process killed at random points never leaves a half-applied commit.

Integration: it spawns processes and sleeps (a few seconds)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from atma.bank import StateBank
from atma.records import LinkType, Status

WRITER = textwrap.dedent(
    """
    import random, sys
    from atma.bank import StateBank
    from atma.records import Action, Change, Commit, Record
    import numpy as np
    bank = StateBank(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    heads = {}
    for r in bank.records("u"):
        if r.status.value == "active":
            heads[r.meta["slot_key"]] = r.id
    i = 0
    print("ready", flush=True)
    while True:
        key = f"s{rng.randrange(20)}"
        rid, seq = bank.next_id("u")
        changes = ()
        if key in heads:
            changes = (Change(action=Action.SUPERSEDE, old_id=heads[key]),)
        rec = Record(id=rid, seq=seq, namespace="u", text=f"{key} value {i}", meta={"slot_key": key, "n_links": len(changes)})
        bank.commit(Commit(record=rec, changes=changes), features={"k": np.full(64, i, np.float32)})
        heads[key] = rid
        i += 1
    """
)


@pytest.mark.integration
def test_killed_writer_leaves_whole_commits(tmp_path):
    path = str(tmp_path / "crash.db")
    rng = random.Random(7)
    env = {**os.environ, "PYTHONPATH": os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", "")}
    committed_before = 0
    for round_ in range(6):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, path, str(round_)], env=env, stdout=subprocess.PIPE,
                                text=True)
        assert proc.stdout.readline().strip() == "ready"  # imports done: the kill lands among commits, not start-up
        time.sleep(0.3 + rng.random() * 0.8)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        bank = StateBank(path)
        recs = bank.records("u")
        assert bank.check_invariants("u") == []
        assert len(recs) >= committed_before
        for r in recs:
            # every commit is whole: its record, its status change on the old record, both links, its features
            assert len(r.linked(LinkType.SUPERSEDES)) == r.meta["n_links"]
            for old in r.linked(LinkType.SUPERSEDES):
                o = bank.get("u", old)
                assert o.status is Status.SUPERSEDED and r.id in o.linked(LinkType.SUPERSEDED_BY)
            assert r.id in bank.features("u", [r.id], "k", 64)
        active_keys = [r.meta["slot_key"] for r in recs if r.status is Status.ACTIVE]
        assert len(active_keys) == len(set(active_keys))
        committed_before = len(recs)
        bank.close()
    assert committed_before > 20  # the writer really ran between kills
