"""Synthetic profile/interaction data for training the Sentry gate (paper §4.3, App. A.8).

What: ``generate(seed)`` builds profiles (one fact per slot), and interactions that
either *conflict* with one profile fact (four update types: temporal update, explicit
negation, value discrepancy, scope mismatch) or are *consistent* with it (restatement,
refinement, added detail, a friend's suggestion that changes nothing). Within each type the
wording is drawn from phrasing families real updates use (``style``): both values named
("I was X for years, but now Y"), implicit changes (an everyday remark presupposing the new
value, no contradiction words), a plain new value, change markers, negation with or without
the new value, corrections, numeric restatements ("more like N these days"), slot-specific
and generic scoped exceptions. Each interaction
also names one negative fact of the same profile from another slot, often a slot whose
value the interaction mentions ("same entity, different slot").

Slots (58, data only in :mod:`training.sentry_slot_tables`; wrapped here as ``SLOTS``): narrow ones, as real state units are, so that neighbouring topics
must be told apart: job vs side job; own pet vs foster animal vs pet-sitting; partner vs
carpool, gym, hiking, tennis and language-exchange partners and mentor; ten hobby slots
(craft, dance, instrument, language, ...); fourteen preference slots (dessert vs snack vs
ice cream vs breakfast vs comfort food vs takeaway; music vs podcasts vs TV vs books; ...);
21 numeric habits. Every profile has a job and a home city plus 12 further slots dealt
evenly; interactions pick a slot uniformly, then a profile fact of that slot.

Why synthetic: the paper's reconstructed profile pool is not released. The value pools,
person names and wording are our own and deliberately differ from the LTP
reconstruction (no LoCoMo speaker names); ``tests/unit/test_sentry_data.py`` checks that
no LTP cue text or probe question occurs here.

Run: ``python -m training.sentry data --out DIR`` writes ``sentry_data.json`` and
``manifest.json`` (sha256 of the data file, counts, seed). Same seed, same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from functools import partial
from typing import Any, Callable, Iterable, Mapping, Sequence

from training import sentry_slot_tables as T

__all__ = [
    "CONFLICT_TYPES",
    "CONSISTENT_KINDS",
    "GENERATOR_VERSION",
    "PairExample",
    "SentryData",
    "build_pairs",
    "dataset_sha256",
    "load_dataset",
    "generate",
    "pair_targets",
    "split_interactions",
    "write_dataset",
    # Wording pieces the Judge and verdict generators reuse (training.judge_data, verdict_data).
    "PARTNERS",
    "RELATIVES",
    "SLOTS",
    "SLOT_BY_KEY",
    "Slot",
    "cap",
    "conflict_text",
    "conflict_types_for",
    "consistent_text",
    "decap",
    "mention_clause",
    "other_value",
    "with_article",
]

GENERATOR_VERSION = "sentry-data-3"

CONFLICT_TYPES = ("temporal_update", "explicit_negation", "value_discrepancy", "scope_mismatch")
CONSISTENT_KINDS = ("restatement", "refinement", "added_detail", "friend_suggestion")

# Relation of a (new interaction, old fact) pair -> (y_top, y_log), Eq. 5.
_LABEL_MAP: Mapping[str, tuple[float, float]] = {
    "same_slot_conflict": (1.0, 0.0),
    "same_slot_consistent": (1.0, 1.0),
    "other_slot": (0.0, 0.0),
}


def pair_targets(relation: str) -> tuple[float, float]:
    """Eq. 5: ``same_slot_conflict`` -> (1, 0); ``same_slot_consistent`` -> (1, 1);
    ``other_slot`` -> (0, 0). Raises ``KeyError`` for anything else."""
    return _LABEL_MAP[relation]


# --------------------------------------------------------------------------- slots
def with_article(phrase: str) -> str:
    """``phrase`` with "a" or "an" before it (by its first letter)."""
    return ("an " if phrase[0].lower() in "aeiou" else "a ") + phrase


class Slot:
    """A row of :data:`training.sentry_slot_tables.SLOTS` with its wording rendered for a value:
    ``first(v)``/``third(name, v)`` state the value, ``neg(v)`` negates it, ``short(v)`` names
    it, ``suggest(w)`` proposes it, ``past`` is ``None`` or ``past(v)`` ("I was a welder")."""

    def __init__(self, row: T.SlotTable):
        self.row = row
        self.key, self.family, self.label, self.values = row.key, row.family, row.label, row.values
        self.scope, self.refine, self.detail = row.scope, row.refine, row.detail

    def _say(self, wording: T.Wording, v: Any, **extra: Any) -> str:
        if not isinstance(wording, str):  # one format string per relationship status
            wording = wording[v[0]]
        return wording.format(**_fields_of(self.family, v), **extra)

    def first(self, v: Any) -> str:
        return self._say(self.row.first, v)

    def third(self, name: str, v: Any) -> str:
        return self._say(self.row.third, v, name=name)

    def neg(self, v: Any) -> str:
        return self._say(self.row.neg, v)

    def short(self, v: Any) -> str:
        return self._say(self.row.short, v)

    def suggest(self, w: Any) -> str:
        return self._say(self.row.suggest, w)

    @property
    def past(self) -> Callable[[Any], str] | None:
        past = self.row.past
        return None if past is None else partial(self._say, past)


def _fields_of(family: str, v: Any) -> dict[str, Any]:
    """Format fields of a value (see training.sentry_slot_tables): {n} for a number; {v} and
    {av} for a plain value; {sp}, {nm}, {asp} for a (species, name) or (status, partner) pair."""
    if family == "numerical":
        return {"n": v}
    if isinstance(v, tuple):
        return {"sp": v[0], "nm": v[1], "asp": with_article(v[0])}
    return {"v": v, "av": with_article(str(v))}


SLOTS: tuple[Slot, ...] = tuple(Slot(row) for row in T.SLOTS)
SLOT_BY_KEY = {s.key: s for s in SLOTS}
PARTNERS, RELATIVES = T.PARTNERS, T.RELATIVES  # also read by training.judge_data


def _proper_words() -> frozenset[str]:
    """First words of capitalised values (names, cities, languages, cuisines): :func:`decap`
    must not lower-case a sentence that starts with one. Also their forms with trailing
    letters stripped the way :func:`decap` strips them ("Idris" -> "Idri")."""
    words: set[str] = set(T.PARTNERS) | {"K-pop", "klezmer"}
    for s in SLOTS:
        for v in s.values:
            for part in (v if isinstance(v, tuple) else (v,)):
                if isinstance(part, str) and part[:1].isupper():
                    w = part.split(" ", 1)[0]
                    words |= {w, w.rstrip(",.:;'s")}
    return frozenset(words)


_PROPER = _proper_words()


# --------------------------------------------------------------------------- phrasing extras
# Past-tense clause per slot ("I was a welder"), used by the "both values named" families.
def _past(slot: Slot, v: Any) -> str:
    if slot.past is None:
        raise KeyError(slot.key)
    return slot.past(v)


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class PairExample:
    """One training pair: a new interaction text against an old profile fact text."""

    interaction_id: str
    new_text: str
    old_text: str
    relation: str  # key of the Eq. 5 label map
    kind: str  # interaction kind (conflict type or consistent kind)

    @property
    def targets(self) -> tuple[float, float]:
        return pair_targets(self.relation)

    @property
    def needs_audit(self) -> bool:
        return self.relation == "same_slot_conflict"


@dataclass(frozen=True)
class SentryData:
    """The generated dataset: ``profiles`` and ``interactions`` are JSON-ready dicts."""

    seed: int
    profiles: list[dict[str, Any]]
    interactions: list[dict[str, Any]]

    def facts_by_id(self) -> dict[str, dict[str, Any]]:
        return {f["id"]: f for p in self.profiles for f in p["facts"]}

    def to_json(self) -> dict[str, Any]:
        return {"version": GENERATOR_VERSION, "seed": self.seed,
                "profiles": self.profiles, "interactions": self.interactions}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "SentryData":
        return cls(seed=obj["seed"], profiles=list(obj["profiles"]),
                   interactions=list(obj["interactions"]))

    def texts(self) -> list[str]:
        """Every text in the dataset (facts first, then interactions)."""
        return [f["text"] for p in self.profiles for f in p["facts"]] + [
            i["text"] for i in self.interactions]


# --------------------------------------------------------------------------- generation
def other_value(rng: random.Random, values: Sequence[Any], v: Any) -> Any:
    """A value of ``values`` other than ``v``, drawn with ``rng``."""
    while True:
        w = rng.choice(values)
        if w != v and not (isinstance(w, tuple) and isinstance(v, tuple) and w[1] == v[1]):
            return w


def _fill(template: str, slot: Slot, v: Any, w: Any) -> str:
    fields = {"v": slot.short(v), "w": slot.short(w), "m": w, "n": v}
    if slot.family == "job":
        fields.update(v=v, w=w, av=with_article(v), aw=with_article(w))
    if slot.key == "relationship":
        fields["p"] = v[1] or T.PARTNERS[0]
    if slot.family == "pets":
        fields.update(pn=v[1], ps=v[0])
    text = template.format(**fields)
    return text[0].upper() + text[1:]


def cap(s: str) -> str:
    """``s`` with its first letter upper-cased."""
    return s[0].upper() + s[1:]


def decap(s: str) -> str:
    """Lower-case the first letter unless the first word is a name or "I"."""
    first = s.split(" ", 1)[0].rstrip(",.:;'s")
    if first in _PROPER or first == "I" or s.startswith("I'"):
        return s
    return s[0].lower() + s[1:]


def _details(slot: Slot) -> tuple[str, ...]:
    return tuple(slot.detail) + tuple(T.MORE_DETAIL.get(slot.key, ()))


def _renderable(slot: Slot, v: Any) -> bool:
    """Whether value ``v`` can fill the slot's detail/refine templates (a partner name)."""
    return not (slot.key == "relationship" and v[0] == "single")


