"""Candidate pool, stable pre-rank and TopK (A-TMA §4.4, Eq. 9–12). Pure logic.

The pool is the host's seeds ``A_q`` in host order, view-aware relation hops ``R_q``
over state links and semantic hops ``N_q`` over weak links, de-duplicated in order.
Records are looked up through a ``fetch`` callable so the logic stays free of I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Literal, Mapping, Sequence

from .records import NEIGHBOUR, PREDECESSOR, SUCCESSOR, LinkType, Record, Status

__all__ = ["Candidate", "PrerankMode", "ShapedRow", "apply_selection", "build_pool", "live_head", "prerank",
           "shape_packet", "top_k"]

Bucket = Literal["seed", "relation", "semantic"]
PrerankMode = Literal["interleave", "bucket"]
Fetch = Callable[[Iterable[str]], Mapping[str, Record]]

#: How far relation hops follow a chain of supersessions in one direction.
MAX_CHAIN = 3


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """One row of the candidate pool C_q with where it came from."""

    record: Record
    bucket: Bucket
    source: str  # "host#3", "superseded_by<-r7", "coexists_with<-r2", ...
    seed_rank: int  # host rank of the seed this row hangs off (0-based)

    @property
    def id(self) -> str:
        return self.record.id

    def to_json(self) -> dict[str, object]:
        r = self.record
        return {"id": r.id, "bucket": self.bucket, "source": self.source, "seed_rank": self.seed_rank,
                "status": r.status.value, "slot": r.slot, "time": r.time.isoformat() if r.time else None,
                "links": [l.to_json() for l in r.links], "text": r.text}


def _chain(start: Record, types: frozenset[LinkType], fetch: Fetch) -> list[tuple[Record, str]]:
    """Records reached from ``start`` by repeatedly following links of ``types``."""
    out: list[tuple[Record, str]] = []
    seen = {start.id}
    frontier = [start]
    for _ in range(MAX_CHAIN):
        nxt_ids: list[tuple[str, str]] = []
        for rec in frontier:
            for link in rec.links:
                if link.type in types and link.target not in seen:
                    seen.add(link.target)
                    nxt_ids.append((link.target, f"{link.type.value}<-{rec.id}"))
        if not nxt_ids:
            break
        got = fetch([i for i, _ in nxt_ids])
        frontier = []
        for rid, via in nxt_ids:
            if rid in got:
                out.append((got[rid], via))
                frontier.append(got[rid])
    return out


def build_pool(
    seeds: Sequence[tuple[Record, float]],
    view: str,
    fetch: Fetch,
    *,
    host_neighbors: Mapping[str, Sequence[Record]] | None = None,
    mode: PrerankMode = "interleave",
) -> list[Candidate]:
    """C_q = Dedup(A_q ⊕ R_q ⊕ N_q), ordered by the stable pre-rank π0.

    Relation hops are view-aware: successors of stale seeds unless the view is
    historical; predecessors unless it is current.

    ``mode="bucket"`` is Eq. 10 literally (all seeds, then all relation hops, then all
    semantic hops). ``mode="interleave"`` (default) keeps the seeds in host order but
    places each seed's relation hops right after it, and for a current view puts a
    stale seed's live successor in the seed's place, moving the stale seed behind it:
    with a packet of k rows and k or more seeds, relation hops would otherwise never
    reach the packet without a controller.
    """
    follow_succ = view != "historical"
    follow_pred = view != "current"
    per_seed: list[tuple[list[Candidate], list[Candidate]]] = []
    semantic: list[Candidate] = []
    for rank, (seed, _score) in enumerate(seeds):
        head = [Candidate(record=seed, bucket="seed", source=f"host#{rank + 1}", seed_rank=rank)]
        rel: list[Candidate] = []
        if follow_succ and not seed.is_live:
            for rec, via in _chain(seed, SUCCESSOR, fetch):
                rel.append(Candidate(record=rec, bucket="relation", source=via, seed_rank=rank))
        if follow_pred:
            for rec, via in _chain(seed, PREDECESSOR, fetch):
                rel.append(Candidate(record=rec, bucket="relation", source=via, seed_rank=rank))
        if mode == "interleave" and view == "current" and not seed.is_live:
            live = [c for c in rel if c.record.is_live]
            if live:
                # The live successor takes the stale seed's place; the stale seed follows it.
                first = live[0]
                head = [first, head[0]]
                rel = [c for c in rel if c is not first]
        per_seed.append((head, rel))
        neigh_ids = seed.linked(*NEIGHBOUR)
        if neigh_ids:
            got = fetch(neigh_ids)
            for rid in neigh_ids:
                if rid in got:
                    semantic.append(Candidate(record=got[rid], bucket="semantic", source=f"neighbour<-{seed.id}", seed_rank=rank))
        for rec in (host_neighbors or {}).get(seed.id, ()):
            semantic.append(Candidate(record=rec, bucket="semantic", source=f"host-link<-{seed.id}", seed_rank=rank))

    ordered: list[Candidate] = []
    if mode == "bucket":
        ordered = [c for head, _ in per_seed for c in head] + [c for _, rel in per_seed for c in rel] + semantic
    else:
        for head, rel in per_seed:
            ordered.extend(head)
            ordered.extend(rel)
        ordered.extend(semantic)
    return _dedup(ordered)


def _dedup(rows: Iterable[Candidate]) -> list[Candidate]:
    seen: set[str] = set()
    out: list[Candidate] = []
    for c in rows:
        if c.id not in seen:
            seen.add(c.id)
            out.append(c)
    return out


def prerank(pool: Sequence[Candidate]) -> list[str]:
    """π0: the pool's own order (stable; ties never reshuffled)."""
    return [c.id for c in pool]


