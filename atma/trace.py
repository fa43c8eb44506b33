"""Traces: frozen, JSON-serialisable records of what the overlay did. Data, not logging."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["JudgeCall", "PairTrace", "QueryTrace", "WriteTrace"]


@dataclass(frozen=True, kw_only=True)
class PairTrace:
    """One candidate old record of a write and its gate scores."""

    id: str
    text: str
    status: str
    source: str  # "host#2" or "head<-r4" (live successor of a stale hit) or "link<-r4"
    a: float
    b: float | None
    d: float | None
    escalate: bool

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class JudgeCall:
    """One Judge audit: ``status`` is ok | invalid_json | schema_error | empty | timeout | error | skipped."""

    old_id: str
    status: str
    verdict: dict[str, Any]
    fallback: bool
    raw: str = ""
    error: str = ""
    latency_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class WriteTrace:
    record_id: str
    host_id: str
    text: str
    gate: str
    candidates: tuple[PairTrace, ...]
    judge: tuple[JudgeCall, ...]
    changes: tuple[dict[str, str], ...]
    slot: str
    status: str
    audit: str = "audited"  # or why the event was stored without an audit
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "write", "audit": self.audit, "record_id": self.record_id, "host_id": self.host_id, "text": self.text,
                "gate": self.gate, "candidates": [c.to_json() for c in self.candidates],
                "judge": [j.to_json() for j in self.judge], "changes": list(self.changes), "slot": self.slot,
                "status": self.status, "timings": self.timings}

    def to_stored(self) -> dict[str, Any]:
        """The form the bank keeps: records are referenced by id, not copied (their text lives in
        the bank once; an erased record leaves nothing here), numbers are rounded."""
        out = self.to_json()
        out.pop("text")
        out["candidates"] = [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in c.items() if k != "text"}
                             for c in out["candidates"]]
        out["judge"] = [{**j, "latency_s": round(j["latency_s"], 4)} for j in out["judge"]]
        out["timings"] = {k: round(v, 6) for k, v in self.timings.items()}
        return out


@dataclass(frozen=True, kw_only=True)
class QueryTrace:
    """T_q = (ψ(q), C_q, π0, controller, E_q, Ẽ_q, prompt, â)."""

    query: str
    namespace: str
    profile: dict[str, Any]
    pool: tuple[dict[str, Any], ...]
    prerank: tuple[str, ...]
    controller: dict[str, Any]
    packet: tuple[str, ...]
    labelled: tuple[dict[str, Any], ...]
    prompt: tuple[dict[str, str], ...]
    answer: str
    timings: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    check: dict[str, Any] = field(default_factory=dict)  # the answer check (resolved packets)
    sources: dict[str, str] = field(default_factory=dict)  # packet row -> why it is there

    def to_json(self) -> dict[str, Any]:
        return {"kind": "query", "check": self.check, "sources": self.sources, "query": self.query, "namespace": self.namespace, "profile": self.profile,
                "pool": list(self.pool), "prerank": list(self.prerank), "controller": self.controller,
                "packet": list(self.packet), "labelled": list(self.labelled), "prompt": list(self.prompt),
                "answer": self.answer, "timings": self.timings, "config": self.config}

    @property
    def labels(self) -> dict[str, str]:
        """Packet record id -> label."""
        return {row["id"]: row["label"] for row in self.labelled}

    def render(self) -> str:
        """A readable multi-line view for the CLI."""
        out = [f"query: {self.query}", f"view: {self.profile.get('view')}  guards: {self.profile.get('guards')}"]
        out.append(f"candidate pool ({len(self.pool)}):")
        for row in self.pool:
            mark = "*" if row["id"] in self.packet else " "
            out.append(f"  {mark} {row['id']:>6} {row['bucket']:<8} {row['source']:<22} {row['status']:<10} {row['text'][:70]}")
        c = self.controller
        out.append(f"controller: mode={c.get('mode')} status={c.get('status')} applied={c.get('applied')} selected={c.get('selected')}")
        out.append("packet:")
        for row in self.labelled:
            when = f" {row['time']}" if row.get("time") else ""
            note = f" ({row['note']})" if row.get("note") else ""
            out.append(f"  [{row['label']}{when}] {row['id']}: {row['text'][:90]}{note}")
        t = self.timings
        if self.check.get("reasked"):
            out.append(f"answer check: {self.check.get('reason')}; first answer {self.check.get('first_answer')!r}, re-asked")
        out.append(f"answer: {self.answer}")
        out.append("timings: " + ", ".join(f"{k}={v:.3f}s" for k, v in t.items()))
        return "\n".join(out)
