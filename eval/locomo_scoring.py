"""LoCoMo QA scoring: the official token F1 reproduced exactly, plus BLEU-1 by convention.

Official rules (snap-research/LoCoMo ``task_eval/evaluation.py``, re-implemented):

* :func:`normalize_answer`: drop commas, lowercase, strip ASCII punctuation, remove the
  words a/an/the/and, collapse spaces.
* :func:`f1_score`: every token Porter-stemmed (nltk), multiset overlap.
* category 1 (multi-hop): :func:`f1_multi`, prediction and gold split on ",", mean over
  gold parts of the best-matching prediction part.
* categories 2 and 4: plain F1; category 3: gold cut at the first ";" first.
* category 5 (adversarial): 1 if the lowercased output contains "no information
  available" or "not mentioned", else 0.
* overall = mean over all questions of all five categories.

BLEU-1 is not official. :func:`bleu1` follows the A-Mem / Mem0 convention: nltk
``sentence_bleu`` on lowercased word tokens, weights (1, 0, 0, 0), smoothing method1;
report it labelled as such. Needs the ``[eval]`` extra (nltk).
"""

from __future__ import annotations

import re
import string
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

__all__ = [
    "BLEU_CONVENTION",
    "CAT5_REFERENCE",
    "CATEGORY_NAMES",
    "ItemScore",
    "aggregate",
    "bleu1",
    "f1_multi",
    "f1_score",
    "normalize_answer",
    "reference_for",
    "score_item",
    "score_qa",
]

CATEGORY_NAMES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
BLEU_CONVENTION = "BLEU-1 (A-Mem/Mem0 convention: nltk sentence_bleu, weights (1,0,0,0), smoothing method1)"
# The abstention option of the official category-5 prompt; BLEU-1 of category 5 is taken
# against it, because the adversarial answer is the trap, not the gold.
CAT5_REFERENCE = "Not mentioned in the conversation"
_CAT5_PHRASES = ("no information available", "not mentioned")

_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    try:
        from nltk.stem import PorterStemmer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("LoCoMo scoring needs nltk: pip install 'atma[eval]'") from exc
    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stem(word)


def normalize_answer(s: str) -> str:
    """The official normalisation.

    >>> normalize_answer("The cat, and a dog!")
    'cat dog'
    >>> normalize_answer("7 May 2023")
    '7 may 2023'
    """
    s = s.replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def f1_score(prediction: str, ground_truth: str) -> float:
    """Token F1 of Porter-stemmed normalised tokens (multiset overlap); 0.0 without overlap.

    >>> f1_score("She went hiking", "hiking")
    0.5
    >>> f1_score("running shoes", "Run, shoe")
    1.0
    """
    pred = [_stem(w) for w in normalize_answer(prediction).split()]
    gold = [_stem(w) for w in normalize_answer(ground_truth).split()]
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1_multi(prediction: str, ground_truth: str) -> float:
    """Category 1: mean over ","-separated gold parts of the best F1 against any prediction part.

    >>> f1_multi("Paris, Rome", "Rome, Paris, Oslo")
    0.6666666666666666
    """
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in ground_truth.split(",")]
    return sum(max(f1_score(p, g) for p in preds) for g in golds) / len(golds)


def _check_category(category: int) -> int:
    if isinstance(category, bool) or not isinstance(category, int) or category not in CATEGORY_NAMES:
        raise ValueError(f"unknown LoCoMo category {category!r} (expected 1-5)")
    return category


def score_qa(prediction: str, answer: Any, category: int) -> float:
    """The official per-question score (F1 for categories 1-4, abstention hit for 5).

    ``answer`` is cast with ``str`` (six LoCoMo answers are integers).

    >>> score_qa("Not mentioned in the conversation", "Yes", 5)
    1.0
    >>> score_qa("hiking", "hiking; camping", 3)
    1.0
    """
    category = _check_category(category)
    if category == 5:
        out = prediction.lower()
        return 1.0 if any(p in out for p in _CAT5_PHRASES) else 0.0
    gold = str(answer)
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        return float(f1_multi(prediction, gold))
    return float(f1_score(prediction, gold))


def reference_for(answer: Any, category: int) -> str:
    """The reference string BLEU-1 compares against: the gold F1 uses (category 3 cut
    at ";"), or :data:`CAT5_REFERENCE` for category 5."""
    category = _check_category(category)
    if category == 5:
        return CAT5_REFERENCE
    gold = str(answer)
    return gold.split(";")[0].strip() if category == 3 else gold


def _word_tokens(text: str) -> list[str]:
    # nltk.word_tokenize splits sentences with Punkt first, whose model is a separate
    # download; sentence ends are split here by a rule instead, then each sentence gets
    # the same Treebank word tokenizer. The two differ only at abbreviations ("Dr.").
    from nltk.tokenize import word_tokenize

    return [tok for sent in _SENTENCE_END.split(text) for tok in word_tokenize(sent, preserve_line=True)]


def bleu1(prediction: str, gold: str) -> float:
    """BLEU-1 by the A-Mem/Mem0 convention; 0.0 when either side is empty.

    >>> round(bleu1("She likes hiking.", "hiking"), 4)
    0.25
    """
    prediction, gold = str(prediction).strip(), str(gold).strip()
    if not prediction or not gold:
        return 0.0
    try:
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("BLEU-1 needs nltk: pip install 'atma[eval]'") from exc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = sentence_bleu(
            [_word_tokens(gold.lower())],
            _word_tokens(prediction.lower()),
            weights=(1, 0, 0, 0),
            smoothing_function=SmoothingFunction().method1,
        )
    return float(score)


@dataclass(frozen=True, kw_only=True)
class ItemScore:
    """Scores of one question."""

    category: int
    f1: float
    bleu1: float


def score_item(prediction: str, answer: Any, category: int) -> ItemScore:
    """Official F1 and conventional BLEU-1 (against :func:`reference_for`) of one answer."""
    return ItemScore(
        category=category,
        f1=score_qa(prediction, answer, category),
        bleu1=bleu1(prediction, reference_for(answer, category)),
    )


def aggregate(items: Iterable[ItemScore]) -> dict[str, dict[str, float | int]]:
    """Mean F1 and BLEU-1 per category (keyed by name, in category order) and ``overall``
    (mean over all questions). Categories without questions are left out.

    >>> aggregate([ItemScore(category=1, f1=1.0, bleu1=0.5), ItemScore(category=5, f1=0.0, bleu1=0.0)])["overall"]
    {'n': 2, 'f1': 0.5, 'bleu1': 0.25}
    """
    rows = list(items)
    for r in rows:
        _check_category(r.category)
    out: dict[str, dict[str, float | int]] = {}
    for cat, name in CATEGORY_NAMES.items():
        sel = [r for r in rows if r.category == cat]
        if sel:
            out[name] = {"n": len(sel), "f1": _mean(r.f1 for r in sel), "bleu1": _mean(r.bleu1 for r in sel)}
    out["overall"] = {"n": len(rows), "f1": _mean(r.f1 for r in rows), "bleu1": _mean(r.bleu1 for r in rows)}
    return out


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0
