"""A tiny two-scenario stream end to end with the packaged MiniLM and SmolLM2-135M, both rows."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("xllamacpp", reason="needs atma[llm]")

from eval import stream as stream_mod  # noqa: E402

pytestmark = pytest.mark.integration


def _scenario(sid: str, who: str, old: str, new: str) -> dict:
    events = [
        {"id": "c1", "time": "2024-01-05T10:00:00", "speaker": who, "text": f"I live in {old} these days."},
        {"id": "f1", "time": "2024-02-05T10:00:00", "speaker": "Sam", "text": "The pirate film last night was great."},
        {"id": "c2", "time": "2024-06-05T10:00:00", "speaker": who, "text": f"I moved to {new} last month, I live there now."},
    ]
    probes = [
        {"id": "cur", "question": f"Where does {who} live now?", "view": "current", "gold": [new], "alternates": [old],
         "time": "2024-07-01T10:00:00", "meta": {"unit_id": "u", "target_cue_id": "c2", "other_cue_id": "c1"}},
        {"id": "hist", "question": f"Where did {who} live before moving?", "view": "historical", "gold": [old],
         "alternates": [new], "time": "2024-07-01T10:00:00",
         "meta": {"unit_id": "u", "target_cue_id": "c1", "other_cue_id": "c2"}},
    ]
    return {"id": sid, "events": events, "probes": probes}


def test_tiny_stream_both_rows_real_models(tmp_path):
    src = tmp_path / "tiny.jsonl"
    src.write_text(json.dumps(_scenario("s1", "Dana", "Leeds", "Bristol")) + "\n"
                   + json.dumps(_scenario("s2", "Omar", "Porto", "Lyon")) + "\n")
    out = tmp_path / "run"
    rc = stream_mod.main([str(src), "--out", str(out), "--overlay", "both", "--llm", "smollm2-135m",
                          "--n-ctx", "2048", "--quiet"])
    assert rc == 0
    res = json.loads((out / "results.json").read_text())
    for name in ("host", "host+overlay"):
        row = res["rows"][name]
        assert row["n"] == 4 and row["bank"]["coexist"] == 1.0
        assert row["evidence_support"] is not None and all(p["answer"] is not None for p in row["probes"])
    assert res["rows"]["host"]["bank"]["role"] == 0.0
    man = res["manifest"]
    assert man["models"]["llm"]["sha256"] and man["models"]["embedder"]["sha256"]
    assert (out / "report.png").exists() and "host + overlay" in (out / "report.md").read_text()
