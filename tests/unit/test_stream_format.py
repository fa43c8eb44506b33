"""eval.stream_format: validation, one-line errors with file:line and field path, atomic dump."""

from __future__ import annotations

import copy
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from eval import stream_format
from eval.stream_format import Event, Probe, Scenario, StreamFormatError, dump_stream, load_stream

GOOD = {
    "id": "s1",
    "events": [
        {"id": "e1", "time": "2024-01-01T10:00:00", "speaker": "user", "text": "I drive a Civic."},
        {"id": "e2", "time": "2024-03-01T09:30:00", "speaker": "user", "text": "Sold the Civic, got a Prius.",
         "meta": {"slot": "car", "update": "replace"}},
    ],
    "probes": [
        {"id": "p1", "question": "What do I drive?", "view": "current", "gold": ["Prius", "Toyota Prius"],
         "alternates": ["Civic"], "time": "2024-03-02"},
        {"id": "p2", "question": "What did I drive before the Prius?", "view": "historical", "gold": ["Civic"],
         "alternates": ["Prius"], "time": "2024-03-02T12:00:00", "meta": {"slot": "car"}},
    ],
    "meta": {"topic": "vehicles"},
}


def _write(tmp_path: Path, *objs, raw_lines=()) -> Path:
    path = tmp_path / "data.jsonl"
    lines = [json.dumps(o) for o in objs] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _error(tmp_path: Path, mutate) -> str:
    bad = copy.deepcopy(GOOD)
    mutate(bad)
    other = dict(copy.deepcopy(GOOD), id="s0")
    path = _write(tmp_path, other, bad)  # the bad scenario sits on line 2
    with pytest.raises(StreamFormatError) as info:
        load_stream(path)
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}:2: ")
    return msg[len(f"{path}:2: "):]


def test_load_good(tmp_path):
    path = _write(tmp_path, GOOD, raw_lines=["", "   "])
    [s] = load_stream(path)
    assert s.id == "s1" and [e.id for e in s.events] == ["e1", "e2"]
    assert s.events[0].time == datetime(2024, 1, 1, 10, 0)
    assert s.probes[0].time == datetime(2024, 3, 2)  # date-only ISO 8601
    assert s.probes[1].view == "historical" and s.probes[1].meta == {"slot": "car"}
    assert s.events[0].meta == {} and s.meta == {"topic": "vehicles"}


def test_alternates_default_to_empty(tmp_path):
    obj = copy.deepcopy(GOOD)
    del obj["probes"][0]["alternates"]
    [s] = load_stream(_write(tmp_path, obj))
    assert s.probes[0].alternates == []


@pytest.mark.parametrize(
    "mutate,expected",
    [
        (lambda o: o["probes"][1].__setitem__("time", "2024-13-01"), 'probes[1].time: invalid datetime "2024-13-01"'),
        (lambda o: o["events"][0].__setitem__("time", 1700000000),
         "events[0].time: invalid datetime 1700000000: expected an ISO 8601 string"),
        (lambda o: o["probes"][0].__setitem__("colour", "red"), "probes[0].colour: unknown field"),
        (lambda o: o.__setitem__("extra", 1), "extra: unknown field"),
        (lambda o: o["probes"][0].pop("question"), "probes[0].question: missing field"),
        (lambda o: o["events"][1].__setitem__("text", "  "), "events[1].text: text is blank"),
        (lambda o: o["events"][1].__setitem__("id", "e1"), 'events[1].id: duplicate id "e1" (first at events[0])'),
        (lambda o: o["probes"][1].__setitem__("id", "p1"), 'probes[1].id: duplicate id "p1" (first at probes[0])'),
        (lambda o: o["probes"][0].__setitem__("alternates", ["Bus", "prius!"]),
         'probes[0].alternates: alias [1] "prius!" is also a gold alias'),
        (lambda o: o["probes"][0].__setitem__("gold", ["?"]), 'probes[0].gold: alias [0] "?" is empty after normalisation'),
        (lambda o: o["probes"][0].__setitem__("gold", []), "probes[0].gold: list should have at least 1 item"),
        (lambda o: o["probes"][0].__setitem__("view", "now"), "probes[0].view: input should be 'current'"),
        (lambda o: o["events"][0].__setitem__("speaker", None), "events[0].speaker: input should be a valid string, got null"),
        (lambda o: o["events"][0].__setitem__("time", "2024-01-01T10:00:00+02:00"),
         "events[1].time: mixes naive and offset-aware times in one scenario"),
        (lambda o: o["meta"].__setitem__("x", 1) or o.__setitem__("meta", []), "meta: input should be a valid dictionary"),
    ],
)
def test_errors_are_one_line_with_path(tmp_path, mutate, expected):
    assert _error(tmp_path, mutate).startswith(expected)


