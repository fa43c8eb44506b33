"""Crash and concurrency checks of the write path (issue 12 items 2 and 3), on the shipped fakes.

    python -m eval.writers kill --rounds 220 --db /tmp/kill.db
    python -m eval.writers concurrent --procs 4 --adds 1000 --db /tmp/conc.db

``kill``: a writer process adds events through ``ATMAOverlay`` (builtin host with the hash embedder,
scripted Judge) and is SIGKILLed at a random moment, round after round on one file; after each kill the
file is checked: host rows without a bank record, records without their write trace, invariant
violations. ``concurrent``: N processes add to one namespace of one file at once (every write in one
slot, the Judge always supersedes); counted: errors that reached a caller, lost writes, orphans and
invariant violations. No model is loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from atma.bank import connect_wal, unpack_trace

__all__ = ["count_orphans", "main", "run_concurrent", "run_kills", "run_open_race"]

_WRITER = r"""
import json, random, sys
from adapters.builtin import BuiltinHost
from atma import ATMAOverlay, OverlayConfig
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM
path, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
SUP = json.dumps({"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
                  "conflict_type": "temporal_update", "links": ["supersedes"], "reason": "moved", "clarification_needed": False})
NONE = json.dumps({"same_attribute": False, "old_still_true": True, "action": "none", "conflict_status": "no_conflict",
                   "conflict_type": "none", "links": [], "reason": "other", "clarification_needed": False})
always = len(sys.argv) > 4 and sys.argv[4] == "always"
llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUP if always or rng.random() < 0.7 else NONE})
emb = HashEmbedder()
ov = ATMAOverlay(BuiltinHost(path, embedder=emb), namespace="u", llm=llm, gate=CosineGate(emb, threshold=0.0),
                 config=OverlayConfig())
