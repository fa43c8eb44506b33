"""Sentry training data: size, coverage, determinism, labels, split, LTP separation."""

from __future__ import annotations

import hashlib
import re
import json
from collections import Counter
from pathlib import Path

import pytest

from eval import sentry_ltp
from training import sentry_data as sd
from training import sentry_slot_tables as T

REPO = Path(__file__).resolve().parents[2]
LTP_DIR = REPO / "data" / "ltp"
LOCOMO_SPEAKERS = {"Andrew", "Audrey", "Calvin", "Caroline", "Dave", "Deborah", "Evan", "Gina",
                   "James", "Joanna", "John", "Jolene", "Jon", "Maria", "Melanie", "Nate", "Sam", "Tim"}


@pytest.fixture(scope="module")
def data() -> sd.SentryData:
    return sd.generate(13)


def test_sizes_and_coverage(data):
    facts = [f for p in data.profiles for f in p["facts"]]
    assert len(data.profiles) >= 50
    assert len(facts) >= 500
    assert 2300 <= len(data.interactions) <= 2500
    kinds = Counter(i["kind"] for i in data.interactions)
    assert set(kinds) == set(sd.CONFLICT_TYPES) | set(sd.CONSISTENT_KINDS)
    assert min(kinds.values()) >= 80
    families = {i["family"] for i in data.interactions}
    assert families == {"job", "location", "relationship", "pets", "hobbies", "preferences",
                        "numerical"}
    neg_kinds = Counter(i["negative_kind"] for i in data.interactions)
    assert neg_kinds["same_entity_other_slot"] >= 200 and neg_kinds["other_slot"] >= 200


def test_slot_inventory_is_fine_grained(data):
    """Many narrow slots (as the LTP state units have), each with its own wording and values,
    and every slot reached by interactions of several kinds."""
    assert len(sd.SLOTS) >= 45
    keys = set(sd.SLOT_BY_KEY)
    # neighbouring topics are separate slots, not one broad "food" or "friend" slot
    assert {"dessert", "snack", "ice_cream", "breakfast", "comfort_food", "takeout", "morning_drink",
            "disliked_food", "podcast", "tv_genre", "music_like", "book_genre", "job", "side_job",
            "pets", "pet_foster", "pet_sitting", "carpool", "gym_buddy", "hiking_buddy",
            "language_partner", "mentor", "tennis_partner", "instrument", "language", "dance",
            "workout", "weekend_sport", "wind_down"} <= keys
    for slot in sd.SLOTS:
        assert len(set(slot.values)) >= 8, slot.key
        assert slot.label and slot.past is not None, slot.key
        assert len(slot.scope) >= 2 and slot.refine and slot.detail, slot.key
    by_slot = {}
    for it in data.interactions:
        by_slot.setdefault(it["slot"], set()).add(it["kind"])
    assert set(by_slot) == keys
    assert all(len(kinds) >= 4 for kinds in by_slot.values()), by_slot
    facts = Counter(f["slot"] for p in data.profiles for f in p["facts"])
    assert set(facts) == keys and min(facts.values()) >= 10


def test_every_update_type_reaches_several_slot_families(data):
    for kind in sd.CONFLICT_TYPES:
        fams = {i["family"] for i in data.interactions if i["kind"] == kind}
        assert len(fams) >= 3, (kind, fams)


def _named(value) -> str:
    return str(value[1] if isinstance(value, list) else value)


def test_conflicts_cover_real_update_phrasing_families(data):
    """Updates that name both values, implicit changes with no contradiction words, numeric
    restatements, negations and scoped exceptions are all present, and consistent
    interactions that mention the current value are too."""
    styles = Counter((i["kind"], i["style"]) for i in data.interactions)
    for kind, fams in T.STYLES_CONFLICT.items():
        for fam in fams:
            assert styles[(kind, fam)] >= 25, (kind, fam, styles)
    facts = data.facts_by_id()
    change_words = ("now", "anymore", "no longer", "used to", "since", "correction", "changed",
                    "not ", "instead", "switched")
    for it in data.interactions:
        v = _named(facts[it["fact_id"]]["value"])
        text = it["text"]
        if it["style"] == "both_values":
            assert v.lower() in text.lower(), text  # the old value is named beside the new one
        if it["style"] == "implicit" and v:
            assert not re.search(rf"\b{re.escape(v.lower())}\b", text.lower()), text
            assert not any(w in text.lower() for w in change_words), text
        if it["kind"] in ("restatement", "added_detail", "refinement") and (
                it["slot"] not in ("relationship", "pets")):
            assert v.lower() in text.lower(), text
    assert sum(1 for i in data.interactions if i["style"] == "restated_number") >= 40


def test_negative_is_same_profile_other_slot(data):
    facts = data.facts_by_id()
    for it in data.interactions:
        neg = facts[it["negative_fact_id"]]
        assert neg["id"].split("-")[0] == it["profile_id"]
        assert neg["slot"] != it["slot"]
        assert facts[it["fact_id"]]["slot"] == it["slot"]


def test_same_entity_negatives_mention_the_other_slot(data):
    facts = data.facts_by_id()
    for it in data.interactions:
        if it["negative_kind"] != "same_entity_other_slot":
            continue
        value = facts[it["negative_fact_id"]]["value"]
        named = value[1] if isinstance(value, list) else value
        assert str(named) in it["text"], (it["text"], value)


