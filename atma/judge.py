"""Audit Judge: prompt, JSON schema, strict parsing, deterministic fallback, and commit planning.

Pure: the overlay makes the LLM call and hands the text back here. A reply that is
not valid JSON, breaks the schema, or contradicts itself is rejected; the caller then
uses :func:`fallback_verdict`, and the trace records why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .protocols import GateScore, Message
from .records import Action, Change, Commit, LinkType, Record, Status

__all__ = [
    "JUDGE_PROMPT_VERSION",
    "JUDGE_SCHEMA",
    "JudgeParse",
    "Verdict",
    "fallback_verdict",
    "judge_messages",
    "parse_verdict",
    "plan_commit",
]

JUDGE_PROMPT_VERSION = "judge-v1"

ConflictType = Literal["temporal_update", "explicit_negation", "value_discrepancy", "scope_mismatch", "refinement", "none"]
ActionName = Literal["supersede", "transition", "coexist", "scoped_exception", "none"]
LinkName = Literal["supersedes", "evolves_from", "coexists_with", "scoped_exception"]

#: The one link each action writes from the new record to the old one.
ACTION_LINK: Mapping[str, str | None] = {
    "supersede": "supersedes",
    "transition": "evolves_from",
    "coexist": "coexists_with",
    "scoped_exception": "scoped_exception",
    "none": None,
}


class Verdict(BaseModel):
    """The Judge's decision about one (old record, new record) pair."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str = Field(max_length=600)
    conflict_status: Literal["conflict", "no_conflict", "unclear"]
    conflict_type: ConflictType
    action: ActionName
    links: list[LinkName] = Field(default_factory=list, max_length=2)
    transition_summary: str = Field(default="", max_length=300)
    old_state: str = Field(default="", max_length=300)
    clarification_needed: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> "Verdict":
        want = ACTION_LINK[self.action]
        if any(l != want for l in self.links):
            raise ValueError(f"links {self.links} do not match action {self.action!r}")
        if self.action in ("supersede", "transition") and self.conflict_status == "no_conflict":
            raise ValueError(f"action {self.action!r} needs a conflict")
        return self


JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": 300},
        "conflict_status": {"type": "string", "enum": ["conflict", "no_conflict", "unclear"]},
        "conflict_type": {"type": "string", "enum": list(ConflictType.__args__)},  # type: ignore[attr-defined]
        "action": {"type": "string", "enum": list(ActionName.__args__)},  # type: ignore[attr-defined]
        "links": {"type": "array", "items": {"type": "string", "enum": list(LinkName.__args__)}, "maxItems": 1},  # type: ignore[attr-defined]
        "transition_summary": {"type": "string", "maxLength": 200},
        "old_state": {"type": "string", "maxLength": 200},
        "clarification_needed": {"type": "boolean"},
    },
    "required": ["reason", "conflict_status", "conflict_type", "action", "links", "clarification_needed"],
    "additionalProperties": False,
}

_SYSTEM = """You audit a personal memory bank. You compare an OLD memory with a NEW memory and decide how the new one changes the state the old one describes. Do not answer questions; output only JSON.

Actions:
- "supersede": both are about the same attribute of the same person, and the new memory replaces the old value (moved city, changed job, broke up, pet died, a number changed, stopped liking something). The old memory becomes history.
- "transition": the new memory describes a change process between two states (starting to switch, in the middle of moving). Give transition_summary.
- "coexist": same topic, but both stay true together (added detail, a second item, a restatement).
- "scoped_exception": the new memory is true only in a narrower situation, and the old one stays true in general.
- "none": different attributes, different people, or a suggestion or plan by someone else that changes nothing.

A change counts even without contradiction words: "I work at the hospital now" replaces "I teach at the school".
Set links to ["supersedes"] for supersede, ["evolves_from"] for transition, ["coexists_with"] for coexist, ["scoped_exception"] for scoped_exception, [] for none.
Fill old_state with the old value that must be preserved as history when you supersede. Write the reason first, in one short sentence."""


def _fmt(rec_text: str, speaker: str, time: str) -> str:
    who = f"{speaker}: " if speaker else ""
    when = f" (at {time})" if time else ""
    return f"{who}{rec_text}{when}"


def judge_messages(old: Record, new: Record, score: GateScore | None = None) -> list[Message]:
    """The Judge prompt for one pair. A pure function of its inputs."""
    payload: dict[str, Any] = {
        "old_memory": _fmt(old.text, old.speaker, old.time.isoformat(sep=" ", timespec="minutes") if old.time else ""),
        "new_memory": _fmt(new.text, new.speaker, new.time.isoformat(sep=" ", timespec="minutes") if new.time else ""),
    }
    if score is not None:
        payload["sentry"] = {"topic_agreement": round(score.a, 3)}
        if score.b is not None:
            payload["sentry"]["logic_compatibility"] = round(score.b, 3)
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]


