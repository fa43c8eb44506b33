"""CLI bad-input paths: one line on stderr, exit 2, nothing written. No models are loaded."""

from __future__ import annotations

import pytest

from atma.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ask_without_bank_is_one_line_and_creates_nothing(tmp_path, capsys):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), "ask", "--ns", "u", "Where?")
    assert code == 2 and err.count("\n") == 1 and "no bank" in err
    assert not db.exists()


def test_malformed_time_writes_nothing(tmp_path, capsys):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), "add", "--ns", "u", "--time", "2024-13-45", "hello")
    assert code == 2 and "malformed time" in err and err.count("\n") == 1
    assert not db.exists()


def test_bad_llm_spec_writes_nothing(tmp_path, capsys):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), "add", "--ns", "u", "--llm", "nonsense-model", "hello")
    assert code == 2 and "bad LLM spec" in err
    assert not db.exists()


def test_missing_model_file_writes_nothing(tmp_path, capsys):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), "add", "--ns", "u", "--llm", f"llamacpp:{tmp_path}/none.gguf", "hello")
    assert code == 2 and err.startswith("atma: error:") and err.count("\n") == 1
    assert not db.exists()


def test_unreadable_and_foreign_files(tmp_path, capsys):
    code, _, err = run(capsys, "--db", str(tmp_path), "namespaces")
    assert code == 2 and "directory" in err
    junk = tmp_path / "junk.db"
    junk.write_text("not a database at all")
    code, _, err = run(capsys, "--db", str(junk), "trace", "--ns", "u")
    assert code == 2 and "not an atma bank" in err
    assert junk.read_text() == "not a database at all"


def test_unknown_namespace(tmp_path, capsys):
    from atma.bank import StateBank

    db = tmp_path / "mem.db"
    StateBank(db).ensure_namespace("alice")
    code, _, err = run(capsys, "--db", str(db), "trace", "--ns", "bob")
    assert code == 2 and "unknown namespace 'bob'" in err and "alice" in err
    code, _, err = run(capsys, "--db", str(db), "records", "--ns", "bob")
    assert code == 2


def test_missing_folder(tmp_path, capsys):
    code, _, err = run(capsys, "--db", str(tmp_path / "nope" / "mem.db"), "add", "--ns", "u", "hi")
    assert code == 2 and "does not exist" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["ask"])
    assert e.value.code == 2


# ---------------------------------------------------------------- issue 12, item 7: validate before creating


@pytest.mark.parametrize("argv,why", [
    (["add", "--ns", "", "hello there"], "--ns must be a non-empty namespace"),
    (["add", "--ns", "u", "bad \udc80 text"], "event text is not valid text"),
    (["add", "--ns", "u\ud800", "hello there"], "--ns is not valid text"),
    (["add", "--ns", "u", "--speaker", "D\udc00", "hello there"], "--speaker is not valid text"),
])
def test_add_validates_every_argument_before_creating_the_bank(tmp_path, capsys, argv, why):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), *argv)
    assert code == 2 and err.count("\n") == 1 and why in err
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_trace_last_must_be_positive(tmp_path, capsys):
    from atma.bank import StateBank

    db = tmp_path / "mem.db"
    bank = StateBank(db)
    bank.ensure_namespace("u")
    bank.save_trace("u", "query", {"query": "q"}, [])
    bank.close()
    code, out, err = run(capsys, "--db", str(db), "trace", "--ns", "u", "--last", "-5")
    assert code == 2 and err.count("\n") == 1 and "--last must be at least 1" in err and out == ""


def test_erase_with_empty_namespace_opens_nothing(tmp_path, capsys):
    db = tmp_path / "mem.db"
    code, _, err = run(capsys, "--db", str(db), "erase", "--ns", "", "r1")
    assert code == 2 and "non-empty namespace" in err and not db.exists()


def test_eval_stream_directory_is_named_a_directory(tmp_path, capsys):
    code, _, err = run(capsys, "eval", "stream", str(tmp_path), "--out", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1
    assert "is a directory" in err and "not found" not in err