def conflict_text(rng: random.Random, slot: Slot, kind: str, v: Any, w: Any
                   ) -> tuple[str, str]:
    """A conflicting interaction for old value ``v`` (new value ``w`` where one is named).
    Returns ``(text, style)``; the styles are the phrasing families of real updates."""
    month, period = rng.choice(T.MONTHS), rng.choice(T.PERIODS)
    sv, sw = slot.short(v), slot.short(w)
    styles = list(T.STYLES_CONFLICT[kind])
    if kind == "temporal_update" and not _renderable(slot, w):
        styles.remove("implicit")
    if kind == "value_discrepancy" and slot.family != "numerical":
        styles.remove("restated_number")
    if kind == "scope_mismatch" and slot.key == "relationship":
        styles.remove("scope_generic")
    if slot.key not in T.EXCLUSIVE:  # "I love figs" does not contradict "I love kimchi"
        styles = [x for x in styles if x not in ("implicit", "plain_new_value")]
    weights = [T.STYLE_WEIGHT.get(x, 1) for x in styles]
    style = rng.choices(styles, weights=weights)[0]
    if style == "marker":
        return rng.choice((
            f"Since {month}, {slot.first(w)}.",
            f"Quick update: as of {period}, {slot.first(w)}.",
            f"Things changed {period} and now {slot.first(w)}.",
            f"{cap(slot.first(w))} now; that started in {month}.",
            f"Big change {period}: {slot.first(w)}.",
            f"These days {slot.first(w)}.",
        )), style
    if style == "both_values":
        opts = [
            f"{cap(_past(slot, v))} for years, but now {slot.first(w)}.",
            f"Back then {_past(slot, v)}; these days {slot.first(w)}.",
            f"{cap(_past(slot, v))} until {period}, and now {slot.first(w)}.",
            f"No longer {sv} - {sw} now.",
            f"Went from {sv} to {sw} {period}.",
            f"Swapped {sv} for {sw}.",
            f"It's not {sv} these days, it's {sw}.",
            f"Remember when {_past(slot, v)}? That's changed, {slot.first(w)} now.",
            f"{cap(slot.first(w))} now, not {sv}.",
            f"Moved on from {sv}. {cap(slot.first(w))}.",
            f"{cap(slot.neg(v))}; {slot.first(w)} instead.",
            f"It used to be {sv}, but {period} that switched to {sw}.",
        ]
        if slot.key in T.FAVOURITE:
            opts += [f"{cap(sv)} was my favourite for ages, but these days it's {sw}.",
                     f"I was all about {sv} once; lately it's {sw}.",
                     f"{cap(sv)} had a good run, but I'm into {sw} now."]
        if slot.key == "job":
            opts += [f"I left my job as {with_article(v)} {period} and now {slot.first(w)}.",
                     f"After years as {with_article(v)}, I've retrained; {slot.first(w)} now."]
        if slot.key == "location":
            opts += [f"We packed up and left {v} {period}; home is {w} now.",
                     f"{v} was home for a long time, but I'm settled in {w} now."]
        return rng.choice(opts), style
    if style == "implicit":
        tpls = [t for t in _details(slot) + tuple(slot.refine)
                if not any(x in t.lower() for x in ("still", "same", "now", "before"))]
        return _fill(rng.choice(tpls), slot, w, v) + rng.choice((".", "!", ".")), style
    if style == "plain_new_value":
        return rng.choice((f"{cap(slot.first(w))}.", f"For what it's worth, {slot.first(w)}.",
                           f"Oh and {slot.first(w)}.", f"{cap(slot.first(w))}, by the way.")), style
    if style == "negation":
        opts = [f"{cap(slot.neg(v))}.", f"Just so you know, {slot.neg(v)}.",
                f"{cap(slot.neg(v))}, that ended {period}.",
                f"{cap(slot.neg(v))}; that's behind me now.",
                f"That's over: {slot.neg(v)}.",
                f"Honestly, {slot.neg(v)}."]
        if slot.family not in ("job", "relationship"):
            opts += [f"No more {sv} for me.", f"{cap(sv)}? Not anymore."]
        return rng.choice(opts), style
    if style == "negation_new_value":
        return rng.choice((
            f"{cap(slot.neg(v))} - {slot.first(w)} now.",
            f"Not {sv} anymore; {slot.first(w)}.",
            f"{cap(slot.neg(v))}. {cap(slot.first(w))} since {month}.",
        )), style
    if style == "correction":
        if slot.family == "numerical":
            return rng.choice((
                f"Correction: {slot.first(w)}, not {v}.",
                f"I got that wrong before, it's really {sw}, not {sv}.",
                f"Actually {slot.first(w)}; the {v} figure was off.",
            )), style
        return rng.choice((
            f"Correction: {slot.first(w)}, not {sv}.",
            f"I misspoke earlier, {slot.first(w)} rather than {sv}.",
            f"Sorry, I mixed that up: {slot.first(w)}.",
            f"Let me fix something I said: {slot.first(w)}, not {sv}.",
        )), style
    if style == "restated_number":
        return rng.choice((
            f"These days it's more like {sw}.",
            f"More like {sw} lately.",
            f"Honestly it's closer to {sw} now.",
            f"{cap(sw)} these days, roughly.",
            f"It's gone from {sv} to {sw}.",
            f"{cap(sv)} was the old normal; now it's {sw}.",
            f"Realistically {slot.first(w)} at the moment.",
        )), style
    if style == "scope_slot":
        return _fill(rng.choice(slot.scope), slot, v, w) + ".", style
    if style == "scope_generic":
        when = rng.choice(T.WHEN)
        return rng.choice((
            f"{cap(slot.first(v))}, but not {when}.",
            f"{cap(slot.first(v))}, except {when}, when it's {sw}.",
            f"{cap(when)} it's {sw}; otherwise {slot.first(v)}.",
            f"Only {when} now: {slot.first(v)}.",
            f"{cap(sv)} still, just not {when}.",
            f"Still {sv}, but only {when} now.",
            f"{cap(slot.first(v))} most of the time, though {when} I switch to {sw}.",
            f"{cap(sv)} is a {when.split()[-1]}-only thing for me now.",
            f"Mostly {sv}, apart from {when}.",
        )), style
    raise ValueError((kind, style))