@dataclass(frozen=True)
class JudgeParse:
    verdict: Verdict | None
    status: str  # "ok" | "invalid_json" | "schema_error" | "empty"
    error: str = ""


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_verdict(text: str) -> JudgeParse:
    """Strictly parse a Judge reply (one JSON object; a ```json fence is tolerated)."""
    body = _FENCE.sub("", text or "").strip()
    if not body:
        return JudgeParse(None, "empty", "empty reply")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as e:
        return JudgeParse(None, "invalid_json", f"{e.msg} at char {e.pos}")
    if not isinstance(data, dict):
        return JudgeParse(None, "schema_error", "reply is not a JSON object")
    try:
        return JudgeParse(Verdict.model_validate(data), "ok")
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "verdict"
        return JudgeParse(None, "schema_error", f"{loc}: {first['msg']}")


_CHANGE = re.compile(
    r"\b(now|moved|moving|relocated|switched|switching|changed|quit|left|new|started|starting|no longer|not anymore|"
    r"anymore|instead|these days|used to|got rid|broke up|split up|gave up|stopped|passed away|died|sold|adopted|"
    r"promoted|retired|divorced|married|engaged|lately|nowadays|since)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(not|no|never|don't|doesn't|didn't|isn't|aren't|wasn't|can't|won't)\b", re.IGNORECASE)

#: Topic agreement at or above which the fallback treats a pair as the same attribute.
FALLBACK_SAME_TOPIC = 0.6


def fallback_verdict(old: Record, new: Record, score: GateScore | None, *, why: str) -> Verdict:
    """Deterministic rule used when the Judge's output is invalid, late or failed.

    Conservative: supersede only when the pair is topically close, spoken by the same
    person, and the new text carries change or negation wording; otherwise none.
    """
    same_person = not old.speaker or not new.speaker or old.speaker == new.speaker
    close = score is not None and score.a >= FALLBACK_SAME_TOPIC
    if same_person and close and (_CHANGE.search(new.text) or _NEGATION.search(new.text)):
        ctype = "explicit_negation" if _NEGATION.search(new.text) else "temporal_update"
        return Verdict(reason=f"fallback rule ({why}): same topic, change wording", conflict_status="conflict",
                       conflict_type=ctype, action="supersede", links=["supersedes"], old_state=old.text[:300])
    return Verdict(reason=f"fallback rule ({why}): no clear change", conflict_status="unclear",
                   conflict_type="none", action="none", links=[])


def plan_commit(new: Record, decisions: Sequence[tuple[Record, Verdict]], slot_members: Mapping[str, Sequence[Record]]) -> Commit:
    """Turn Judge verdicts into one :class:`Commit`.

    ``decisions`` pairs each audited old record with its verdict, strongest pair first.
    ``slot_members`` maps a slot to its records (the overlay reads them from the bank).
    The new record joins the slot of its first non-``none`` decision; every other active
    record left in that slot gets a ``coexists_with`` link, so the slot invariant holds
    (a second item of a multi-valued attribute stays live beside the new value).
    """
    changes: list[Change] = []
    seen: set[str] = set()
    slot = ""
    retiring: set[str] = set()
    for old, v in decisions:
        if v.action == "none" or old.id in seen or not old.is_live:
            continue
        seen.add(old.id)
        action = Action(v.action)
        if not slot:
            slot = old.slot or old.id
        if action in (Action.SUPERSEDE, Action.TRANSITION):
            retiring.add(old.id)
        changes.append(Change(action=action, old_id=old.id, transition_type=v.conflict_type if action is Action.TRANSITION else "",
                              summary=v.transition_summary))
    if slot:
        for member in slot_members.get(slot, ()):
            if member.status is Status.ACTIVE and member.id not in retiring and member.id not in seen and member.id != new.id:
                changes.append(Change(action=Action.COEXIST, old_id=member.id))
                seen.add(member.id)
    record = Record(**{**_fields(new), "slot": slot})
    return Commit(record=record, changes=tuple(changes))


def _fields(r: Record) -> dict[str, Any]:
    return {f: getattr(r, f) for f in r.__dataclass_fields__}


def links_for(action: str) -> list[LinkType]:
    name = ACTION_LINK[action]
    return [LinkType(name)] if name else []
