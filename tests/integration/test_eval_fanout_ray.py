"""``--workers N`` on a local Ray cluster with the shipped fakes: the same answers and report as a
serial run, a worker killed mid-scenario has its scenario redone, and runs resume across modes."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

import ray  # the [ray] extra, part of atma[all]

from adapters.builtin import BuiltinHost
from atma import OverlayConfig
from atma.judging import LLMJudge
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM
from eval import stream as stream_mod
from eval.runner import Components

SUPERSEDE = json.dumps({"reason": "moved", "conflict_status": "conflict", "conflict_type": "temporal_update",
                        "action": "supersede", "links": ["supersedes"], "clarification_needed": False})

# The fakes below travel to the Ray workers by value (this module is not importable there).
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def newest_row(messages):
    """Resolved prompt: the row noted 'true now' / 'no longer true'; host prompt: the last row."""
    user = messages[-1]["content"]
    note = "no longer true" if "before" in user.lower() else "true now"
    rows = re.findall(rf"^\[\d+\] \([^)]*\) (?:[^:\n]+: )?(.*) \[{note}[^\]]*\]$", user, re.M)
    if rows:
        return rows[0] if note == "no longer true" else rows[-1]
    plain = re.findall(r"^\[\d+\] \([^)]*\) (?:[^:\n]+: )?(.*)$", user, re.M)
    return plain[-1] if plain else "I don't know"


def make_comps(kill_once_in: Path | None = None, pids_in: Path | None = None) -> Components:
    """Fakes; with ``kill_once_in``, the first answer of scenario beta kills its worker process
    (a marker file tells the retry apart); with ``pids_in``, each answering process leaves its pid."""
    emb = HashEmbedder()

    def answer(messages):
        if pids_in is not None:
            (pids_in / str(os.getpid())).touch()
        if kill_once_in is not None and "beta-city" in messages[-1]["content"]:
            marker = kill_once_in / "killed"
            if not marker.exists():
                marker.write_text(str(os.getpid()))
                os._exit(1)
        return newest_row(messages)

    llm = ScriptedLLM(route={"audit a personal memory": lambda m: SUPERSEDE, "answer a question about people": answer,
                             "past conversations": answer})
    return Components(llm=llm, embedder=emb, make_host=lambda p, e, a: BuiltinHost(p, embedder=e, answerer=a),
                      gate=CosineGate(emb, threshold=0.3), overlay_config=OverlayConfig(k=3), audit_judge=LLMJudge(llm))


def scenario(sid: str) -> dict:
    city = f"{sid}-city"
    ev = [{"id": "c1", "time": "2024-01-01T10:00:00", "speaker": "Dana", "text": "I live in Leeds these days."}]
    ev += [{"id": f"f{i}", "time": f"2024-02-0{i + 1}T10:00:00", "speaker": "Sam",
            "text": f"We watched film number {i} about pirates in {city}."} for i in range(3)]
    ev.append({"id": "c2", "time": "2024-06-01T10:00:00", "speaker": "Dana", "text": f"I live in Bristol near {city} now."})
    meta = {"unit_id": "u1", "target_cue_id": "c2", "other_cue_id": "c1"}
    return {"id": sid, "events": ev, "probes": [
        {"id": "cur", "question": "Where does Dana live these days?", "view": "current", "gold": ["Bristol"],
         "alternates": ["Leeds"], "time": "2024-07-01T10:00:00", "meta": meta},
        {"id": "mid", "question": "Where does Dana live?", "view": "current", "gold": ["Leeds"],
         "alternates": ["Bristol"], "time": "2024-03-01T10:00:00",
         "meta": {"unit_id": "u1", "target_cue_id": "c1", "other_cue_id": "c2"}},
        {"id": "hist", "question": "Where did Dana live before?", "view": "historical", "gold": ["Leeds"],
         "alternates": ["Bristol"], "time": "2024-07-01T10:00:00",
         "meta": {"unit_id": "u1", "target_cue_id": "c1", "other_cue_id": "c2"}}]}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(Path(stream_mod.__file__).resolve().parent.parent)}})
    yield
    ray.shutdown()


@pytest.fixture
def stream_file(tmp_path: Path) -> Path:
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(json.dumps(scenario(s)) for s in ("alpha", "beta", "gamma")) + "\n")
    return p


def run(stream_file, out, *extra, comps=None) -> int:
    return stream_mod.main([str(stream_file), "--out", str(out), "--quiet", "--overlay", "both", *extra],
                           comps=comps or make_comps())


def answers(out: Path) -> dict:
    """Per row, per probe key: what was answered and how it was graded (timings aside)."""
    res = json.loads((out / "results.json").read_text())
    keep = ("answer", "verdict", "packet", "diag", "attribution", "matched")
    return {name: {f"{p['scenario']}/{p['probe']}": {k: p[k] for k in keep} for p in row["probes"]}
            for name, row in res["rows"].items()}


def untimed(obj):
    """``obj`` without wall-clock fields (``*_s``, ``*_s_per_event``, latencies)."""
    if isinstance(obj, dict):
        return {k: untimed(v) for k, v in obj.items() if not re.search(r"_s(_|$)|latency|timings", k)}
    if isinstance(obj, list):
        return [untimed(v) for v in obj]
    return obj


def metrics(out: Path) -> dict:
    res = json.loads((out / "results.json").read_text())
    return {name: untimed({k: v for k, v in row.items() if k != "probes"}) for name, row in res["rows"].items()}


def report_text(out: Path) -> str:
    return re.sub(r"\d+(\.\d+)? ?(ms|s)\b", "T", (out / "report.md").read_text())


def test_workers_give_the_serial_results_and_report(cluster, stream_file, tmp_path):
    assert run(stream_file, tmp_path / "serial") == 0
    pids = tmp_path / "pids"
    pids.mkdir()
    assert run(stream_file, tmp_path / "ray", "--workers", "2", comps=make_comps(pids_in=pids)) == 0
    answered_in = {int(p.name) for p in pids.iterdir()}
    assert os.getpid() not in answered_in and len(answered_in) >= 2  # two Ray worker processes answered
    assert answers(tmp_path / "ray") == answers(tmp_path / "serial")
    assert metrics(tmp_path / "ray") == metrics(tmp_path / "serial")
    assert report_text(tmp_path / "ray") == report_text(tmp_path / "serial")
    assert sum(len(r) for r in answers(tmp_path / "ray").values()) == 18
    assert not list((tmp_path / "ray").glob("*/parts/*.jsonl"))  # merged into probes.jsonl


def test_a_killed_worker_has_its_scenario_redone(cluster, stream_file, tmp_path):
    assert run(stream_file, tmp_path / "serial") == 0
    assert run(stream_file, tmp_path / "ray", "--workers", "2", comps=make_comps(kill_once_in=tmp_path)) == 0
    assert (tmp_path / "killed").exists()  # a worker did die
    assert answers(tmp_path / "ray") == answers(tmp_path / "serial")
    keys = [json.loads(line)["key"] for line in (tmp_path / "ray" / "overlay" / "probes.jsonl").read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 9


def test_resume_across_serial_and_parallel_runs(cluster, stream_file, tmp_path):
    assert run(stream_file, tmp_path / "serial") == 0
    out = tmp_path / "mixed"
    assert run(stream_file, out, "--max-probes", "4") == 0  # serial, interrupted by budget
    # A driver that died after a worker logged an answer leaves it in a part file.
    done = {json.loads(line)["key"]: line for line in (tmp_path / "serial" / "host" / "probes.jsonl").read_text().splitlines()}
    part = out / "host" / "parts" / "left.jsonl"
    part.parent.mkdir()
    part.write_text(done["gamma/hist"] + "\n")
    assert run(stream_file, out, "--workers", "2") == 0
    assert answers(out) == answers(tmp_path / "serial")
    assert not part.exists()
