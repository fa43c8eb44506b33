"""Deterministic answer check: did the reader name a value of the wrong state? Pure.

The overlay knows each packet row's state and which record replaced which. For every
chain pair (earlier record, later record) behind the packet, the words the earlier
record says that the later one does not repeat are earlier-state words, and the words
only the later one says are later-state words (words of the question never count: the
question names the slot, not a value). A current question answered with earlier-state
words and no later-state word, or a historical question answered the other way round,
is suspect: the overlay re-asks once, without the rows of the wrong state and with a
one-line hint naming the stale value. The trace records the check either way.

Numbers are values ("35 minutes" -> "35"), so a stale count or time is caught like a stale
name. Only chains about the question count: when the question names a speaker of the
chains, only that speaker's chains; and a chain must share a content word or an attribute
family with the question (another person's "6 books -> 4 books" never judges an answer about oneself).

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

from .judge import attribute_families
from .records import Record

__all__ = ["AnswerCheck", "about_question", "check_answer", "content_words"]

_WORD = re.compile(r"\d+(?:[.,:]\d+)*|[a-z0-9][a-z0-9'-]*")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NAME = re.compile(r"[A-Za-z][A-Za-z'-]*")
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
        if _NUMBER.fullmatch(w):  # a value however short: "3", "9:00", "14,000" (as "14000")
            out.add(w.replace(",", ""))
            continue
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
    want: tuple[str, ...] = ()  # the chain's record of the asked state, shown in a focused re-ask

    def to_json(self) -> dict[str, object]:
        return {"suspect": self.suspect, "reason": self.reason, "stale_words": list(self.stale_words),
                "drop": list(self.drop), "want": list(self.want), "hint": self.hint}


def about_question(query: str, pairs: Sequence[tuple[Record, Record]]) -> list[tuple[Record, Record]]:
    """The chain pairs a question is about: those of the speakers it names (when it names
    any), sharing a content word or an attribute family ("live" / "rent a flat") with it.

    >>> from atma.records import Record
    >>> a = Record(id="r1", namespace="n", text="I read 6 books a month.", speaker="Jon")
    >>> b = Record(id="r2", namespace="n", text="Now 4 books a month.", speaker="Jon")
    >>> c = Record(id="r3", namespace="n", text="I read 2 books a month.", speaker="Gina")
    >>> d = Record(id="r4", namespace="n", text="3 books a month these days.", speaker="Gina")
    >>> [n.id for _, n in about_question("How many books does Gina read?", [(a, b), (c, d)])]
    ['r4']
    >>> [n.id for _, n in about_question("Where does Jon live?", [(a, b), (c, d)])]
    []
    """
    words = {w.lower().removesuffix("'s") for w in _NAME.findall(query)}
    named = {sp for pair in pairs for sp in (pair[0].speaker, pair[1].speaker) if sp and sp.lower() in words}
    if named:
        pairs = [(o, n) for o, n in pairs if o.speaker in named and n.speaker in named]
    asked, kinds = content_words(query), attribute_families(query)
    return [(o, n) for o, n in pairs
            if asked & (content_words(o.text) | content_words(n.text))
            or kinds & (attribute_families(o.text) | attribute_families(n.text))]


def check_answer(answer: str, query: str, view: str, pairs: Sequence[tuple[Record, Record]]) -> AnswerCheck:
    """Check ``answer`` against the (earlier, later) record pairs behind the packet."""
    if view not in ("current", "historical") or not pairs:
        return AnswerCheck(False, "no state to check")
    pairs = about_question(query, pairs)
    if not pairs:
        return AnswerCheck(False, "no chain about the question")
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
                               drop=(old.id,), want=(new.id,),
                               hint=f"Note: {', '.join(words)} is the earlier state, no longer true; "
                                    "answer with what is true now.")
        if view == "historical" and (said & later) and not (said & (earlier | shared_old)):
            words = _surface(answer, sorted(said & later))
            return AnswerCheck(True, f"historical question answered with the later state of {new.id}", words,
                               drop=(new.id,), want=(old.id,),
                               hint=f"Note: {', '.join(words)} is the later state; the question asks about the "
                                    "earlier one.")
    return AnswerCheck(False, "consistent with the view")
