"""LTP reconstruction: shipped files, determinism, and one test per structural validator."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from eval import ltp, ltp_build, ltp_release, ltp_validate
from eval import ltp_slot_tables as S
from eval.locomo_data import default_locomo_path

DATA = ltp_release.DEFAULT_OUT
LOCOMO = default_locomo_path()
needs_locomo = pytest.mark.skipif(not LOCOMO.is_file(), reason=f"LoCoMo file not found at {LOCOMO}")


@pytest.fixture(scope="module")
def shipped():
    return ltp_release.load(DATA)


def _copy(x):
    return json.loads(json.dumps(x))  # much faster than copy.deepcopy for plain JSON


@pytest.fixture
def data(shipped):
    return _copy(shipped[0]), _copy(shipped[1])


def _tags(errs: list[str]) -> set[str]:
    return {e.split("]", 1)[0].lstrip("[") for e in errs}


# --------------------------------------------------------------------------- shipped release

def test_shipped_files_validate(shipped):
    scenarios, units = shipped
    assert ltp_validate.validate(scenarios, units) == []
    assert ltp_release.check_manifest(DATA) == []


def test_shipped_counts_and_skew(shipped):
    scenarios, units = shipped
    st = ltp_release.stats(scenarios, units)
    assert (st["profiles"], st["units"], st["cue_events"], st["probes"]) == (10, 400, 800, 800)
    assert st["probes_by_view"] == {"current": 400, "historical": 400}
    assert st["units_by_update_type"] == {"explicit_negation": 50, "scope_mismatch": 200,
                                          "temporal_update": 20, "value_discrepancy": 130}
    assert set(st["units_by_category"]) == set(S.CATEGORIES)
    man = json.loads((DATA / "manifest.json").read_text())
    assert man["source"]["sha256"] == ltp_build.LOCOMO_SHA256
    assert man["license"] == "CC BY-NC 4.0" and "Maharana" in man["attribution"]
    assert man["name"] == "LTP reconstruction"
    assert man["counts"] == st


def test_units_file_matches_stream(shipped):
    scenarios, units = shipped
    assert ltp_build.units_from_scenarios(scenarios) == units


def test_shipped_stream_loads_with_stream_format():
    from eval import stream_format

    scs = stream_format.load_stream(DATA / ltp_release.SCENARIOS_FILE)
    assert len(scs) == 10 and sum(len(s.probes) for s in scs) == 800


def test_gold_and_alternates_grade_as_intended(shipped):
    from eval import grading

    for sc in shipped[0]:
        for p in sc["probes"]:
            for a in p["gold"]:
                assert grading.grade(a, p["gold"], p["alternates"], p["question"]).verdict == "correct", (p["id"], a)
            for a in p["alternates"]:
                assert grading.grade(a, p["gold"], p["alternates"], p["question"]).verdict == "drift", (p["id"], a)


def test_cues_are_first_person_turns_of_their_speaker(shipped):
    scenarios, units = shipped
    ev = {e["id"]: e for sc in scenarios for e in sc["events"]}
    texts = [t for u in units for t in u["cue_texts"]]
    assert len(set(texts)) >= 0.97 * len(texts)  # profiles rarely share a sentence
    for u in units:
        for cid, text in zip(u["cue_ids"], u["cue_texts"]):
            assert ev[cid]["speaker"] == u["speaker"] and ev[cid]["text"] == text
            assert "{" not in text and "}" not in text
            assert re.search(r"\b(I|my|me|we|our)\b", text, flags=re.I), text  # first person


def test_hf_dataset_card_loads():
    datasets = pytest.importorskip("datasets", reason="`datasets` not installed (pip install datasets)")
    ds = datasets.load_dataset(str(DATA), "scenarios", split="test")
    assert len(ds) == 10 and len(ds[0]["probes"]) == 80
    units = datasets.load_dataset(str(DATA), "units", split="test")
    assert len(units) == 400


# --------------------------------------------------------------------------- build

@needs_locomo
def test_build_is_deterministic_and_matches_shipped(tmp_path):
    s1, u1 = ltp_build.build_all(0, LOCOMO)  # same seed -> same bytes as the shipped build (another process)
    man = json.loads((DATA / "manifest.json").read_text())
    assert hashlib.sha256(ltp_release.jsonl_bytes(s1)).hexdigest() == man["files"][ltp_release.SCENARIOS_FILE]["sha256"]
    assert hashlib.sha256(ltp_release.jsonl_bytes(u1)).hexdigest() == man["files"][ltp_release.UNITS_FILE]["sha256"]
    assert ltp_build.units_from_scenarios(s1) == u1


@needs_locomo
def test_cli_build_and_validate(tmp_path, capsys):
    out = tmp_path / "ltp"
    assert ltp.main(["build", "--seed", "0", "--locomo", str(LOCOMO), "--out", str(out)]) == 0
    for f in ("ltp.jsonl", "units.jsonl", "manifest.json", "README.md"):
        assert (out / f).read_bytes() == (DATA / f).read_bytes(), f
    assert ltp.main(["validate", str(out)]) == 0
    (out / "units.jsonl").write_text("")
    assert ltp.main(["validate", str(out)]) == 1


def test_cli_missing_locomo(tmp_path, capsys):
    assert ltp.main(["build", "--locomo", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not found" in err[0]
    assert not (tmp_path / "o").exists()


def test_env_overrides_locomo_path(monkeypatch, tmp_path):
    monkeypatch.setenv("ATMA_LOCOMO", str(tmp_path / "x.json"))
    assert default_locomo_path() == tmp_path / "x.json"


@needs_locomo
def test_failed_build_writes_nothing(tmp_path, monkeypatch, capsys, data):
    monkeypatch.setattr(ltp, "build_all", lambda seed, path: data)
    monkeypatch.setitem(ltp_validate.VALIDATORS, "always", lambda s, u: ["broken on purpose"])
    out = tmp_path / "ltp"
    assert ltp.main(["build", "--locomo", str(LOCOMO), "--out", str(out)]) == 1
    assert "[always] broken on purpose" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- one test per validator

def test_all_validators_are_covered():
    tested = {"schema", "profiles", "ids", "coverage", "probes_per_unit", "gold", "timing", "labels",
              "leakage", "totals"}
    assert set(ltp_validate.VALIDATORS) == tested


def test_validator_schema(data):
    s, u = data
    del s[0]["events"][5]["text"]
    s[1]["probes"][0]["view"] = "sideways"
    assert "schema" in _tags(ltp_validate.validate(s, u))


def test_validator_profiles(data):
    s, u = data
    s[3]["meta"]["source_conversation"] = s[2]["meta"]["source_conversation"]
    errs = ltp_validate.VALIDATORS["profiles"](s, u)
    assert any("bound to 2 profiles" in e for e in errs)
    s2, u2 = _copy(data)
    s2.pop()
    assert "profiles" in _tags(ltp_validate.validate(s2, u2))


def test_validator_ids(data):
    s, u = data
    s[0]["probes"][1]["id"] = s[0]["probes"][0]["id"]
    assert any("occurs 2 times" in e for e in ltp_validate.VALIDATORS["ids"](s, u))


def test_validator_coverage(data):
    s, u = data
    u[0]["update_type"] = "temporal_update" if u[0]["category"] != "job" else "scope_mismatch"
    assert "coverage" in _tags(ltp_validate.validate(s, u))
    s2, u2 = _copy(data)
    for x in u2:
        if x["profile_id"] == "profile001" and x["category"] == "pets":
            x["category"], x["slot"] = "relationship", "relationship.mentor2"
    assert any("categories missing" in e for e in ltp_validate.VALIDATORS["coverage"](s2, u2))


def test_validator_probes_per_unit(data):
    s, u = data
    s[0]["probes"].pop(7)
    assert "probes_per_unit" in _tags(ltp_validate.validate(s, u))


def test_validator_gold(data):
    s, u = data
    p = s[0]["probes"][0]
    p["gold"], p["alternates"] = p["alternates"], p["gold"]
    assert "gold" in _tags(ltp_validate.validate(s, u))
    s2, u2 = _copy(data)
    s2[0]["probes"][2]["alternates"] = s2[0]["probes"][2]["alternates"] + [s2[0]["probes"][2]["gold"][0].upper()]
    assert any("overlap" in e for e in ltp_validate.VALIDATORS["gold"](s2, u2))


def _cue_index(sc, cid):
    return next(i for i, e in enumerate(sc["events"]) if e["id"] == cid)


def test_validator_timing_swapped_cues(data):
    s, u = data
    unit = u[0]
    sc = s[0]
    i1, i2 = _cue_index(sc, unit["cue_ids"][0]), _cue_index(sc, unit["cue_ids"][1])
    ev = sc["events"]
    ev[i1]["id"], ev[i2]["id"] = ev[i2]["id"], ev[i1]["id"]  # cue2 now sits before cue1
    ev[i1]["text"], ev[i2]["text"] = ev[i2]["text"], ev[i1]["text"]
    errs = ltp_validate.VALIDATORS["timing"](s, u)
    assert any("is not before cue2" in e for e in errs)
    assert any("outside" in e for e in errs)


def test_validator_timing_time_order(data):
    s, u = data
    sc = s[0]
    i = _cue_index(sc, u[0]["cue_ids"][0])
    sc["events"][i]["time"] = sc["events"][i - 1]["time"]  # not strictly between neighbours
    assert any("strictly between" in e for e in ltp_validate.VALIDATORS["timing"](s, u))
    s[1]["probes"][0]["time"] = s[1]["events"][0]["time"]
    assert any("not after the last event" in e for e in ltp_validate.validate(s, u))


def test_validator_labels(data):
    s, u = data
    s[0]["probes"][0]["meta"]["target_state"] = "current"
    assert "labels" in _tags(ltp_validate.validate(s, u))
    s2, u2 = _copy(data)
    s2[0]["probes"][1]["meta"]["target_cue_id"] = s2[0]["probes"][1]["meta"]["other_cue_id"]
    assert "labels" in _tags(ltp_validate.validate(s2, u2))


def test_validator_leakage(data):
    s, u = data
    p = s[0]["probes"][0]
    p["question"] = p["question"].rstrip("?") + f" ({p['gold'][0].upper()})?"
    assert "leakage" in _tags(ltp_validate.validate(s, u))
    s2, u2 = _copy(data)
    q = s2[0]["probes"][1]
    q["question"] = q["question"] + " Not " + q["alternates"][0] + "."
    assert any("alternate" in e for e in ltp_validate.VALIDATORS["leakage"](s2, u2))


def test_validator_totals(data):
    s, u = data
    u.pop()
    assert "totals" in _tags(ltp_validate.validate(s, u))


def test_validators_report_not_crash_on_garbage(data):
    s, u = data
    s[0]["probes"][0]["meta"] = None
    errs = ltp_validate.validate(s, u)
    assert errs and all(e.startswith("[") for e in errs)


def test_validator_bug_propagates(data, monkeypatch):
    # a validator returns problems; an exception inside one is a bug and must not become a message
    def broken(event):
        raise RuntimeError("bug in a validator")

    monkeypatch.setattr(ltp_validate, "is_cue", broken)
    with pytest.raises(RuntimeError, match="bug in a validator"):
        ltp_validate.validate(*data)


def test_malformed_unit_rows_are_schema_problems(data):
    s, u = data
    del u[0]["slot"]
    u[1]["old_aliases"] = None
    errs = ltp_validate.validate(s, u)
    assert _tags(errs) == {"schema"}
    assert any(u[0]["unit_id"] in e and "slot" in e for e in errs)


# --------------------------------------------------------------------------- helpers

def test_alias_clash_rules():
    assert ltp_build.aliases_clash(["7"], ["7.5"])  # a word-boundary matcher sees 7 in 7.5
    assert ltp_build.aliases_clash(["volleyball"], ["beach volleyball"])
    assert ltp_build.aliases_clash(["500"], ["8,500"])
    assert not ltp_build.aliases_clash(["5 hours"], ["15 hours"])
    assert not ltp_build.aliases_clash(["Bristol"], ["Denver"])


def test_subset_units_and_cues_only():
    from eval.ltp_eval import DEFAULT_FILE, subset
    from eval.stream_format import load_stream

    s = load_stream(str(DEFAULT_FILE))[0]
    assert subset(s, units=None, cues_only=False) is s
    cut = subset(s, units=3, cues_only=True)
    units = {p.meta["unit_id"] for p in cut.probes}
    assert len(units) == 3 and len(cut.probes) == 6
    assert len(cut.events) == 6 and all(e.id.startswith("cue-") for e in cut.events)
    assert {e.id.rsplit("-", 1)[0][4:] for e in cut.events} == units
    with_filler = subset(s, units=3, cues_only=False)
    assert len(with_filler.events) == len(s.events) - (len([e for e in s.events if e.id.startswith("cue-")]) - 6)
    # probes point at cues that are still in the stream
    kept = {e.id for e in cut.events}
    assert all(p.meta["target_cue_id"] in kept and p.meta["other_cue_id"] in kept for p in cut.probes)


def test_units_flag_must_be_positive(tmp_path, capsys):
    from eval.ltp_eval import main

    assert main(["--out", str(tmp_path / "r"), "--units", "0", "--quiet"]) == 2
    assert "--units must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