def test_deterministic_from_seed():
    a, b, c = sd.generate(13), sd.generate(13), sd.generate(14)
    assert sd.dataset_sha256(a) == sd.dataset_sha256(b)
    assert sd.dataset_sha256(a) != sd.dataset_sha256(c)


def test_written_manifest_matches_file(tmp_path, data):
    manifest = sd.write_dataset(data, tmp_path)
    raw = (tmp_path / "sentry_data.json").read_bytes()
    assert manifest["sha256"] == hashlib.sha256(raw).hexdigest() == sd.dataset_sha256(data)
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert manifest["counts"]["profile_facts"] == 80 * 14
    assert sd.dataset_sha256(sd.load_dataset(tmp_path)) == manifest["sha256"]


def test_label_map_eq5():
    assert sd.pair_targets("same_slot_conflict") == (1.0, 0.0)
    assert sd.pair_targets("same_slot_consistent") == (1.0, 1.0)
    assert sd.pair_targets("other_slot") == (0.0, 0.0)
    with pytest.raises(KeyError):
        sd.pair_targets("unrelated")


def test_pairs_follow_interactions(data):
    ids = [i["id"] for i in data.interactions[:50]]
    pairs = sd.build_pairs(data, ids)
    assert len(pairs) == 100  # same-slot pair + one sampled negative each
    by_id = {i["id"]: i for i in data.interactions}
    for p in pairs:
        it = by_id[p.interaction_id]
        if p.relation == "other_slot":
            assert p.targets == (0.0, 0.0) and not p.needs_audit
        else:
            assert p.targets == ((1.0, 0.0) if it["conflict"] else (1.0, 1.0))
            assert p.needs_audit == it["conflict"]
    full = sd.build_pairs(data, ids, negatives="profile")
    assert len(full) == 50 * 14  # every fact of the profile is a candidate


def test_split_is_disjoint_and_stratified(data):
    split = sd.split_interactions(data, seed=13)
    sets = {k: set(v) for k, v in split.items()}
    assert not (sets["train"] & sets["val"] or sets["train"] & sets["test"] or sets["val"] & sets["test"])
    assert set().union(*sets.values()) == {i["id"] for i in data.interactions}
    kind = {i["id"]: i["kind"] for i in data.interactions}
    for part, ids in split.items():
        assert {kind[i] for i in ids} >= set(sd.CONFLICT_TYPES), part
    assert 0.12 < len(split["test"]) / len(data.interactions) < 0.18
    assert split == sd.split_interactions(data, seed=13)


def test_no_locomo_speaker_names(data):
    words = {w.strip(".,:;!?'") for t in data.texts() for w in t.split()}
    words |= {p["name"] for p in data.profiles}
    assert not (words & LOCOMO_SPEAKERS)


def test_ltp_reader_and_overlap_check_on_fixture(tmp_path, data):
    scenario = {"id": "p0", "events": [
        {"id": "e1", "time": "t", "speaker": "A", "text": "I adore hiking with my sister every Sunday."},
        {"id": "e2", "time": "t", "speaker": "A", "text": data.interactions[0]["text"]}],
        "probes": [{"id": "q1", "question": "What does A do on Sundays these days?", "view": "current",
                    "gold": ["x"], "alternates": []}]}
    (tmp_path / "scenarios.jsonl").write_text(json.dumps(scenario) + "\n")
    (tmp_path / "units.jsonl").write_text(json.dumps(
        {"unit_id": "u1", "profile_id": "p0", "slot": "hobby", "cue1_event_id": "e1",
         "cue2_event_id": "e2"}) + "\n")
    units = sentry_ltp.load_ltp_units(tmp_path)
    assert units == [{"unit_id": "u1", "profile_id": "p0", "slot": "hobby", "update_type": None,
                      "cue1": "I adore hiking with my sister every Sunday.",
                      "cue2": data.interactions[0]["text"]}]
    strings = sentry_ltp.ltp_surface_strings(tmp_path)
    assert "What does A do on Sundays these days?" in strings
    hits = sentry_ltp.ltp_overlap(data.texts(), strings)
    # the planted text is found (shorter texts of ours it contains may be found with it)
    assert data.interactions[0]["text"] in [h[1] for h in hits]
    assert all(h[0] == data.interactions[0]["text"] for h in hits)


def test_no_ltp_cue_or_question_in_training_data(data):
    if not any(LTP_DIR.glob("*.jsonl")):
        pytest.skip(f"no LTP reconstruction built yet: {LTP_DIR} holds no *.jsonl "
                    "(build it with the LTP builder, then this test checks overlap)")
    strings = sentry_ltp.ltp_surface_strings(LTP_DIR)
    assert strings, "LTP files present but no cue text or probe question could be read"
    assert sentry_ltp.ltp_overlap(data.texts(), strings) == []


def test_slot_tables_are_data_only():
    # wording is format strings (one per relationship status), never code in the rows
    for row in T.SLOTS:
        for wording in (row.first, row.third, row.neg, row.short, row.suggest, row.past):
            assert isinstance(wording, str) or (
                isinstance(wording, dict) and all(isinstance(x, str) for x in wording.values())), row.key
    assert all(isinstance(m, str) for m in T.MENTIONS.values())