def consistent_text(rng: random.Random, slot: Slot, kind: str, v: Any, w: Any
                     ) -> tuple[str, str]:
    """A consistent interaction for value ``v``; ``(text, style)``."""
    rel = rng.choice(T.RELATIVES)
    sv, sw = slot.short(v), slot.short(w)
    if kind == "restatement":
        opts = [
            f"{cap(slot.first(v))}, same as before.",
            f"Nothing new there: {slot.first(v)}.",
            f"Still the case that {slot.first(v)}.",
            f"Like I said, {slot.first(v)}.",
            f"Still {sv}, nothing's changed.",
            f"{cap(slot.first(v))}, and I don't see that changing.",
            f"Years on, {slot.first(v)}.",
            f"For the record, {slot.first(v)} still.",
            f"Some things never change: {slot.first(v)}.",
            f"Same as always, {slot.first(v)}.",
        ]
        if slot.key in T.FAVOURITE:
            opts += [f"{cap(sv)} has been my favourite for years and still is.",
                     f"Still love {sv}, always will.",
                     f"Nothing beats {sv}, even after all this time."]
        return rng.choice(opts), "restatement"
    if kind == "refinement":
        return _fill(rng.choice(slot.refine), slot, v, w) + ".", "refinement"
    if kind == "added_detail":
        return _fill(rng.choice(_details(slot)), slot, v, w) + rng.choice((".", "!", ".")), "added_detail"
    if kind == "friend_suggestion":
        return rng.choice((
            f"My {rel} keeps telling me to {slot.suggest(w)}, but {slot.first(v)} and that's not changing.",
            f"My {rel} suggested I {slot.suggest(w)}; I said no, {slot.first(v)}.",
            f"I thought about {sw} for a while, but no: {slot.first(v)}.",
            f"Tried {sw} once; {slot.first(v)} and that's how it'll stay.",
        )), "other_value_mentioned"
    raise ValueError(kind)


