"""The stream file: JSONL, one scenario a line (events to write, probes to ask).

``{"id", "events": [{"id", "time", "speaker", "text"}], "probes": [{"id", "question",
"view", "gold": [aliases], "alternates": [aliases], "time"}]}``, each object with an
optional ``meta`` object (LTP keeps slot, topic, update type and old/current values
there). Unknown fields are errors. Times are ISO 8601 strings, naive or with an
offset, but one scenario may not mix the two. LTP and users' own scenarios use it.

:func:`load_stream` reports the first problem as one line naming file, line and
field path; :func:`dump_stream` writes atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Mapping

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .grading import normalize

__all__ = [
    "Event", "Probe", "Scenario", "StreamFormatError", "View", "dump_stream", "error_lines", "load_stream",
]

View = Literal["current", "historical", "transition", "neutral"]


class StreamFormatError(ValueError):
    """A stream file that cannot be read or does not follow the format; the message is one line."""


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _iso_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(f"invalid datetime {_short(value)}: expected an ISO 8601 string")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"invalid datetime {_short(value)}") from None


Time = Annotated[datetime, BeforeValidator(_iso_time)]
NonEmpty = Annotated[str, Field(min_length=1)]


def _non_blank(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} is blank")
    return value


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Event(_Record):
    """One utterance written to memory."""

    id: NonEmpty
    time: Time
    speaker: str
    text: str
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        return _non_blank(v, "text")


class Probe(_Record):
    """One question, asked at ``time``, with its closed pool (``gold`` and ``alternates``)."""

    id: NonEmpty
    question: str
    view: View
    gold: list[str] = Field(min_length=1)
    alternates: list[str] = Field(default_factory=list)
    time: Time
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("question")
    @classmethod
    def _question(cls, v: str) -> str:
        return _non_blank(v, "question")

    @field_validator("gold", "alternates")
    @classmethod
    def _aliases(cls, v: list[str], info: ValidationInfo) -> list[str]:
        golds = {normalize(a) for a in info.data.get("gold", ())} if info.field_name == "alternates" else set()
        for i, alias in enumerate(v):
            norm = normalize(alias)
            if not norm:
                raise ValueError(f"alias [{i}] {_short(alias)} is empty after normalisation")
            if norm in golds:
                raise ValueError(f"alias [{i}] {_short(alias)} is also a gold alias")
        return v


class Scenario(_Record):
    """Events in write order and the probes asked about them; ids unique within the scenario."""

    id: NonEmpty
    events: list[Event]
    probes: list[Probe]
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> "Scenario":
        for field, items in (("events", self.events), ("probes", self.probes)):
            seen: dict[str, int] = {}
            for i, item in enumerate(items):
                if item.id in seen:
                    raise ValueError(
                        f"{field}[{i}].id: duplicate id {_short(item.id)} (first at {field}[{seen[item.id]}])"
                    )
                seen[item.id] = i
        times = [(f"events[{i}].time", e.time) for i, e in enumerate(self.events)]
        times += [(f"probes[{i}].time", p.time) for i, p in enumerate(self.probes)]
        if times:
            first_aware = times[0][1].tzinfo is not None
            for where, t in times:
                if (t.tzinfo is not None) != first_aware:
                    raise ValueError(f"{where}: mixes naive and offset-aware times in one scenario")
        return self


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(err: Mapping[str, Any]) -> str:
    kind = err["type"]
    if kind == "missing":
        return "missing field"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("value_error", "assertion_error"):
        return str(err["ctx"]["error"])
    msg = err["msg"]
    return f"{msg[:1].lower()}{msg[1:]}, got {_short(err.get('input'))}"


def error_lines(exc: ValidationError) -> list[str]:
    """Each problem of a validation error as ``field.path: problem`` (one line each)."""
    out = []
    for err in exc.errors(include_url=False):
        path = _loc(tuple(err["loc"]))
        out.append(" ".join(f"{path + ': ' if path else ''}{_describe(err)}".split()))
    return out


def _one_line(where: str, exc: ValidationError) -> str:
    lines = error_lines(exc)
    text = f"{where}: {lines[0]}"
    if len(lines) > 1:
        text += f" (+{len(lines) - 1} more)"
    return " ".join(text.split())


def load_stream(path: str | os.PathLike[str]) -> list[Scenario]:
    """Read and validate every line; blank lines are skipped.

    Raises :class:`StreamFormatError` (one line: ``file:line: field.path: problem``)
    for an unreadable file, bad JSON, a field error or a duplicate scenario id.
    """
    name = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamFormatError(f"{name}: cannot read: {exc}") from None
    scenarios: list[Scenario] = []
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StreamFormatError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
        try:
            scenario = Scenario.model_validate(obj)
        except ValidationError as exc:
            raise StreamFormatError(_one_line(where, exc)) from None
        if scenario.id in first_line:
            raise StreamFormatError(
                f"{where}: id: duplicate scenario id {_short(scenario.id)} (first on line {first_line[scenario.id]})"
            )
        first_line[scenario.id] = lineno
        scenarios.append(scenario)
    return scenarios


def dump_stream(scenarios: Iterable[Scenario], path: str | os.PathLike[str]) -> None:
    """Write one scenario a line, atomically (temp file in the same folder, then rename).

    Raises :class:`StreamFormatError` on duplicate scenario ids, leaving ``path`` untouched.
    """
    items = list(scenarios)
    seen: set[str] = set()
    for s in items:
        if s.id in seen:
            raise StreamFormatError(f"{os.fspath(path)}: duplicate scenario id {_short(s.id)}")
        seen.add(s.id)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for s in items:
                fh.write(s.model_dump_json())
                fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
