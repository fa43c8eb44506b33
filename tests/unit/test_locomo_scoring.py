"""eval.locomo_scoring: a golden set pinning every official rule, BLEU-1 convention, aggregation.

Expected values are worked out by hand (stems noted where they matter) and must not be
regenerated from the code under test.
"""

from __future__ import annotations

import math

import pytest

from eval.locomo_scoring import (
    CAT5_REFERENCE,
    CATEGORY_NAMES,
    ItemScore,
    aggregate,
    bleu1,
    f1_multi,
    f1_score,
    normalize_answer,
    reference_for,
    score_item,
    score_qa,
)

# (prediction, gold, category, expected official score, rule exercised)
GOLDEN = [
    # articles and "and" removed: [cat, dog] vs [dog] -> P 1/2, R 1
    ("The cat and the dog", "a dog", 4, 2 / 3, "articles/and"),
    # punctuation and case: identical after normalisation
    ("Paris!", "paris.", 4, 1.0, "punctuation"),
    # stemming: painting/painted -> paint; [she, love, paint] vs [paint] -> P 1/3, R 1
    ("She loves painting", "painted", 4, 0.5, "stemming"),
    # possessive: "caroline's" -> "carolines" -> stem "carolin" == stem("caroline")
    ("Caroline's", "Caroline", 4, 1.0, "apostrophe dropped"),
    # hyphen dropped, not split: [motherinlaw] vs [mother, in, law]
    ("mother-in-law", "mother in law", 4, 0.0, "hyphen"),
    # multiset overlap: [veri, veri, good] vs [veri, good] -> 2 shared, P 2/3, R 1
    ("very very good", "very good", 4, 0.8, "multiset"),
    # category 1 comma split: swimming 1, hiking 1, camping 0 -> mean 2/3
    ("hiking, swimming", "swimming, hiking, camping", 1, 2 / 3, "comma split"),
    # same pair as category 4: commas dropped, [hike, swim] vs [swim, hike, camp] -> P 1, R 2/3
    ("hiking, swimming", "swimming, hiking, camping", 4, 0.8, "no split outside category 1"),
    # category 1 splits "1,000" into "1" and "000": neither matches "1000"
    ("1,000", "1000", 1, 0.0, "comma split breaks numbers"),
    ("1,000", "1000", 4, 1.0, "comma dropped in numbers"),
    # category 3 gold cut at the first ";"
    ("Likely yes", "Likely yes; because she likes it", 3, 1.0, "semicolon cut"),
    # without the cut: [like, ye] vs [like, ye, becaus, she, like, it] -> 2 shared, P 1, R 1/3
    ("Likely yes", "Likely yes; because she likes it", 4, 0.5, "no cut outside category 3"),
    ("Likely yes", "Likely yes; because she likes it", 2, 0.5, "no cut in category 2"),
    # integer answers are cast with str
    ("2022", 2022, 2, 1.0, "integer answer"),
    ("In 2022", 2022, 2, 2 / 3, "integer answer, extra token"),
    ("3 children", 3, 1, 2 / 3, "integer answer, category 1"),
    # no overlap / empty prediction
    ("Boston", "Seattle", 4, 0.0, "no overlap"),
    ("", "Seattle", 4, 0.0, "empty prediction"),
    # category 5: substring of the lowercased output, gold ignored
    ("Not mentioned in the conversation", "Yes", 5, 1.0, "cat5 phrase"),
    ("NOT MENTIONED.", "Yes", 5, 1.0, "cat5 case-insensitive"),
    ("No information available.", "Yes", 5, 1.0, "cat5 second phrase"),
    ("It was never mentioned", "Yes", 5, 0.0, "cat5 other wording"),
    ("not-mentioned", "Yes", 5, 0.0, "cat5 needs the space"),
    ("Yes", "Yes", 5, 0.0, "cat5 trap answer"),
]


@pytest.mark.parametrize("prediction,gold,category,expected,rule", GOLDEN, ids=[g[4] for g in GOLDEN])
def test_golden_official_scores(prediction, gold, category, expected, rule):
    assert score_qa(prediction, gold, category) == pytest.approx(expected)


def test_golden_mean_is_pinned():
    scores = [score_qa(p, g, c) for p, g, c, _, _ in GOLDEN]
    expected = sum(e for _, _, _, e, _ in GOLDEN) / len(GOLDEN)
    assert sum(scores) / len(scores) == pytest.approx(expected)


def test_normalize_answer_order_of_steps():
    # commas go before punctuation so "1,000" joins; articles only as whole words
    assert normalize_answer("1,000 Bananas, and an Apple") == "1000 bananas apple"
    assert normalize_answer("Theater anthem bandana") == "theater anthem bandana"
    assert normalize_answer("  A  the   \t an ") == ""


def test_f1_parts():
    assert f1_score("", "") == 0.0
    assert f1_multi("Rome", "Rome, Paris") == pytest.approx(0.5)
    assert f1_multi("Paris, Rome", "Rome, Paris, Oslo") == pytest.approx(2 / 3)


@pytest.mark.parametrize("bad", [0, 6, "1", True, None])
def test_unknown_category_is_an_error(bad):
    with pytest.raises(ValueError, match="category"):
        score_qa("x", "y", bad)


def test_category_names():
    assert CATEGORY_NAMES == {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def test_bleu1_convention():
    # 4 prediction tokens [she, likes, hiking, .], 1 clipped match, no brevity penalty
    assert bleu1("She likes hiking.", "hiking") == pytest.approx(0.25)
    # 1 token, full precision, brevity penalty exp(1 - 3/1)
    assert bleu1("hiking", "she likes hiking") == pytest.approx(math.exp(-2))
    # sentence ends split off like nltk.word_tokenize: [paris, ., rome] vs [paris, rome]
    assert bleu1("Paris. Rome", "paris rome") == pytest.approx(2 / 3)
    assert bleu1("HIKING", "hiking") == pytest.approx(1.0)
    assert bleu1("", "hiking") == 0.0
    assert bleu1("hiking", "  ") == 0.0


def test_reference_for_bleu():
    assert reference_for("a; b", 3) == "a"
    assert reference_for("a; b", 4) == "a; b"
    assert reference_for(2022, 2) == "2022"
    assert reference_for("Yes", 5) == CAT5_REFERENCE


def test_score_item_and_aggregate():
    items = [
        score_item("hiking", "hiking", 4),  # f1 1, bleu 1
        score_item("Boston", "Seattle", 4),  # 0, 0
        score_item("Not mentioned in the conversation", "Yes", 5),  # 1, 1
        score_item("2022", 2022, 2),  # 1, 1
    ]
    assert items[2] == ItemScore(category=5, f1=1.0, bleu1=pytest.approx(1.0))
    agg = aggregate(items)
    assert list(agg) == ["temporal", "single-hop", "adversarial", "overall"]
    assert agg["single-hop"] == {"n": 2, "f1": 0.5, "bleu1": 0.5}
    assert agg["overall"]["n"] == 4
    assert agg["overall"]["f1"] == pytest.approx(0.75)
    assert agg["overall"]["bleu1"] == pytest.approx(0.75)
    assert aggregate([])["overall"] == {"n": 0, "f1": 0.0, "bleu1": 0.0}
    with pytest.raises(ValueError):
        aggregate([ItemScore(category=9, f1=0.0, bleu1=0.0)])
