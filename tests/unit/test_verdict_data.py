"""The verdict model's training data and the second (transfer) held-out set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from training import sentry_data as sd
from training import verdict_data as vd
from training import verdict_transfer as vt

REPO = Path(__file__).resolve().parents[2]
LTP_DIR = REPO / "data" / "ltp"


@pytest.fixture(scope="module")
def items():
    return vd.generate(31, n=900)


def test_labels_and_speakers(items):
    assert {i["label"] for i in items} <= set(vd.LABELS)
    assert {i["conflict_type"] for i in items} <= set(vd.CONFLICT_TYPES)
    by_kind = {}
    for i in items:
        by_kind.setdefault(i["kind"], set()).add(i["label"])
    assert by_kind["ack"] == {"restate"} and by_kind["suggestion"] == {"none"}
    assert by_kind["other_self_new"] == {"none"} and by_kind["other_self_same"] == {"none"}
    assert by_kind["ack_then_update"] == {"supersede"} and by_kind["in_progress"] == {"transition"}
    for i in items:
        cross = i["old_speaker"] != i["new_speaker"]
        assert cross == (i["kind"] in {"ack", "suggestion", "other_self_new", "other_self_same", "ack_then_update",
                                       "ack_then_bare"})
        # a restatement is no state change for the held-out metric, it only joins the slot
        assert i["verdict"]["action"] == ("none" if i["label"] == "restate" else i["label"])
    assert set(Counter(i["split"] for i in items)) == {"train", "val"}
    assert not ({i["profile_id"] for i in items if i["split"] == "val"}
                & {i["profile_id"] for i in items if i["split"] == "train"})


def test_same_seed_same_items():
    assert vd.generate(5, n=120) == vd.generate(5, n=120)


def test_disjoint_from_the_audit_heldout(items):
    heldout = [json.loads(x) for x in vd.HELDOUT.read_text().splitlines() if x.strip()]
    texts = {h["new_text"] for h in heldout}
    assert not texts & {i["new_text"] for i in items}


def test_no_ltp_cue_or_question_in_verdict_data(items):
    if not any(LTP_DIR.glob("*.jsonl")):
        pytest.skip(f"no LTP reconstruction at {LTP_DIR}")
    from eval.sentry_ltp import ltp_overlap, ltp_surface_strings

    strings = ltp_surface_strings(LTP_DIR)
    assert strings
    transfer = vt.generate()
    texts = ([t for i in items for t in (i["old_text"], i["new_text"])] + vd.template_strings()
             + [t for i in transfer for t in (i["old_text"], i["new_text"])] + vt.template_strings())
    assert ltp_overlap(texts, strings) == []


def test_transfer_set_is_separate_wording():
    transfer = vt.generate()
    assert len(transfer) >= 150
    assert {i["verdict"]["action"] for i in transfer} == {"supersede", "transition", "scoped_exception", "coexist", "none"}
    own = set(vd.template_strings())
    assert not own & set(vt.template_strings())
    # no attribute value of the transfer set is a value of the training generator's slots
    train_values = {str(v).lower() for s in sd.SLOTS for v in s.values}
    assert not {str(v).lower() for a in vt.ATTRS.values() for v in a["values"]} & train_values
