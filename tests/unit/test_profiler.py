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
    ("What did Melanie switch to?", "transition"),
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
