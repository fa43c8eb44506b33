"""Audit items for the Judge: gold verdicts valid, CoT targets well-formed, deterministic,
implicit violations in both splits, no LTP text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atma.judge import CHANGE_WORDS, NEGATION_WORDS, parse_verdict
from eval import sentry_ltp
from training import judge_data as jd

REPO = Path(__file__).resolve().parents[2]
LTP_DIR = REPO / "data" / "ltp"


@pytest.fixture(scope="module")
def data():
    return jd.generate(17)


def test_sizes_and_disjoint_profiles(data):
    assert len(data["train"]) == 700 and len(data["heldout"]) == 151
    assert not {i["profile_id"] for i in data["train"]} & {i["profile_id"] for i in data["heldout"]}
    texts = [i["new_text"] for s in data.values() for i in s]
    assert len(texts) == len(set(texts))


def test_every_target_has_four_steps_then_a_valid_verdict(data):
    for item in data["train"] + data["heldout"]:
        think, rest = jd.split_think(item["target"])
        assert think is not None
        assert all(label in think for label in jd.STEP_LABELS)
        parsed = parse_verdict(rest)
        assert parsed.status == "ok", (item["id"], parsed.error)
        assert parsed.verdict.model_dump() == item["verdict"]
        assert item["needs_change"] == (item["verdict"]["action"] in ("supersede", "transition"))


def test_all_actions_and_implicit_in_both_splits(data):
    for split in ("train", "heldout"):
        actions = {i["verdict"]["action"] for i in data[split]}
        assert actions == {"supersede", "transition", "coexist", "scoped_exception", "none"}
        implicit = [i for i in data[split] if i["implicit"]]
        assert len(implicit) >= 0.1 * len(data[split])
        for i in implicit:  # no cue the rule fallback reads, and a real state change
            assert not CHANGE_WORDS.search(i["new_text"]) and not NEGATION_WORDS.search(i["new_text"])
            assert i["verdict"]["action"] == "supersede" and i["verdict"]["old_state"]


def test_transitions_carry_summary_and_old_state(data):
    for i in data["train"]:
        if i["verdict"]["action"] == "transition":
            assert i["verdict"]["transition_summary"] and i["verdict"]["old_state"]


def test_deterministic_and_manifest(tmp_path, data):
    m1 = jd.write_items(data, tmp_path / "a", seed=17)
    m2 = jd.write_items(jd.generate(17), tmp_path / "b", seed=17)
    assert m1 == m2
    assert (tmp_path / "a" / "train.jsonl").read_bytes() == (tmp_path / "b" / "train.jsonl").read_bytes()
    assert m1["splits"]["heldout"]["items"] == 151
    assert sum(m1["splits"]["train"]["by_action"].values()) == 700
    assert jd.load_items(tmp_path / "a", "heldout") == json.loads(json.dumps(data["heldout"]))
    assert jd.generate(18)["train"] != data["train"]


def test_item_messages_are_the_overlay_prompt(data):
    msgs = jd.item_messages(data["heldout"][0])
    assert msgs[0]["role"] == "system" and "audit a personal memory bank" in msgs[0]["content"]
    assert data["heldout"][0]["new_text"] in msgs[1]["content"]


def test_no_ltp_cue_or_question_in_judge_data(data):
    if not any(LTP_DIR.glob("*.jsonl")):
        pytest.skip(f"no LTP reconstruction at {LTP_DIR}")
    strings = sentry_ltp.ltp_surface_strings(LTP_DIR)
    assert strings
    texts = [t for s in data.values() for i in s for t in (i["old_text"], i["new_text"], i["target"])]
    assert sentry_ltp.ltp_overlap(texts, strings) == []