# Which slots can carry which conflict type (scope and discrepancy need wording that fits):
# a correction ("..., not X") fits numbers, jobs, places, animals and the people in role
# slots, not a partner or a taste.
def conflict_types_for(slot: Slot) -> tuple[str, ...]:
    """The conflict types a slot's wording can express."""
    if slot.key == "relationship":
        return ("temporal_update", "explicit_negation", "scope_mismatch")
    if slot.family in ("numerical", "job", "location", "pets", "relationship"):
        return CONFLICT_TYPES
    return ("temporal_update", "explicit_negation", "scope_mismatch")


def mention_clause(slot: Slot, fact: Mapping[str, Any]) -> str | None:
    """A short clause naming another slot's value, to build same-entity hard negatives."""
    v = fact["value"]
    if slot.key == "relationship":
        return f"{v[1]} says hi" if v[0] != "single" else None
    m = T.MENTIONS.get(slot.key)
    return m.format(**_fields_of(slot.family, tuple(v) if isinstance(v, list) else v)) if m else None


def _fact_text(rng: random.Random, slot: Slot, name: str, value: Any) -> str:
    """A profile fact: a plain first/third-person statement, or (a third of the time) an
    everyday remark that states the value in passing, as a remembered conversation would."""
    r = rng.random()
    if r < 0.33 and _renderable(slot, value):
        return _fill(rng.choice(_details(slot) + tuple(slot.refine)), slot, value, value) + "."
    return (cap(slot.first(value)) if r < 0.66 else slot.third(name, value)) + "."


