"""Rule-based query profiler (A-TMA App. A.8, refined): the requested state view and guards.

A question asks for one of four views: ``current`` (what holds now), ``historical`` (a
past state), ``transition`` (the change itself: both sides), ``neutral`` (no state
hint). The rules, in order:

1. *The change itself*: "how did … change", "what changed", "from what to what",
   "before and after", "then and now", "old and new" -> ``transition``.
2. *One side of a change*: a clause that anchors the question before a change
   ("before she moved, …", "prior to switching", "what did she switch from") asks for
   the past state; one anchored after it ("after the move, …", "since the switch",
   "what did she switch to", "what did he replace it with") asks for the present. Change
   words inside such a clause never make the question a transition question
   (profiler-v1 sent "Before her tastes changed, what was …" to the transition view).
3. Otherwise lexical hints for past and present are counted; the larger wins, both
   sides in separate clauses ("where did she live before, and where now?") ask for the
   change, and no hint gives ``neutral``.

Also flags ``temporal`` for questions that ask *when* something happened. Pure and
deterministic; no model is involved. Measured on our own question set
(``tests/data/view_questions.tsv``) and the LTP reconstruction's dev profiles by
``python -m eval.view_accuracy``.

>>> profile("Where did Dana live before the move?").view
'historical'
>>> profile("Where does Dana live now?").view
'current'
>>> profile("What changed about Dana's job?").view
'transition'
>>> profile("Where did Dana live before, and where now?").view
'transition'
>>> profile("Before her tastes changed, what was Dana's favourite film?").view
'historical'
>>> profile("What did Dana switch to?").view
'current'
>>> profile("What is Dana's cat called?").view
'neutral'
>>> profile("When did Dana adopt the cat?").temporal
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["QueryProfile", "View", "VIEWS", "profile", "PROFILER_VERSION"]

PROFILER_VERSION = "profiler-v2"

View = Literal["current", "historical", "transition", "neutral"]
VIEWS: tuple[View, ...] = ("current", "historical", "transition", "neutral")

_I = re.IGNORECASE

#: Questions about the change itself (checked on the question minus its anchoring clauses).
_CHANGE_ASK = [re.compile(p, _I) for p in (
    r"\bhow\b.*\b(?:chang|evolv|shift|develop|differ|progress)\w*",
    r"\bwhat(?: \w+){0,2} (?:has |have |had )?changed\b",
    r"\bwhat (?:was|were|is|are) the (?:change|shift|switch|difference)s?\b",
    r"\bwhat (?:change|shift|switch)e?s?\b",
    r"\b(?:change|shift|switch)\w* happened\b",
    r"\bchange\w* (?:about|in|for)\b",
    r"\bwhat happened (?:to|with)\b",
    r"\bdescribe (?:how|the change)",
)]
#: Both sides named in one question: always the change.
_BOTH_SIDES = [re.compile(p, _I) for p in (
    r"\bfrom\b.*\bto\b.*\?|\bfrom\b.*,? and (?:what |where |who |which )?to\b",
    r"\bfrom what to what\b|\bfrom how \w+ to how\b",
    r"\bbefore and (?:after|now|since)\b|\bthen and now\b|\bback then and (?:now|today)\b",
    r"\b(?:old|previous|former|earlier)\b.*\band\b.*\b(?:new|current|present|later)\b",
)]
#: Clauses that anchor a question before (-> past) or after (-> present) a change.
_ADVERB_NOW = r"(?!\b(?:these days|nowadays|now|currently|at the moment|lately|today|right now)\b)"
_BEFORE_CLAUSE = re.compile(rf"\b(?:before|prior to|until|up until)\b(?:{_ADVERB_NOW}[^,?])*", _I)
_AFTER_CLAUSE = re.compile(rf"\b(?:after|since|now that|ever since|following)\b(?:{_ADVERB_NOW}[^,?])*", _I)
#: "before bed", "after work": a routine, not a change. One bare word after the anchor
#: anchors a change only when it names one ("before switching", "after the move").
_ANCHOR_NOUNS = {"then", "that", "this", "it", "now", "change", "changes", "switch", "move", "moving", "update",
                 "marriage", "divorce", "surgery", "injury", "promotion", "relocation", "breakup", "retirement",
                 "graduation", "pandemic", "accident", "reorganisation", "reorganization", "transfer", "raise"}
#: One side of a change named by the verb.
_TO_SIDE = re.compile(r"\b(?:switch|chang|mov|turn|convert|upgrad)\w* (?:\w+ ){0,3}?(?:to|over to)\b|\bend(?:ed)? up\b"
                      r"|\breplac\w* .+ with\b", _I)
_FROM_SIDE = re.compile(r"\b(?:switch|chang|mov|convert)\w* (?:\w+ ){0,3}?(?:from|away from)\b"
                        r"|\bwhat did \w+ replace\b(?!.*\bwith\b)", _I)

_REPLACE_WITH = re.compile(r"\breplac\w* .+ with\b", _I)

_HISTORICAL = [
    r"before", r"previous(?:ly)?", r"used to", r"did \w+(?: \w+)? use to", r"formerly", r"former", r"earlier",
    r"originally", r"at first", r"in the past", r"prior", r"back then", r"back in the day", r"initially", r"ago",
    r"(?<!how )old", r"back when", r"had been", r"last (?:year|season|semester|term|decade)", r"in those days",
    r"at the (?:time|start|beginning)", r"once upon",
]
_CURRENT = [
    r"now", r"currently", r"current", r"these days", r"nowadays", r"today", r"at the moment", r"at present",
    r"presently", r"(?:'s|the|her|his|their|my|your) present", r"still", r"latest", r"right now", r"lately",
    r"most recent(?:ly)?", r"(?:'s|her|his|their|my|your) new", r"recently", r"this (?:week|month|year|season|semester|term)", r"anymore",
    r"no longer",
]
_TEMPORAL = re.compile(r"^\W*when\b|\bwhat (?:date|day|year|month|week|time of year)\b|\bhow long ago\b|"
                       r"\bin (?:which|what) (?:year|month)\b|\bsince when\b", _I)
_NEGATION = r"\b(?:not|never|no|none|nobody|n't|no longer|without)\b|n't\b"
_SCOPE = r"\b(?:only|except|unless|when|while|during|on weekends?|at work|at home|usually|sometimes|for (?:work|fun))\b"
_UPDATE = r"\b(?:update[ds]?|chang(?:e|ed|es)|new|moved|switched|now|no longer|anymore|replaced|quit|left|started)\b"


def _compile(words: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(rf"\b{w}\b", _I) for w in words]


_H, _C = _compile(_HISTORICAL), _compile(_CURRENT)
_NEG, _SCO, _UPD = (re.compile(p, _I) for p in (_NEGATION, _SCOPE, _UPDATE))


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
    temporal: bool = False
    rule: str = ""
    version: str = field(default=PROFILER_VERSION)

    def to_json(self) -> dict[str, object]:
        return {
            "view": self.view,
            "rule": self.rule,
            "hints": {"historical": list(self.historical_hints), "current": list(self.current_hints),
                      "change": list(self.change_hints)},
            "guards": {"negation": self.negation, "scope": self.scope, "update": self.update,
                       "temporal": self.temporal},
            "version": self.version,
        }


def _hits(patterns: list[re.Pattern[str]], text: str) -> tuple[str, ...]:
    out: list[str] = []
    for p in patterns:
        out.extend(m.group(0).lower() for m in p.finditer(text))
    return tuple(out)


def _anchors(pattern: re.Pattern[str], query: str) -> list[str]:
    out = []
    for m in pattern.finditer(query):
        words = m.group(0).split()[1:]
        if words and words[0].lower() == "to":  # "prior to"
            words = words[1:]
        word = words[0].lower().strip(".") if len(words) == 1 else ""
        if word and word not in _ANCHOR_NOUNS and not (len(word) > 4 and word.endswith(("ing", "ed"))):
            continue
        out.append(m.group(0))
    return out


def _decide(query: str) -> tuple[View, str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    for p in _BOTH_SIDES:
        m = p.search(query)
        if m:
            return "transition", "both sides named", (), (), (m.group(0).lower(),)
    before = _anchors(_BEFORE_CLAUSE, query)
    after = _anchors(_AFTER_CLAUSE, query)
    rest = query
    for clause in before + after:
        rest = rest.replace(clause, " ")
    routine = [m.group(0) for m in _BEFORE_CLAUSE.finditer(rest)] + [m.group(0) for m in _AFTER_CLAUSE.finditer(rest)]
    for clause in routine:  # "before bed": neither an anchor nor a hint
        rest = rest.replace(clause, " ")
    h, c = _hits(_H, rest), _hits(_C, rest)
    for p in _CHANGE_ASK:
        m = p.search(rest)
        if m:
            return "transition", "asks about the change", h, c, (m.group(0).lower(),)
    past = bool(before) or bool(h) or bool(_FROM_SIDE.search(rest))
    present = bool(after) or bool(c) or bool(_TO_SIDE.search(rest))
    hints_h = tuple(x.strip().lower() for x in before) + h
    hints_c = tuple(x.strip().lower() for x in after) + c
    if before and not after:
        if c and not h:  # "before …, and where now?": both sides asked for
            return "transition", "both sides in separate clauses", hints_h, hints_c, ()
        return "historical", "anchored before a change", hints_h, hints_c, ()
    if after and not before:
        if h and not c:
            return "transition", "both sides in separate clauses", hints_h, hints_c, ()
        return "current", "anchored after a change", hints_h, hints_c, ()
    if _FROM_SIDE.search(rest) and not _TO_SIDE.search(rest):
        return "historical", "asks what it changed from", hints_h, hints_c, ()
    if _REPLACE_WITH.search(rest) or (_TO_SIDE.search(rest) and not _FROM_SIDE.search(rest) and not h):
        return "current", "asks what it changed to", hints_h, hints_c, ()
    if past and present and h and c and set(h) != set(c):
        return "transition", "past and present hints", hints_h, hints_c, ()
    if len(h) > len(c):
        return "historical", "past hints", hints_h, hints_c, ()
    if len(c) > len(h):
        return "current", "present hints", hints_h, hints_c, ()
    return "neutral", "no state hint", hints_h, hints_c, ()


def profile(query: str) -> QueryProfile:
    """Profile a query. Pure and deterministic."""
    view, rule, h, c, x = _decide(query)
    return QueryProfile(
        query=query, view=view, historical_hints=h, current_hints=c, change_hints=x,
        negation=bool(_NEG.search(query)), scope=bool(_SCO.search(query)), update=bool(_UPD.search(query)),
        temporal=bool(_TEMPORAL.search(query)), rule=rule,
    )
