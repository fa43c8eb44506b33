"""Rule-based query profiler (A-TMA App. A.8): the requested state view and three guards.

Counts lexical hints for historical, current and change state. Change wins when its
hints dominate, or when both old and current hints appear; otherwise the larger of
historical/current wins, and a tie or no hint gives ``neutral``. No model is involved.

>>> profile("Where did Dana live before the move?").view
'historical'
>>> profile("Where does Dana live now?").view
'current'
>>> profile("What changed about Dana's job?").view
'transition'
>>> profile("Where did Dana live before, and where now?").view
'transition'
>>> profile("What is Dana's cat called?").view
'neutral'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["QueryProfile", "View", "profile", "PROFILER_VERSION"]

PROFILER_VERSION = "profiler-v1"

View = Literal["current", "historical", "transition", "neutral"]

_HISTORICAL = [
    r"before", r"previous(?:ly)?", r"used to", r"formerly", r"former", r"earlier", r"originally", r"at first",
    r"in the past", r"prior", r"back then", r"initially", r"ago", r"past", r"first",
    r"back when", r"had been", r"until", r"late(?:r)? changed",
]
_CURRENT = [
    r"now", r"currently", r"current", r"these days", r"nowadays", r"today", r"at the moment", r"at present",
    r"presently", r"still", r"latest", r"right now", r"lately", r"most recent(?:ly)?", r"new", r"recently",
    r"this (?:week|month|year)", r"anymore", r"no longer",
]
_CHANGE = [
    r"chang(?:e|ed|es|ing)", r"switch(?:ed|es|ing)?", r"moved? from", r"transition(?:ed|ing)?", r"evolv(?:e|ed|ing)",
    r"what happened (?:to|with)", r"differ(?:ent|ence|s)?", r"shift(?:ed)?", r"replac(?:e|ed|ing)", r"from .+ to ",
    r"how did .+ (?:become|turn)", r"update(?:d)?", r"instead of",
]
_NEGATION = r"\b(?:not|never|no|none|nobody|n't|no longer|without)\b|n't\b"
_SCOPE = r"\b(?:only|except|unless|when|while|during|on weekends?|at work|at home|usually|sometimes|for (?:work|fun))\b"
_UPDATE = r"\b(?:update[ds]?|chang(?:e|ed|es)|new|moved|switched|now|no longer|anymore|replaced|quit|left|started)\b"


def _compile(words: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(rf"\b{w}\b", re.IGNORECASE) for w in words]


_H, _C, _X = _compile(_HISTORICAL), _compile(_CURRENT), _compile(_CHANGE)
_NEG, _SCO, _UPD = (re.compile(p, re.IGNORECASE) for p in (_NEGATION, _SCOPE, _UPDATE))


@dataclass(frozen=True)
class QueryProfile:
    """ψ(q): the view plus the evidence for it. JSON-serialisable via :meth:`to_json`."""

    query: str
    view: View
    historical_hints: tuple[str, ...] = ()
    current_hints: tuple[str, ...] = ()
    change_hints: tuple[str, ...] = ()
    negation: bool = False
    scope: bool = False
    update: bool = False
    version: str = field(default=PROFILER_VERSION)

    def to_json(self) -> dict[str, object]:
        return {
            "view": self.view,
            "hints": {"historical": list(self.historical_hints), "current": list(self.current_hints),
                      "change": list(self.change_hints)},
            "guards": {"negation": self.negation, "scope": self.scope, "update": self.update},
            "version": self.version,
        }


def _hits(patterns: list[re.Pattern[str]], text: str) -> tuple[str, ...]:
    out: list[str] = []
    for p in patterns:
        out.extend(m.group(0).lower() for m in p.finditer(text))
    return tuple(out)


def profile(query: str) -> QueryProfile:
    """Profile a query. Pure and deterministic."""
    h, c, x = _hits(_H, query), _hits(_C, query), _hits(_X, query)
    nh, nc, nx = len(h), len(c), len(x)
    view: View
    if nx and nx >= max(nh, nc):
        view = "transition"
    elif nh and nc and set(h) != set(c):
        view = "transition"
    elif nh > nc:
        view = "historical"
    elif nc > nh:
        view = "current"
    else:
        view = "neutral"
    return QueryProfile(
        query=query, view=view, historical_hints=h, current_hints=c, change_hints=x,
        negation=bool(_NEG.search(query)), scope=bool(_SCO.search(query)), update=bool(_UPD.search(query)),
    )