print("ready", flush=True)
errors = 0
i = 0
cities = ["Leeds", "York", "Bristol", "Bath", "Derby", "Hull", "Leicester", "Kent"]
while n <= 0 or i < n:
    try:
        ov.add(f"my home changed now to {rng.choice(cities)} home, writer {seed} event {i}", speaker="Dana")
    except Exception as e:
        errors += 1
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    i += 1
print(json.dumps({"adds": i, "errors": errors}), flush=True)
"""


def count_orphans(path: str | os.PathLike[str]) -> dict[str, int]:
    """Host rows without a bank record, records without their write trace, records, host rows."""
    db = sqlite3.connect(str(path))
    try:
        has_host = db.execute("SELECT 1 FROM sqlite_master WHERE name='host_items'").fetchone()
        if not has_host:
            return {"orphan_host_rows": 0, "records_without_trace": 0, "records": 0, "host_rows": 0}
        host = db.execute("SELECT COUNT(*) FROM host_items h WHERE NOT EXISTS "
                          "(SELECT 1 FROM bank_records b WHERE b.host_id = 'h' || h.seq)").fetchone()[0]
        traced = set()  # (namespace, record id) of each write trace (bodies are compressed: read here)
        for ns, body in db.execute("SELECT namespace, body FROM bank_traces WHERE kind = 'write'"):
            traced.add((ns, unpack_trace(body).get("record_id")))
        untraced = sum(1 for key in db.execute("SELECT namespace, id FROM bank_records") if tuple(key) not in traced)
        n = db.execute("SELECT COUNT(*) FROM bank_records").fetchone()[0]
        rows = db.execute("SELECT COUNT(*) FROM host_items").fetchone()[0]
    finally:
        db.close()
    return {"orphan_host_rows": host, "records_without_trace": untraced, "records": n, "host_rows": rows}


def _invariants(path: str) -> list[str]:
    from atma.bank import StateBank

    bank = StateBank(path)
    try:
        return bank.check_invariants("u") if bank.has_namespace("u") else []
    finally:
        bank.close()


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


def run_kills(path: str, rounds: int, *, seed: int = 1, max_wait_s: float = 0.5) -> dict:
    rng = random.Random(seed)
    worst = {"orphan_host_rows": 0, "records_without_trace": 0, "invariant_violations": 0}
    for r in range(rounds):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, path, str(seed * 100_000 + r), "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(), text=True)
        assert proc.stdout is not None
        proc.stdout.readline()  # "ready": imports done, now it writes
        time.sleep(rng.random() * max_wait_s)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = count_orphans(path)
        worst["orphan_host_rows"] += got["orphan_host_rows"]
        worst["records_without_trace"] += got["records_without_trace"]
        worst["invariant_violations"] += len(_invariants(path))
    out = count_orphans(path)
    return {"kills": rounds, "records": out["records"], "host_rows": out["host_rows"],
            "orphan_host_rows_seen": worst["orphan_host_rows"], "records_without_trace_seen": worst["records_without_trace"],
            "invariant_violations_seen": worst["invariant_violations"]}


def run_concurrent(path: str, procs: int, adds: int, *, seed: int = 1) -> dict:
    ps = [subprocess.Popen([sys.executable, "-c", _WRITER, path, str(seed * 1000 + i), str(adds), "always"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), text=True) for i in range(procs)]
    errors, done, rcs = 0, 0, []
    for p in ps:
        out, err = p.communicate()
        rcs.append(p.returncode)
        last = [line for line in out.splitlines() if line.startswith("{")]
        if last:
            got = json.loads(last[-1])
            errors += got["errors"]
            done += got["adds"] - got["errors"]
        if err.strip():
            print(err.strip()[-2000:], file=sys.stderr)
    counts = count_orphans(path)
    return {"procs": procs, "adds_each": adds, "errors": errors, "exit_codes": rcs,
            "lost_writes": done - counts["records"], "records": counts["records"],
            "orphan_host_rows": counts["orphan_host_rows"], "records_without_trace": counts["records_without_trace"],
            "invariant_violations": len(_invariants(path)), "active_records": _active(path)}


def _active(path: str) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM bank_records WHERE status='active'").fetchone()[0]
    finally:
        db.close()


def _open_once(path: str, start: float, way: str) -> None:
    """One process opening ``path`` at ``start``: the shipped way (connect_wal) or the old one
    (busy timeout only after the WAL switch, no retry)."""
    while time.time() < start:
        pass
    if way == "old":
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA busy_timeout=30000")
    else:
        conn = connect_wal(path)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE IF NOT EXISTS t (a)")
    conn.execute("COMMIT")
    conn.close()


def run_open_race(folder: str, procs: int, files: int, way: str = "new") -> dict[str, Any]:
    """``procs`` processes open each of ``files`` new files at the same instant; count failures."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    failed = 0
    for i in range(files):
        path, start = str(Path(folder) / f"race-{i}.db"), time.time() + 0.2
        for suffix in ("", "-wal", "-shm"):
            Path(path + suffix).unlink(missing_ok=True)
        ps = [ctx.Process(target=_open_once, args=(path, start, way)) for _ in range(procs)]
        for p in ps:
            p.start()
        for p in ps:
            p.join(60)
        failed += sum(p.exitcode != 0 for p in ps)
    return {"way": way, "openings": procs * files, "failed": failed, "errors": failed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.writers", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kill", help="SIGKILL a writer at random points, round after round")
    k.add_argument("--rounds", type=int, default=220)
    k.add_argument("--db", required=True, help="a new file (it is replaced)")
    k.add_argument("--seed", type=int, default=1)
    c = sub.add_parser("concurrent", help="N writer processes on one file at once")
    c.add_argument("--procs", type=int, default=2)
    c.add_argument("--adds", type=int, default=1000)
    c.add_argument("--db", required=True, help="a new file (it is replaced)")
    c.add_argument("--seed", type=int, default=1)
    o = sub.add_parser("open-race", help="N processes opening one new file at the same instant, file after file")
    o.add_argument("--procs", type=int, default=4)
    o.add_argument("--files", type=int, default=40)
    o.add_argument("--way", choices=("new", "old"), default="new",
                   help="new: atma.bank.connect_wal; old: busy timeout after the WAL switch, no retry")
    o.add_argument("--dir", required=True, help="a folder for the files")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.cmd == "open-race":
        Path(args.dir).mkdir(parents=True, exist_ok=True)
        out = run_open_race(args.dir, args.procs, args.files, args.way)
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(args.db + suffix).unlink(missing_ok=True)
        out = run_kills(args.db, args.rounds, seed=args.seed) if args.cmd == "kill" else \
            run_concurrent(args.db, args.procs, args.adds, seed=args.seed)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=1))
    bad = out.get("orphan_host_rows_seen", 0) + out.get("records_without_trace_seen", 0) + \
        out.get("invariant_violations_seen", 0) + out.get("errors", 0) + out.get("lost_writes", 0) + \
        out.get("orphan_host_rows", 0) + out.get("records_without_trace", 0) + out.get("invariant_violations", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
