"""eval.grading: normalisation, word-boundary naming, closed-pool verdicts, the optional judge."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atma.protocols import LLMError
from atma.testing import ScriptedLLM
from eval.grading import (
    JUDGE_PROMPT_VERSION,
    JUDGE_SCHEMA,
    Grade,
    grade,
    judge_prompt,
    names,
    normalize,
    parse_judge,
    parse_judge_reply,
    resolve_with_judge,
)

# ------------------------------------------------------------------ normalize / names


@pytest.mark.parametrize(
    "a,b",
    [
        ("1,290", "1290"),
        ("$1,290,000", "1290000"),
        ("7.50", "7.5"),
        ("7.0", "7"),
        ("3,500.00", "3500"),
        ("Café", "cafe"),
        ("ＰＲＩＵＳ", "prius"),  # full-width letters (NFKD)
        ("Straße", "strasse"),
        ("it's  the\tPrius!!", "it s the prius"),
        ("end of sentence 7.5.", "end of sentence 7.5"),
        ("e-mail", "e mail"),
        ("a\u00a0b", "a b"),  # no-break space
    ],
)
def test_normalize_equates(a, b):
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize("a,b", [("07", "7"), ("7.05", "7.5"), ("1,2", "12"), ("three", "3"), ("1.2.3", "1.23")])
def test_normalize_keeps_apart(a, b):
    assert normalize(a) != normalize(b)


@given(st.text())
def test_normalize_is_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once
    assert once == once.strip() and "  " not in once


@given(st.text(min_size=1))
def test_a_text_names_itself(text):
    if normalize(text):
        assert names(f"well, {text} indeed", text)


def test_names_word_boundaries():
    assert names("I drove a Civic.", "civic")
    assert not names("Civics class", "civic")
    assert not names("It was 17.5", "7.5")
    assert not names("It was 7.5", "7")
    assert names("The Honda Civic Type R", "civic type r")
    assert not names("anything", "!!!")


# ------------------------------------------------------------------ grade


PRIUS_Q = "What did I drive before the Prius?"


@pytest.mark.parametrize(
    "answer,verdict,ambiguous",
    [
        ("Before the Prius I drove a Civic", "correct", False),  # question echo set aside
        ("A Civic.", "correct", False),
        ("You drove a Civic, and now you drive a Prius", "correct", False),
        ("The Prius.", "drift", True),  # only the echoed option: used, but flagged
        ("I don't know what came before the Prius", "drift", True),  # why it is flagged
        ("I'm not sure.", "other", True),
        ("A Tesla.", "other", True),
    ],
)
def test_question_echo(answer, verdict, ambiguous):
    g = grade(answer, ["Civic", "Honda Civic"], ["Prius"], PRIUS_Q)
    assert (g.verdict, g.ambiguous) == (verdict, ambiguous)


def test_echo_fields():
    g = grade("Before the Prius I drove a Honda Civic", ["Civic", "Honda Civic"], ["Prius"], PRIUS_Q)
    assert g == Grade(verdict="correct", gold_hit=True, alt_hit=False, ambiguous=False,
                      matched=("Honda Civic",), ignored=("Prius",))
    g = grade("The Prius", ["Civic"], ["Prius"], PRIUS_Q)
    assert g.matched == ("Prius",) and g.ignored == ()


def test_both_named_in_question_falls_back_to_other():
    q = "Did I switch from Dr. Lee to Dr. Park?"
    g = grade("You switched from Dr. Lee to Dr. Park.", ["Dr. Park"], ["Dr. Lee"], q)
    assert (g.verdict, g.gold_hit, g.alt_hit, g.ambiguous) == ("other", True, True, True)


def test_without_question_both_named_is_other():
    g = grade("Before the Prius I drove a Civic", ["Civic"], ["Prius"])
    assert (g.verdict, g.ambiguous) == ("other", True)


@pytest.mark.parametrize(
    "answer,gold,alternates,verdict,ambiguous",
    [
        ("I live on Bristol Road", ["Bristol Road"], ["Bristol"], "correct", False),
        ("I live on Bristol Road", ["Bristol"], ["Bristol Road"], "drift", False),
        ("I live in Bristol", ["Bristol"], ["Bristol Road"], "correct", False),
        ("Bristol Road, in Bristol", ["Bristol Road"], ["Bristol"], "other", True),
        ("Bristol Road", ["Bristol Road", "Bristol Rd"], ["Bristol"], "correct", False),
    ],
)
def test_alias_inside_longer_alias(answer, gold, alternates, verdict, ambiguous):
    g = grade(answer, gold, alternates)
    assert (g.verdict, g.ambiguous) == (verdict, ambiguous)


def test_echo_with_containment_in_question():
    # the question names "Bristol Road" only; its "Bristol" is inside it, so Bristol is not echoed
    g = grade("Bristol", ["Bristol"], ["Bristol Road"], "Do I still live on Bristol Road?")
    assert (g.verdict, g.ambiguous) == ("correct", False)


def test_numbers_in_pool():
    assert grade("It came to $1,290.", ["1290"], ["1190"]).verdict == "correct"
    assert grade("14 packs", ["14"], ["20"]).verdict == "correct"
    assert grade("That's 20 packs total.", ["14"], ["20"]).verdict == "drift"
    assert grade("7.50 an hour", ["7.5"], ["8"]).verdict == "correct"
    assert grade("140 packs", ["14"], ["20"]).verdict == "other"


def test_several_alternates_name_two_options():
    g = grade("Either Leeds or York", ["Bath"], ["Leeds", "York"])
    assert (g.verdict, g.alt_hit, g.ambiguous) == ("drift", True, True)
    g = grade("Leeds", ["Bath"], ["Leeds", "leeds!"])  # same option after normalisation
    assert (g.verdict, g.ambiguous) == ("drift", False)


def test_bad_pools():
    with pytest.raises(ValueError, match="gold"):
        grade("x", [], ["y"])
    with pytest.raises(ValueError, match="both gold and alternate"):
        grade("x", ["Civic"], ["civic!"])
    with pytest.raises(ValueError, match="empty"):
        grade("x", ["?"], [])


@given(st.sampled_from(["Civic", "Prius", "Tesla Model 3", "7.5", "Bristol Road"]),
       st.text(alphabet="abc ,.!?", max_size=20))
def test_gold_answer_is_correct(gold_value, noise):
    pool = {"Civic", "Prius", "Tesla Model 3", "7.5", "Bristol Road"} - {gold_value}
    g = grade(f"{noise} {gold_value}", [gold_value], sorted(pool))
    assert g.verdict == "correct"


# ------------------------------------------------------------------ judge


def test_judge_prompt_is_versioned_and_complete():
    msgs = judge_prompt("Where do I live now?", "On Bristol Road.", ["Bristol Road", "Bristol Rd"], ["Leeds"])
    assert JUDGE_PROMPT_VERSION.endswith("/v1")
    assert [m["role"] for m in msgs] == ["system", "user"]
    user = msgs[1]["content"]
    for part in ("Where do I live now?", "Bristol Road | Bristol Rd", "Alternate answers: Leeds", "On Bristol Road."):
        assert part in user
    assert "partial" in msgs[0]["content"]
    assert "Alternate answers: (none)" in judge_prompt("q", "a", ["g"], [])[1]["content"]


@pytest.mark.parametrize(
    "text,label",
    [
        ('{"label": "correct", "option": "gold"}', "correct"),
        ('  {"option": "none", "label": "partial"}\n', "partial"),
        ('```json\n{"label": "incorrect", "option": "alternate"}\n```', "incorrect"),
        ('```\n{"label": "incorrect", "option": "none"}\n```', "incorrect"),
        ('{"label": "Correct", "option": "gold"}', None),
        ('{"label": "correct"}', None),
        ('{"label": "correct", "option": "gold", "why": "x"}', None),
        ('{"label": "correct", "option": "alternate"}', None),  # inconsistent
        ('Label: {"label": "correct", "option": "gold"}', None),
        ("correct", None),
        ('["correct"]', None),
        ("", None),
    ],
)
def test_parse_judge_is_strict(text, label):
    assert parse_judge(text) == label


def test_schema_matches_parser():
    props = JUDGE_SCHEMA["properties"]
    assert set(props) == {"label", "option"} and JUDGE_SCHEMA["additionalProperties"] is False
    for lab in props["label"]["enum"]:
        for opt in props["option"]["enum"]:
            reply = parse_judge_reply(json.dumps({"label": lab, "option": opt}))
            assert (reply is None) == (lab == "correct" and opt != "gold")


def _resolve(answer, reply, *, gold=("Civic",), alternates=("Prius",), question=PRIUS_Q, **kw):
    llm = ScriptedLLM([reply])
    g = grade(answer, list(gold), list(alternates), question)
    out = resolve_with_judge(g, llm, question=question, answer=answer, gold=list(gold),
                             alternates=list(alternates), **kw)
    return out, llm


def test_unambiguous_grades_skip_the_judge():
    out, llm = _resolve("A Civic.", '{"label": "incorrect", "option": "none"}')
    assert out.verdict == "correct" and out.decided_by == "matcher" and llm.calls == []
    out, llm = _resolve("A Civic.", '{"label": "incorrect", "option": "none"}', always=True)
    assert out.verdict == "other" and out.judge_label == "incorrect" and len(llm.calls) == 1


@pytest.mark.parametrize(
    "reply,verdict",
    [
        ('{"label": "correct", "option": "gold"}', "correct"),
        ('{"label": "partial", "option": "gold"}', "other"),
        ('{"label": "incorrect", "option": "alternate"}', "drift"),
        ('{"label": "partial", "option": "alternate"}', "drift"),
        ('{"label": "incorrect", "option": "none"}', "other"),
    ],
)
def test_judge_mapping(reply, verdict):
    out, llm = _resolve("I don't know what came before the Prius", reply)
    assert out.verdict == verdict and out.decided_by == "judge"
    assert out.judge_label == json.loads(reply)["label"]
    call = llm.calls[0]
    assert call.json_schema == JUDGE_SCHEMA and call.temperature == 0.0


def test_judge_failures_keep_the_matcher_verdict():
    out, _ = _resolve("The Prius", "I think it is drift")
    assert out.verdict == "drift" and out.decided_by == "matcher" and "unparsable" in out.judge_error
    out, _ = _resolve("The Prius", LLMError("timed out"))
    assert out.verdict == "drift" and out.judge_error == "llm error: timed out"
    with pytest.raises(RuntimeError):
        _resolve("The Prius", RuntimeError("a bug, not a backend failure"))
