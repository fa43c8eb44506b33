"""The verdict model end to end on the packaged MiniLM: a training smoke run on a handful of
items, checkpoint round trip, the Judge backend, and (when shipped) the packaged checkpoint."""

from __future__ import annotations

import json

import pytest

from atma.judge import Verdict
from atma.judging import VerdictJudge
from atma.records import Record
from atma.verdict import ACTION_LABELS, default_verdict_path, load_verdict_model, to_verdict
from training import judge_verdict

pytestmark = pytest.mark.integration


def test_train_smoke_roundtrip_and_judge(tmp_path):
    data = tmp_path / "data"
    from training import verdict_data as vd

    items = vd.generate(3, n=80)
    data.mkdir()
    (data / "train.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    meta = judge_verdict.main(["train", "--data", str(data), "--out", str(tmp_path / "ckpt"), "--epochs", "1",
                               "--limit", "40", "--max-minutes", "3"])
    assert meta["train_items"] == 40 and meta["threshold_curve"]
    model = load_verdict_model(tmp_path / "ckpt")
    preds = model.predict([("I live in Leeds.", "Dana", "Noted: Dana lives in Leeds.", "Assistant"),
                           ("I live in Leeds.", "Dana", "I moved to York.", "Dana")])
    assert [p.label in ACTION_LABELS for p in preds] == [True, True]
    assert all(abs(sum(p.probs.values()) - 1.0) < 1e-4 for p in preds)
    old = Record(id="r1", namespace="u", text="I live in Leeds.", speaker="Dana")
    new = Record(id="r2", namespace="u", text="I moved to York.", speaker="Dana")
    assert isinstance(to_verdict(preds[1], old, new), Verdict)
    v, call = VerdictJudge(model).decide(old, new, None)
    assert call.status == "ok" and not call.fallback and "label" in json.loads(call.raw)
    # a supersede below the threshold is never committed
    v, _ = VerdictJudge(model, threshold=1.01).decide(old, new, None)
    assert v.action in ("none", "coexist", "scoped_exception")


@pytest.mark.skipif(not default_verdict_path().is_file(), reason="no packaged verdict model")
def test_packaged_model_on_plain_cases():
    j = VerdictJudge(load_verdict_model())
    old = Record(id="r1", namespace="u", text="I work as a pastry chef.", speaker="Dana")
    cases = {
        ("Noted: Dana works as a pastry chef.", "Assistant"): "none",
        ("You should become a pilot, Dana!", "Sam"): "none",
        ("I work as a pilot.", "Sam"): "none",
    }
    for (text, who), want in cases.items():
        v, _ = j.decide(old, Record(id="r2", namespace="u", text=text, speaker=who), None)
        assert v.action == want, (text, v)


@pytest.mark.skipif(not default_verdict_path().is_file(), reason="no packaged verdict model")
@pytest.mark.xfail(reason="known weakness (checkpoints/verdict/card.md): on wording outside its generators the shipped "
                          "model's supersede probability falls below the 0.75 threshold (here p~0.70), so it fails safe "
                          "to none", strict=False)
def test_packaged_model_explicit_change_in_new_wording():
    j = VerdictJudge(load_verdict_model())
    old = Record(id="r1", namespace="u", text="I work as a pastry chef.", speaker="Dana")
    v, _ = j.decide(old, Record(id="r2", namespace="u", text="I quit the bakery; I'm a paramedic now.", speaker="Dana"), None)
    assert v.action == "supersede"
