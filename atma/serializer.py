"""Label mapping Λ and the state-conditioned QA prompt (A-TMA §4.5, Eq. 13–15). Pure.

Priority: transition > transition-linked > historical > current > retrieved.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Mapping, Sequence

from .protocols import Message
from .records import LinkType, Record, Status
from .timeexpr import human_date, human_range, render_annotated, render_resolved

__all__ = ["LABELS", "Label", "LabelledRow", "label_for", "qa_messages", "serialize", "QA_PROMPT_VERSION",
           "RESOLVED_PROMPT_VERSION", "StateRow", "human_date", "prompt_fingerprint", "render_state_row",
           "resolved_messages", "state_rows"]

QA_PROMPT_VERSION = "qa-v3"

Label = Literal["transition memory", "transition linked memory", "historical memory", "current memory", "retrieved memory"]
LABELS: tuple[Label, ...] = ("transition memory", "transition linked memory", "historical memory", "current memory",
                             "retrieved memory")

_EVOLUTION = (LinkType.EVOLVES_FROM, LinkType.EVOLVES_TO)
_SUCCESSORS = (LinkType.SUPERSEDED_BY, LinkType.EVOLVES_TO)
_PREDECESSORS = (LinkType.SUPERSEDES, LinkType.EVOLVES_FROM)


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


# --------------------------------------------------------- resolved (plain-state) packets
RESOLVED_PROMPT_VERSION = "qa-r2"

@dataclass(frozen=True)
class StateRow:
    """One packet row in plain words: the text, when it was said, and a state note."""

    id: str
    text: str
    date: str | None
    speaker: str
    note: str  # "" when the row is not part of a known chain of states
    state: str  # "now" | "past" | "changing" | "plain"

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "label": self.state, "text": self.text, "time": self.date, "speaker": self.speaker,
                "note": self.note}


def change_date(r: Record) -> str:
    """When the state a record reports began, in words for a state note: " on 8 May 2023" (the
    day it was said), or the resolved event time of its text where that is earlier ("I moved
    to Leeds last month", said on 3 June 2023: " in May 2023"); "" when undated."""
    if r.time is None:
        return ""
    ann = r.meta.get("time") if isinstance(r.meta, Mapping) else None
    ev = ann.get("event") if isinstance(ann, Mapping) else None
    if isinstance(ev, Mapping) and ev.get("relation", "") in ("", "since", "from"):
        try:
            start, end = date.fromisoformat(str(ev["start"])[:10]), date.fromisoformat(str(ev["end"])[:10])
        except (KeyError, ValueError):
            start = end = None
        if start is not None and end is not None and end < r.time.date():
            words = human_range(start, end, str(ev.get("granularity", "day")))
            return f" on {words}" if start == end else f" in {words}"
    return f" on {human_date(r.time)}"


def state_rows(records: Sequence[Record], related: Mapping[str, Record], *, with_time: bool = True,
               max_chars: int = 600, render_text: Any = None, noted: Any = None) -> list[StateRow]:
    """The packet with a plain-language state note per row, each state said once.

    A note needs the other end of the row's chain: a record in the packet or in
    ``related`` (the overlay passes the linked records the host also found relevant). A
    row whose counterpart is neither gets no note: its state is whatever its text says,
    as it would be for the host alone. ``render_text(record)`` may replace the row text
    (time expressions resolved inline). ``noted``: the ids that may carry a note (the
    chains the packet resolves); None allows every row.
    """
    pos = {r.id: i for i, r in enumerate(records, 1)}
    known = {**dict(related), **{r.id: r for r in records}}
    out = []
    for r in records:
        succ = [known[t] for t in r.linked(*_SUCCESSORS) if t in known]
        prev = [t for t in r.linked(*_PREDECESSORS) if t in known]
        if noted is not None and r.id not in noted:
            note, state = "", "plain"
        elif not r.is_live and succ:
            later = succ[0]
            when = change_date(later)
            ref = f" by [{pos[later.id]}]" if later.id in pos else ""
            note, state = f"no longer true: replaced{when}{ref}", "past"
        elif r.status is Status.TRANSITION:
            note, state = "a change in progress", "changing"
        elif r.is_live and prev:
            shown = [f"[{pos[p]}]" for p in prev if p in pos]
            note, state = "true now" + (f"; it replaced {', '.join(shown)}" if shown else ""), "now"
        else:
            note, state = "", "plain"
        body = render_text(r) if render_text is not None else time_rendered(r)
        text = body if len(body) <= max_chars else body[: max_chars - 1].rstrip() + "…"
        out.append(StateRow(id=r.id, text=text, date=human_date(r.time) if (with_time and r.time) else None,
                            speaker=r.speaker, note=note, state=state))
    return out


_RESOLVED_SYSTEM = """You answer a question about people from their stored memories. Use only the memories listed; each starts with the date it was said.
When a memory mentions a time ("yesterday", "last year"), the date that time refers to follows in parentheses: a question about when something happened is answered with that date, not with the date the memory was said.
Some memories carry a note in brackets: "true now" marks the latest state; "no longer true" marks an earlier state that a later memory replaced.
Questions about now, or with no time hint, are answered with what is true now. Questions about before, originally, previously or "used to" are answered with the earlier state.
Answer concisely, in a few words, naming the value. If the memories do not contain the answer, say you don't know."""

def time_rendered(r: Record) -> str:
    """The record's text with its time expressions resolved inline ("yesterday (7 May
    2023)"), from the annotation stored at write time, else resolved now. Never stored."""
    ann = r.meta.get("time") if isinstance(r.meta, Mapping) else None
    if ann:
        return render_annotated(r.text, ann)
    return render_resolved(r.text, r.time) if r.time else r.text


TEMPORAL_HINT = ("The question asks when: answer with the date the memory gives for it, as precise as the "
                 "memory is (a day, a month or a year).")

_RESOLVED_VIEW = {
    "current": "The question asks what is true now.",
    "historical": "The question asks about the earlier state, before it was replaced.",
    "transition": "The question asks how it changed: name the earlier state and the later one.",
    "neutral": "",
}


def render_state_row(i: int, row: StateRow) -> str:
    when = f"(said {row.date}) " if row.date else "(undated) "
    who = f"{row.speaker}: " if row.speaker else ""
    note = f" [{row.note}]" if row.note else ""
    return f"[{i}] {when}{who}{row.text}{note}"


def resolved_messages(query: str, view: str, rows: Sequence[StateRow], *, hint: str = "",
                      temporal: bool = False) -> list[Message]:
    """The QA prompt for a view-shaped packet: plain rows, plain state notes, the view in
    one sentence (and the date rule for "when" questions) and, on a re-ask, the answer
    check's hint."""
    memories = "\n".join(render_state_row(i, r) for i, r in enumerate(rows, 1)) or "(no memories found)"
    lines = [f"Memories:\n{memories}", ""]
    extra = " ".join(x for x in (_RESOLVED_VIEW.get(view, ""), TEMPORAL_HINT if temporal else "", hint) if x)
    if extra:
        lines.append(extra)
    lines += [f"Question: {query}", "Answer:"]
    return [{"role": "system", "content": _RESOLVED_SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def prompt_fingerprint() -> str:
    """All text of both QA prompts (labelled and resolved): version constants, system texts,
    view hints and the user-message templates. Run manifests hash it (eval.stream)."""
    return "\n".join([
        QA_PROMPT_VERSION, _SYSTEM, repr(_VIEW_HINT), qa_messages("{query}", "neutral", [])[1]["content"],
        RESOLVED_PROMPT_VERSION, _RESOLVED_SYSTEM, repr(_RESOLVED_VIEW), TEMPORAL_HINT,
        resolved_messages("{query}", "neutral", [])[1]["content"],
    ])