def apply_selection(pi0: Sequence[str], selected: Sequence[str], k: int) -> list[str]:
    """Eq. 12: controller picks (already in controller order) first, then the rest of π0."""
    pool = set(pi0)
    picks = [i for i in dict.fromkeys(selected) if i in pool][:k]
    rest = [i for i in pi0 if i not in set(picks)]
    return top_k(picks + rest, k)


def top_k(order: Sequence[str], k: int) -> list[str]:
    return list(order[: max(k, 0)])



# ------------------------------------------------------------ view-shaped packets
@dataclass(frozen=True, kw_only=True)
class ShapedRow:
    """One row of a view-shaped packet and why it is there."""

    record: Record
    source: str  # "host#2", "successor<-r7" (replaced a stale host hit), "predecessor<-r9", "hop:<pool source>"
    resolved: bool = False  # part of a chain the packet resolves (state notes may be shown)


def _walk(start: Record, types: frozenset[LinkType], fetch: Fetch, limit: int) -> list[Record]:
    """Records reached by following ``types`` links from ``start``, nearest first."""
    out: list[Record] = []
    cur, seen = start, {start.id}
    for _ in range(limit):
        nxt = [t for t in cur.linked(*types) if t not in seen]
        if not nxt:
            break
        got = fetch(nxt[:1])
        if nxt[0] not in got:
            break
        cur = got[nxt[0]]
        seen.add(cur.id)
        out.append(cur)
    return out


def live_head(record: Record, fetch: Fetch, *, limit: int = 64) -> Record | None:
    """The live end of ``record``'s successor chain (None when the chain has none)."""
    chain = _walk(record, SUCCESSOR, fetch, limit)
    live = [r for r in chain if r.is_live]
    return live[-1] if live else None


