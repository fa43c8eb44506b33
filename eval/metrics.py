"""Evaluation metrics (A-TMA App. A.6): pure functions over the final bank, the per-probe
diagnostics read off the traces, the grades and the write traces. No I/O.

Everything is keyed by *event id* (the stream's ids), not by a store's own ids: the
runner passes ``meta={"event_id": ...}`` on every write and maps record / host ids back,
so one set of functions serves the host-alone row and the host + overlay row.

* Bank coexist (per state unit): the final store holds a record for both cues of the
  unit (the old value's and the current value's).
* Bank role (per unit): those two records also carry a native state-role signal: the old
  one has status ``superseded``/``transition``, or a ``supersedes``/``evolves``/
  ``coexists``/``scoped_exception`` link joins them. Timestamps alone earn nothing, so
  a host with no status or links scores 0.
* Evidence support (per probe): the packet (host alone: its top-k hits) contains the
  record of the requested state's cue; for probes without cue ids, a packet row names a
  gold alias.
* Retrieval diagnostics (per probe): target in candidate pool, target in packet, stale
  leakage (the other state's record ahead of the target in the packet, or there without
  the target), future-state intrusion (historical probes: the current-state record ahead
  of the target). A wrong answer is attributed to ``candidate`` (target not in the pool),
  ``ranking`` (in the pool, not in the packet) or ``qa`` (in the packet, wrong answer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

__all__ = [
    "ROLE_LINKS",
    "StoredItem",
    "Unit",
    "attribute",
    "bank_scores",
    "items_from_records",
    "judge_stats",
    "probe_diagnostics",
    "summarize",
    "units_from_probes",
]

ROLE_LINKS = frozenset({"supersedes", "superseded_by", "evolves_from", "evolves_to", "coexists_with",
                        "scoped_exception"})
ROLE_STATUSES = frozenset({"superseded", "transition"})
JUDGE_SCORE = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


@dataclass(frozen=True, kw_only=True)
class StoredItem:
    """One record of a final store, seen through the store's native interface.

    ``status`` None and no ``links``: the store exposes no state role (a plain host)."""

    id: str
    event_id: str
    status: str | None = None
    links: tuple[tuple[str, str], ...] = ()  # (link type, target record id)


@dataclass(frozen=True, kw_only=True)
class Unit:
    """A state unit: the old state's cue event and the later state's cue event."""

    id: str
    old_cue: str
    new_cue: str


def items_from_records(records: Iterable[Any]) -> list[StoredItem]:
    """Bank records (``atma.records.Record``) that carry ``meta["event_id"]``."""
    out = []
    for r in records:
        eid = (r.meta or {}).get("event_id")
        if eid is None:
            continue
        out.append(StoredItem(id=r.id, event_id=str(eid), status=r.status.value,
                              links=tuple((l.type.value, l.target) for l in r.links)))
    return out


def units_from_probes(probes: Iterable[Mapping[str, Any]], event_order: Mapping[str, int]) -> list[Unit]:
    """Units from probe meta (``target_cue_id``, ``other_cue_id``, optional ``unit_id``).

    The earlier cue in the replay order is the old state. Probes without both cue ids
    contribute no unit.

    >>> units_from_probes([{"target_cue_id": "c2", "other_cue_id": "c1", "unit_id": "u"}], {"c1": 0, "c2": 5})
    [Unit(id='u', old_cue='c1', new_cue='c2')]
    """
    units: dict[tuple[str, str], Unit] = {}
    for meta in probes:
        a, b = meta.get("target_cue_id"), meta.get("other_cue_id")
        if not a or not b or a not in event_order or b not in event_order:
            continue
        old, new = (a, b) if event_order[a] <= event_order[b] else (b, a)
        units.setdefault((old, new), Unit(id=str(meta.get("unit_id") or f"{old}|{new}"), old_cue=old, new_cue=new))
    return list(units.values())


def bank_scores(items: Sequence[StoredItem], units: Sequence[Unit]) -> dict[str, Any]:
    """Bank coexist and bank role over ``units``: means, and the per-unit flags.

    >>> items = [StoredItem(id="r1", event_id="c1", status="superseded"), StoredItem(id="r2", event_id="c2", status="active")]
    >>> s = bank_scores(items, [Unit(id="u", old_cue="c1", new_cue="c2")])
    >>> s["coexist"], s["role"]
    (1.0, 1.0)
    >>> bank_scores([StoredItem(id="h1", event_id="c1"), StoredItem(id="h2", event_id="c2")], [Unit(id="u", old_cue="c1", new_cue="c2")])["role"]
    0.0
    """
    by_event: dict[str, StoredItem] = {}
    for it in items:
        by_event.setdefault(it.event_id, it)
    per_unit = []
    for u in units:
        old, new = by_event.get(u.old_cue), by_event.get(u.new_cue)
        coexist = old is not None and new is not None
        role = False
        if coexist:
            joined = any(t in ROLE_LINKS and dst == new.id for t, dst in old.links) or any(
                t in ROLE_LINKS and dst == old.id for t, dst in new.links)
            role = old.status in ROLE_STATUSES or joined
        per_unit.append({"unit": u.id, "coexist": coexist, "role": role})
    n = len(per_unit)
    return {"n_units": n,
            "coexist": _mean(float(p["coexist"]) for p in per_unit) if n else None,
            "role": _mean(float(p["role"]) for p in per_unit) if n else None,
            "per_unit": per_unit}


def probe_diagnostics(*, pool: Sequence[str | None], packet: Sequence[str | None], target: str | None,
                      other: str | None, view: str, packet_texts: Sequence[str] = (),
                      gold: Sequence[str] = ()) -> dict[str, Any]:
    """Per-probe retrieval diagnostics in event-id space (``None`` entries: rows with no event id).

    >>> d = probe_diagnostics(pool=["a", "b", "t"], packet=["o", "t"], target="t", other="o", view="historical")
    >>> d["target_in_packet"], d["stale_leak"], d["future_intrusion"]
    (True, True, True)
    """
    if target is None:
        from .grading import names

        support = any(names(text, g) for text in packet_texts for g in gold)
        return {"target_known": False, "target_in_pool": None, "target_in_packet": None, "other_in_packet": None,
                "stale_leak": None, "future_intrusion": None, "evidence_support": support}
    packet = list(packet)
    in_packet = target in packet
    in_pool = in_packet or target in pool
    other_in = other is not None and other in packet
    ahead = other_in and (not in_packet or packet.index(other) < packet.index(target))
    return {"target_known": True, "target_in_pool": in_pool, "target_in_packet": in_packet, "other_in_packet": other_in,
            "stale_leak": ahead, "future_intrusion": ahead if view == "historical" else None,
            "evidence_support": in_packet}


def attribute(verdict: str, diag: Mapping[str, Any]) -> str | None:
    """Failure class of a wrong probe: ``candidate`` | ``ranking`` | ``qa`` (| ``unknown``); None when correct.

    >>> attribute("drift", {"target_known": True, "target_in_pool": True, "target_in_packet": False})
    'ranking'
    """
    if verdict == "correct":
        return None
    if not diag.get("target_known"):
        return "unknown"
    if not diag.get("target_in_pool"):
        return "candidate"
    if not diag.get("target_in_packet"):
        return "ranking"
    return "qa"


def judge_stats(write_traces: Iterable[Mapping[str, Any]], n_events: int) -> dict[str, Any]:
    """Audit-Judge load from write traces: escalated pairs, LLM calls, fallbacks (calls whose
    reply was unusable, decided by the rule instead), rule-only decisions (Judge disabled)."""
    calls = fallbacks = escalated = 0
    for body in write_traces:
        for j in body.get("judge", ()):
            escalated += 1
            if j.get("status") != "skipped":
                calls += 1
                fallbacks += bool(j.get("fallback"))
    return {"events": n_events, "escalated_pairs": escalated, "judge_calls": calls, "fallbacks": fallbacks,
            "rule_decisions": escalated - calls,
            "judge_calls_per_100_events": 100.0 * calls / n_events if n_events else 0.0}


def summarize(rows: Sequence[Mapping[str, Any]], *, bank: Mapping[str, Any] | None = None,
              writes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Row-level metrics from graded per-probe rows (each with ``verdict``, ``view``,
    ``diag``, ``attribution``, optional ``judge_label``/``decided_by``)."""
    n = len(rows)
    verdicts = [r["verdict"] for r in rows]
    out: dict[str, Any] = {
        "n": n,
        "qa_acc": _rate(verdicts, "correct"),
        "drift_rate": _rate(verdicts, "drift"),
        "other_rate": _rate(verdicts, "other"),
        "evidence_support": _mean(float(bool(r["diag"]["evidence_support"])) for r in rows) if n else None,
        "conflict_acc": _rate([r["verdict"] for r in rows if r["view"] == "current"], "correct"),
        "fact_acc": _rate([r["verdict"] for r in rows if r["view"] == "historical"], "correct"),
    }
    per_view: dict[str, Any] = {}
    for view in sorted({r["view"] for r in rows}):
        vs = [r["verdict"] for r in rows if r["view"] == view]
        per_view[view] = {"n": len(vs), "qa_acc": _rate(vs, "correct"), "drift_rate": _rate(vs, "drift")}
    out["per_view"] = per_view
    known = [r["diag"] for r in rows if r["diag"].get("target_known")]
    hist = [d for d, r in zip(known, [r for r in rows if r["diag"].get("target_known")]) if r["view"] == "historical"]
    out["retrieval"] = {
        "n_with_target": len(known),
        "target_in_pool": _mean(float(d["target_in_pool"]) for d in known) if known else None,
        "target_in_packet": _mean(float(d["target_in_packet"]) for d in known) if known else None,
        "stale_leakage": _mean(float(d["stale_leak"]) for d in known) if known else None,
        "future_intrusion": _mean(float(d["future_intrusion"]) for d in hist) if hist else None,
    }
    attribution = {"candidate": 0, "ranking": 0, "qa": 0, "unknown": 0}
    for r in rows:
        if r.get("attribution"):
            attribution[r["attribution"]] += 1
    out["attribution"] = attribution
    labels = [r.get("judge_label") for r in rows]
    scored = [JUDGE_SCORE[l] for l in labels if l in JUDGE_SCORE]
    out["judge"] = {
        "resolved_by_judge": sum(1 for r in rows if r.get("decided_by") == "judge"),
        "ambiguous": sum(1 for r in rows if r.get("ambiguous")),
        "judged": len(scored),
        "judge_errors": sum(1 for r in rows if r.get("judge_error")),
        "score": _mean(scored) if scored and len(scored) == n else None,
    }
    out["bank"] = dict(bank) if bank is not None else {"n_units": 0, "coexist": None, "role": None}
    out["bank"].pop("per_unit", None)
    out["writes"] = dict(writes) if writes is not None else None
    return out


