"""Structural validators of the LTP reconstruction (``python -m eval.ltp validate [DIR]``).

Each validator takes the scenarios and unit rows (plain JSON objects, as
:func:`eval.ltp_release.load` reads them) and returns its problems as one-line
messages; :func:`validate` runs them all and tags each message ``[name]``. The
``schema`` check comes first (the stream models of :mod:`eval.stream_format` plus
the LTP-specific shape); the others assume a schema-valid release, so they run only
when it passes. A validator that raises has a bug: its exception propagates.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import datetime
from typing import Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval import ltp_slot_tables as S
from eval.grading import normalize
from eval.ltp_build import (
    CUE1_WINDOW, CUE2_WINDOW, N_PROFILES, UNITS_PER_PROFILE, aliases_clash, is_cue, word_in,
)
from eval.stream_format import Scenario, error_lines

__all__ = ["VALIDATORS", "Validator", "validate"]

Validator = Callable[[list[dict], list[dict]], list[str]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _ScenarioMeta(_Strict):
    name: str
    version: str
    profile_id: str
    source: str
    source_conversation: str
    speaker_a: str
    speaker_b: str
    n_original_turns: int
    n_cues: int
    n_units: int
    seed: int
    license: str


class _UnitFacts(_Strict):
    """What a unit row and its probes' meta both state about the unit."""

    unit_id: str
    profile_id: str
    source_conversation: str
    speaker: str
    slot: str
    category: str
    topic: str
    update_type: str
    old_value: str
    current_value: str


class _ProbeMeta(_UnitFacts):
    probe_type: str
    target_state: str
    target_cue_id: str
    other_cue_id: str


Pair = list[str]  # [cue1/old, cue2/current] or [historical, current]


class _Unit(_UnitFacts):
    old_aliases: list[str]
    current_aliases: list[str]
    cue_ids: Pair = Field(min_length=2, max_length=2)
    cue_texts: Pair = Field(min_length=2, max_length=2)
    probe_ids: Pair = Field(min_length=2, max_length=2)
    questions: Pair = Field(min_length=2, max_length=2)
    cue_times: Pair = Field(min_length=2, max_length=2)


def _problems(model: type[BaseModel], obj: object, where: str) -> list[str]:
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        return [f"{where}: {line}" for line in error_lines(exc)]
    return []


def _schema(scenarios: list[dict], units: list[dict]) -> list[str]:
    """The stream format (eval.stream_format) and what LTP adds to it: scenario and
    probe meta, views historical/current only, non-empty alternates, no event meta,
    and the unit rows."""
    out = []
    for si, sc in enumerate(scenarios):
        sid = sc.get("id", f"#{si}") if isinstance(sc, dict) else f"#{si}"
        problems = _problems(Scenario, sc, sid)
        if problems:
            out += problems
            continue
        if "meta" not in sc:
            out.append(f"{sid}: missing key 'meta'")
        else:
            out += _problems(_ScenarioMeta, sc["meta"], f"{sid}: meta")
        for e in sc["events"]:
            if "meta" in e or not e["speaker"]:
                out.append(f"{sid}: event {e['id']} has a meta field or an empty speaker")
        for p in sc["probes"]:
            if p["view"] not in ("historical", "current"):
                out.append(f"{sid}: probe {p['id']} view {p['view']!r} not historical/current")
            if not p.get("alternates"):
                out.append(f"{sid}: probe {p['id']} alternates must be a non-empty list of strings")
            out += _problems(_ProbeMeta, p.get("meta"), f"{sid}: probe {p['id']} meta")
    for ui, u in enumerate(units):
        uid = u.get("unit_id", f"#{ui}") if isinstance(u, dict) else f"#{ui}"
        out += _problems(_Unit, u, f"unit {uid}")
    return out


def _parse_time(s: str) -> datetime:
    return datetime.fromisoformat(s)


