"""Records, statuses, links and the changes a commit applies. Frozen data; no I/O.

A record is ``r_i = (x_i, t_i, s_i, L_i, z_i)`` of A-TMA §4.1: content, time, status,
typed links and host metadata. Every record belongs to one namespace and one *slot*
(the state variable it is a value of). A record starts in its own slot; a supersede,
transition or coexist decision moves the new record into the old record's slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Mapping

__all__ = [
    "Action",
    "Change",
    "Commit",
    "Link",
    "LinkType",
    "RECIPROCAL",
    "Record",
    "Status",
    "TransitionInfo",
]


class Status(str, Enum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    TRANSITION = "transition"
    UNKNOWN = "unknown"


class LinkType(str, Enum):
    """The links a Judge decision writes (:data:`atma.judge.ACTION_LINK`) and their reciprocals.

    The paper's dependency links (``derived_from``, ``coupled_with``) are not declared: no
    decision of the write path produces them, so a reader would only find them never set.
    """

    SUPERSEDES = "supersedes"
    SUPERSEDED_BY = "superseded_by"
    EVOLVES_FROM = "evolves_from"
    EVOLVES_TO = "evolves_to"
    SCOPED_EXCEPTION = "scoped_exception"
    COEXISTS_WITH = "coexists_with"


#: Link types that always come in pairs: writing one writes its partner on the target.
RECIPROCAL: Mapping[LinkType, LinkType] = {
    LinkType.SUPERSEDES: LinkType.SUPERSEDED_BY,
    LinkType.SUPERSEDED_BY: LinkType.SUPERSEDES,
    LinkType.EVOLVES_FROM: LinkType.EVOLVES_TO,
    LinkType.EVOLVES_TO: LinkType.EVOLVES_FROM,
    LinkType.COEXISTS_WITH: LinkType.COEXISTS_WITH,
}

#: Links that allow two active records in one slot.
COEXISTENCE = frozenset({LinkType.COEXISTS_WITH, LinkType.SCOPED_EXCEPTION})
#: Links pointing to later states (followed for current views) and earlier ones.
SUCCESSOR = frozenset({LinkType.SUPERSEDED_BY, LinkType.EVOLVES_TO})
PREDECESSOR = frozenset({LinkType.SUPERSEDES, LinkType.EVOLVES_FROM})
#: Weak links used for semantic hops.
NEIGHBOUR = frozenset({LinkType.COEXISTS_WITH, LinkType.SCOPED_EXCEPTION})


@dataclass(frozen=True, order=True)
class Link:
    type: LinkType
    target: str

    def to_json(self) -> dict[str, str]:
        return {"type": self.type.value, "target": self.target}


@dataclass(frozen=True, kw_only=True)
class TransitionInfo:
    """Metadata of a change process: source state, target state, transition type."""

    source: str
    target: str
    type: str

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "target": self.target, "type": self.type}


@dataclass(frozen=True, kw_only=True)
class Record:
    id: str
    namespace: str
    text: str
    time: datetime | None = None
    speaker: str = ""
    status: Status = Status.ACTIVE
    slot: str = ""
    links: tuple[Link, ...] = ()
    host_id: str = ""
    transition: TransitionInfo | None = None
    seq: int = 0
    meta: Mapping[str, Any] = field(default_factory=dict)

    def linked(self, *types: LinkType) -> list[str]:
        """Targets of this record's links of the given types, in link order."""
        wanted = set(types)
        return [l.target for l in self.links if l.type in wanted]

    @property
    def is_live(self) -> bool:
        return self.status in (Status.ACTIVE, Status.TRANSITION)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "namespace": self.namespace,
            "text": self.text,
            "time": self.time.isoformat() if self.time else None,
            "speaker": self.speaker,
            "status": self.status.value,
            "slot": self.slot,
            "links": [l.to_json() for l in self.links],
            "host_id": self.host_id,
            "transition": self.transition.to_json() if self.transition else None,
            "seq": self.seq,
        }


class Action(str, Enum):
    SUPERSEDE = "supersede"
    TRANSITION = "transition"
    COEXIST = "coexist"
    SCOPED_EXCEPTION = "scoped_exception"
    NONE = "none"


@dataclass(frozen=True, kw_only=True)
class Change:
    """One decided relation between the new record and an existing one."""

    action: Action
    old_id: str
    transition_type: str = ""
    summary: str = ""


@dataclass(frozen=True, kw_only=True)
class Commit:
    """A new record plus the changes that relate it to existing records.

    ``StateBank.commit`` applies it in one transaction or not at all.
    """

    record: Record
    changes: tuple[Change, ...] = ()