def shape_packet(
    seeds: Sequence[Record],
    view: str,
    fetch: Fetch,
    k: int,
    *,
    hops: Sequence[Candidate] = (),
    resolved_k: int | None = None,
    relevant: Iterable[str] | None = None,
    resolve_top: int | None = None,
) -> list[ShapedRow]:
    """The evidence packet shaped by the requested view, never worse than the host's own.

    Starts from the host's top ``k`` hits in host order; a hit leaves the packet only when
    it is replaced by its own live successor (current / neutral views: a stale hit whose
    chain has a live head shows the head in its place, once) or pushed down by a row of
    the asked-for state (historical / transition views: the state a live hit replaced is
    put right before it, so the superseded state leads). Relation and semantic ``hops``
    only fill room that is left. ``resolved_k`` (adaptive k): when the first row already
    answers the view from a resolved chain, the packet is cut to that many rows.

    ``relevant`` (default: every seed): the ids a substitution may bring in. A stale hit is
    replaced by its live successor, and a replaced state is put before a live hit, only
    when that other record is itself among the host's hits for the question: a chain whose
    other end the host does not find relevant is more likely a wrong state decision than
    an answer, and must not push out a hit the host got right.

    ``resolve_top``: only the chains of the host's first N hits are resolved (the slot the
    question is most likely about); every other hit is shown as the host ranked it, with
    no state note, so a wrong state decision elsewhere cannot change the packet.
    """
    rows: list[ShapedRow] = []
    present: set[str] = set()
    ok = set(relevant) if relevant is not None else {r.id for r in seeds}
    top = max(k, 0) if resolve_top is None else max(resolve_top, 0)
    chain_ids: set[str] = set()
    for seed in seeds[:top]:
        chain_ids.add(seed.id)
        head = None if seed.is_live else live_head(seed, fetch)
        if head is not None and head.id in ok:
            chain_ids.add(head.id)
        for p in _walk(head or seed, PREDECESSOR, fetch, MAX_CHAIN):
            if p.id in ok:
                chain_ids.add(p.id)

    def put(rec: Record, source: str) -> None:
        if rec.id not in present:
            present.add(rec.id)
            rows.append(ShapedRow(record=rec, source=source, resolved=rec.id in chain_ids))

    past_first = view in ("historical", "transition")
    for rank, seed in enumerate(seeds[: max(k, 0)]):
        src = f"host#{rank + 1}"
        if rank >= top and seed.id not in chain_ids:
            put(seed, src)
            continue
        if not past_first:
            head = None if seed.is_live else live_head(seed, fetch)
            if head is not None and head.id in ok:
                put(head, f"successor<-{seed.id}")  # the stale hit itself is not shown
            else:
                put(seed, src)
            continue
        if seed.is_live:
            for p in _walk(seed, PREDECESSOR, fetch, 1):
                if p.id in ok:
                    put(p, f"predecessor<-{seed.id}")
        put(seed, src)
        if view == "transition" and not seed.is_live:
            head = live_head(seed, fetch)
            if head is not None and head.id in ok:
                put(head, f"successor<-{seed.id}")
    if not past_first:  # a stale row whose live successor is shown is not a separate fact
        shown_live = {r.record.id for r in rows if r.record.is_live}
        rows = [r for r in rows if r.record.is_live or not r.resolved
                or not (set(r.record.linked(*SUCCESSOR)) & shown_live)]
    rows = rows[: max(k, 0)]
    for c in hops:
        if len(rows) >= k:
            break
        if c.id not in present and (past_first or c.record.is_live or c.record.status is Status.UNKNOWN):
            present.add(c.id)
            rows.append(ShapedRow(record=c.record, source=f"hop:{c.source}"))
    if resolved_k is not None and rows and _resolves(rows[0].record, view):
        rows = rows[: max(resolved_k, 1)]
    return rows


def _resolves(first: Record, view: str) -> bool:
    """The first row is the asked-for state of a chain (its slot is resolved)."""
    if view in ("current", "neutral"):
        return first.is_live and bool(first.linked(*PREDECESSOR))
    if view == "historical":
        return first.status is Status.SUPERSEDED
    return False
