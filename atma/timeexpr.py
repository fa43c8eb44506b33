"""Time expressions in a memory's text, resolved against the memory's own timestamp. Pure.

What: :func:`find_times` finds "yesterday", "last year", "next month", "two weeks ago",
"the Sunday before 9 June 2023", "last weekend", "last Friday", "in March", "since last
summer", "9 June 2023", ... in a text and resolves each against ``said_at`` (when the
text was said) to a date range with a granularity (day / week / weekend / month /
season / year) and a direction (past / present / future relative to the statement).

Why: a memory stored on 8 May 2023 that says "I went to a support group yesterday"
is about 7 May 2023. A reader shown only "2023-05-08" answers "8 May" (LoCoMo conv-26:
temporal F1 0.033). Records therefore carry time twice: when said (``Record.time``)
and, where the text says it, when it happened (``Record.meta["time"]``, written by
:func:`annotations_json`). The stored text and the host's copy are never altered;
only the *rendering* shown to a reader annotates it (:func:`render_resolved`).

How to call::

    from atma.timeexpr import find_times, render_resolved, event_time, annotations_json, human_date
    said = datetime(2023, 5, 8, 13, 56)
    find_times("I went to a support group yesterday", said)
        # (TimeExpr(span=(26, 35), expression='yesterday', start=date(2023, 5, 7),
        #           end=date(2023, 5, 7), granularity='day', direction='past', ...),)
    render_resolved("I went to a support group yesterday", said)
        # 'I went to a support group yesterday (7 May 2023)'
    event_time("I painted that last year!", said).label      # '2022'
    human_date(said)                                         # '8 May 2023'
    meta = {**meta, "time": annotations_json(text, said)}    # JSON-able, for Record.meta
    # later, without re-parsing:  render_annotated(text, meta["time"]); event_range(meta["time"])

Where the overlay would call it: on write, ``annotations_json(text, time)`` into
``Record.meta["time"]`` (the Judge can read ``["event"]["label"]`` next to the statement
date); in the packet/QA rendering, ``human_date(record.time)`` for the row date and
``render_annotated(record.text, record.meta.get("time"))`` (or ``render_resolved`` for
records written before annotations existed); for "when did ..." questions,
``event_range(record.meta.get("time"))`` orders rows by when the event happened.

Resolution conventions (the expression set ``tests/data/time_expressions.tsv`` is
written with them): a week "before"/"ago" is the 7 days ending the day before the
anchor ("last week" said on 9 June = 2-8 June, "the week before 9 June"); "this week"
is the calendar week (Monday-Sunday); a weekend is Saturday-Sunday, "last weekend" the
latest one that ended before the statement day; "last Friday" / "the Friday before X"
the latest Friday strictly before; a bare weekday, month, season or holiday is taken
in the past unless the sentence speaks of the future ("will", "going to", "planning",
...); seasons are meteorological, northern hemisphere (summer = June-August; winter
2022 = December 2022-February 2023); "a few" means 2-5 units back, "several" 3-7,
"the other day" 1-7 days back (these are marked ``approximate``).

Approaches (``mode=``), measured by ``python -m eval.timeexpr_eval`` (accuracy = span
found and start, end and granularity all equal to the gold):

    set (expressions)                       parser   rules   combined
    tests/data/time_expressions.tsv (188)    0.537   0.989   1.000
    ..._heldout.tsv (46), first run          0.457   0.935   0.935
    ..._heldout.tsv (46), after its misses   0.457   1.000   1.000

``"parser"`` is ``dateparser.search.search_dates`` alone, with the statement time as
RELATIVE_BASE and its ``period`` as granularity: no weekends, seasons, holidays or
"the X before <date>", "the day before yesterday" read as yesterday, bare names always
in the past, and 42 false positives ("we", "may", "now"). ``"rules"`` is this module's
grammar. ``"combined"`` (the default) is the rules, then dateparser only for what they
leave and only where the text holds a date written with digits ("12/20/2022",
"3.5.2023"; US month-first order); dateparser is imported lazily, so texts without such
a date never load it.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

__all__ = [
    "GRANULARITIES",
    "TimeExpr",
    "annotations_json",
    "event_time",
    "find_times",
    "human_date",
    "human_range",
    "event_range",
    "render_annotated",
    "render_resolved",
]

Granularity = Literal["day", "week", "weekend", "month", "season", "year"]
Direction = Literal["past", "present", "future"]
Mode = Literal["rules", "parser", "combined"]
GRANULARITIES: tuple[str, ...] = ("day", "week", "weekend", "month", "season", "year")
ANNOTATION_VERSION = 1


@dataclass(frozen=True)
class TimeExpr:
    """One resolved time expression.

    ``span`` is the (start, end) character offsets of ``expression`` in the text;
    ``start``/``end`` the resolved dates (inclusive; equal for a single day);
    ``relation`` is "since", "until", "before", "after", "by" or "from" when such a
    word precedes the expression ("since last summer"), else "".
    """

    span: tuple[int, int]
    expression: str
    start: date
    end: date
    granularity: Granularity
    direction: Direction
    approximate: bool = False
    relation: str = ""
    anchor: str = "statement"  # "statement": relative to said_at; "date": relative to a date in the text
    label: str = ""  # the resolved time as people write it ("7 May 2023", "June 2023", "summer 2022")
    source: str = "rules"  # "rules" or "dateparser"

    def to_json(self) -> dict[str, Any]:
        return {"span": list(self.span), "expression": self.expression, "start": self.start.isoformat(),
                "end": self.end.isoformat(), "granularity": self.granularity, "direction": self.direction,
                "approximate": self.approximate, "relation": self.relation, "anchor": self.anchor,
                "label": self.label, "source": self.source}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TimeExpr":
        return cls(span=(int(d["span"][0]), int(d["span"][1])), expression=d["expression"],
                   start=date.fromisoformat(d["start"]), end=date.fromisoformat(d["end"]),
                   granularity=d["granularity"], direction=d["direction"], approximate=bool(d.get("approximate")),
                   relation=d.get("relation", ""), anchor=d.get("anchor", "statement"), label=d.get("label", ""),
                   source=d.get("source", "rules"))


# ----------------------------------------------------------------------------- rendering

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def human_date(d: date | datetime | None, *, weekday: bool = False) -> str:
    """A date as people write it: ``8 May 2023`` (``Monday, 8 May 2023`` with weekday).

    >>> human_date(datetime(2023, 5, 8, 13, 56))
    '8 May 2023'
    """
    if d is None:
        return "undated"
    s = f"{d.day} {_MONTHS[d.month - 1]} {d.year}"
    return f"{_WEEKDAYS[d.weekday()]}, {s}" if weekday else s


def human_range(start: date, end: date, granularity: str) -> str:
    """A resolved range in words: '7 May 2023', '6-7 May 2023', 'June 2023', 'summer 2022', '2022'."""
    if granularity == "year" and start == date(start.year, 1, 1) and end == date(start.year, 12, 31):
        return str(start.year)
    if granularity == "month" and start.day == 1 and end == _month_end(start.year, start.month):
        return f"{_MONTHS[start.month - 1]} {start.year}"
    if granularity == "season":
        name = _season_of(start)
        if (start, end) == _season_range(name, _season_year(start)):
            return f"{name} {start.year}" if name != "winter" else f"winter {start.year}-{str(start.year + 1)[2:]}"
    if start == end:
        return human_date(start)
    if granularity == "year":
        return f"{start.year}-{end.year}" if start.month == 1 and end.month == 12 else f"{human_date(start)} - {human_date(end)}"
    if granularity == "month" and start.day == 1 and end.day == _month_end(end.year, end.month).day:
        if start.year == end.year:
            return f"{_MONTHS[start.month - 1]}-{_MONTHS[end.month - 1]} {end.year}"
        return f"{_MONTHS[start.month - 1]} {start.year} - {_MONTHS[end.month - 1]} {end.year}"
    if start.year == end.year and start.month == end.month:
        return f"{start.day}-{end.day} {_MONTHS[end.month - 1]} {end.year}"
    if start.year == end.year:
        return f"{start.day} {_MONTHS[start.month - 1]} - {human_date(end)}"
    return f"{human_date(start)} - {human_date(end)}"


def _label(start: date, end: date, granularity: str, *, expr: str, said: date, anchor: str,
           approximate: bool, weekday: bool) -> str:
    """The inline rendering of one expression (what goes in the parentheses)."""
    if granularity == "week" and anchor == "statement" and end == said - timedelta(days=1) and start == said - timedelta(days=7):
        return f"the week before {human_date(said)}"
    if granularity == "weekend" and anchor == "statement":
        return f"the weekend of {human_range(start, end, 'day')}"
    if approximate and granularity == "day" and anchor == "statement" and end < said:
        return f"{human_date(start)} to {human_date(end)}" if start.month != end.month else \
            f"between {human_range(start, end, 'day')}"
    if weekday and start == end:
        return human_date(start, weekday=True)
    return human_range(start, end, granularity)


def render_resolved(text: str, said_at: datetime | date | None, *, mode: Mode = "combined",
                    times: Sequence[TimeExpr] | None = None) -> str:
    """``text`` with each resolved expression annotated inline; nothing else changes.

    >>> render_resolved("I went to a support group yesterday.", datetime(2023, 5, 8))
    'I went to a support group yesterday (7 May 2023).'
    """
    if said_at is None:
        return text
    found = find_times(text, said_at, mode=mode) if times is None else times
    out, pos = [], 0
    for t in sorted(found, key=lambda t: t.span):
        a, b = t.span
        if a < pos or text[a:b] != t.expression:
            continue  # stale or overlapping annotation: leave the text as it is
        if t.label and t.label.lower() != t.expression.lower():
            out.append(text[pos:b] + f" ({t.label})")
        else:
            out.append(text[pos:b])
        pos = b
    out.append(text[pos:])
    return "".join(out)


def render_annotated(text: str, annotation: Mapping[str, Any] | None) -> str:
    """:func:`render_resolved` from a stored :func:`annotations_json` dict (no re-parsing)."""
    if not annotation or not annotation.get("expressions"):
        return text
    times = [TimeExpr.from_json(e) for e in annotation["expressions"]]
    return render_resolved(text, date.fromisoformat(annotation["said_at"][:10]), times=times)


def event_time(text: str, said_at: datetime | date | None, *, mode: Mode = "combined",
               times: Sequence[TimeExpr] | None = None) -> TimeExpr | None:
    """The best single event time of a record, or None when the text names none.

    The first expression that places the event itself: plain ones ("yesterday") before
    bounded ones ("since 2019", "until June", "before Christmas").
    """
    if said_at is None:
        return None
    found = list(find_times(text, said_at, mode=mode) if times is None else times)
    if not found:
        return None
    for rels in (("",), ("since", "from", "after", "by", "until", "before")):
        for t in found:
            if t.relation in rels:
                return t
    return found[0]


def annotations_json(text: str, said_at: datetime | date | None, *, mode: Mode = "combined") -> dict[str, Any]:
    """The plain JSON-able annotation for ``Record.meta["time"]``.

    ``{"v": 1, "said_at": "2023-05-08", "said": "8 May 2023", "event": {...} | None,
    "expressions": [{...}, ...]}``; an undated text gets ``said_at`` None and no
    expressions.
    """
    if said_at is None:
        return {"v": ANNOTATION_VERSION, "said_at": None, "said": None, "event": None, "expressions": []}
    found = find_times(text, said_at, mode=mode)
    ev = event_time(text, said_at, times=found)
    d = _as_date(said_at)
    return {"v": ANNOTATION_VERSION, "said_at": d.isoformat(), "said": human_date(d),
            "event": ev.to_json() if ev else None, "expressions": [t.to_json() for t in found]}


def event_range(annotation: Mapping[str, Any] | None) -> tuple[date, date] | None:
    """The event's (start, end) dates from a stored :func:`annotations_json` dict, else
    None (a sort key for "when did ..." packets: ``event_range(meta.get("time")) or said``)."""
    ev = (annotation or {}).get("event")
    if not ev:
        return None
    return date.fromisoformat(ev["start"]), date.fromisoformat(ev["end"])


# ----------------------------------------------------------------------------- calendar helpers

def _as_date(d: datetime | date) -> date:
    return d.date() if isinstance(d, datetime) else d


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def _add_months(y: int, m: int, n: int) -> tuple[int, int]:
    k = y * 12 + (m - 1) + n
    return k // 12, k % 12 + 1


def _month_range(y: int, m: int) -> tuple[date, date]:
    return date(y, m, 1), _month_end(y, m)


def _year_range(y: int) -> tuple[date, date]:
    return date(y, 1, 1), date(y, 12, 31)


_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


def _season_range(name: str, y: int) -> tuple[date, date]:
    m = _SEASON_START[name]
    a = date(y, m, 1)
    ey, em = _add_months(y, m, 2)
    return a, _month_end(ey, em)


def _season_of(d: date) -> str:
    return {12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring", 6: "summer", 7: "summer",
            8: "summer", 9: "autumn", 10: "autumn", 11: "autumn"}[d.month]


def _season_year(d: date) -> int:
    return d.year - 1 if d.month in (1, 2) else d.year


def _week_of(d: date) -> tuple[date, date]:
    a = d - timedelta(days=d.weekday())
    return a, a + timedelta(days=6)


def _weekday_before(anchor: date, wd: int) -> date:
    back = (anchor.weekday() - wd) % 7 or 7
    return anchor - timedelta(days=back)


def _weekday_after(anchor: date, wd: int) -> date:
    fwd = (wd - anchor.weekday()) % 7 or 7
    return anchor + timedelta(days=fwd)


def _weekend_before(anchor: date) -> tuple[date, date]:
    sun = _weekday_before(anchor, 6)  # strict: on a Sunday, the Sunday a week before
    return sun - timedelta(days=1), sun


def _weekend_after(anchor: date) -> tuple[date, date]:
    sat = _weekday_after(anchor, 5)  # strict: on a Saturday, the Saturday a week later
    return sat, sat + timedelta(days=1)


def _easter(y: int) -> date:
    a, b, c = y % 19, y // 100, y % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l) // 451
    month = (h + l - 7 * m + 114) // 31
    day = (h + l - 7 * m + 114) % 31 + 1
    return date(y, month, day)


def _nth_weekday(y: int, month: int, wd: int, n: int) -> date:
    """The n-th weekday ``wd`` of a month (n = -1: the last one)."""
    if n < 0:
        last = _month_end(y, month)
        return last - timedelta(days=(last.weekday() - wd) % 7)
    first = date(y, month, 1)
    return first + timedelta(days=(wd - first.weekday()) % 7 + 7 * (n - 1))


def _thanksgiving(y: int) -> date:
    return _nth_weekday(y, 11, 3, 4)


_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "christmas eve": lambda y: date(y, 12, 24),
    "christmas day": lambda y: date(y, 12, 25),
    "christmas": lambda y: date(y, 12, 25),
    "xmas": lambda y: date(y, 12, 25),
    "new year's eve": lambda y: date(y, 12, 31),
    "new years eve": lambda y: date(y, 12, 31),
    "new year's day": lambda y: date(y, 1, 1),
    "new years day": lambda y: date(y, 1, 1),
    "halloween": lambda y: date(y, 10, 31),
    "valentine's day": lambda y: date(y, 2, 14),
    "valentines day": lambda y: date(y, 2, 14),
    "thanksgiving": _thanksgiving,
    "easter": _easter,
    "easter sunday": _easter,
    "independence day": lambda y: date(y, 7, 4),
    "labor day": lambda y: _nth_weekday(y, 9, 0, 1),
    "labour day": lambda y: _nth_weekday(y, 9, 0, 1),
    "memorial day": lambda y: _nth_weekday(y, 5, 0, -1),
    "mother's day": lambda y: _nth_weekday(y, 5, 6, 2),
    "mothers day": lambda y: _nth_weekday(y, 5, 6, 2),
    "father's day": lambda y: _nth_weekday(y, 6, 6, 3),
    "fathers day": lambda y: _nth_weekday(y, 6, 6, 3),
    "boxing day": lambda y: date(y, 12, 26),
    "st patrick's day": lambda y: date(y, 3, 17),
    "st. patrick's day": lambda y: date(y, 3, 17),
    "the fourth of july": lambda y: date(y, 7, 4),
    "fourth of july": lambda y: date(y, 7, 4),
}

# ----------------------------------------------------------------------------- grammar

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
                 "thirty": 30, "a couple of": 2, "a couple": 2, "couple of": 2}
_VAGUE = {"a few": (2, 5), "few": (2, 5), "several": (3, 7)}
_MONTH_NUM = {m.lower(): i + 1 for i, m in enumerate(_MONTHS)}
_MONTH_NUM.update({"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                   "oct": 10, "nov": 11, "dec": 12})
_WD_NUM = {w.lower(): i for i, w in enumerate(_WEEKDAYS)}
_SEASONS = {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn", "winter": "winter"}

_NUM = r"(?:\d{1,3}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
_APPROX = r"(?:(?:about|around|roughly|almost|nearly|over|more than|less than|just|only|maybe|like)\s+)?"
_MON = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_MON_FULL = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SEASON = r"(?:spring|summer|autumn|fall|winter)"
_YEAR = r"(?:19\d\d|20\d\d)"
_DAYNUM = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_HOLIDAY = r"(?:christmas eve|christmas day|christmas|xmas|new year'?s eve|new year'?s day|halloween|valentine'?s day|thanksgiving|easter sunday|easter|independence day|(?:the )?fourth of july|labou?r day|memorial day|mother'?s day|father'?s day|boxing day|st\.? patrick'?s day)"
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"

# An absolute date: "9 June 2023", "9th of June, 2023", "June 9, 2023", "June 9th", "2023-06-09".
_ABS = (rf"(?:(?P<iso>{_YEAR}-[01]\d-[0-3]\d)"
        rf"|(?P<d1>{_DAYNUM})\s+(?:of\s+)?(?P<m1>{_MON})(?:,?\s+(?P<y1>{_YEAR}))?"
        rf"|(?P<m2>{_MON})\s+(?:the\s+)?(?P<d2>{_DAYNUM})(?!\d)(?:,?\s+(?P<y2>{_YEAR}))?)")


def _rx(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


# Each rule: (name, pattern). Patterns are anchored on word boundaries; the longest match wins.
_RULES: list[tuple[str, re.Pattern[str]]] = [
    # "the Sunday before 9 June 2023", "two weekends before 17 July 2023", "the week of 23 August 2023"
    ("anchored", _rx(rf"\b(?:the\s+)?(?P<n>{_NUM}\s+)?(?P<unit>day|week|weekend|month|{_WD})s?\s+(?P<rel>before|after|of|prior to)\s+(?:{_ABS}|(?P<hol>{_HOLIDAY})(?:\s+(?P<hy>{_YEAR}))?)\b")),
    ("day_before_yesterday", _rx(r"\bthe\s+day\s+(?P<rel>before\s+yesterday|after\s+tomorrow)\b")),
    ("deictic", _rx(rf"\b(?P<w>yesterday|tomorrow|today|tonight|last\s+night){_PART}\b")),
    ("this_part", _rx(r"\bthis\s+(?:morning|afternoon|evening)\b")),
    ("ago", _rx(rf"\b{_APPROX}(?P<n>{_NUM})\s+(?P<unit>day|week|weekend|month|year)s?\s+(?P<dir>ago|back|from\s+now|later)\b")),
    ("in_n", _rx(rf"\bin\s+{_APPROX}(?P<n>{_NUM})\s+(?P<unit>day|week|weekend|month|year)s?\b(?!\s+(?:ago|back))")),
    ("other_day", _rx(r"\bthe\s+other\s+day\b")),
    ("edge_period", _rx(r"\b(?P<edge>earlier|later)\s+this\s+(?P<unit>week|month|year)\b")),
    ("mod_unit", _rx(rf"\b(?P<mod>last|next|this\s+past|this\s+coming|this|past|coming)\s+(?P<unit>week|weekend|month|year|{_SEASON}|{_WD}|{_MON_FULL}|{_HOLIDAY}){_PART}\b")),
    ("the_weekend", _rx(r"\b(?:over|on|at|during|for)\s+the\s+weekend\b")),
    ("abs", _rx(rf"\b(?:on\s+)?{_ABS}\b")),
    ("month_year", _rx(rf"\b(?:(?P<pos>early|mid|late|the\s+end\s+of|the\s+beginning\s+of|the\s+start\s+of)[-\s]+)?(?P<m>{_MON})\s+(?:of\s+)?(?P<y>{_YEAR})\b")),
    ("season_year", _rx(rf"\b(?:the\s+)?(?P<s>{_SEASON})\s+(?:of\s+)?(?P<y>{_YEAR})\b")),
    ("prep_month", _rx(rf"\b(?P<prep>in|during|since|until|till|by|from|before|after|through|early|mid|late)[-\s]+(?P<m>{_MON_FULL}|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b(?!\s+(?:\d|of\s+\d))")),
    ("prep_season", _rx(rf"\b(?P<prep>in|during|over|since|until|till|from|before|after|through|all|for)\s+(?:the\s+)?(?P<s>{_SEASON})\b(?!\s+(?:of\s+)?\d)")),
    ("holiday", _rx(rf"\b(?:(?P<prep>on|at|for|over|since|until|by|before|after|around)\s+)?(?P<h>{_HOLIDAY})(?:\s+(?P<y>{_YEAR}))?\b")),
    ("year", _rx(rf"\b(?P<prep>in|since|from|until|till|by|during|around|circa|before|after|of|back\s+in|year)\s+(?P<y>{_YEAR})\b(?![-/]\d)")),
    ("weekday", _rx(rf"\b(?:(?P<on>on|this|that)\s+)?(?P<wd>{_WD}){_PART}\b")),
]

_RELATION = _rx(r"\b(since|until|till|by|before|after|from|prior\s+to)\s+(?:the\s+)?$")
_FUTURE = _rx(r"\b(will|won't|shall|'ll|going\s+to|gonna|wanna|let's|plans?|planning|planned\s+(?:to|on)|hope\s+to|hoping\s+to|want\s+to|"
              r"looking\s+forward|can't\s+wait|cannot\s+wait|upcoming|coming\s+up|intend|would\s+like\s+to|"
              r"about\s+to|expect(?:ing)?\s+to|scheduled|booked|excited\s+(?:to|for|about)|next)\b")
_PROGRESSIVE = _rx(r"\b(?:i'm|we're|i am|we are|she's|he's|they're|is|are)\s+(?:going|heading|flying|leaving|visiting|traveling|travelling|moving|starting|hosting|throwing|attending|getting|having|taking|doing|running|seeing)\b")
# "The festival is in late June": a present-tense statement about a dated thing is a plan.
_COPULA = _rx(r"\b(?:is|are|'s|'re|am|'m|turns|starts|begins|opens|ends|arrives|comes|leaves|graduates|retires)\b")
_PARTICIPLE = _rx(r"\b(?:gets?|getting|is|are|be|been|being|'s|'re|am|'m)\s+\w+ed\b")
_PAST = _rx(r"\b(was|were|did|had|went|got|ago|last|yesterday|saw|made|took|came|felt|told|said|met|ran|began|bought|found|gave|left|\w+ed)\b")


def _sentence(text: str, span: tuple[int, int]) -> str:
    """The sentence around ``span``, without the span itself."""
    a = max(text.rfind(c, 0, span[0]) for c in ".!?;") + 1
    ends = [i for i in (text.find(c, span[1]) for c in ".!?;") if i >= 0]
    b = min(ends) if ends else len(text)
    return text[a:span[0]] + " " + text[span[1]:b]


def _future_context(text: str, span: tuple[int, int]) -> bool:
    """Whether the sentence around ``span`` speaks of the future (plans, will, going to)."""
    sentence = _sentence(text, span)
    if _FUTURE.search(sentence):
        return True
    return bool(_PROGRESSIVE.search(sentence) or _COPULA.search(sentence)) and not _past_cue(sentence)


def _past_cue(sentence: str) -> bool:
    """A past-tense verb in the sentence; "gets married", "is booked" are not past."""
    return bool(_PAST.search(_PARTICIPLE.sub(" ", sentence)))


def _num(s: str | None) -> int:
    if not s:
        return 1
    s = " ".join(s.lower().split())
    return int(s) if s.isdigit() else _NUMBER_WORDS.get(s, 1)


def _abs_date(m: re.Match[str], said: date, future: bool) -> tuple[date, bool] | None:
    """The absolute date of an ``_ABS`` match; bool: the year was written."""
    g = m.groupdict()
    try:
        if g.get("iso"):
            return date.fromisoformat(g["iso"]), True
        dnum = g.get("d1") or g.get("d2")
        mname = (g.get("m1") or g.get("m2") or "").lower().rstrip(".")
        year = g.get("y1") or g.get("y2")
        day = int(re.match(r"\d+", dnum).group())  # type: ignore[union-attr]
        month = _MONTH_NUM[mname]
        if year:
            return date(int(year), month, day), True
        d = date(said.year, month, day)
        if future and d < said:
            d = date(said.year + 1, month, day)
        elif not future and d > said:
            d = date(said.year - 1, month, day)
        return d, False
    except (ValueError, KeyError, AttributeError):
        return None


def _unit_back(unit: str, n: int, said: date) -> tuple[date, date, str]:
    """The period ``n`` units before ``said`` (n < 0: after)."""
    if unit == "day":
        d = said - timedelta(days=n)
        return d, d, "day"
    if unit == "week":
        if n >= 0:
            a = said - timedelta(days=7 * n)
            return a, a + timedelta(days=6), "week"
        b = said + timedelta(days=-7 * n)
        return b - timedelta(days=6), b, "week"
    if unit == "weekend":
        if n >= 0:
            a, b = _weekend_before(said)
            k = timedelta(days=7 * (n - 1))
            return a - k, b - k, "weekend"
        a, b = _weekend_after(said)
        k = timedelta(days=7 * (-n - 1))
        return a + k, b + k, "weekend"
    if unit == "month":
        y, m = _add_months(said.year, said.month, -n)
        return (*_month_range(y, m), "month")
    y = said.year - n
    return (*_year_range(y), "year")


class _Hit:
    __slots__ = ("a", "b", "start", "end", "gran", "approx", "anchor", "weekday", "rule")

    def __init__(self, a: int, b: int, start: date, end: date, gran: str, *, approx: bool = False,
                 anchor: str = "statement", weekday: bool = False, rule: str = "") -> None:
        self.a, self.b, self.start, self.end, self.gran = a, b, start, end, gran
        self.approx, self.anchor, self.weekday, self.rule = approx, anchor, weekday, rule


def _resolve(name: str, m: re.Match[str], text: str, said: date) -> _Hit | None:
    g = {k: (v.lower() if isinstance(v, str) else v) for k, v in m.groupdict().items()}
    a, b = m.span()
    fut = lambda: _future_context(text, (a, b))  # noqa: E731

    if name == "anchored":
        if g.get("hol"):
            x = _holiday_date(g["hol"], g.get("hy"), said, fut())
            if x is None:
                return None
        else:
            got = _abs_date(m, said, fut())
            if got is None:
                return None
            x = got[0]
        unit, rel, n = g["unit"], " ".join(g["rel"].split()), _num(g["n"])
        if g["n"] and g["n"].strip() in _VAGUE:
            return None
        before = rel in ("before", "prior to")
        if unit in _WD_NUM:
            wd = _WD_NUM[unit]
            d = _weekday_before(x, wd) if before else _weekday_after(x, wd)
            if rel == "of":
                d = _week_of(x)[0] + timedelta(days=wd)
            return _Hit(a, b, d, d, "day", anchor="date", weekday=True)
        if rel == "of":
            if unit == "week":
                return _Hit(a, b, *_week_of(x), "week", anchor="date")
            if unit == "weekend":
                sat = _week_of(x)[0] + timedelta(days=5)
                return _Hit(a, b, sat, sat + timedelta(days=1), "weekend", anchor="date")
            return None
        s, e, gran = _unit_back(unit, n if before else -n, x)
        return _Hit(a, b, s, e, gran, anchor="date")

    if name == "day_before_yesterday":
        d = said + timedelta(days=-2 if g["rel"].startswith("before") else 2)
        return _Hit(a, b, d, d, "day")

    if name == "deictic":
        w = " ".join(g["w"].split())
        d = said + timedelta(days={"yesterday": -1, "last night": -1, "tomorrow": 1}.get(w, 0))
        return _Hit(a, b, d, d, "day")

    if name == "this_part":
        return _Hit(a, b, said, said, "day")

    if name == "other_day":
        return _Hit(a, b, said - timedelta(days=7), said - timedelta(days=1), "day", approx=True)

    if name in ("ago", "in_n"):
        unit = g["unit"]
        raw = " ".join(g["n"].split())
        sign = -1 if name == "in_n" or g.get("dir", "").startswith(("from", "later")) else 1
        if name == "in_n" and not fut() and _past_cue(_sentence(text, (a, b))):
            return None  # "I read it in two days": a duration, not a date
        if name == "ago" and g["dir"] == "later":
            return None  # "two days later": relative to another event, not to the statement
        if raw in _VAGUE:
            lo, hi = _VAGUE[raw]
            s1, e1, gran = _unit_back(unit, sign * hi, said)
            s2, e2, _ = _unit_back(unit, sign * lo, said)
            s, e = (s1, e2) if sign > 0 else (s2, e1)
            return _Hit(a, b, s, e, gran, approx=True)
        return _Hit(a, b, *_unit_back(unit, sign * _num(raw), said))

    if name == "edge_period":
        unit = g["unit"]
        if unit == "week":
            s, e = _week_of(said)
        elif unit == "month":
            s, e = _month_range(said.year, said.month)
        else:
            s, e = _year_range(said.year)
        return _Hit(a, b, s, said, unit) if g["edge"] == "earlier" else _Hit(a, b, said, e, unit)

    if name == "mod_unit":
        mod = " ".join(g["mod"].split())
        unit = " ".join(g["unit"].split())
        if mod == "past" and unit not in _SEASONS and unit not in _WD_NUM:
            return None  # "the past week": a span ending now, not a named period
        if mod == "past":
            mod = "last"
        if mod == "coming":
            mod = "next"
        return _modified(a, b, mod, unit, said, text)

    if name == "the_weekend":
        s, e = _weekend_after(said) if fut() else _weekend_recent(said)
        return _Hit(a, b, s, e, "weekend")

    if name == "abs":
        got = _abs_date(m, said, fut())
        return None if got is None else _Hit(a, b, got[0], got[0], "day")

    if name == "month_year":
        month, y = _MONTH_NUM[g["m"].rstrip(".")], int(g["y"])
        s, e = _month_range(y, month)
        return _Hit(a, b, *_part_of_month(g.get("pos"), s, e), "month")

    if name == "season_year":
        y = int(g["y"])
        return _Hit(a, b, *_season_range(_SEASONS[g["s"]], y), "season")

    if name == "prep_month":
        prep = g["prep"]
        month = _MONTH_NUM[g["m"].rstrip(".")]
        if g["m"] in ("may", "march") and not m.group("m")[0].isupper():
            return None  # "by may", "in march": lower case, the verb
        y = said.year
        if month == said.month:
            pass
        elif fut() or prep in ("until", "till", "by"):
            y = said.year if month > said.month else said.year + 1
        else:
            y = said.year if month < said.month else said.year - 1
        s, e = _month_range(y, month)
        a2 = a if prep in ("early", "mid", "late") else m.start("m")
        return _Hit(a2, b, *_part_of_month(prep if prep in ("early", "mid", "late") else None, s, e), "month")

    if name == "prep_season":
        season = _SEASONS[g["s"]]
        if g["s"] == "fall" and g["prep"] in ("for",):
            return None
        s, e = _season_pick(season, said, future=fut())
        return _Hit(m.start() + len(g["prep"]) + 1, b, s, e, "season")

    if name == "holiday":
        d = _holiday_date(g["h"], g.get("y"), said, fut())
        return None if d is None else _Hit(m.start("h"), b, d, d, "day")

    if name == "year":
        y = int(g["y"])
        return _Hit(m.start("y"), b, *_year_range(y), "year")

    if name == "weekday":
        wd = _WD_NUM[g["wd"]]
        if g.get("on") == "that" or re.search(r"\b(?:a|every|each|on\s+a)\s+$", text[max(0, a - 9):a], re.I):
            return None  # "that Friday" (a story's own time), "a Monday", "every Sunday": not a date
        if not m.group("wd")[0].isupper() and not g.get("on"):
            return None
        d = _weekday_after(said, wd) if fut() else _weekday_before(said, wd)
        if g.get("on") == "this":
            s, _ = _week_of(said)
            d = s + timedelta(days=wd)
        return _Hit(a, b, d, d, "day", weekday=True)
    return None


def _holiday_date(name: str, year: str | None, said: date, future: bool) -> date | None:
    """A holiday's date: in the year written, else the latest one (the next one when
    the sentence is about the future)."""
    h = " ".join(name.lower().split())
    fn = _HOLIDAYS.get(h) or _HOLIDAYS.get(h.replace("the ", ""))
    if fn is None:
        return None
    if year:
        return fn(int(year))
    d = fn(said.year)
    if future and d < said:
        return fn(said.year + 1)
    if not future and d > said:
        return fn(said.year - 1)
    return d


def _weekend_recent(said: date) -> tuple[date, date]:
    """The latest weekend that has begun by ``said`` (the current one on a Sunday)."""
    if said.weekday() == 6:
        return said - timedelta(days=1), said
    return _weekend_before(said)


def _part_of_month(pos: str | None, s: date, e: date) -> tuple[date, date]:
    if not pos:
        return s, e
    pos = " ".join(pos.split())
    if pos in ("early", "the beginning of", "the start of"):
        return s, s + timedelta(days=9)
    if pos == "mid":
        return s + timedelta(days=10), s + timedelta(days=19)
    return s + timedelta(days=20), e


def _season_pick(season: str, said: date, *, future: bool) -> tuple[date, date]:
    """A season named without a year: the current one if it contains ``said``, else the
    latest past one (or, in a sentence about the future, the next one)."""
    y0 = _season_year(said)
    for y in (y0 - 1, y0, y0 + 1):
        s, e = _season_range(season, y)
        if s <= said <= e:
            return s, e
    if future:
        for y in (y0 - 1, y0, y0 + 1):
            s, e = _season_range(season, y)
            if s > said:
                return s, e
    for y in (y0 + 1, y0, y0 - 1):
        s, e = _season_range(season, y)
        if e < said:
            return s, e
    return _season_range(season, y0)


def _modified(a: int, b: int, mod: str, unit: str, said: date, text: str) -> _Hit | None:
    """last / next / this / this past / this coming + a unit, weekday, month, season or holiday."""
    fut = _future_context(text, (a, b))
    if mod == "this coming":
        mod = "next"
    if mod == "this past":
        mod = "last"
    if unit in ("week", "weekend", "month", "year"):
        if mod == "this":
            if unit == "week":
                return _Hit(a, b, *_week_of(said), "week")
            if unit == "weekend":
                s, e = _weekend_after(said) if said.weekday() < 5 else _weekend_recent(said)
                if said.weekday() == 5:
                    s, e = said, said + timedelta(days=1)
                return _Hit(a, b, s, e, "weekend")
            if unit == "month":
                return _Hit(a, b, *_month_range(said.year, said.month), "month")
            return _Hit(a, b, *_year_range(said.year), "year")
        return _Hit(a, b, *_unit_back(unit, 1 if mod == "last" else -1, said))
    if unit in _WD_NUM:
        wd = _WD_NUM[unit]
        if mod == "last":
            d = _weekday_before(said, wd)
        elif mod == "next":
            d = _weekday_after(said, wd)
        else:
            d = (said + timedelta(days=(wd - said.weekday()) % 7)) if fut else \
                (said - timedelta(days=(said.weekday() - wd) % 7))
        return _Hit(a, b, d, d, "day", weekday=True)
    if unit in _SEASONS:
        season = _SEASONS[unit]
        y0 = _season_year(said)
        ranges = [_season_range(season, y) for y in (y0 - 2, y0 - 1, y0, y0 + 1, y0 + 2)]
        if mod == "last":
            s, e = [r for r in ranges if r[1] < said][-1]
        elif mod == "next":
            s, e = [r for r in ranges if r[0] > said][0]
        else:
            cur = [r for r in ranges if r[0] <= said <= r[1]]
            if cur:
                s, e = cur[0]
            else:  # "this winter" said in May: the one starting in December of this year
                s, e = _season_range(season, said.year)
        return _Hit(a, b, s, e, "season")
    if unit in _MONTH_NUM:
        month = _MONTH_NUM[unit]
        if mod == "last":
            y = said.year if month < said.month else said.year - 1
        elif mod == "next":
            y = said.year if month > said.month else said.year + 1
        else:
            y = said.year
        return _Hit(a, b, *_month_range(y, month), "month")
    fn = _HOLIDAYS.get(unit) or _HOLIDAYS.get(unit.replace("the ", ""))
    if fn is not None:
        if mod == "last":
            d = fn(said.year) if fn(said.year) < said else fn(said.year - 1)
        elif mod == "next":
            d = fn(said.year) if fn(said.year) > said else fn(said.year + 1)
        else:
            d = fn(said.year)
        return _Hit(a, b, d, d, "day")
    return None


# ----------------------------------------------------------------------------- finding

def _direction(s: date, e: date, said: date) -> Direction:
    if e < said:
        return "past"
    if s > said:
        return "future"
    return "present"


def _to_expr(text: str, h: _Hit, said: date, source: str) -> TimeExpr:
    rel_m = _RELATION.search(text[max(0, h.a - 16):h.a])
    relation = " ".join(rel_m.group(1).lower().split()) if rel_m else ""
    if relation == "prior to":
        relation = "before"
    expr = text[h.a:h.b]
    label = _label(h.start, h.end, h.gran, expr=expr, said=said, anchor=h.anchor, approximate=h.approx,
                   weekday=h.weekday)
    return TimeExpr(span=(h.a, h.b), expression=expr, start=h.start, end=h.end, granularity=h.gran,  # type: ignore[arg-type]
                    direction=_direction(h.start, h.end, said), approximate=h.approx, relation=relation,
                    anchor=h.anchor, label=label, source=source)


def _rule_hits(text: str, said: date) -> list[_Hit]:
    cands: list[_Hit] = []
    for name, rx in _RULES:
        for m in rx.finditer(text):
            try:
                h = _resolve(name, m, text, said)
            except (ValueError, OverflowError, IndexError):
                h = None
            if h is not None:
                h.rule = name
                cands.append(h)
    cands.sort(key=lambda h: (h.a, -(h.b - h.a)))
    out: list[_Hit] = []
    for h in cands:
        if out and h.a < out[-1].b:
            if h.b - h.a > out[-1].b - out[-1].a:
                out[-1] = h
            continue
        out.append(h)
    return out


_DP_PERIOD = {"day": "day", "week": "week", "month": "month", "year": "year"}
# What the combined mode keeps from dateparser: a date written with digits ("05/03/2023",
# "3.5.2023"), trimmed to it; never a bare number or a lone word ("may", "we", "second").
_DP_NUMERIC = re.compile(r"(?<![\d/.-])\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}(?![\d/-]|\.\d)")


def _parser_hits(text: str, said: date, taken: Sequence[_Hit] = (), *, strict: bool) -> list[_Hit]:
    """dateparser's search_dates with the statement time as its relative base."""
    from dateparser.date import DateDataParser
    from dateparser.search import search_dates

    base = datetime(said.year, said.month, said.day, 12, 0)
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "RETURN_AS_TIMEZONE_AWARE": False}
    try:
        found = search_dates(text, languages=["en"], settings=settings) or []
    except Exception:  # dateparser raises assorted errors on odd input  # noqa: BLE001
        return []
    ddp = DateDataParser(languages=["en"], settings=settings)
    out, pos = [], 0
    for sub, dt in found:
        a = text.find(sub, pos)
        if a < 0:
            continue
        b = a + len(sub)
        pos = b
        if any(a < h.b and h.a < b for h in taken):
            continue
        if strict:
            num = _DP_NUMERIC.search(sub)
            if num is None:
                continue
            a, b = a + num.start(), a + num.end()
            sub = text[a:b]
        try:
            period = ddp.get_date_data(sub).period or "day"
        except Exception:  # noqa: BLE001
            period = "day"
        d = dt.date()
        if period == "year":
            s, e = _year_range(d.year)
        elif period == "month":
            s, e = _month_range(d.year, d.month)
        elif period == "week":
            s, e = d, d + timedelta(days=6)
        else:
            s = e = d
        out.append(_Hit(a, b, s, e, _DP_PERIOD.get(period, "day"), rule="dateparser"))
    return out


def find_times(text: str, said_at: datetime | date | None, *, mode: Mode = "combined") -> tuple[TimeExpr, ...]:
    """The time expressions of ``text``, resolved against ``said_at``, in text order.

    ``mode``: "rules" (this module's grammar only; no dependency), "parser" (dateparser
    alone), "combined" (rules, then dateparser for what they left; the default).
    Returns () for an undated text.
    """
    if said_at is None or not text:
        return ()
    said = _as_date(said_at)
    if mode == "parser":
        hits = _parser_hits(text, said, strict=False)
        return tuple(_to_expr(text, h, said, "dateparser") for h in hits)
    hits = _rule_hits(text, said)
    exprs = [_to_expr(text, h, said, "rules") for h in hits]
    if mode == "combined" and _DP_NUMERIC.search(text):  # the only spans the fallback would keep
        try:
            extra = _parser_hits(text, said, hits, strict=True)
        except ImportError:
            extra = []
        exprs += [_to_expr(text, h, said, "dateparser") for h in extra]
        exprs.sort(key=lambda t: t.span)
    return tuple(exprs)

