"""Label mapping Λ and the state-conditioned QA prompt (A-TMA §4.5, Eq. 13–15). Pure.

Priority: transition > transition-linked > historical > current > retrieved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from .protocols import Message
from .records import LinkType, Record, Status

__all__ = ["LABELS", "Label", "LabelledRow", "label_for", "qa_messages", "serialize", "QA_PROMPT_VERSION"]

QA_PROMPT_VERSION = "qa-v3"

Label = Literal["transition memory", "transition linked memory", "historical memory", "current memory", "retrieved memory"]
LABELS: tuple[Label, ...] = ("transition memory", "transition linked memory", "historical memory", "current memory",
                             "retrieved memory")

_EVOLUTION = (LinkType.EVOLVES_FROM, LinkType.EVOLVES_TO)


def label_for(record: Record) -> Label:
    """Deterministic projection of a record's state fields onto the five labels."""
    if record.status is Status.TRANSITION or record.transition is not None:
        return "transition memory"
    if record.linked(*_EVOLUTION):
        return "transition linked memory"
    if record.status is Status.SUPERSEDED:
        return "historical memory"
    if record.status is Status.ACTIVE:
        return "current memory"
    return "retrieved memory"


@dataclass(frozen=True)
class LabelledRow:
    id: str
    label: Label
    text: str
    time: str | None
    speaker: str
    transition: str | None

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "label": self.label, "text": self.text, "time": self.time, "speaker": self.speaker,
                "transition": self.transition}


def serialize(records: Sequence[Record], *, with_time: bool = True) -> list[LabelledRow]:
    """Ẽ_q: the packet in retrieval order, each row with its label and optional time."""
    rows = []
    for r in records:
        tr = f"{r.transition.type}: {r.transition.source} -> {r.transition.target}" if r.transition else None
        rows.append(LabelledRow(id=r.id, label=label_for(r), text=r.text,
                                time=r.time.strftime("%Y-%m-%d") if (with_time and r.time) else None,
                                speaker=r.speaker, transition=tr))
    return rows


_SYSTEM = """You answer a question about people from their stored memories.
Rules:
1. Use only the memories listed. If they do not contain the answer, say "I don't know".
2. Each memory has a state label. "current memory" is true now. "historical memory" was true before and has since been replaced. "transition memory" and "transition linked memory" describe how something changed.
3. Follow the state the question asks for. Questions about now, or with no time hint, are answered from current memory. Questions about before, previously, formerly or "used to" are answered from historical memory, not from the newer value.
4. A single memory may name an earlier value and the value that replaced it ("it was X for years, but now it is Y"). Then Y holds now and X is the past value.
5. Answer in one short sentence that names the value."""

_VIEW_HINT = {
    "current": "the current state (what is true now)",
    "historical": "a past state (what was true before the change)",
    "transition": "the change (name the old state and the new state)",
    "neutral": "the current state, unless the question asks about the past",
}


def qa_messages(query: str, view: str, rows: Sequence[LabelledRow]) -> list[Message]:
    """The state-conditioned QA prompt P_q = Prompt(q, v_q, Ẽ_q, R_qa)."""
    lines = []
    for i, row in enumerate(rows, 1):
        meta = [row.label]
        if row.time:
            meta.append(row.time)
        who = f"{row.speaker}: " if row.speaker else ""
        lines.append(f"{i}. [{' | '.join(meta)}] {who}{row.text}")
    memories = "\n".join(lines) if lines else "(no memories retrieved)"
    user = f"Memories:\n{memories}\n\nThe question asks about {_VIEW_HINT.get(view, _VIEW_HINT['neutral'])}.\nQuestion: {query}\nAnswer:"
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]
