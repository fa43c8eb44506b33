"""Rule rewards for GRPO on the audit Judge (App. A.8).

Each reward is a pure function ``(completions, **kwargs) -> list[float]`` in the shape TRL's
``GRPOTrainer`` calls: ``completions`` are strings or chat turns (``[{"role": "assistant",
"content": ...}]``); dataset columns arrive as keyword lists: ``gold`` (the gold verdict as
a dict or JSON string), ``implicit`` (bool), and ``prompts``. Values are fixed, so a reward
log is readable: the format reward is 1.0 / 0.5 / 0, the rest add or subtract fixed amounts.

``REWARD_FUNCS`` lists them in the order :mod:`training.judge_grpo` passes them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

from atma.judge import Verdict
from training.judge_data import STEP_LABELS, needs_change, split_think
from atma.judge import parse_verdict

__all__ = [
    "REWARD_FUNCS",
    "conclusion_conciseness_reward",
    "format_reward",
    "implicit_violation_reward",
    "length_reward",
    "old_memory_preservation_reward",
    "prompt_echo_penalty",
    "tag_cohesion_reward",
    "transition_summary_reward",
    "verdict_reward",
]


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content", ""))
    return "".join(str(m.get("content", "")) for m in completion if isinstance(m, Mapping))


def _gold(g: Any) -> dict[str, Any]:
    return json.loads(g) if isinstance(g, str) else dict(g)


def _verdict(text: str) -> Verdict | None:
    return parse_verdict(split_think(text)[1]).verdict


def _words(s: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", s.lower())


def _token_f1(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    common = sum(min(wa.count(w), wb.count(w)) for w in set(wa))
    if not common:
        return 0.0
    p, r = common / len(wa), common / len(wb)
    return 2 * p * r / (p + r)


_GOOD = ('<think>\nStep 1 (entity and attribute): x\nStep 2 (old state): x\nStep 3 (new state): x\n'
         'Step 4 (relation): x\n</think>\n{"action": "none", "conflict_status": "no_conflict", '
         '"conflict_type": "none", "links": []}')


def format_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """1.0 for a closed ``<think>`` block holding all four step labels, 0.5 for the tags
    without all labels, 0 otherwise.

    >>> format_reward([_GOOD, "<think>hmm</think>{}", "{}"])
    [1.0, 0.5, 0.0]
    """
    out = []
    for c in completions:
        t = _text(c)
        m = re.search(r"<think>(.*?)</think>", t, re.DOTALL)
        if not m:
            out.append(0.0)
        else:
            out.append(1.0 if all(label in m.group(1) for label in STEP_LABELS) else 0.5)
    return out


def verdict_reward(completions: Sequence[Any], gold: Sequence[Any], **kwargs: Any) -> list[float]:
    """+1.0 right action (+0.25 more with the right conflict type); 0 wrong action on the
    right side of needs-a-change; -0.5 wrong side; -1.0 no valid verdict.

    >>> g = {"action": "none", "conflict_type": "none"}
    >>> verdict_reward([_GOOD, "not json"], gold=[g, g])
    [1.25, -1.0]
    """
    out = []
    for c, g in zip(completions, gold):
        v, gd = _verdict(_text(c)), _gold(g)
        if v is None:
            out.append(-1.0)
        elif v.action == gd["action"]:
            out.append(1.0 + (0.25 if v.conflict_type == gd.get("conflict_type") else 0.0))
        else:
            out.append(0.0 if needs_change(v.action) == needs_change(gd["action"]) else -0.5)
    return out


def implicit_violation_reward(completions: Sequence[Any], gold: Sequence[Any], implicit: Sequence[bool],
                              **kwargs: Any) -> list[float]:
    """On implicit violations only: +1.0 when the verdict retires the old state, -1.0 when
    it does not (or is invalid); 0 on every other item.

    >>> sup = '{"action": "supersede", "conflict_status": "conflict", "conflict_type": "temporal_update", "links": ["supersedes"]}'
    >>> g = {"action": "supersede"}
    >>> implicit_violation_reward([sup, _GOOD, _GOOD], gold=[g, g, g], implicit=[True, True, False])
    [1.0, -1.0, 0.0]
    """
    out = []
    for c, g, imp in zip(completions, gold, implicit):
        if not imp:
            out.append(0.0)
            continue
        v = _verdict(_text(c))
        out.append(1.0 if v is not None and needs_change(v.action) else -1.0)
    return out


def length_reward(completions: Sequence[Any], *, min_chars: int = 120, max_chars: int = 1400,
                  **kwargs: Any) -> list[float]:
    """0 inside ``[min_chars, max_chars]``, -0.5 outside (rambling or skipping the reasoning).

    >>> length_reward(["x" * 200, "x" * 10, "x" * 5000])
    [0.0, -0.5, -0.5]
    """
    return [0.0 if min_chars <= len(_text(c)) <= max_chars else -0.5 for c in completions]


def tag_cohesion_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """+0.5 when the reply opens with ``<think>``, has exactly one ``<think>`` and one
    ``</think>``, in that order; -0.5 otherwise.

    >>> tag_cohesion_reward([_GOOD, "pre <think>a</think>{}", "<think>a</think><think>b</think>{}", "{}"])
    [0.5, -0.5, -0.5, -0.5]
    """
    out = []
    for c in completions:
        t = _text(c).lstrip()
        ok = (t.startswith("<think>") and t.count("<think>") == 1 and t.count("</think>") == 1
              and t.index("<think>") < t.index("</think>"))
        out.append(0.5 if ok else -0.5)
    return out


def conclusion_conciseness_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """+0.5 when what follows ``</think>`` is exactly one JSON object; -0.5 when prose
    surrounds it or there is no JSON object.

    >>> conclusion_conciseness_reward([_GOOD, "<think>a</think>Sure! {\\"a\\": 1} Hope this helps.", "<think>a</think>"])
    [0.5, -0.5, -0.5]
    """
    out = []
    for c in completions:
        rest = split_think(_text(c))[1]
        try:
            ok = isinstance(json.loads(rest), dict)
        except json.JSONDecodeError:
            ok = False
        out.append(0.5 if ok else -0.5)
    return out


def _system_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return " ".join(str(m.get("content", "")) for m in prompt if m.get("role") == "system")


def prompt_echo_penalty(completions: Sequence[Any], prompts: Sequence[Any] | None = None, *, n: int = 6,
                        threshold: float = 0.2, **kwargs: Any) -> list[float]:
    """-1.0 when more than ``threshold`` of the reply's word ``n``-grams are copied from the
    system prompt (instructions or in-prompt examples echoed back); 0 otherwise. The JSON
    verdict is not counted (its keys are the prompt's field names by design).

    >>> sysmsg = [{"role": "system", "content": "compare an old memory with a new memory and decide what to do now"}]
    >>> prompt_echo_penalty(["compare an old memory with a new memory and decide", _GOOD], prompts=[sysmsg, sysmsg])
    [-1.0, 0.0]
    """
    if prompts is None:
        return [0.0] * len(completions)
    out = []
    for c, p in zip(completions, prompts):
        src = _words(_system_text(p))
        grams = {tuple(src[i:i + n]) for i in range(len(src) - n + 1)}
        think, rest = split_think(_text(c))
        w = _words(think if think is not None else re.sub(r"\{.*\}", " ", rest, flags=re.DOTALL))
        mine = [tuple(w[i:i + n]) for i in range(len(w) - n + 1)]
        frac = sum(g in grams for g in mine) / len(mine) if mine else 0.0
        out.append(-1.0 if frac > threshold else 0.0)
    return out


def old_memory_preservation_reward(completions: Sequence[Any], gold: Sequence[Any], **kwargs: Any) -> list[float]:
    """Retiring a state must keep it recoverable; a still-true state must not be retired.

    Gold supersede/transition: +0.5 when ``old_state`` names the gold old state (token F1
    >= 0.5), -0.5 when it is empty or unrelated. Gold keeps the old memory true: -0.5 when the
    verdict says ``old_still_true: false``, else 0. Invalid verdict: -0.5.

    >>> g = {"action": "supersede", "old_state": "Kwame lives in Porto", "old_still_true": False}
    >>> ok = '{"action": "supersede", "conflict_status": "conflict", "conflict_type": "temporal_update", "links": ["supersedes"], "old_state": "lives in Porto"}'
    >>> bad = '{"action": "supersede", "conflict_status": "conflict", "conflict_type": "temporal_update", "links": ["supersedes"]}'
    >>> old_memory_preservation_reward([ok, bad], gold=[g, g])
    [0.5, -0.5]
    """
    out = []
    for c, g in zip(completions, gold):
        v, gd = _verdict(_text(c)), _gold(g)
        if v is None:
            out.append(-0.5)
        elif needs_change(gd["action"]):
            out.append(0.5 if _token_f1(v.old_state, gd.get("old_state", "")) >= 0.5 else -0.5)
        else:
            out.append(-0.5 if gd.get("old_still_true", True) and v.old_still_true is False else 0.0)
    return out


def transition_summary_reward(completions: Sequence[Any], gold: Sequence[Any], **kwargs: Any) -> list[float]:
    """Gold transitions: token F1 of ``transition_summary`` against the gold summary, or
    -0.5 when it is empty. Other items: -0.25 for a summary on a non-transition, else 0.

    >>> g = {"action": "transition", "transition_summary": "Porto to Tallinn"}
    >>> t = '{"action": "transition", "conflict_status": "conflict", "conflict_type": "temporal_update", "links": ["evolves_from"], "transition_summary": "Porto to Tallinn"}'
    >>> transition_summary_reward([t, _GOOD], gold=[g, g])
    [1.0, -0.5]
    """
    out = []
    for c, g in zip(completions, gold):
        v, gd = _verdict(_text(c)), _gold(g)
        if gd["action"] == "transition":
            out.append(-0.5 if v is None or not v.transition_summary
                       else round(_token_f1(v.transition_summary, gd.get("transition_summary", "")), 4))
        else:
            out.append(-0.25 if v is not None and v.transition_summary and v.action != "transition" else 0.0)
    return out


REWARD_FUNCS = (
    format_reward,
    verdict_reward,
    implicit_violation_reward,
    length_reward,
    tag_cohesion_reward,
    conclusion_conciseness_reward,
    prompt_echo_penalty,
    old_memory_preservation_reward,
    transition_summary_reward,
)
