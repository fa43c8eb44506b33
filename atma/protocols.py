"""The small protocols that hosts, embedders, LLM backends and pair gates implement.

atma never imports ``adapters/``: a host is any object with these methods, passed in
by the caller. Everything crossing these boundaries is plain data defined here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = [
    "Completion",
    "Embedder",
    "GateScore",
    "Host",
    "HostHit",
    "LLM",
    "LLMError",
    "Message",
    "PairGate",
    "error_line",
    "failure_status",
]

Message = Mapping[str, str]  # {"role": "system"|"user"|"assistant", "content": str}


class LLMError(RuntimeError):
    """A backend could not produce a completion (load failure, HTTP error, timeout).

    ``kind`` says which, so callers never match message text: ``"timeout"`` (the call ran
    past its limit), ``"context"`` (the request is longer than the model's context),
    ``"error"`` (anything else). A backend that does not know says ``"error"``, except
    that a message naming the context size is classified as ``"context"``.
    """

    KINDS = ("timeout", "context", "error")

    def __init__(self, message: str = "", *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is None:
            low = message.lower()
            kind = "context" if ("context" in low and ("exceed" in low or "too long" in low or "size" in low)) else "error"
        if kind not in self.KINDS:
            raise ValueError(f"LLMError kind must be one of {self.KINDS}, got {kind!r}")
        self.kind = kind


@dataclass(frozen=True, kw_only=True)
class Completion:
    """One LLM reply. ``latency_s`` is wall time of the call, as measured by the backend."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""
    finish_reason: str = ""


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``json_schema`` asks the backend to constrain output to that schema
    where it can; callers still validate the text. Raises :class:`LLMError` on failure
    and on ``timeout`` (seconds)."""

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Completion: ...


@runtime_checkable
class Embedder(Protocol):
    """Text to L2-normalised float32 rows of width ``dim``."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, kw_only=True)
class HostHit:
    """One row a host returns from ``search``, in the host's own order.

    ``native`` carries host-side state signals when the host has them (for Graphiti:
    ``valid_at``, ``invalid_at``, ``expired_at``); the overlay reads them as evidence.
    """

    host_id: str
    text: str
    score: float = 0.0
    time: datetime | None = None
    speaker: str = ""
    native: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Host(Protocol):
    """A memory system the overlay wraps. Every call names its namespace; a host must
    never return rows of another namespace.

    Optional methods the overlay uses when present:
      ``answer(query, evidence, *, namespace) -> str``  the host's own plain answerer
      ``neighbors(host_id, *, namespace) -> list[str]`` weak note/neighbour links (semantic hops)
      ``native_state(host_id, *, namespace) -> Mapping``  validity fields
      ``erase(host_ids, *, namespace) -> None``          hard delete
    """

    name: str

    def add(
        self,
        text: str,
        *,
        namespace: str,
        time: datetime | None = None,
        speaker: str = "",
        meta: Mapping[str, Any] | None = None,
    ) -> str: ...

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]: ...


@dataclass(frozen=True, kw_only=True)
class GateScore:
    """Pair metrics of §4.3: topic agreement ``a``, logic compatibility ``b`` (None for
    gates without a logic view), gap ``d``, and the routing decision."""

    a: float
    b: float | None
    d: float | None
    escalate: bool


@runtime_checkable
class PairGate(Protocol):
    """Decides which (old record, new record) pairs go to the Judge.

    ``features`` runs once per record; the overlay caches its rows in the bank under
    ``cache_key`` so that scoring a pair never re-encodes text. ``route`` scores one new
    row against many old rows (vectorised) and returns one :class:`GateScore` each.
    """

    name: str
    cache_key: str

    def features(self, texts: Sequence[str]) -> np.ndarray: ...

    def route(self, new: np.ndarray, olds: np.ndarray) -> list[GateScore]: ...


def error_line(e: BaseException) -> str:
    """One short line naming an exception, even when its ``__str__`` misbehaves (an
    LLMError's own message already names the backend)."""
    try:
        msg = str(e)
    except Exception:  # noqa: BLE001
        msg = "<unprintable>"
    line = f"{type(e).__name__}: {msg}" if not isinstance(e, LLMError) else msg
    return line[:300]


def failure_status(e: BaseException) -> str:
    """``"timeout"`` for a call that ran past its limit, else ``"error"``."""
    if isinstance(e, TimeoutError) or (isinstance(e, LLMError) and e.kind == "timeout"):
        return "timeout"
    return "error"