def _rate(values: Sequence[str], what: str) -> float | None:
    return sum(v == what for v in values) / len(values) if values else None


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Mean of ``a - b`` over paired probes with a 95% percentile bootstrap interval
    (probes resampled with replacement, ``n_boot`` times, fixed seed).

    >>> r = paired_bootstrap([1, 1, 1, 0] * 25, [0, 1, 0, 0] * 25)
    >>> r["n"], round(r["diff"], 2), r["ci95"][0] > 0
    (100, 0.5, True)
    """
    import numpy as np

    if len(a) != len(b):
        raise ValueError("paired_bootstrap needs two lists of one length")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    n = len(d)
    if n == 0:
        return {"n": 0, "diff": None, "ci95": [None, None]}
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {"n": n, "diff": float(d.mean()), "ci95": [float(lo), float(hi)]}


def state_change_stats(writes: Iterable[Mapping[str, Any]], items: Sequence[StoredItem], units: Sequence[Unit]
                       ) -> dict[str, Any]:
    """In-loop quality of the write path for one task (sum the counts over tasks with
    :func:`merge_state_change_stats`).

    * ``updates_right``: update cues whose own write committed a supersede or transition on
      their unit's old cue; ``old_retired``: old cues no longer active at the end (by any write);
    * ``spurious_changes``: supersede/transition changes committed by the writes of events that
      are not an update cue, over ``non_update_events`` such writes;
    * ``judge_calls`` (pairs a Judge backend decided, the rule not counted) and ``judge_s``;
    * ``verdicts``: the Judge's verdicts other than "none" by kind (supersede, transition, coexist,
      scoped_exception, ``same_value`` for another speaker's acknowledgement), on update cues'
      writes and on other events' writes, whether or not a change was committed.

    >>> it = [StoredItem(id="r1", event_id="a1", status="superseded"), StoredItem(id="r2", event_id="f"),
    ...       StoredItem(id="r3", event_id="a2")]
    >>> w = [{"record_id": "r2", "changes": [], "judge": [], "timings": {"judge_s": 0.01}},
    ...      {"record_id": "r3", "changes": [{"action": "supersede", "old_id": "r1"}],
    ...       "judge": [{"status": "ok"}], "timings": {"judge_s": 0.02}}]
    >>> s = state_change_stats(w, it, [Unit(id="u", old_cue="a1", new_cue="a2")])
    >>> (s["updates"], s["updates_right"], s["old_retired"], s["spurious_changes"], s["non_update_events"], s["judge_calls"])
    (1, 1, 1, 0, 1, 1)
    """
    ev = {i.id: i.event_id for i in items}
    status = {i.event_id: i.status for i in items}
    new_cues = {u.new_cue: u.old_cue for u in units}
    right = spurious = non_update = calls = 0
    judge_s = 0.0
    seen_updates: set[str] = set()
    verdicts: dict[str, int] = {}
    for body in writes:
        e = ev.get(str(body.get("record_id", "")), "")
        changes = [c for c in body.get("changes", ()) if c.get("action") in ("supersede", "transition")]
        calls += sum(1 for j in body.get("judge", ()) if j.get("status") != "skipped")
        for j in body.get("judge", ()):
            v = j.get("verdict") or {}
            if not v:  # the rule's calls are "skipped" (no backend called) and carry its verdict
                continue
            kind = "same_value" if v.get("same_value") else str(v.get("action", "none"))
            if kind != "none":
                key = f"{kind} ({'update cue' if e in new_cues else 'other event'})"
                verdicts[key] = verdicts.get(key, 0) + 1
        judge_s += float((body.get("timings") or {}).get("judge_s", 0.0))
        if e in new_cues:
            seen_updates.add(e)
            right += any(ev.get(str(c.get("old_id"))) == new_cues[e] for c in changes)
        else:
            non_update += 1
            spurious += len(changes)
    present = [u for u in units if u.new_cue in seen_updates]
    return {"updates": len(present), "updates_right": right,
            "old_retired": sum(1 for u in present if status.get(u.old_cue, "active") != "active"),
            "spurious_changes": spurious, "non_update_events": non_update, "judge_calls": calls,
            "judge_s": round(judge_s, 4), "events": len(writes), "verdicts": verdicts}


def merge_state_change_stats(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sum per-task :func:`state_change_stats` and add the rates."""
    keys = ("updates", "updates_right", "old_retired", "spurious_changes", "non_update_events", "judge_calls",
            "judge_s", "events")
    tot = {k: 0 for k in keys}
    for p in parts:
        for k in keys:
            tot[k] += p.get(k, 0)
    verdicts: dict[str, int] = {}
    for p in parts:
        for k, v in (p.get("verdicts") or {}).items():
            verdicts[k] = verdicts.get(k, 0) + v
    tot["verdicts"] = dict(sorted(verdicts.items()))
    u, n, e = tot["updates"], tot["non_update_events"], tot["events"]
    tot.update({"update_right_share": tot["updates_right"] / u if u else None,
                "old_retired_share": tot["old_retired"] / u if u else None,
                "spurious_per_100_non_update": 100.0 * tot["spurious_changes"] / n if n else None,
                "judge_calls_per_event": tot["judge_calls"] / e if e else None,
                "judge_s_per_event": tot["judge_s"] / e if e else None})
    return tot
