import doctest

import pytest

import atma.profiler
from atma.profiler import profile


def test_doctests():
    assert doctest.testmod(atma.profiler).failed == 0


@pytest.mark.parametrize("q,view", [
    ("Where did Caroline live previously?", "historical"),
    ("What job did Melanie used to have?", "historical"),
    ("Where does Caroline currently live?", "current"),
    ("What does Melanie do these days?", "current"),
    ("How did Caroline's hobby change?", "transition"),
    ("What did Melanie switch to?", "current"),
    ("Where did Caroline live before, and where does she live now?", "transition"),
    ("What is Caroline's favourite food?", "neutral"),
])
def test_views(q, view):
    assert profile(q).view == view


def test_guards():
    p = profile("Does Caroline not eat meat only at work now?")
    assert p.negation and p.scope and p.update
    q = profile("What is Caroline's dog called?")
    assert not (q.negation or q.scope or q.update)


def test_to_json_round_trip_shape():
    j = profile("Where did Dana live before?").to_json()
    assert j["view"] == "historical" and j["hints"]["historical"] == ["before"]


def _own_set():
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "view_questions.tsv"
    rows = [line.rstrip("\n").split("\t") for line in path.read_text("utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    return [(v, q) for v, q in rows]


def test_own_question_set_view_accuracy():
    rows = _own_set()
    assert len(rows) >= 200 and {v for v, _ in rows} == {"current", "historical", "transition", "neutral"}
    wrong = [(v, q, profile(q).view) for v, q in rows if profile(q).view != v]
    assert 1 - len(wrong) / len(rows) >= 0.98, wrong


def test_one_side_of_a_change_is_not_a_transition():
    assert profile("Before he changed jobs, where did Olu work?").view == "historical"
    assert profile("After she changed jobs, where does Zainab work?").view == "current"
    assert profile("What did Aisha switch from?").view == "historical"
    assert profile("How did Aisha's job change?").view == "transition"
    assert profile("How many pages does Jo read before bed these days?").view == "current"


def test_own_set_has_no_benchmark_strings():
    import json
    from pathlib import Path

    ltp = Path(__file__).resolve().parents[2] / "data" / "ltp" / "ltp.jsonl"
    asked = {p["question"] for line in ltp.read_text("utf-8").splitlines() for p in json.loads(line)["probes"]}
    assert not asked & {q for _, q in _own_set()}