_CORE = ("job", "location")  # every profile has a job and a home city


def generate(seed: int = 13, *, n_profiles: int = 80, facts_per_profile: int = 14,
             n_interactions: int = 2400, conflict_share: float = 0.55) -> SentryData:
    """Build the dataset deterministically from ``seed``.

    Each profile holds the core slots plus ``facts_per_profile - 2`` further slots, dealt so
    that every slot appears in about as many profiles as any other; each interaction picks a
    slot uniformly first, then a profile fact of that slot (so all slots get about as many
    interactions, whatever their share of profile facts)."""
    rng = random.Random(seed)
    names = rng.sample(T.NAMES, n_profiles) if n_profiles <= len(T.NAMES) else [
        rng.choice(T.NAMES) + (f" {T.NAMES[i % len(T.NAMES)][0]}." if i >= len(T.NAMES) else "")
        for i in range(n_profiles)]
    rest = [s.key for s in SLOTS if s.key not in _CORE]
    n_rest = min(max(facts_per_profile - len(_CORE), 0), len(rest))
    dealt: Counter[str] = Counter()
    profiles: list[dict[str, Any]] = []
    for pi, name in enumerate(names):
        # least-dealt slots first, ties broken at random; then a random order in the profile
        picked = sorted(rest, key=lambda k: (dealt[k], rng.random()))[:n_rest]
        dealt.update(picked)
        rng.shuffle(picked)
        keys = list(_CORE) + picked
        facts = []
        for fi, key in enumerate(keys):
            slot = SLOT_BY_KEY[key]
            value = rng.choice(slot.values)
            facts.append({"id": f"p{pi:03d}-f{fi:02d}", "slot": key, "family": slot.family,
                          "value": list(value) if isinstance(value, tuple) else value,
                          "text": _fact_text(rng, slot, name, value)})
        profiles.append({"id": f"p{pi:03d}", "name": name, "facts": facts})

    # Balanced kinds: conflicts split evenly over the four types, consistent over four kinds.
    n_conf = round(n_interactions * conflict_share)
    kinds = [CONFLICT_TYPES[i % 4] for i in range(n_conf)] + [
        CONSISTENT_KINDS[i % 4] for i in range(n_interactions - n_conf)]
    rng.shuffle(kinds)
    interactions: list[dict[str, Any]] = []
    seen: set[str] = {f["text"] for p in profiles for f in p["facts"]}
    by_slot: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for prof in profiles:
        for f in prof["facts"]:
            by_slot[f["slot"]].append((prof, f))
    slot_keys = [s.key for s in SLOTS if by_slot[s.key]]
    for ii, kind in enumerate(kinds):
        for _attempt in range(200):
            prof, fact = rng.choice(by_slot[rng.choice(slot_keys)])
            slot = SLOT_BY_KEY[fact["slot"]]
            if kind in CONFLICT_TYPES and kind not in conflict_types_for(slot):
                continue
            v = tuple(fact["value"]) if isinstance(fact["value"], list) else fact["value"]
            if slot.key == "relationship" and v[0] == "single" and kind != "temporal_update" and (
                    kind in ("scope_mismatch", "refinement", "added_detail")):
                continue
            w = other_value(rng, slot.values, v)
            if kind in CONFLICT_TYPES:
                text, style = conflict_text(rng, slot, kind, v, w)
            else:
                text, style = consistent_text(rng, slot, kind, v, w)
            others = [f for f in prof["facts"] if f["slot"] != fact["slot"]]
            negative, neg_kind = rng.choice(others), "other_slot"
            if rng.random() < 0.35:  # same entity, different slot: mention another slot's value
                mentionable = [(f, mention_clause(SLOT_BY_KEY[f["slot"]], f)) for f in others]
                mentionable = [(f, m) for f, m in mentionable if m]
                if mentionable:
                    negative, clause = rng.choice(mentionable)
                    text = f"{clause}, {decap(text)}"
                    neg_kind = "same_entity_other_slot"
            if text in seen:
                continue
            seen.add(text)
            interactions.append({
                "id": f"i{ii:04d}", "profile_id": prof["id"], "fact_id": fact["id"],
                "slot": fact["slot"], "family": slot.family, "kind": kind, "style": style,
                "conflict": kind in CONFLICT_TYPES, "text": text,
                "negative_fact_id": negative["id"], "negative_kind": neg_kind,
            })
            break
        else:  # pragma: no cover - pools are large enough
            raise RuntimeError(f"could not generate interaction {ii} ({kind})")
    return SentryData(seed=seed, profiles=profiles, interactions=interactions)