def test_several_errors_are_counted(tmp_path):
    msg = _error(tmp_path, lambda o: (o["probes"][0].pop("question"), o["probes"][1].pop("view")))
    assert msg == "probes[0].question: missing field (+1 more)"


def test_bad_json_and_non_objects(tmp_path):
    path = _write(tmp_path, GOOD, raw_lines=['{"id": "s2", '])
    with pytest.raises(StreamFormatError, match=r"data\.jsonl:2: invalid JSON: .*\(column \d+\)$"):
        load_stream(path)
    path = _write(tmp_path, ["not", "an", "object"])
    with pytest.raises(StreamFormatError, match=r"data\.jsonl:1: input should be a valid dictionary"):
        load_stream(path)


def test_duplicate_scenario_ids(tmp_path):
    path = _write(tmp_path, GOOD, dict(GOOD, id="s2"), GOOD)
    with pytest.raises(StreamFormatError) as info:
        load_stream(path)
    assert str(info.value) == f'{path}:3: id: duplicate scenario id "s1" (first on line 1)'


def test_unreadable_files(tmp_path):
    with pytest.raises(StreamFormatError, match=r"missing\.jsonl: cannot read: "):
        load_stream(tmp_path / "missing.jsonl")
    with pytest.raises(StreamFormatError, match="cannot read"):
        load_stream(tmp_path)  # a directory
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"id": "caf\xe9"}\n')
    with pytest.raises(StreamFormatError, match=r"latin1\.jsonl: cannot read: .*utf-8"):
        load_stream(bad)


def test_empty_file_is_no_scenarios(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    assert load_stream(path) == []


def test_models_are_frozen_and_strict():
    s = Scenario.model_validate(GOOD)
    with pytest.raises(ValidationError):
        s.id = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Event(id="e", time="2024-01-01", speaker="u", text="t", colour="red")  # type: ignore[call-arg]
    aware = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=1)))
    p = Probe(id="p", question="q?", view="neutral", gold=["x"], time=aware)
    assert p.time == aware and p.alternates == []
    with pytest.raises(ValidationError):
        Scenario(id="", events=[], probes=[])


def test_dump_then_load_round_trips(tmp_path):
    scenarios = [Scenario.model_validate(GOOD), Scenario.model_validate(dict(copy.deepcopy(GOOD), id="s2"))]
    path = tmp_path / "sub" / "out.jsonl"
    dump_stream(scenarios, path)
    assert load_stream(path) == scenarios
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2
    assert [p.name for p in path.parent.iterdir()] == ["out.jsonl"]


def test_dump_refuses_duplicates_and_keeps_old_file(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    s = Scenario.model_validate(GOOD)
    with pytest.raises(StreamFormatError, match='duplicate scenario id "s1"'):
        dump_stream([s, s], path)
    assert path.read_text() == "old\n"


def test_dump_is_atomic_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(stream_format.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        dump_stream([Scenario.model_validate(GOOD)], path)
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.jsonl"]  # temp file removed
