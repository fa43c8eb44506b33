"""Bounded retrieve controller (A-TMA §4.4 Eq. 11–12, App. A.8). Pure logic.

The controller sees at most 10 candidates with content cut to 220 characters and may
pick at most 3 of them (clipped by k); the rest of the packet is filled from the stable
pre-rank. Its output is applied only in ``online`` mode, only when it parses and names
at least one candidate it was shown. Any failure falls back to the pre-rank.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .judge import MAX_RAW_CHARS, load_reply, validation_error
from .packet import Candidate
from .profiler import QueryProfile
from .protocols import Message

__all__ = [
    "CONTROLLER_PROMPT_VERSION",
    "CONTROLLER_SCHEMA",
    "ControllerConfig",
    "ControllerOutput",
    "ControllerResult",
    "controller_messages",
    "parse_controller",
    "prompt_fingerprint",
]

CONTROLLER_PROMPT_VERSION = "controller-v1"
Mode = Literal["off", "online", "shadow"]


@dataclass(frozen=True, kw_only=True)
class ControllerConfig:
    """Bounds of App. A.8. ``mode``: off (no call), shadow (call and log), online (apply)."""

    mode: Mode = "off"
    max_rows: int = 10
    max_chars: int = 220
    max_selected: int = 3
    max_tokens: int = 320
    timeout_s: float = 90.0
    temperature: float = 0.0


class Selection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    candidate_id: str
    rank: int = Field(ge=1, le=10)
    role: Literal["current", "historical", "transition", "contrast", "support"]
    state_fit: float = Field(ge=0, le=1)
    scope_fit: float = Field(ge=0, le=1)
    change_fit: float = Field(ge=0, le=1)
    noise_risk: float = Field(ge=0, le=1)
    reason: str = Field(default="", max_length=200)


class PackingHints(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    transition_evidence: bool = False
    contrast_pairs: bool = False
    weak_hops: bool = False


class ControllerOutput(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    query_mode: Literal["current", "historical", "transition", "neutral"]
    confidence: float = Field(ge=0, le=1)
    fallback_recommended: bool
    selected: list[Selection] = Field(max_length=10)
    packing_hints: PackingHints = Field(default_factory=PackingHints)


_FIT = {"type": "number", "minimum": 0, "maximum": 1}
CONTROLLER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query_mode": {"type": "string", "enum": ["current", "historical", "transition", "neutral"]},
        "confidence": _FIT,
        "fallback_recommended": {"type": "boolean"},
        "selected": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {
                    "candidate_id": {"type": "string"},
                    "rank": {"type": "integer", "minimum": 1, "maximum": 10},
                    "role": {"type": "string", "enum": ["current", "historical", "transition", "contrast", "support"]},
                    "state_fit": _FIT, "scope_fit": _FIT, "change_fit": _FIT, "noise_risk": _FIT,
                    "reason": {"type": "string", "maxLength": 80},
                },
                "required": ["candidate_id", "rank", "role", "state_fit", "scope_fit", "change_fit", "noise_risk", "reason"],
                "additionalProperties": False,
            },
        },
        "packing_hints": {
            "type": "object",
            "properties": {"transition_evidence": {"type": "boolean"}, "contrast_pairs": {"type": "boolean"},
                           "weak_hops": {"type": "boolean"}},
            "required": ["transition_evidence", "contrast_pairs", "weak_hops"],
            "additionalProperties": False,
        },
    },
    "required": ["query_mode", "confidence", "fallback_recommended", "selected", "packing_hints"],
    "additionalProperties": False,
}

_SYSTEM = """You are a retrieve controller for a state-aware memory system. You never answer the question and never use outside knowledge. You only choose, from the candidate memories you are shown, the ones that best support the state the query asks for: the current state for questions about now, the old state for questions about the past, both sides for questions about a change. Each candidate has a status: active (current value), superseded (an old value that was replaced), transition (a change in progress), unknown. Select at most max_selected candidates by candidate_id, best first, and output only JSON in the required schema."""
_OUTPUT_SCHEMA = ("query_mode, confidence, fallback_recommended, selected[{candidate_id, rank, role, state_fit, "
                  "scope_fit, change_fit, noise_risk, reason}], packing_hints{transition_evidence, contrast_pairs, "
                  "weak_hops}")
_INSTRUCTIONS = ("Pick the candidates whose state matches the query view. Prefer active rows for current questions "
                 "and superseded rows for questions about the past. Keep reasons under 10 words.")


def shortlist(pool: Sequence[Candidate], cfg: ControllerConfig) -> list[tuple[str, Candidate]]:
    """The bounded view: at most ``max_rows`` candidates with short aliases c1, c2, ..."""
    return [(f"c{i + 1}", c) for i, c in enumerate(pool[: cfg.max_rows])]


def controller_messages(query: str, prof: QueryProfile, pool: Sequence[Candidate], k: int, cfg: ControllerConfig) -> list[Message]:
    """The controller prompt. A pure function of its inputs."""
    rows = []
    for alias, c in shortlist(pool, cfg):
        r = c.record
        rows.append({
            "candidate_id": alias,
            "pre_rank": len(rows) + 1,
            "bucket": c.bucket,
            "status": r.status.value,
            "relation": c.source,
            "transition_type": r.transition.type if r.transition else None,
            "supersedes": [l.target for l in r.links if l.type.value == "supersedes"],
            "superseded_by": [l.target for l in r.links if l.type.value == "superseded_by"],
            "time": r.time.isoformat(sep=" ", timespec="minutes") if r.time else None,
            "content": r.text[: cfg.max_chars],
        })
    user = {
        "task": "retrieve_control",
        "query": query,
        "top_k": k,
        "max_selected": min(k, cfg.max_selected),
        "query_profile": prof.to_json(),
        "candidates": rows,
        "output_schema": _OUTPUT_SCHEMA,
        "instructions": _INSTRUCTIONS,
    }
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": json.dumps(user, ensure_ascii=False)}]


def prompt_fingerprint() -> str:
    """All fixed text of the controller prompt: version, system text, the output schema line and
    the instructions. Run manifests hash it (eval.stream)."""
    return "\n".join([CONTROLLER_PROMPT_VERSION, _SYSTEM, _OUTPUT_SCHEMA, _INSTRUCTIONS])


@dataclass(frozen=True)
class ControllerResult:
    """What the controller did, for the trace. ``selected`` holds record ids in controller order."""

    mode: str
    # off | ok | invalid_json | schema_error | not_text | too_long | too_deep | empty | no_valid_ids |
    # fallback_recommended | timeout | error
    status: str
    applied: bool
    selected: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    output: dict[str, Any] | None = None
    raw: str = ""
    error: str = ""
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "status": self.status, "applied": self.applied, "selected": list(self.selected),
                "dropped": list(self.dropped), "output": self.output, "raw": self.raw, "error": self.error,
                "latency_s": round(self.latency_s, 4)}


def parse_controller(text: Any, pool: Sequence[Candidate], k: int, cfg: ControllerConfig) -> ControllerResult:
    """Parse and bound a controller reply. Ids the controller was not shown are dropped.
    Never raises: a reply that is not text, too long, too deeply nested, not JSON or off-schema
    leaves the pre-rank in place, with the reason as the status. The trace keeps at most
    ``MAX_RAW_CHARS`` of the reply."""
    raw = text[:MAX_RAW_CHARS] if isinstance(text, str) else ""
    data, status, error = load_reply(text)
    if status != "ok":
        return ControllerResult(cfg.mode, status, False, raw=raw, error=error)
    try:
        out = ControllerOutput.model_validate(data)
    except ValidationError as e:
        return ControllerResult(cfg.mode, "schema_error", False, raw=raw, error=validation_error(e, "output"))
    except Exception as e:  # noqa: BLE001 - hostile content must not reach the caller
        return ControllerResult(cfg.mode, "schema_error", False, raw=raw, error=f"output: {type(e).__name__}")
    aliases = dict(shortlist(pool, cfg))
    picks = sorted(out.selected, key=lambda s: s.rank)
    valid: list[str] = []
    dropped: list[str] = []
    for s in picks:
        cand = aliases.get(s.candidate_id)
        if cand is None:
            dropped.append(s.candidate_id)
        elif cand.id not in valid:
            valid.append(cand.id)
    valid = valid[: min(k, cfg.max_selected)]
    status = "ok"
    if not valid:
        status = "no_valid_ids"
    elif out.fallback_recommended:
        status = "fallback_recommended"
    applied = cfg.mode == "online" and status == "ok"
    return ControllerResult(cfg.mode, status, applied, selected=tuple(valid), dropped=tuple(dropped),
                            output=out.model_dump(), raw=raw)
