"""The Sentry's LTP evaluation (eval.sentry_ltp): pair sets from the shipped LTP units."""
from __future__ import annotations

import numpy as np

from eval import sentry_ltp
from eval.ltp_release import DEFAULT_OUT, load


def test_units_are_the_shipped_two_cue_units():
    units = sentry_ltp.load_ltp_units(DEFAULT_OUT)
    _, rows = load(DEFAULT_OUT)
    assert len(units) == len(rows) == 400
    assert [(u["unit_id"], u["cue1"], u["cue2"]) for u in units] == [
        (r["unit_id"], r["cue_texts"][0], r["cue_texts"][1]) for r in rows]


def test_pair_sets_match_the_recorded_eval_sizes():
    units = sentry_ltp.load_ltp_units(DEFAULT_OUT)
    rng = np.random.default_rng(0)
    texts = sorted({t for u in units for t in (u["cue1"], u["cue2"])})
    rows = {t: v / np.linalg.norm(v) for t, v in zip(texts, rng.normal(size=(len(texts), 8)))}
    sets = {ep.name: ep for ep in sentry_ltp.ltp_eval_pairs(DEFAULT_OUT, cosine_rows=rows)}
    assert set(sets) == {"ltp_all", "ltp_top10"}
    # 10 profiles x 40 units: each cue2 against its own cue1 and the 39 other cue1s / the 9 nearest
    assert len(sets["ltp_all"].new_texts) == 16000 and int(sets["ltp_all"].needs_audit.sum()) == 400
    assert len(sets["ltp_top10"].new_texts) == 4000 and int(sets["ltp_top10"].needs_audit.sum()) == 400
    assert [ep.name for ep in sentry_ltp.ltp_eval_pairs(DEFAULT_OUT)] == ["ltp_all"]


def test_training_eval_has_no_ltp_flag():
    from training.sentry import make_parser

    args = make_parser().parse_args(["eval"])
    assert not hasattr(args, "ltp")
    assert sentry_ltp.make_parser().parse_args([]).ltp == str(DEFAULT_OUT)
