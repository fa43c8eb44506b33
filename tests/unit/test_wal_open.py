"""Opening a store while another process holds a write lock waits for it (CI failure of
test_writers_processes: ``PRAGMA journal_mode=WAL`` raised "database is locked" because the
busy timeout was set only after the journal-mode switch)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from adapters.builtin import BuiltinHost
from atma.bank import StateBank, connect_wal
from atma.testing import HashEmbedder


def _hold_lock(path: str, seconds: float) -> threading.Thread:
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    ready = threading.Event()

    def release() -> None:
        ready.set()
        time.sleep(seconds)
        other.execute("COMMIT")
        other.close()

    t = threading.Thread(target=release)
    t.start()
    ready.wait()
    return t


@pytest.mark.parametrize("opener", ["connect_wal", "bank", "builtin"])
def test_opening_waits_for_a_writer_instead_of_failing(tmp_path, opener):
    path = str(tmp_path / "s.db")
    sqlite3.connect(path).execute("CREATE TABLE x (a)")  # a file in rollback-journal mode
    t = _hold_lock(path, 0.4)
    t0 = time.monotonic()
    if opener == "connect_wal":
        conn = connect_wal(path)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
    elif opener == "bank":
        StateBank(path)
    else:
        BuiltinHost(path, embedder=HashEmbedder(16)).close()
    assert time.monotonic() - t0 >= 0.3  # it waited for the lock
    t.join()


def test_connect_wal_gives_up_after_its_timeout(tmp_path):
    path = str(tmp_path / "s.db")
    sqlite3.connect(path).execute("CREATE TABLE x (a)")
    t = _hold_lock(path, 1.0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        connect_wal(path, busy_ms=100)
    t.join()