# --------------------------------------------------------------------------- splits/pairs
def split_interactions(data: SentryData, *, seed: int = 13, fractions: tuple[float, float, float]
                       = (0.7, 0.15, 0.15)) -> dict[str, list[str]]:
    """Split interaction ids into train/val/test, stratified by interaction kind (so every
    conflict type is in every partition). An id lands in exactly one partition."""
    by_kind: dict[str, list[str]] = defaultdict(list)
    for it in data.interactions:
        by_kind[it["kind"]].append(it["id"])
    rng = random.Random(seed)
    out: dict[str, list[str]] = {"train": [], "val": [], "test": []}
    for kind in sorted(by_kind):
        ids = sorted(by_kind[kind])
        rng.shuffle(ids)
        n_val = round(len(ids) * fractions[1])
        n_test = round(len(ids) * fractions[2])
        out["val"] += ids[:n_val]
        out["test"] += ids[n_val:n_val + n_test]
        out["train"] += ids[n_val + n_test:]
    return {k: sorted(v) for k, v in out.items()}


def build_pairs(data: SentryData, interaction_ids: Iterable[str], *,
                negatives: str = "sampled", n_negatives: int = 1) -> list[PairExample]:
    """Pairs for the given interactions: the same-slot pair plus negatives.

    ``negatives="sampled"``: the one negative named by the interaction (training format of
    App. A.8), plus ``n_negatives - 1`` further other-slot facts of the profile when
    ``n_negatives > 1``. ``negatives="profile"``: every other-slot fact of the profile, i.e. the
    candidate set a new record would meet in its own profile (used for evaluation).
    """
    facts = data.facts_by_id()
    by_profile: dict[str, list[dict[str, Any]]] = {p["id"]: p["facts"] for p in data.profiles}
    wanted = set(interaction_ids)
    pairs: list[PairExample] = []
    for it in data.interactions:
        if it["id"] not in wanted:
            continue
        rel = "same_slot_conflict" if it["conflict"] else "same_slot_consistent"
        pairs.append(PairExample(it["id"], it["text"], facts[it["fact_id"]]["text"], rel, it["kind"]))
        if negatives == "sampled":
            negs = [facts[it["negative_fact_id"]]]
            if n_negatives > 1:  # extra other-slot facts, drawn deterministically per interaction
                pool = [f for f in by_profile[it["profile_id"]]
                        if f["slot"] != it["slot"] and f["id"] != it["negative_fact_id"]]
                negs += random.Random(it["id"]).sample(pool, min(n_negatives - 1, len(pool)))
        elif negatives == "profile":
            negs = [f for f in by_profile[it["profile_id"]] if f["slot"] != it["slot"]]
        else:
            raise ValueError(f"negatives must be 'sampled' or 'profile', not {negatives!r}")
        pairs += [PairExample(it["id"], it["text"], f["text"], "other_slot", it["kind"]) for f in negs]
    return pairs


