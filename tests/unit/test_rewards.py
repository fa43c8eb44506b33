"""GRPO rule rewards: doctests, and the gold CoT targets score top marks on every reward."""

from __future__ import annotations

import doctest
import json

import pytest

from training import judge_data as jd
from training import rewards as rw


def test_doctests():
    res = doctest.testmod(rw)
    assert res.attempted >= 9 and res.failed == 0


@pytest.fixture(scope="module")
def items():
    return jd.generate(17, n_train=120, n_heldout=10)["train"]


def _kw(items):
    return {"gold": [json.dumps(i["verdict"]) for i in items], "implicit": [i["implicit"] for i in items],
            "prompts": [jd.item_messages(i) for i in items]}


def test_gold_targets_get_the_best_score(items):
    comps = [[{"role": "assistant", "content": i["target"]}] for i in items]  # conversational shape
    kw = _kw(items)
    assert rw.format_reward(comps, **kw) == [1.0] * len(items)
    assert all(r >= 1.0 for r in rw.verdict_reward(comps, **kw))
    assert all(r >= 0.0 for r in rw.implicit_violation_reward(comps, **kw))
    assert rw.length_reward(comps, **kw) == [0.0] * len(items)
    assert rw.tag_cohesion_reward(comps, **kw) == [0.5] * len(items)
    assert rw.conclusion_conciseness_reward(comps, **kw) == [0.5] * len(items)
    assert rw.prompt_echo_penalty(comps, **kw) == [0.0] * len(items)
    assert all(r >= 0.0 for r in rw.old_memory_preservation_reward(comps, **kw))
    trans = [r for r, i in zip(rw.transition_summary_reward(comps, **kw), items) if i["verdict"]["action"] == "transition"]
    assert trans and all(r == 1.0 for r in trans)


def test_wrong_and_broken_replies_score_lower(items):
    kw = _kw(items)
    none_reply = ('<think>\nStep 1 (entity and attribute): x\n</think>\n{"action": "none", "conflict_status": '
                  '"no_conflict", "conflict_type": "none", "links": []}')
    imp = [k for k, i in enumerate(items) if i["implicit"]]
    assert imp
    r = rw.implicit_violation_reward([none_reply] * len(items), **kw)
    assert all(r[k] == -1.0 for k in imp)
    assert rw.format_reward([none_reply]) == [0.5]
    assert rw.verdict_reward(["garbage"] * len(items), **kw) == [-1.0] * len(items)
    echo = [jd.item_messages(items[0])[0]["content"][:600]]
    assert rw.prompt_echo_penalty(echo, prompts=[jd.item_messages(items[0])]) == [-1.0]


def test_all_rewards_return_one_float_per_completion(items):
    kw = _kw(items[:3])
    for fn in rw.REWARD_FUNCS:
        out = fn(["", "<think>", items[0]["target"]], **kw)
        assert len(out) == 3 and all(isinstance(x, float) for x in out), fn.__name__