def _profiles(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    if len(scenarios) != N_PROFILES:
        out.append(f"{len(scenarios)} profiles, expected {N_PROFILES}")
    want = [f"ltp-profile{i:03d}" for i in range(N_PROFILES)]
    got = [sc["id"] for sc in scenarios]
    if got != want[:len(got)] or len(got) != N_PROFILES:
        out.append(f"profile ids {got} are not {want[0]}..{want[-1]} in order")
    convs = Counter(sc["meta"]["source_conversation"] for sc in scenarios)
    for c, n in convs.items():
        if n > 1:
            out.append(f"LoCoMo conversation {c} bound to {n} profiles")
    for sc in scenarios:
        if sc["meta"]["profile_id"] != sc["id"].removeprefix("ltp-"):
            out.append(f"{sc['id']}: meta.profile_id {sc['meta']['profile_id']!r} does not match the id")
    return out


def _ids(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    for name, ids in (("scenario", [sc["id"] for sc in scenarios]),
                      ("probe", [p["id"] for sc in scenarios for p in sc["probes"]]),
                      ("cue event", [e["id"] for sc in scenarios for e in sc["events"] if is_cue(e)]),
                      ("unit", [u["unit_id"] for u in units])):
        for i, n in Counter(ids).items():
            if n > 1:
                out.append(f"{name} id {i} occurs {n} times")
    for sc in scenarios:
        for i, n in Counter(e["id"] for e in sc["events"]).items():
            if n > 1:
                out.append(f"{sc['id']}: event id {i} occurs {n} times")
    for u in units:
        m = re.fullmatch(r"p(\d{3})-u(\d{2})", u["unit_id"])
        if not m or u["profile_id"] != f"profile{m.group(1)}":
            out.append(f"unit id {u['unit_id']} does not match profile {u['profile_id']}")
            continue
        if u["cue_ids"] != [f"cue-{u['unit_id']}-1", f"cue-{u['unit_id']}-2"]:
            out.append(f"unit {u['unit_id']}: cue ids {u['cue_ids']} do not follow cue-<unit>-1/2")
        if u["probe_ids"] != [f"probe-{u['unit_id']}-hist", f"probe-{u['unit_id']}-cur"]:
            out.append(f"unit {u['unit_id']}: probe ids {u['probe_ids']} do not follow probe-<unit>-hist/cur")
    unit_cues = {c for u in units for c in u["cue_ids"]}
    for sc in scenarios:
        for e in sc["events"]:
            if is_cue(e) and e["id"] not in unit_cues:
                out.append(f"{sc['id']}: cue event {e['id']} belongs to no unit")
    return out


def _coverage(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    by_profile: dict[str, list[dict]] = defaultdict(list)
    for u in units:
        by_profile[u["profile_id"]].append(u)
    metas = {sc["meta"]["profile_id"]: sc["meta"] for sc in scenarios}
    for pid, meta in metas.items():
        us = by_profile.get(pid, [])
        if len(us) != UNITS_PER_PROFILE:
            out.append(f"{pid}: {len(us)} units, expected {UNITS_PER_PROFILE}")
        missing = set(S.CATEGORIES) - {u["category"] for u in us}
        if missing:
            out.append(f"{pid}: slot categories missing: {sorted(missing)}")
        counts = Counter(u["update_type"] for u in us)
        if dict(counts) != S.PER_PROFILE:
            out.append(f"{pid}: update types {dict(counts)} differ from {S.PER_PROFILE}")
        for (spk, slot), n in Counter((u["speaker"], u["slot"]) for u in us).items():
            if n > 1:
                out.append(f"{pid}: slot {slot} of {spk} occurs {n} times")
        for u in us:
            if u["speaker"] not in (meta["speaker_a"], meta["speaker_b"]):
                out.append(f"unit {u['unit_id']}: speaker {u['speaker']!r} is not a speaker of {meta['source_conversation']}")
            if u["source_conversation"] != meta["source_conversation"]:
                out.append(f"unit {u['unit_id']}: source conversation {u['source_conversation']} != {meta['source_conversation']}")
    for u in units:
        if u["profile_id"] not in metas:
            out.append(f"unit {u['unit_id']}: unknown profile {u['profile_id']}")
        if S.UPDATE_TYPE.get(u["category"]) != u["update_type"]:
            out.append(f"unit {u['unit_id']}: category {u['category']} must use update type "
                       f"{S.UPDATE_TYPE.get(u['category'])}, not {u['update_type']}")
        if not u["slot"].startswith(u["category"] + "."):
            out.append(f"unit {u['unit_id']}: slot {u['slot']} is not in category {u['category']}")
    return out


def _probes_per_unit(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    uids = {u["unit_id"]: u for u in units}
    per: dict[str, list[dict]] = defaultdict(list)
    for sc in scenarios:
        for p in sc["probes"]:
            uid = p["meta"]["unit_id"]
            if uid not in uids:
                out.append(f"probe {p['id']} refers to unknown unit {uid}")
            elif uids[uid]["profile_id"] != sc["meta"]["profile_id"]:
                out.append(f"probe {p['id']} sits in {sc['id']} but its unit belongs to {uids[uid]['profile_id']}")
            per[uid].append(p)
    for uid, u in uids.items():
        ps = per.get(uid, [])
        views = sorted(p["view"] for p in ps)
        if len(ps) != 2 or views != ["current", "historical"]:
            out.append(f"unit {uid}: {len(ps)} probes with views {views}, expected one historical and one current")
        if sorted(p["id"] for p in ps) != sorted(u["probe_ids"]):
            out.append(f"unit {uid}: probe ids {sorted(p['id'] for p in ps)} != unit probe_ids {sorted(u['probe_ids'])}")
    return out


def _gold(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    probes = {p["id"]: p for sc in scenarios for p in sc["probes"]}
    events = {e["id"]: e for sc in scenarios for e in sc["events"] if is_cue(e)}
    for u in units:
        oa, na = u["old_aliases"], u["current_aliases"]
        if not oa or not na:
            out.append(f"unit {u['unit_id']}: empty alias list")
            continue
        if normalize(u["old_value"]) == normalize(u["current_value"]):
            out.append(f"unit {u['unit_id']}: old and current value are the same ({u['old_value']!r})")
        for x, y in aliases_clash(oa, na):
            out.append(f"unit {u['unit_id']}: old alias {x!r} and current alias {y!r} are not distinct answers")
        h = probes.get(u["probe_ids"][0])
        c = probes.get(u["probe_ids"][1])
        for p, gold, alt, what in ((h, oa, na, "historical"), (c, na, oa, "current")):
            if p is None:
                continue  # reported by probes_per_unit
            if p["gold"] != gold:
                out.append(f"probe {p['id']} ({what}): gold {p['gold']} != unit {'old' if what == 'historical' else 'current'} aliases {gold}")
            if p["alternates"] != alt:
                out.append(f"probe {p['id']} ({what}): alternates {p['alternates']} != other state's aliases {alt}")
            for x, y in aliases_clash(p["gold"], p["alternates"]):
                out.append(f"probe {p['id']}: gold {x!r} and alternate {y!r} overlap after normalisation")
            if (p["meta"]["old_value"], p["meta"]["current_value"]) != (u["old_value"], u["current_value"]):
                out.append(f"probe {p['id']}: meta values differ from unit {u['unit_id']}")
        for cid, al, what in ((u["cue_ids"][0], oa, "old"), (u["cue_ids"][1], na, "current")):
            e = events.get(cid)
            if e is not None and not any(word_in(a, e["text"]) for a in al):
                out.append(f"cue {cid} does not state the {what} value {al}")
    return out


def _timing(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    umap = {u["unit_id"]: u for u in units}
    for sc in scenarios:
        ev = sc["events"]
        n = sum(1 for e in ev if not is_cue(e))
        times = [_parse_time(e["time"]) for e in ev]
        for i in range(1, len(ev)):
            if times[i] < times[i - 1]:
                out.append(f"{sc['id']}: event {ev[i]['id']} at {ev[i]['time']} is earlier than {ev[i-1]['id']}")
        pos: dict[str, tuple[int, int]] = {}  # cue id -> (event index, original turns before)
        k = 0
        for i, e in enumerate(ev):
            if is_cue(e):
                pos[e["id"]] = (i, k)
                if 0 < i < len(ev) - 1 and not (times[i - 1] < times[i] < times[i + 1]):
                    out.append(f"{sc['id']}: cue {e['id']} time {e['time']} not strictly between its neighbours")
            else:
                k += 1
        if ev and is_cue(ev[-1]):
            out.append(f"{sc['id']}: the last event is a cue; the original LoCoMo tail must follow the updates")
        last = max(times) if times else None
        for p in sc["probes"]:
            if last is not None and _parse_time(p["time"]) <= last:
                out.append(f"{sc['id']}: probe {p['id']} time {p['time']} is not after the last event")
        for uid in {p["meta"]["unit_id"] for p in sc["probes"]}:
            u = umap.get(uid)
            if u is None:
                continue
            c1, c2 = u["cue_ids"]
            if c1 not in pos or c2 not in pos:
                out.append(f"unit {uid}: cue event(s) missing from {sc['id']}: {[c for c in (c1, c2) if c not in pos]}")
                continue
            (i1, k1), (i2, k2) = pos[c1], pos[c2]
            if not (i1 < i2 and times[i1] < times[i2]):
                out.append(f"unit {uid}: cue1 {c1} ({ev[i1]['time']}) is not before cue2 {c2} ({ev[i2]['time']})")
            for cid, kk, (lo, hi) in ((c1, k1, CUE1_WINDOW), (c2, k2, CUE2_WINDOW)):
                q = kk / n if n else -1
                if not (lo <= q <= hi):
                    out.append(f"unit {uid}: {cid} at quantile {q:.3f}, outside [{lo}, {hi}]")
            for cid, i in ((c1, i1), (c2, i2)):
                if ev[i]["speaker"] != u["speaker"]:
                    out.append(f"unit {uid}: {cid} spoken by {ev[i]['speaker']}, unit speaker is {u['speaker']}")
            if u.get("cue_times") and u["cue_times"] != [ev[i1]["time"], ev[i2]["time"]]:
                out.append(f"unit {uid}: cue_times {u['cue_times']} differ from the stream")
    return out


def _labels(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    umap = {u["unit_id"]: u for u in units}
    want = {"historical": ("old", "fact_recall", 0), "current": ("current", "conflict", 1)}
    for sc in scenarios:
        for p in sc["probes"]:
            m = p["meta"]
            u = umap.get(m["unit_id"])
            if p["view"] not in want or u is None:
                continue
            state, ptype, ci = want[p["view"]]
            if m["target_state"] != state or m["probe_type"] != ptype:
                out.append(f"probe {p['id']}: view {p['view']} needs target_state {state!r}/probe_type {ptype!r}, "
                           f"has {m['target_state']!r}/{m['probe_type']!r}")
            if m["target_cue_id"] != u["cue_ids"][ci] or m["other_cue_id"] != u["cue_ids"][1 - ci]:
                out.append(f"probe {p['id']}: view {p['view']} must target {u['cue_ids'][ci]}, targets {m['target_cue_id']}")
            if p["id"] != u["probe_ids"][ci]:
                out.append(f"probe {p['id']}: view {p['view']} but unit lists it as {'current' if ci == 0 else 'historical'}")
            for k in ("speaker", "slot", "category", "topic", "update_type", "profile_id"):
                if m[k] != u[k]:
                    out.append(f"probe {p['id']}: meta {k} {m[k]!r} != unit {u[k]!r}")
            if not word_in(u["speaker"], p["question"]):
                out.append(f"probe {p['id']}: question does not name {u['speaker']}")
    return out


def _leakage(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    for sc in scenarios:
        for p in sc["probes"]:
            for a in p["gold"]:
                if word_in(a, p["question"]):
                    out.append(f"probe {p['id']}: question contains its gold answer {a!r}")
            for a in p["alternates"]:
                if word_in(a, p["question"]):
                    out.append(f"probe {p['id']}: question contains the alternate {a!r}")
    return out


def _totals(scenarios: list[dict], units: list[dict]) -> list[str]:
    out = []
    n_units = len(units)
    n_cues = sum(1 for sc in scenarios for e in sc["events"] if is_cue(e))
    n_probes = sum(len(sc["probes"]) for sc in scenarios)
    for what, got, want in (("units", n_units, N_PROFILES * UNITS_PER_PROFILE),
                            ("cue events", n_cues, 2 * N_PROFILES * UNITS_PER_PROFILE),
                            ("probes", n_probes, 2 * N_PROFILES * UNITS_PER_PROFILE)):
        if got != want:
            out.append(f"{got} {what}, expected {want}")
    return out


VALIDATORS: dict[str, Validator] = {
    "schema": _schema, "profiles": _profiles, "ids": _ids, "coverage": _coverage,
    "probes_per_unit": _probes_per_unit, "gold": _gold, "timing": _timing, "labels": _labels,
    "leakage": _leakage, "totals": _totals,
}


def validate(scenarios: list[dict], units: list[dict]) -> list[str]:
    """All structural violations as ``[validator] message`` lines (empty list = valid).

    Schema problems are reported alone: the other checks read fields the schema
    guarantees. Exceptions are not caught (a validator that raises has a bug).
    """
    schema = [f"[schema] {m}" for m in VALIDATORS["schema"](scenarios, units)]
    if schema:
        return schema
    out: list[str] = []
    for name, fn in VALIDATORS.items():
        if name != "schema":
            out.extend(f"[{name}] {m}" for m in fn(scenarios, units))
    return out