# --------------------------------------------------------------------------- I/O
def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def manifest_for(data: SentryData, data_bytes: bytes) -> dict[str, Any]:
    kinds = Counter(i["kind"] for i in data.interactions)
    return {
        "generator": GENERATOR_VERSION,
        "seed": data.seed,
        "file": "sentry_data.json",
        "sha256": hashlib.sha256(data_bytes).hexdigest(),
        "counts": {
            "profiles": len(data.profiles),
            "profile_facts": sum(len(p["facts"]) for p in data.profiles),
            "interactions": len(data.interactions),
            "conflicting": sum(1 for i in data.interactions if i["conflict"]),
            "consistent": sum(1 for i in data.interactions if not i["conflict"]),
            "by_kind": dict(sorted(kinds.items())),
            "by_slot": dict(sorted(Counter(i["slot"] for i in data.interactions).items())),
            "by_style": dict(sorted(Counter(f'{i["kind"]}/{i.get("style", "")}'
                                            for i in data.interactions).items())),
            "by_negative_kind": dict(sorted(Counter(i["negative_kind"]
                                                    for i in data.interactions).items())),
        },
    }


def write_dataset(data: SentryData, out_dir: str | Path) -> dict[str, Any]:
    """Write ``sentry_data.json`` and ``manifest.json`` into ``out_dir``; return the manifest."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    raw = _dumps(data.to_json()).encode()
    (out / "sentry_data.json").write_bytes(raw)
    manifest = manifest_for(data, raw)
    (out / "manifest.json").write_text(_dumps(manifest))
    return manifest


def load_dataset(path: str | Path) -> SentryData:
    """Read a dataset written by :func:`write_dataset` (a file or its directory)."""
    p = Path(path)
    if p.is_dir():
        p = p / "sentry_data.json"
    return SentryData.from_json(json.loads(p.read_text()))


def dataset_sha256(data: SentryData) -> str:
    return hashlib.sha256(_dumps(data.to_json()).encode()).hexdigest()
