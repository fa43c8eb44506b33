"""Deterministic answer check: did the reader name a value of the wrong state? Pure.

The overlay knows each packet row's state and which record replaced which. For every
chain pair (earlier record, later record) behind the packet, the words the earlier
record says that the later one does not repeat are earlier-state words, and the words
only the later one says are later-state words (words of the question never count: the
question names the slot, not a value). A current question answered with earlier-state
words and no later-state word, or a historical question answered the other way round,
is suspect: the overlay re-asks once, without the rows of the wrong state and with a
one-line hint naming the stale value. The trace records the check either way.

>>> from atma.records import Record, Link, LinkType, Status
>>> old = Record(id="r1", namespace="n", text="My favourite drink is matcha.", status=Status.SUPERSEDED,
...              links=(Link(LinkType.SUPERSEDED_BY, "r2"),))
>>> new = Record(id="r2", namespace="n", text="Matcha was my drink for ages, but it's flat white these days.",
...              links=(Link(LinkType.SUPERSEDES, "r1"),))
>>> check_answer("Matcha.", "What is her favourite drink now?", "current", [(old, new)]).suspect
True
>>> check_answer("A flat white.", "What is her favourite drink now?", "current", [(old, new)]).suspect
False
>>> check_answer("Flat white.", "What was her favourite drink before?", "historical", [(old, new)]).drop
('r2',)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .records import Record

__all__ = ["AnswerCheck", "check_answer", "content_words"]

_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")
_STOP = frozenset("""
a an the and or but if then than so of to in on at by for with from into over under about as is are was were be been
being am do does did done doing have has had having i me my mine we us our you your he him his she her hers it its they
them their this that these those there here what which who whom whose when where why how not no yes just also too very
really quite more most much many some any all each every both either neither one ones s t don't doesn't didn't i'm it's
that's i've i'd i'll you're he's she's we're they're can could would should will shall may might must now currently
days day these time times ago before after still anymore longer new old know don't think sure answer memory memories
true earlier later state value favourite favorite like likes liked love loves loved go going went get got make made
because though while during since until ever never always usually lately update updates updated change changed changes
for ages thing things stuff lot bit
""".split())


def content_words(text: str) -> set[str]:
    """Lower-cased content words, a plural 's' folded."""
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.strip("'-")
        if len(w) < 3 or w in _STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def _surface(answer: str, folded: Sequence[str]) -> tuple[str, ...]:
    """The answer's own spelling of folded content words ("Leeds", not "leed")."""
    want, out = set(folded), []
    for w in _WORD.findall(answer.lower()):
        w = w.strip("'-")
        if content_words(w) & want and w not in out:
            out.append(w)
    return tuple(out) or tuple(folded)


@dataclass(frozen=True)
class AnswerCheck:
    suspect: bool
    reason: str = ""
    stale_words: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()  # packet rows of the wrong state, left out of the re-ask
    hint: str = ""

    def to_json(self) -> dict[str, object]:
        return {"suspect": self.suspect, "reason": self.reason, "stale_words": list(self.stale_words),
                "drop": list(self.drop), "hint": self.hint}


def check_answer(answer: str, query: str, view: str, pairs: Sequence[tuple[Record, Record]]) -> AnswerCheck:
    """Check ``answer`` against the (earlier, later) record pairs behind the packet."""
    if view not in ("current", "historical") or not pairs:
        return AnswerCheck(False, "no state to check")
    asked = content_words(query)
    said = content_words(answer) - asked
    if not said:
        return AnswerCheck(False, "answer names no value")
    for old, new in pairs:
        w_old, w_new = content_words(old.text) - asked, content_words(new.text) - asked
        earlier, later = w_old - w_new, w_new - w_old
        shared_old = w_old & w_new  # "matcha was my drink, but it's flat white now": matcha is in both
        earlier_named = said & (earlier | shared_old)
        if view == "current" and earlier_named and not (said & later):
            words = _surface(answer, sorted(earlier_named))
            return AnswerCheck(True, f"current question answered with the earlier state of {old.id}", words,
                               drop=(old.id,),
                               hint=f"Note: {', '.join(words)} is the earlier state, no longer true; "
                                    "answer with what is true now.")
        if view == "historical" and (said & later) and not (said & (earlier | shared_old)):
            words = _surface(answer, sorted(said & later))
            return AnswerCheck(True, f"historical question answered with the later state of {new.id}", words,
                               drop=(new.id,),
                               hint=f"Note: {', '.join(words)} is the later state; the question asks about the "
                                    "earlier one.")
    return AnswerCheck(False, "consistent with the view")
