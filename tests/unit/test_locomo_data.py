"""eval.locomo_data: the loader on a small hand-made release, and the official file's counts."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from eval.locomo_data import ENV_VAR, LocomoDataError, default_locomo_path, load_locomo

TINY = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            # keys out of order, an extra date key without a session, session 10 after 2
            "session_2_date_time": "9:05 am on 1 June, 2023",
            "session_10": [{"speaker": "Bo", "dia_id": "D10:1", "text": "Last one."}],
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Look at this!", "blip_caption": "a photo of a dog",
                 "img_url": ["http://example.invalid/x.jpg"], "query": "dog"},
            ],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Cute.", "blip_caption": ""}],
            "session_10_date_time": "12:00 am on 3 July, 2023",
            "session_11_date_time": "1:00 pm on 4 July, 2023",
        },
        "qa": [
            {"question": "Q1?", "answer": 2022, "evidence": ["D1:1"], "category": 2},
            {"question": "Q2?", "adversarial_answer": "Yes", "evidence": ["D8:6; D9:17", "D"], "category": 5},
            {"question": "Q3?", "adversarial_answer": "Yes", "answer": "No", "evidence": [], "category": 5},
            {"question": "Q4?", "answer": "a; b", "evidence": ["D2:1"], "category": 3},
        ],
        "event_summary": {},
        "observation": {},
        "session_summary": {},
    }
]


def _file(tmp_path: Path, data) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_tiny_release(tmp_path):
    [s] = load_locomo(_file(tmp_path, TINY))
    assert (s.sample_id, s.speaker_a, s.speaker_b) == ("conv-x", "Ann", "Bo")
    assert [t.dia_id for t in s.turns] == ["D1:1", "D1:2", "D2:1", "D10:1"]
    assert [t.session for t in s.turns] == [1, 1, 2, 10]
    assert s.turns[0].time == datetime(2023, 5, 8, 13, 56)
    assert s.turns[2].time == datetime(2023, 6, 1, 9, 5)
    assert s.turns[3].time == datetime(2023, 7, 3, 0, 0)
    photo = s.turns[1]
    assert photo.text == "Look at this! [shares a photo: a photo of a dog]"
    assert photo.raw_text == "Look at this!" and photo.blip_caption == "a photo of a dog"
    assert s.turns[2].text == "Cute." and s.turns[2].blip_caption is None  # empty caption: no photo text
    q1, q2, q3, q4 = s.qa
    assert (q1.answer, q1.category, q1.index) == ("2022", 2, 0)
    assert (q2.answer, q2.adversarial_answer, q2.source_answer) == ("Yes", "Yes", None)
    assert q2.evidence == ["D8:6; D9:17", "D"]
    assert (q3.answer, q3.adversarial_answer, q3.source_answer) == ("Yes", "Yes", "No")
    assert q4.answer == "a; b"  # the ";" cut belongs to scoring, not loading


@pytest.mark.parametrize(
    "mutate,pattern",
    [
        (lambda d: d[0]["conversation"].pop("session_1_date_time"), r"conv-x: session_1 has no session_1_date_time$"),
        (lambda d: d[0]["conversation"].__setitem__("session_1_date_time", "8 May 2023"),
         r"conv-x: session_1_date_time: bad date '8 May 2023'$"),
        (lambda d: d[0].pop("qa"), r"conv-x: missing field 'qa'$"),
        (lambda d: d[0]["qa"][0].pop("answer"), r"conv-x: missing field 'answer'$"),
        (lambda d: d[0].pop("sample_id"), r"sample \[0\]: missing field 'sample_id'$"),
        (lambda d: d[0]["qa"][0].__setitem__("category", "x"), r"conv-x: malformed sample: "),
    ],
)
def test_malformed_release(tmp_path, mutate, pattern):
    data = json.loads(json.dumps(TINY))
    mutate(data)
    with pytest.raises(LocomoDataError, match=pattern) as info:
        load_locomo(_file(tmp_path, data))
    assert "\n" not in str(info.value)


def test_missing_and_unreadable(tmp_path, monkeypatch):
    with pytest.raises(LocomoDataError, match=r"nope\.json: cannot read LoCoMo data: No such file or directory$"):
        load_locomo(tmp_path / "nope.json")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env.json"))
    assert default_locomo_path() == tmp_path / "env.json"
    with pytest.raises(LocomoDataError, match=rf"env\.json: cannot read .*\(set {ENV_VAR} or pass a path\)$"):
        load_locomo()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LocomoDataError, match=r"bad\.json: not a JSON file: "):
        load_locomo(bad)
    with pytest.raises(LocomoDataError, match="expected a JSON list of samples, got dict"):
        load_locomo(_file(tmp_path, {"a": 1}))


def test_default_path_beside_checkout(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    repo_root = Path(__file__).resolve().parents[2]
    assert default_locomo_path() == repo_root.parent / "shared" / "data" / "locomo" / "locomo10.json"


def _official_path() -> Path:
    return default_locomo_path()


@pytest.mark.skipif(
    not _official_path().is_file(),
    reason=f"LoCoMo release not found at {_official_path()} (set {ENV_VAR} to locomo10.json to run this check)",
)
def test_official_release_counts():
    samples = load_locomo(_official_path())
    assert len(samples) == 10
    assert [s.sample_id for s in samples][:2] == ["conv-26", "conv-30"]
    assert sum(len(s.turns) for s in samples) == 5882
    qa = [q for s in samples for q in s.qa]
    assert len(qa) == 1986
    assert Counter(q.category for q in qa) == {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
    assert all(isinstance(q.answer, str) and q.answer for q in qa)
    assert sum(1 for q in qa if q.category == 5 and q.source_answer is not None) == 2
    first = samples[0].turns[0]
    assert (first.dia_id, first.time) == ("D1:1", datetime(2023, 5, 8, 13, 56))
    assert max(t.session for t in samples[0].turns) == 19  # conv-26: 19 sessions, more date keys
    assert sum(1 for s in samples for t in s.turns if t.blip_caption) == 1226
