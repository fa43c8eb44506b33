"""adapters.kit: the hosts' shared write unit, add contract, dates and lexical ranking."""

from __future__ import annotations

import doctest
import sqlite3
from datetime import datetime, timezone

import pytest

import adapters.kit as kit


def test_doctests() -> None:
    res = doctest.testmod(kit)
    assert res.attempted >= 5 and res.failed == 0


def test_transaction_commits_rolls_back_and_nests_as_savepoint() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t(x)")
    with kit.transaction(conn):
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), kit.transaction(conn):
        conn.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError
    conn.execute("BEGIN")  # an outer unit (the overlay's) is open: the inner one is a savepoint
    with pytest.raises(RuntimeError), kit.transaction(conn):
        conn.execute("INSERT INTO t VALUES (3)")
        raise RuntimeError
    with kit.transaction(conn):
        conn.execute("INSERT INTO t VALUES (4)")
    assert conn.in_transaction
    conn.execute("COMMIT")
    assert [r[0] for r in conn.execute("SELECT x FROM t ORDER BY x")] == [1, 4]


def test_add_contract_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        kit.check_namespace("")
    with pytest.raises(ValueError, match="unknown keys"):
        kit.normalise_item({"text": "x", "when": "2023"})
    with pytest.raises(TypeError):
        kit.normalise_item({"text": 3})
    assert kit.normalise_item({"text": "x", "time": "2023-05-08"})[1] == datetime(2023, 5, 8)


def test_dates() -> None:
    assert kit.date_label(None) == "undated"
    assert kit.date_label(datetime(2023, 5, 8, 14, 30)) == "2023-05-08 14:30"
    naive, aware = datetime(2023, 5, 8), datetime(2023, 5, 8, tzinfo=timezone.utc)
    assert kit.sort_time(naive) == kit.sort_time(aware) > kit.sort_time(None)


def test_bm25_rank_prefers_rare_words_and_shorter_docs() -> None:
    docs = ["dog dog cat", "cat", "bird", "cat fish fish fish fish"]
    assert kit.bm25_rank("the cat", docs) == [1, 0, 3]
    assert kit.bm25_rank("dog", docs) == [0]
    assert kit.bm25_rank("the a", docs) == [] and kit.bm25_rank("cat", []) == []
