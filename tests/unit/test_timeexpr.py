"""atma.timeexpr: finding and resolving time expressions against a record's own time."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime

import pytest

from atma.timeexpr import (TimeExpr, annotations_json, event_range, event_time, find_times, human_date, human_range,
                           render_annotated, render_resolved)
from eval.timeexpr_eval import DEFAULT_FILE, load_gold, score

SAID = datetime(2023, 5, 8, 13, 56)  # a Monday


def one(text: str, said: datetime | date = SAID, **kw: object) -> TimeExpr:
    found = find_times(text, said, mode="rules", **kw)  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("path", [DEFAULT_FILE, DEFAULT_FILE.with_name("time_expressions_heldout.tsv")])
def test_expression_sets_resolved_by_the_rules(path) -> None:
    items = load_gold(path)
    assert sum(i.expression is not None for i in items) >= (150 if path == DEFAULT_FILE else 40)
    s = score(items, "rules")
    assert s.accuracy >= 0.95, "\n".join(s.errors)
    assert s.false_positives == 0, "\n".join(s.errors)


def test_issue_examples() -> None:
    t = one("I went to a LGBTQ support group yesterday")
    assert (t.start, t.end, t.granularity, t.direction) == (date(2023, 5, 7), date(2023, 5, 7), "day", "past")
    assert t.span == (32, 41) and t.expression == "yesterday" and t.label == "7 May 2023"
    t = one("I painted that lake sunrise last year!")
    assert (t.start, t.end, t.granularity, t.label) == (date(2022, 1, 1), date(2022, 12, 31), "year", "2022")
    t = one("We're going camping next month.")
    assert (t.start, t.end, t.granularity, t.direction, t.label) == (
        date(2023, 6, 1), date(2023, 6, 30), "month", "future", "June 2023")


def test_ranges_weekends_seasons_and_anchors() -> None:
    t = one("That was the week before 9 June 2023.")
    assert (t.start, t.end, t.granularity, t.anchor) == (date(2023, 6, 2), date(2023, 6, 8), "week", "date")
    t = one("I ran a race the Sunday before 25 May 2023.")
    assert (t.start, t.granularity, t.label) == (date(2023, 5, 21), "day", "Sunday, 21 May 2023")
    t = one("We hiked last weekend.")
    assert (t.start, t.end, t.granularity) == (date(2023, 5, 6), date(2023, 5, 7), "weekend")
    t = one("I've been volunteering since last summer.")
    assert (t.start, t.end, t.granularity, t.relation, t.label) == (
        date(2022, 6, 1), date(2022, 8, 31), "season", "since", "summer 2022")
    t = one("A few days ago I saw her.")
    assert t.approximate and (t.start, t.end) == (date(2023, 5, 3), date(2023, 5, 6))


def test_bare_names_follow_the_tense() -> None:
    assert one("On Friday we went bowling.").start == date(2023, 5, 5)
    assert one("I'll pick up the cake on Friday.").start == date(2023, 5, 12)
    assert one("We flew to Lisbon in August.").start == date(2022, 8, 1)
    assert one("We will fly to Lisbon in August.").start == date(2023, 8, 1)


def test_no_time_no_expression() -> None:
    for text in ("I may go to the gym.", "Summer camp was great.", "That Friday everything changed.",
                 "Every Sunday we have pancakes.", "The museum has 2000 paintings.",
                 "I finished the book in two days."):
        assert find_times(text, SAID, mode="rules") == ()
    assert find_times("I went there yesterday", None) == ()


def test_combined_uses_the_parser_for_numeric_dates_only() -> None:
    pytest.importorskip("dateparser")
    assert find_times("We closed on 12/20/2022.", SAID, mode="rules") == ()
    (t,) = find_times("We closed on 12/20/2022.", SAID)
    assert (t.start, t.granularity, t.source, t.expression) == (date(2022, 12, 20), "day", "dateparser", "12/20/2022")
    assert find_times("I may go now, we can talk.", SAID) == ()  # dateparser alone reads "may", "we", "now"


def test_human_dates() -> None:
    assert human_date(SAID) == "8 May 2023"
    assert human_date(date(2023, 5, 7), weekday=True) == "Sunday, 7 May 2023"
    assert human_date(None) == "undated"
    assert human_range(date(2023, 6, 1), date(2023, 6, 30), "month") == "June 2023"
    assert human_range(date(2022, 12, 1), date(2023, 2, 28), "season") == "winter 2022-23"
    assert human_range(date(2023, 5, 6), date(2023, 5, 7), "weekend") == "6-7 May 2023"


def test_render_resolved_only_adds_annotations() -> None:
    assert render_resolved("I went to a support group yesterday.", SAID) == \
        "I went to a support group yesterday (7 May 2023)."
    assert render_resolved("going camping next month", SAID) == "going camping next month (June 2023)"
    assert render_resolved("I painted that last year", SAID) == "I painted that last year (2022)"
    assert render_resolved("Last week I gave a talk", SAID) == "Last week (the week before 8 May 2023) I gave a talk"
    assert render_resolved("I moved in 2019", SAID) == "I moved in 2019"  # already absolute: nothing to add
    assert render_resolved("yesterday", None) == "yesterday"
    for item in load_gold():
        times = find_times(item.text, item.said, mode="rules")
        out = render_resolved(item.text, item.said, times=times)
        for t in times:
            if t.label.lower() != t.expression.lower():
                out = out.replace(f"{t.expression} ({t.label})", t.expression, 1)
        assert out == item.text


def test_event_time_prefers_the_event_over_a_bound() -> None:
    assert event_time("I love long walks.", SAID) is None
    assert event_time("anything", None) is None
    ev = event_time("Since 2019 I have lived in Leeds, and yesterday I moved to Bristol.", SAID, mode="rules")
    assert ev is not None and ev.expression == "yesterday"
    ev = event_time("I've lived here since 2019.", SAID, mode="rules")
    assert ev is not None and ev.relation == "since" and ev.start == date(2019, 1, 1)


def test_annotation_is_plain_json_and_renders_without_reparsing() -> None:
    text = "I went to a support group yesterday and we're camping next month."
    ann = annotations_json(text, SAID, mode="rules")
    assert json.loads(json.dumps(ann)) == ann
    assert ann["said_at"] == "2023-05-08" and ann["said"] == "8 May 2023"
    assert ann["event"]["start"] == "2023-05-07" and [e["expression"] for e in ann["expressions"]] == [
        "yesterday", "next month"]
    assert render_annotated(text, ann) == render_resolved(text, SAID, mode="rules")
    assert render_annotated(text, None) == text
    assert TimeExpr.from_json(ann["expressions"][1]) == find_times(text, SAID, mode="rules")[1]
    assert annotations_json(text, None)["expressions"] == []
    assert event_range(ann) == (date(2023, 5, 7), date(2023, 5, 7))
    assert event_range(annotations_json("No time here.", SAID)) is None and event_range(None) is None


def test_time_expr_is_frozen() -> None:
    t = one("yesterday")
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.start = date(2020, 1, 1)  # type: ignore[misc]
