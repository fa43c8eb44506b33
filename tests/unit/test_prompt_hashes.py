"""Run manifests hash each prompt through its module's public fingerprint (eval.stream.prompt_hashes)."""
from __future__ import annotations

import hashlib

import pytest

from adapters import builtin
from atma import controller, judge, serializer
from eval import grading
from atma.records import Record
from eval.stream import prompt_hashes


def _system(messages) -> str:
    return next(m["content"] for m in messages if m["role"] == "system")


_REC = Record(id="r1", namespace="n", text="I live in Leeds")


# Each prompt's system text, read through the public message builders (never private names).
SYSTEMS = {
    "qa": (serializer, [_system(serializer.qa_messages("q", "current", [])),
                        _system(serializer.resolved_messages("q", "current", []))]),
    "host_plain_qa": (builtin, [_system(builtin.plain_qa_messages("q", []))]),
    "answer_judge": (grading, [_system(grading.judge_prompt("q", "a", ["g"], ["x"]))]),
    "audit_judge": (judge, [_system(judge.judge_messages(_REC, _REC))]),
}


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_fingerprint_holds_the_whole_system_prompt(name):
    module, systems = SYSTEMS[name]
    fp = module.prompt_fingerprint()
    for system in systems:
        assert system.splitlines()[0] in fp and system in fp
    assert prompt_hashes()[name] == hashlib.sha256(fp.encode("utf-8")).hexdigest()


def test_controller_fingerprint_holds_its_system_prompt_and_instructions():
    import json

    from atma.controller import ControllerConfig
    from atma.profiler import profile

    query = "Where does Ana live now?"
    msgs = controller.controller_messages(query, profile(query), [], 5, ControllerConfig())
    fp = controller.prompt_fingerprint()
    assert fp.startswith(controller.CONTROLLER_PROMPT_VERSION + "\n")
    assert _system(msgs) in fp
    user = json.loads(msgs[1]["content"])
    assert user["instructions"] in fp and user["output_schema"] in fp
    assert prompt_hashes()["controller"] == hashlib.sha256(fp.encode("utf-8")).hexdigest()


def test_locomo_judge_fingerprint_holds_its_system_prompt_and_user_template():
    from eval import locomo

    fp = locomo.prompt_fingerprint()
    system, user = (m["content"] for m in locomo.judge_messages("@Q", "@G", "@A"))
    assert fp.startswith(locomo.JUDGE_PROMPT_VERSION + "\n") and system in fp
    assert user.replace("@Q", "{question}").replace("@G", "{gold}").replace("@A", "{answer}") in fp


def test_qa_fingerprint_covers_both_versions_and_every_view_hint():
    fp = serializer.prompt_fingerprint()
    assert serializer.QA_PROMPT_VERSION in fp and serializer.RESOLVED_PROMPT_VERSION in fp
    for view in ("current", "historical", "transition"):
        hint = serializer.qa_messages("q", view, [])[1]["content"].split("The question asks about ", 1)[1].split(".\n")[0]
        assert hint in fp
        resolved_user = serializer.resolved_messages("q", view, [])[1]["content"]
        assert any(line in fp for line in resolved_user.splitlines() if line.startswith("The question asks"))
