"""The stream runner end to end with fakes: both rows, results schema, resumability, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.builtin import BuiltinHost
from atma import OverlayConfig
from atma.judging import LLMJudge
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM
from eval import stream as stream_mod
from eval.runner import Components, ProbeLog, task_store

SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})


def first_row(messages):
    """A reader that follows state and dates, whatever the row order. Labelled overlay
    prompt: for "now" the newest row labelled current memory, for "before" the oldest row
    labelled historical memory. Resolved overlay prompt ('[1] (date) who: text [note]'):
    the oldest row noted "no longer true" / the newest noted "true now", else the first row. Host plain prompt: its
    first row."""
    user = messages[-1]["content"]
    past = "past state" in user or "earlier state" in user
    want = "historical memory" if past else "current memory"
    found = re.findall(rf"^\d+\. \[{want} \| (\S+)\] (?:[^:\n]+: )?(.*)$", user, re.M)
    if found:
        return (min(found) if past else max(found))[1]
    note = "no longer true" if past else "true now"
    rows = re.findall(rf"^\[\d+\] \([^)]*\) (?:[^:\n]+: )?(.*) \[{note}[^\]]*\]$", user, re.M)
    if rows:  # rows are oldest first: the oldest past state, the newest present one
        return rows[0] if past else rows[-1]
    m = re.search(r"^(?:1\. \[[^\]]*\]|\[1\] \([^)]*\)) (?:[^:\n]+: )?(.*?)(?: \[[^\]]*\])?$", user, re.M)
    return m.group(1) if m else "I don't know"


class Interrupt(BaseException):
    """Stands in for a kill: not an Exception, so nothing catches it on the way out."""


def make_comps(*, qa=first_row, judge_llm=None, fail_after=None):
    emb = HashEmbedder()
    calls = {"n": 0}

    def answer(messages):
        calls["n"] += 1
        if fail_after is not None and calls["n"] > fail_after:
            raise Interrupt()
        return qa(messages)

    llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUPERSEDE, "answer a question about people": answer,
                             "past conversations": answer})
    comps = Components(llm=llm, embedder=emb, make_host=lambda p, e, a: BuiltinHost(p, embedder=e, answerer=a),
                       gate=CosineGate(emb, threshold=0.3), judge_llm=judge_llm, overlay_config=OverlayConfig(k=3, packet_mode="resolved"),
                       audit_judge=LLMJudge(llm))
    return comps, calls


def scenario(sid: str, n_filler: int = 3) -> dict:
    ev = [{"id": "c1", "time": "2024-01-01T10:00:00", "speaker": "Dana", "text": "I live in Leeds these days."}]
    for i in range(n_filler):
        ev.append({"id": f"f{i}", "time": f"2024-02-0{i + 1}T10:00:00", "speaker": "Sam",
                   "text": f"We watched film number {i} about pirates and robots."})
    ev.append({"id": "c2", "time": "2024-06-01T10:00:00", "speaker": "Dana", "text": "I live in Bristol these days."})
    meta = {"unit_id": "u1", "target_cue_id": "c2", "other_cue_id": "c1"}
    probes = [
        {"id": "cur", "question": "Where does Dana live these days?", "view": "current", "gold": ["Bristol"],
         "alternates": ["Leeds"], "time": "2024-07-01T10:00:00", "meta": meta},
        {"id": "hist", "question": "Where did Dana live before?", "view": "historical", "gold": ["Leeds"],
         "alternates": ["Bristol"], "time": "2024-07-01T10:00:00",
         "meta": {"unit_id": "u1", "target_cue_id": "c1", "other_cue_id": "c2"}},
    ]
    return {"id": sid, "events": ev, "probes": probes}


@pytest.fixture
def stream_file(tmp_path: Path) -> Path:
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(scenario(s)) for s in ("alpha", "beta")) + "\n")
    return p


def run(stream_file, out, *extra, comps=None):
    comps = comps or make_comps()[0]
    return stream_mod.main([str(stream_file), "--out", str(out), "--quiet", *extra], comps=comps)


def test_both_rows_results_schema(stream_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "both") == 0
    res = json.loads((out / "results.json").read_text())
    assert set(res["rows"]) == {"host", "host+overlay"}
    for name, row in res["rows"].items():
        assert row["n"] == 4 and row["done"] == 4
        assert set(row["per_view"]) == {"current", "historical"}
        for key in ("qa_acc", "drift_rate", "other_rate", "evidence_support", "conflict_acc", "fact_acc"):
            assert row[key] is not None
        p = row["probes"][0]
        assert {"question", "answer", "verdict", "packet", "attribution", "diag"} <= set(p)
        assert all("label" in r and "event_id" in r for r in p["packet"])
    host, ov = res["rows"]["host"], res["rows"]["host+overlay"]
    assert host["bank"]["coexist"] == 1.0 and host["bank"]["role"] == 0.0  # a plain host has no state role
    assert ov["bank"]["coexist"] == 1.0 and ov["bank"]["role"] == 1.0  # the Judge superseded Leeds
    assert ov["writes"]["judge_calls"] > 0 and host["writes"]["judge_calls"] == 0
    man = res["manifest"]
    assert man["partial"] is False and set(man["prompts"]) >= {"audit_judge", "qa", "controller", "host_plain_qa"}
    assert man["models"]["embedder"]["name"] == "hash"
    # main, diagnostics, 2 views, the paired difference, view accuracy
    assert (out / "report.md").read_text().count("| host + overlay |") == 6
    comp = res["manifest"]["comparisons"]
    assert [(c["row"], c["vs"], c["n"]) for c in comp] == [("host+overlay", "host", 4)]
    assert ov["view_accuracy"]["acc"] == 1.0 and host["view_accuracy"] is None
    assert (out / "report.png").stat().st_size > 1000
    assert "Bank coexist" in capsys.readouterr().out
    # The overlay labelled its rows; the host's rows are unlabelled.
    assert any(r["label"] == "now" for p in ov["probes"] for r in p["packet"])
    assert all(r["label"] == "" for p in host["probes"] for r in p["packet"])


def test_overlay_answers_current_from_current_memory(stream_file, tmp_path):
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "on") == 0
    res = json.loads((out / "results.json").read_text())
    assert res["n"] == 4  # single row: its summary is also at the top level
    cur = [p for p in res["rows"]["host+overlay"]["probes"] if p["view"] == "current"]
    assert all(p["verdict"] == "correct" for p in cur)


def test_resume_after_max_probes_counts_exact(stream_file, tmp_path):
    out = tmp_path / "run"
    comps, calls = make_comps()
    assert run(stream_file, out, "--overlay", "on", "--max-probes", "3", comps=comps) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["partial"] is True and res["n"] == 3
    assert "PARTIAL RUN" in (out / "report.md").read_text()
    first_calls = calls["n"]
    assert first_calls == 3
    assert run(stream_file, out, "--overlay", "on", comps=comps) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["partial"] is False and res["n"] == 4
    assert calls["n"] == first_calls + 1  # only the missing probe was asked again
    keys = [json.loads(l)["key"] for l in (out / "overlay" / "probes.jsonl").read_text().splitlines()]
    assert sorted(keys) == ["alpha/cur", "alpha/hist", "beta/cur", "beta/hist"]
    # Scenario beta's replay finished in the first run and was reused, not redone.
    db, marker = task_store(out / "overlay", "beta")
    assert marker.exists()


def test_kill_mid_run_then_resume(stream_file, tmp_path):
    out = tmp_path / "run"
    comps, _ = make_comps(fail_after=1)
    with pytest.raises(Interrupt):
        run(stream_file, out, "--overlay", "off", comps=comps)
    log = out / "host" / "probes.jsonl"
    assert len(log.read_text().splitlines()) == 1
    with open(log, "a") as fh:  # a torn write from the kill
        fh.write('{"key": "alpha/hi')
    comps, calls = make_comps()
    assert run(stream_file, out, "--overlay", "off", comps=comps) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["n"] == 4 and calls["n"] == 3
    keys = [json.loads(l)["key"] for l in log.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 4


def test_interrupted_replay_is_redone(stream_file, tmp_path):
    out = tmp_path / "run"
    comps, _ = make_comps()
    assert run(stream_file, out, "--overlay", "on", "--max-probes", "1", comps=comps) == 0
    db, marker = task_store(out / "overlay", "alpha")
    marker.unlink()  # as if the process died before the last event
    stale = db.parent / (db.name + ".amem")  # a host sidecar (A-Mem's Chroma folder) from that replay
    stale.mkdir()
    (stale / "chroma.sqlite3").write_text("x")
    comps, calls = make_comps()
    assert run(stream_file, out, "--overlay", "on", comps=comps) == 0
    assert not stale.exists()  # sidecars go with the db they belong to
    assert json.loads((out / "results.json").read_text())["rows"]["host+overlay"]["bank"]["n_units"] == 2
    assert marker.exists()
    from atma.bank import StateBank

    assert StateBank(str(db)).count("alpha") == 5  # replayed once from scratch, not appended twice


def test_config_mismatch_is_one_line_error_unless_fresh(stream_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "off", "--max-probes", "1") == 0
    capsys.readouterr()
    assert run(stream_file, out, "--overlay", "off", "--k", "3") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "another configuration (k)" in err
    assert run(stream_file, out, "--overlay", "off", "--k", "3", "--fresh") == 0


def test_probe_log_ignores_duplicates_and_torn_tail(tmp_path):
    p = tmp_path / "probes.jsonl"
    p.write_text('{"key": "a/1", "v": 1}\n{"key": "a/1", "v": 2}\n{"key": "a/2"')
    log = ProbeLog(p)
    assert list(log.rows) == ["a/1"] and log.rows["a/1"]["v"] == 1
    log.append({"key": "a/2", "v": 3})
    log.append({"key": "a/2", "v": 4})
    assert [json.loads(l)["key"] for l in p.read_text().splitlines()] == ["a/1", "a/1", "a/2"]


def test_judge_resolves_ambiguous_only(stream_file, tmp_path):
    judge = ScriptedLLM(default=json.dumps({"label": "correct", "option": "gold"}))
    comps, _ = make_comps(qa=lambda m: "Either Leeds or Bristol", judge_llm=judge)
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "off", "--judge-llm", "smollm2-135m", comps=comps) == 0
    row = json.loads((out / "results.json").read_text())
    assert row["judge"]["ambiguous"] == 4 and row["judge"]["resolved_by_judge"] == 4
    assert row["qa_acc"] == 1.0 and len(judge.calls) == 4


@pytest.mark.parametrize("argv, msg", [
    (["missing.jsonl"], "not found"),
    (["BAD", "--host", "zep-cloud"], "unknown host"),
    (["BAD", "--llm", "nosuchmodel"], "bad LLM spec"),
])
def test_cli_errors_one_line_exit_2(tmp_path, capsys, argv, msg):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    argv = [str(bad) if a == "BAD" else str(tmp_path / a) if a.endswith(".jsonl") else a for a in argv]
    out = tmp_path / "out"
    assert stream_mod.main([*argv, "--out", str(out), "--quiet"], comps=make_comps()[0]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and msg in err
    assert not out.exists()


def test_bad_stream_line_one_line_nothing_written(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(scenario("a")) + "\n{not json\n")
    out = tmp_path / "out"
    assert stream_mod.main([str(bad), "--out", str(out), "--quiet"], comps=make_comps()[0]) == 2
    err = capsys.readouterr().err.strip()
    assert ":2: invalid JSON" in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_missing_model_fails_before_anything_is_written(stream_file, tmp_path, capsys):
    out = tmp_path / "out"
    rc = stream_mod.main([str(stream_file), "--out", str(out), "--llm", str(tmp_path / "absent.gguf"), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "absent.gguf" in err and "does not exist" in err
    assert not out.exists()


def test_shared_host_writes_once_and_answers_like_its_own_replay(stream_file, tmp_path):
    comps, _ = make_comps()
    added = {"n": 0}
    base = comps.make_host

    def counting_host(p, e, a):
        h = base(p, e, a)
        add, add_many = h.add, h.add_many
        depth = {"n": 0}  # a host's add may write through its add_many (or back): count the outer call

        def counted(fn, n_items):
            def call(*args, **kw):
                if depth["n"] == 0:
                    added["n"] += n_items(args)
                depth["n"] += 1
                try:
                    return fn(*args, **kw)
                finally:
                    depth["n"] -= 1
            return call

        count_add = counted(add, lambda args: 1)
        count_many = counted(lambda items, **kw: add_many(list(items), **kw), lambda args: len(list(args[0])))
        h.add, h.add_many = count_add, count_many
        return h

    comps.make_host = counting_host
    own, shared = tmp_path / "own", tmp_path / "shared"
    assert run(stream_file, own, "--overlay", "both", comps=comps) == 0
    writes_own, added["n"] = added["n"], 0
    assert run(stream_file, shared, "--overlay", "both", "--shared-host", comps=comps) == 0
    assert writes_own == 2 * 10 and added["n"] == 10  # 2 scenarios x 5 events, once instead of twice
    a = json.loads((own / "results.json").read_text())["rows"]
    b = json.loads((shared / "results.json").read_text())["rows"]
    assert list(b) == ["host", "host+overlay"]
    for key in ("qa_acc", "drift_rate", "evidence_support", "bank"):
        assert a["host"][key] == b["host"][key]
    assert [p["answer"] for p in a["host"]["probes"]] == [p["answer"] for p in b["host"]["probes"]]
    _, marker = task_store(shared / "host", "alpha")
    m = json.loads(marker.read_text())
    assert m["shared_from"].endswith("overlay") and set(m["event_hosts"]) == {"c1", "f0", "f1", "f2", "c2"}
    assert json.loads((shared / "host" / "config.json").read_text())["shared_host"] is True


def test_shared_host_needs_both_rows(stream_file, tmp_path, capsys):
    assert run(stream_file, tmp_path / "r", "--overlay", "on", "--shared-host") == 2
    assert "--shared-host needs --overlay both" in capsys.readouterr().err


def test_host_row_maps_derived_hits_to_their_source_events(stream_file, tmp_path):
    """A host that returns derived rows (Graphiti facts) naming their episodes in
    ``native["episodes"]`` gets the same evidence metrics as one returning the events."""
    from dataclasses import replace as dc_replace

    class FactHost(BuiltinHost):
        def search(self, query, *, namespace, k=10):
            return [dc_replace(h, host_id=f"fact:{h.host_id}", native={"episodes": [h.host_id]})
                    for h in super().search(query, namespace=namespace, k=k)]

    plain, facts = make_comps()[0], make_comps()[0]
    facts.make_host = lambda p, e, a: FactHost(p, embedder=e, answerer=a)
    assert run(stream_file, tmp_path / "plain", "--overlay", "off", comps=plain) == 0
    assert run(stream_file, tmp_path / "facts", "--overlay", "off", comps=facts) == 0
    a = json.loads((tmp_path / "plain" / "results.json").read_text())
    b = json.loads((tmp_path / "facts" / "results.json").read_text())
    assert b["evidence_support"] == a["evidence_support"] > 0
    assert all(r["event_id"] and r["id"].startswith("fact:") for p in b["rows"]["host"]["probes"] for r in p["packet"])


def test_packet_order_is_part_of_the_overlay_row_config(stream_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "on", "--max-probes", "1") == 0
    assert json.loads((out / "overlay" / "config.json").read_text())["packet_order"] == "time"  # the default
    assert run(stream_file, out, "--overlay", "on", "--packet-order", "retrieval") == 2  # not the run it holds
    assert "packet_order" in capsys.readouterr().err
    assert run(stream_file, tmp_path / "t", "--overlay", "on", "--packet-order", "retrieval", "--max-probes", "1") == 0
    assert json.loads((tmp_path / "t" / "overlay" / "config.json").read_text())["packet_order"] == "retrieval"


def test_close_pair_a_is_part_of_the_overlay_row_config(stream_file, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(stream_file, out, "--overlay", "on", "--max-probes", "1") == 0
    assert json.loads((out / "overlay" / "config.json").read_text())["close_pair_a"] == 0.65  # OverlayConfig's default
    assert run(stream_file, out, "--overlay", "on", "--close-pair-a", "-1") == 2  # the Sentry alone: another run
    assert "close_pair_a" in capsys.readouterr().err
    assert run(stream_file, tmp_path / "s", "--overlay", "on", "--close-pair-a", "-1", "--max-probes", "1") == 0
    assert json.loads((tmp_path / "s" / "overlay" / "config.json").read_text())["close_pair_a"] is None


def test_audit_reach_counts_update_cues_and_their_old_state():
    import doctest

    from eval import audit_reach

    assert doctest.testmod(audit_reach).failed == 0
    ev = {"a": "cue-p-u1-1", "b": "cue-p-u1-2", "c": "cue-p-u2-1", "d": "cue-p-u2-2", "x": "f1"}
    writes = [{"record_id": "b", "candidates": [{"id": "a", "escalate": True}], "judge": [{"old_id": "a"}]},
              {"record_id": "d", "candidates": [{"id": "c", "escalate": False}, {"id": "x", "escalate": True}],
               "judge": [{"old_id": "x"}]},
              {"record_id": "x", "candidates": [], "judge": []}]
    r = audit_reach.audit_reach(writes, ev)
    assert (r["updates"], r["old_in_candidates"], r["old_escalated"], r["old_audited"]) == (2, 2, 1, 1)
    assert r["candidate_pairs"] == 3 and abs(r["escalated_share"] - 2 / 3) < 1e-9


def test_attribution_arms_answer_from_the_overlay_replay(stream_file, tmp_path):
    out = tmp_path / "run"
    comps, calls = make_comps()
    assert run(stream_file, out, "--overlay", "both", "--arms", "labelled,control", comps=comps) == 0
    res = json.loads((out / "results.json").read_text())
    assert list(res["rows"]) == ["host", "host+overlay", "host+overlay, paper labels", "length-matched control"]
    ov, lab, ctl = (res["rows"][k] for k in ("host+overlay", "host+overlay, paper labels", "length-matched control"))
    # the arms adopted the overlay row's replay: same bank, no replay of their own
    assert lab["bank"] == ov["bank"] and ctl["bank"] == ov["bank"]
    assert json.loads((out / "control" / "work" / next(p.name for p in (out / "control" / "work").glob("*.replay.json"))
                       ).read_text())["replay_s"] is None
    assert any(r["label"] == "current memory" for p in lab["probes"] for r in p["packet"])
    for p_ov, p_ctl in zip(ov["probes"], ctl["probes"]):
        assert len(p_ctl["packet"]) == len(p_ov["packet"])  # length-matched
        assert all(r["label"] == "plain" for r in p_ctl["packet"])  # no state
    pairs = {(c["row"], c["vs"]) for c in res["manifest"]["comparisons"]}
    assert ("host+overlay", "length-matched control") in pairs and ("length-matched control", "host") in pairs
    assert "95% bootstrap" in (out / "report.md").read_text()


def test_arms_need_the_overlay_row(stream_file, tmp_path, capsys):
    assert run(stream_file, tmp_path / "r", "--overlay", "off", "--arms", "control") == 2
    assert "need the overlay row" in capsys.readouterr().err
    assert run(stream_file, tmp_path / "r2", "--arms", "psychic") == 2
    assert "unknown arm" in capsys.readouterr().err


def test_oracle_arm_states_come_from_the_gold_cues(stream_file, tmp_path):
    out = tmp_path / "run"
    never = json.dumps({"reason": "x", "conflict_status": "no_conflict", "conflict_type": "none", "action": "none",
                        "links": [], "clarification_needed": False})
    comps, _ = make_comps()
    comps.llm._route["audit a personal memory"] = lambda m: never  # the overlay's own bank learns nothing
    assert run(stream_file, out, "--overlay", "on", "--arms", "oracle", comps=comps) == 0
    res = json.loads((out / "results.json").read_text())
    ov, orc = res["rows"]["host+overlay"], res["rows"]["oracle state"]
    assert ov["bank"]["role"] == 0.0 and orc["bank"]["role"] == 1.0
    assert orc["qa_acc"] == 1.0


def test_host_row_loads_no_gate(stream_file, tmp_path, monkeypatch):
    from dataclasses import replace

    from atma import factory

    def no_gate(*a, **k):
        raise AssertionError("the host-alone row built a pair gate")

    monkeypatch.setattr(factory, "default_gate", no_gate)
    comps, calls = make_comps()
    comps = replace(comps, gate=None)  # as load_components leaves it when no row has the overlay
    assert run(stream_file, tmp_path / "r", "--overlay", "off", comps=comps) == 0
    assert calls["n"] == 4
