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
from typing import Any, Callable, Iterable, Mapping, Sequence

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
]

GENERATOR_VERSION = "sentry-data-2"

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


# --------------------------------------------------------------------------- pools
# Person names: none of them is a LoCoMo speaker (Andrew, Audrey, Calvin, Caroline, Dave,
# Deborah, Evan, Gina, James, Joanna, John, Jolene, Jon, Maria, Melanie, Nate, Sam, Tim).
_NAMES = (
    "Ottoline", "Oluwaseun", "Priyanka", "Tomasz", "Anneliese", "Bartholomew", "Aldous", "Kwame",
    "Lucienne", "Mateo", "Hallvard", "Dagny", "Rafferty", "Yusra", "Gwendolyn", "Ondine",
    "Benedikt", "Keziah", "Perpetua", "Caspian", "Ignatius", "Zofia", "Leopold", "Nkechi",
    "Cressida", "Sunniva", "Henrike", "Aurelio", "Saoirse", "Vikram", "Philippa", "Torsten",
    "Amaya", "Casimir", "Liesel", "Obadiah", "Radomir", "Eamon", "Farida", "Gideon",
    "Hyacinth", "Ivo", "Jessamy", "Konstantin", "Lorna", "Kerensa", "Nikolai", "Orla",
    "Pascale", "Jarvis", "Rohini", "Severin", "Tamsin", "Isaura", "Valentina", "Wendeline",
    "Yevgenia", "Zebedee", "Annika", "Bertrand", "Cosima", "Desmond", "Elspeth", "Fabrizio",
)
_PARTNERS = (
    "Ruben", "Ilse", "Marguerite", "Osric", "Tove", "Anselm", "Beatrix", "Corentin", "Delphine",
    "Ezra", "Fenella", "Gustavo", "Hester", "Isidore", "Jorunn", "Kasimir", "Linnea", "Magnus",
)
_RELATIVES = ("sister", "brother", "cousin", "aunt", "neighbour", "colleague", "roommate",
              "best friend", "dad", "mum", "coworker", "trainer")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_PERIODS = ("a few weeks ago", "last spring", "over the summer", "this autumn", "back in "
            "the winter", "two months ago", "recently", "earlier this year")


def _a(phrase: str) -> str:
    return ("an " if phrase[0].lower() in "aeiou" else "a ") + phrase


@dataclass(frozen=True)
class _Slot:
    """Wording for one slot. ``first(v)``/``third(name, v)`` state the value; ``neg(v)``
    negates it; the template lists use {v} (old value), {w} (other value), {rel}."""

    key: str
    family: str
    values: Sequence[Any]
    first: Callable[[Any], str]
    third: Callable[[str, Any], str]
    neg: Callable[[Any], str]
    short: Callable[[Any], str]
    scope: Sequence[str]
    refine: Sequence[str]
    detail: Sequence[str]
    suggest: Callable[[Any], str]


def _num_slot(key: str, values: Sequence[int], first: str, third: str, np_: str,
              scope: Sequence[str], refine: Sequence[str], detail: Sequence[str],
              neg: str) -> _Slot:
    return _Slot(
        key=key, family="numerical", values=values,
        first=lambda n: first.format(n=n),
        third=lambda name, n: third.format(name=name, n=n),
        neg=lambda n: neg.format(n=n),
        short=lambda n: np_.format(n=n),
        scope=scope, refine=refine, detail=detail,
        suggest=lambda n: "aim for " + np_.format(n=n),
    )


_SLOTS: tuple[_Slot, ...] = (
    _Slot(
        key="job", family="job",
        values=("veterinary nurse", "structural engineer", "pastry chef", "chemistry teacher",
                "data analyst", "paramedic", "landscape architect", "court interpreter",
                "typesetter", "radio producer", "pharmacist", "carpenter", "UX researcher",
                "air traffic controller", "librarian", "dental hygienist", "tax accountant",
                "sommelier", "marine biologist", "physiotherapist", "urban planner",
                "seismologist", "flight attendant", "locksmith", "museum curator",
                "speech therapist", "welder", "cartographer", "orthodontist", "glassblower"),
        first=lambda v: f"I work as {_a(v)}",
        third=lambda name, v: f"{name} works as {_a(v)}",
        neg=lambda v: f"I am not {_a(v)} anymore",
        short=lambda v: _a(v),
        scope=("I'm still {av} on weekdays, but on weekends I work as {aw}",
               "Apart from the summer months, when I work as {aw}, I'm {av}",
               "For the holiday season I'm working as {aw}; the rest of the year I stay {av}"),
        refine=("To be precise, I'm {av} at a small family-run practice",
                "I'm {av}, mostly on the early rota",
                "My title is senior {v}, same line of work as before"),
        detail=("Being {av} means long days, but I still enjoy it",
                "As {av} I spend a lot of time on paperwork these days",
                "The best part of being {av} is the people I work with"),
        suggest=lambda w: f"retrain as {_a(w)}",
    ),
    _Slot(
        key="location", family="location",
        values=("Porto", "Tallinn", "Winnipeg", "Adelaide", "Valparaiso", "Ljubljana", "Coimbra",
                "Krakow", "Tromso", "Bergen", "Nagoya", "Cork", "Lviv", "Leipzig", "Oaxaca",
                "Gdansk", "Hobart", "Thessaloniki", "Bilbao", "Duluth", "Tartu", "Malmo",
                "Dunedin", "Rijeka", "Trondheim", "Salamanca"),
        first=lambda v: f"I live in {v}",
        third=lambda name, v: f"{name} lives in {v}",
        neg=lambda v: f"I don't live in {v} anymore",
        short=lambda v: v,
        scope=("I'm based in {v}, but every winter I stay in {w}",
               "During the school term I live in {w}; the rest of the year I'm in {v}",
               "Home is {v}, except for the three months a year I spend in {w} for work"),
        refine=("I live in {v}, in the old harbour district",
                "My flat is in {v}, right next to the university quarter",
                "I live in {v}, on the quiet north side of town"),
        detail=("Living in {v}, I take the tram almost everywhere",
                "The rain in {v} hasn't let up all week",
                "There's a new bakery on my street in {v}"),
        suggest=lambda w: f"move to {w}",
    ),
    _Slot(
        key="relationship", family="relationship",
        values=tuple([("dating", p) for p in _PARTNERS[:9]] + [("married", p) for p in _PARTNERS[9:]]
                     + [("single", "")] * 4),
        first=lambda v: "I'm single" if v[0] == "single" else (
            f"I'm dating {v[1]}" if v[0] == "dating" else f"I'm married to {v[1]}"),
        third=lambda name, v: f"{name} is single" if v[0] == "single" else (
            f"{name} is dating {v[1]}" if v[0] == "dating" else f"{name} is married to {v[1]}"),
        neg=lambda v: "I'm not single anymore" if v[0] == "single" else (
            f"I'm not with {v[1]} anymore"),
        short=lambda v: "single" if v[0] == "single" else v[1],
        scope=("{p} and I are together, but we keep separate homes during the work week",
               "{p} and I only see each other on weekends now because of the distance",),
        refine=("{p} and I met through a climbing club, and we're still together",
                "Still with {p}; it's been three years now"),
        detail=("{p} and I spent Saturday repainting the hallway",
                "{p} is cooking dinner for us tonight"),
        suggest=lambda w: "settle down" if w[0] != "single" else "take a break from dating",
    ),
    _Slot(
        key="pets", family="pets",
        values=tuple((sp, nm) for sp, nm in zip(
            ("dog", "cat", "rabbit", "parrot", "tortoise", "ferret", "hamster", "whippet",
             "Bengal cat", "degu", "budgerigar", "lurcher", "schnauzer", "axolotl"),
            ("Rutabaga", "Quasar", "Bellwether", "Marzipan", "Sheldon", "Oberon", "Peppercorn", "Tapioca",
             "Haggis", "Lentil", "Parsnip", "Bramble", "Semolina", "Zucchini"))),
        first=lambda v: f"I have {_a(v[0])} named {v[1]}",
        third=lambda name, v: f"{name} has {_a(v[0])} named {v[1]}",
        neg=lambda v: f"I don't have {v[1]} the {v[0]} anymore",
        short=lambda v: f"{v[1]} the {v[0]}",
        scope=("{pn} only stays with me in the summer; the rest of the year {pn} lives with my parents",
               "{pn} is with my ex on weekdays, so I only have the {ps} on weekends"),
        refine=("{pn} is a rescue {ps}, about four years old",
                "{pn} is my {ps}; adopted from the shelter on Elm Road"),
        detail=("{pn} chewed through another charging cable today",
                "Took {pn} to the vet for a checkup, all fine",
                "{pn} has been sleeping on my desk all week"),
        suggest=lambda w: f"get {_a(w[0])} as well",
    ),
    _Slot(
        key="hobby", family="hobbies",
        values=("lacemaking", "marquetry", "mushroom foraging", "sourdough baking", "handbell ringing",
                "kite surfing", "shogi", "falconry", "astrophotography", "morris dancing",
                "canyoning", "glass etching", "beekeeping", "pottery", "fencing", "model railways",
                "fell walking", "stand-up paddling"),
        first=lambda v: f"my main hobby is {v}",
        third=lambda name, v: f"{name}'s main hobby is {v}",
        neg=lambda v: f"I gave up {v} and don't do it anymore",
        short=lambda v: v,
        scope=("I still do {v}, but only when I'm on vacation",
               "I only do {v} in the summer now; in winter it's {w}",
               "{v} is just a weekend thing for me now, weekdays are for {w}"),
        refine=("Mostly {v} at the community centre on Thursday evenings",
                "I do {v} with a small group that meets twice a month"),
        detail=("I spent the whole weekend on {v} again",
                "Bought some new gear for {v} yesterday",
                "{v} is the one thing that helps me switch off after work"),
        suggest=lambda w: f"try {w}",
    ),
    _Slot(
        key="food_like", family="likes_dislikes",
        values=("spicy ramen", "dark chocolate", "goat cheese", "mango sticky rice",
                "black licorice", "green olives", "grilled eggplant", "smoked mackerel",
                "pickled herring", "matcha desserts", "lamb curry", "fresh figs", "kimchi",
                "pistachio ice cream"),
        first=lambda v: f"I love {v}",
        third=lambda name, v: f"{name} loves {v}",
        neg=lambda v: f"I can't stand {v} anymore",
        short=lambda v: v,
        scope=("I only like {v} when it's homemade",
               "I like {v}, except the store-bought kind",
               "{v} is fine at restaurants, but I never eat it at home now"),
        refine=("I love {v}, especially from the market stall near my place",
                "{v} is my favourite, the sharper the better"),
        detail=("I had {v} twice this week",
                "Found a recipe for {v} that I want to try"),
        suggest=lambda w: f"switch to {w}",
    ),
    _Slot(
        key="music_like", family="likes_dislikes",
        values=("madrigals", "zydeco", "synthwave", "baroque music", "K-pop", "gamelan", "post-rock",
                "fado", "drum and bass", "opera", "sea shanties", "klezmer"),
        first=lambda v: f"my favourite music is {v}",
        third=lambda name, v: f"{name}'s favourite music is {v}",
        neg=lambda v: f"I'm not into {v} anymore",
        short=lambda v: v,
        scope=("I only listen to {v} when I'm driving; at home it's {w}",
               "{v} is for workouts only now, otherwise I put on {w}"),
        refine=("Mostly older {v}, from before the nineties",
                "I love {v}, especially live recordings"),
        detail=("I've had {v} on repeat all week",
                "Got tickets to a {v} concert next month"),
        suggest=lambda w: f"listen to {w}",
    ),
    _Slot(
        key="dislike", family="likes_dislikes",
        values=("early morning meetings", "crowded beaches", "horror movies", "karaoke",
                "long phone calls", "escape rooms", "board games", "shopping malls",
                "loud restaurants", "open-plan offices", "reality TV", "theme parks"),
        first=lambda v: f"I really dislike {v}",
        third=lambda name, v: f"{name} dislikes {v}",
        neg=lambda v: f"I don't mind {v} anymore",
        short=lambda v: v,
        scope=("I only dislike {v} in the winter; in summer they're fine",
               "{v} are fine on holidays; it's only on workdays that I hate them"),
        refine=("I dislike {v}, especially the ones that drag on",
                "Mostly it's {v} with big crowds that bother me"),
        detail=("Managed to avoid {v} again this week",
                "Got talked into {v} on Friday and regretted it"),
        suggest=lambda w: f"give {w} a chance",
    ),
    _num_slot("sleep_hours", (5, 6, 7, 8, 9),
              "I sleep {n} hours a night", "{name} sleeps {n} hours a night", "{n} hours of sleep",
              scope=("On weekdays I get only {m} hours of sleep; {n} is just on weekends",),
              refine=("I sleep {n} hours a night, give or take",),
              detail=("{n} hours of sleep keeps me sharp at work",),
              neg="I definitely don't get {n} hours of sleep anymore"),
    _num_slot("commute_min", (10, 15, 20, 25, 30, 40, 45, 50, 60, 75),
              "my commute takes {n} minutes", "{name}'s commute takes {n} minutes",
              "a {n}-minute commute",
              scope=("When it snows my commute is {m} minutes; normally it's {n}",),
              refine=("My commute is {n} minutes door to door",),
              detail=("I listen to podcasts during my {n}-minute commute",),
              neg="my commute is no longer {n} minutes"),
    _num_slot("running_km", (5, 10, 15, 20, 25, 30, 40, 50),
              "I run {n} kilometres a week", "{name} runs {n} kilometres a week",
              "{n} kilometres a week",
              scope=("During marathon training I run {m} kilometres a week; otherwise {n}",),
              refine=("I run {n} kilometres a week, split over three runs",),
              detail=("Running {n} kilometres a week keeps my head clear",),
              neg="I'm not running {n} kilometres a week anymore"),
    _num_slot("coffee_cups", (2, 3, 4, 5, 6, 7),
              "I drink {n} cups of coffee a day", "{name} drinks {n} cups of coffee a day",
              "{n} cups of coffee a day",
              scope=("On workdays it's {m} cups of coffee; {n} is only on weekends",),
              refine=("{n} cups of coffee a day, all before noon",),
              detail=("My {n} cups of coffee a day are non-negotiable",),
              neg="I no longer drink {n} cups of coffee a day"),
    _num_slot("books_month", (2, 3, 4, 5, 6, 8, 10),
              "I read {n} books a month", "{name} reads {n} books a month",
              "{n} books a month",
              scope=("On holiday I read {m} books a month; usually it's {n}",),
              refine=("About {n} books a month, mostly on my e-reader",),
              detail=("Reading {n} books a month is my way to unwind",),
              neg="I'm not reading {n} books a month anymore"),
    _num_slot("rent_eur", (650, 720, 800, 880, 950, 1100, 1250, 1400, 1600),
              "my rent is {n} euros a month", "{name}'s rent is {n} euros a month",
              "{n} euros in rent",
              scope=("In the summer months my rent is {m} euros; the rest of the year it's {n}",),
              refine=("My rent is {n} euros a month, utilities included",),
              detail=("Paying {n} euros in rent leaves enough for savings",),
              neg="my rent isn't {n} euros a month anymore"),
)
_SLOT_BY_KEY = {s.key: s for s in _SLOTS}
_PROPER = frozenset(
    [w for s in _SLOTS if s.family in ("location", "pets") for v in s.values
     for w in ((v[1],) if isinstance(v, tuple) else (v,))]
    + list(_PARTNERS) + ["K-pop", "klezmer", "Kimchi"])


# --------------------------------------------------------------------------- phrasing extras
# Past-tense clause per slot ("I was a welder"), used by the "both values named" families.
def _past(slot: _Slot, v: Any) -> str:
    k = slot.key
    if k == "job":
        return f"I was {_a(v)}"
    if k == "location":
        return f"I lived in {v}"
    if k == "relationship":
        return "I was single" if v[0] == "single" else f"I was with {v[1]}"
    if k == "pets":
        return f"I had {_a(v[0])} called {v[1]}"
    if k == "hobby":
        return f"my big hobby was {v}"
    if k == "food_like":
        return f"I was crazy about {v}"
    if k == "music_like":
        return f"I mostly listened to {v}"
    if k == "dislike":
        return f"I couldn't bear {v}"
    return {
        "sleep_hours": f"I slept {v} hours a night",
        "commute_min": f"my commute was {v} minutes",
        "running_km": f"I ran {v} kilometres a week",
        "coffee_cups": f"I had {v} cups of coffee a day",
        "books_month": f"I got through {v} books a month",
        "rent_eur": f"I paid {v} euros in rent",
    }[k]


# More everyday sentences that presuppose a value without stating it as a profile fact.
# Rendered with the *current* value they are consistent detail; with another value they are
# implicit changes (no contradiction words at all).
_MORE_DETAIL: Mapping[str, Sequence[str]] = {
    "job": ("Another twelve-hour shift as {av} today, I'm shattered",
            "My manager wants every {v} on the team at the Monday briefing",
            "Training a new {v} this week, which takes patience",
            "Long day at work; being {av} is never dull"),
    "location": ("Walked along the waterfront in {v} after dinner",
                 "The trams in {v} were packed this morning",
                 "Found a great little cafe near my place in {v}",
                 "Summer evenings in {v} are the best"),
    "relationship": ("{p} surprised me with breakfast in bed this morning",
                     "{p} and I are planning a trip for our anniversary",
                     "Had a lovely quiet evening at home with {p}"),
    "pets": ("{pn} the {ps} woke me up at six again",
             "Bought {pn} a new bed, the {ps} ignores it",
             "{pn} needs a bath after that muddy walk"),
    "hobby": ("Signed up for a {v} weekend course",
              "My {v} group meets again on Sunday",
              "Can't wait to get back to {v} this weekend"),
    "food_like": ("Ordered {v} again tonight, never gets old",
                  "There's a new place in town that does amazing {v}",
                  "Stocked up on {v} at the market"),
    "music_like": ("Had {v} playing all evening while I cooked",
                   "Made a new {v} playlist for the weekend",
                   "Spent the evening digging through {v} records"),
    "dislike": ("Dodged {v} again this week, thankfully",
                "Ugh, {v} again on Friday, I was miserable"),
    "sleep_hours": ("Got my usual {n} hours of sleep last night",
                    "Lights out at eleven, so that's {n} hours of sleep again"),
    "commute_min": ("The usual {n} minutes on the bus this morning",
                    "{n} minutes each way to the office, as usual"),
    "running_km": ("Logged my usual {n} kilometres this week",
                   "Another {n}-kilometre week of running done"),
    "coffee_cups": ("That's my {n} cups of coffee for the day done",
                    "Already on coffee number {n}, right on schedule"),
    "books_month": ("On track for my usual {n} books this month",
                    "Finished book number {n} for the month, as usual"),
    "rent_eur": ("Transferred the {n} euros for rent this morning",
                 "Rent day again, {n} euros gone"),
}
_FAVOURITE = frozenset({"hobby", "food_like", "music_like"})
# Single-valued slots: naming another value implies a change even without change words.
_EXCLUSIVE = frozenset({"job", "location", "relationship", "hobby", "music_like", "sleep_hours",
                        "commute_min", "running_km", "coffee_cups", "books_month", "rent_eur"})
_WHEN = ("at weekends", "on weekdays", "over the holidays", "on rainy days", "on workdays",
         "in the summer months", "during busy weeks", "in winter")
# Real updates mostly name the old value beside the new one or restate a number; weight them up.
_STYLE_WEIGHT = {"both_values": 3, "negation_new_value": 2, "restated_number": 2, "implicit": 2}
_STYLES_CONFLICT = {
    "temporal_update": ("both_values", "implicit", "plain_new_value", "marker"),
    "explicit_negation": ("negation", "negation_new_value"),
    "value_discrepancy": ("correction", "restated_number", "plain_new_value"),
    "scope_mismatch": ("scope_slot", "scope_generic"),
}


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
def _other(rng: random.Random, values: Sequence[Any], v: Any) -> Any:
    while True:
        w = rng.choice(values)
        if w != v and not (isinstance(w, tuple) and isinstance(v, tuple) and w[1] == v[1]):
            return w


def _fill(template: str, slot: _Slot, v: Any, w: Any) -> str:
    fields = {"v": slot.short(v), "w": slot.short(w), "m": w, "n": v}
    if slot.family == "job":
        fields.update(v=v, w=w, av=_a(v), aw=_a(w))
    if slot.key == "relationship":
        fields["p"] = v[1] or _PARTNERS[0]
    if slot.key == "pets":
        fields.update(pn=v[1], ps=v[0])
    text = template.format(**fields)
    return text[0].upper() + text[1:]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _decap(s: str) -> str:
    """Lower-case the first letter unless the first word is a name or "I"."""
    first = s.split(" ", 1)[0].rstrip(",.:;'s")
    if first in _PROPER or first == "I" or s.startswith("I'"):
        return s
    return s[0].lower() + s[1:]


def _details(slot: _Slot) -> tuple[str, ...]:
    return tuple(slot.detail) + tuple(_MORE_DETAIL.get(slot.key, ()))


def _renderable(slot: _Slot, v: Any) -> bool:
    """Whether value ``v`` can fill the slot's detail/refine templates (a partner name)."""
    return not (slot.key == "relationship" and v[0] == "single")


def _conflict_text(rng: random.Random, slot: _Slot, kind: str, v: Any, w: Any
                   ) -> tuple[str, str]:
    """A conflicting interaction for old value ``v`` (new value ``w`` where one is named).
    Returns ``(text, style)``; the styles are the phrasing families of real updates."""
    month, period = rng.choice(_MONTHS), rng.choice(_PERIODS)
    sv, sw = slot.short(v), slot.short(w)
    styles = list(_STYLES_CONFLICT[kind])
    if kind == "temporal_update" and not _renderable(slot, w):
        styles.remove("implicit")
    if kind == "value_discrepancy" and slot.family != "numerical":
        styles.remove("restated_number")
    if kind == "scope_mismatch" and slot.key == "relationship":
        styles.remove("scope_generic")
    if slot.key not in _EXCLUSIVE:  # "I love figs" does not contradict "I love kimchi"
        styles = [x for x in styles if x not in ("implicit", "plain_new_value")]
    weights = [_STYLE_WEIGHT.get(x, 1) for x in styles]
    style = rng.choices(styles, weights=weights)[0]
    if style == "marker":
        return rng.choice((
            f"Since {month}, {slot.first(w)}.",
            f"Quick update: as of {period}, {slot.first(w)}.",
            f"Things changed {period} and now {slot.first(w)}.",
            f"{_cap(slot.first(w))} now; that started in {month}.",
            f"Big change {period}: {slot.first(w)}.",
            f"These days {slot.first(w)}.",
        )), style
    if style == "both_values":
        opts = [
            f"{_cap(_past(slot, v))} for years, but now {slot.first(w)}.",
            f"Back then {_past(slot, v)}; these days {slot.first(w)}.",
            f"{_cap(_past(slot, v))} until {period}, and now {slot.first(w)}.",
            f"No longer {sv} - {sw} now.",
            f"Went from {sv} to {sw} {period}.",
            f"Swapped {sv} for {sw}.",
            f"It's not {sv} these days, it's {sw}.",
            f"Remember when {_past(slot, v)}? That's changed, {slot.first(w)} now.",
            f"{_cap(slot.first(w))} now, not {sv}.",
            f"Moved on from {sv}. {_cap(slot.first(w))}.",
            f"{_cap(slot.neg(v))}; {slot.first(w)} instead.",
            f"It used to be {sv}, but {period} that switched to {sw}.",
        ]
        if slot.key in _FAVOURITE:
            opts += [f"{_cap(sv)} was my favourite for ages, but these days it's {sw}.",
                     f"I was all about {sv} once; lately it's {sw}.",
                     f"{_cap(sv)} had a good run, but I'm into {sw} now."]
        if slot.key == "job":
            opts += [f"I left my job as {_a(v)} {period} and now {slot.first(w)}.",
                     f"After years as {_a(v)}, I've retrained; {slot.first(w)} now."]
        if slot.key == "location":
            opts += [f"We packed up and left {v} {period}; home is {w} now.",
                     f"{v} was home for a long time, but I'm settled in {w} now."]
        return rng.choice(opts), style
    if style == "implicit":
        tpls = [t for t in _details(slot) + tuple(slot.refine)
                if not any(x in t.lower() for x in ("still", "same", "now", "before"))]
        return _fill(rng.choice(tpls), slot, w, v) + rng.choice((".", "!", ".")), style
    if style == "plain_new_value":
        return rng.choice((f"{_cap(slot.first(w))}.", f"For what it's worth, {slot.first(w)}.",
                           f"Oh and {slot.first(w)}.", f"{_cap(slot.first(w))}, by the way.")), style
    if style == "negation":
        opts = [f"{_cap(slot.neg(v))}.", f"Just so you know, {slot.neg(v)}.",
                f"{_cap(slot.neg(v))}, that ended {period}.",
                f"{_cap(slot.neg(v))}; that's behind me now.",
                f"That's over: {slot.neg(v)}.",
                f"Honestly, {slot.neg(v)}."]
        if slot.family != "job" and slot.key != "relationship":
            opts += [f"No more {sv} for me.", f"{_cap(sv)}? Not anymore."]
        return rng.choice(opts), style
    if style == "negation_new_value":
        return rng.choice((
            f"{_cap(slot.neg(v))} - {slot.first(w)} now.",
            f"Not {sv} anymore; {slot.first(w)}.",
            f"{_cap(slot.neg(v))}. {_cap(slot.first(w))} since {month}.",
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
            f"{_cap(sw)} these days, roughly.",
            f"It's gone from {sv} to {sw}.",
            f"{_cap(sv)} was the old normal; now it's {sw}.",
            f"Realistically {slot.first(w)} at the moment.",
        )), style
    if style == "scope_slot":
        return _fill(rng.choice(slot.scope), slot, v, w) + ".", style
    if style == "scope_generic":
        when = rng.choice(_WHEN)
        return rng.choice((
            f"{_cap(slot.first(v))}, but not {when}.",
            f"{_cap(slot.first(v))}, except {when}, when it's {sw}.",
            f"{_cap(when)} it's {sw}; otherwise {slot.first(v)}.",
            f"Only {when} now: {slot.first(v)}.",
            f"{_cap(sv)} still, just not {when}.",
            f"Still {sv}, but only {when} now.",
            f"{_cap(slot.first(v))} most of the time, though {when} I switch to {sw}.",
            f"{_cap(sv)} is a {when.split()[-1]}-only thing for me now.",
            f"Mostly {sv}, apart from {when}.",
        )), style
    raise ValueError((kind, style))


def _consistent_text(rng: random.Random, slot: _Slot, kind: str, v: Any, w: Any
                     ) -> tuple[str, str]:
    """A consistent interaction for value ``v``; ``(text, style)``."""
    rel = rng.choice(_RELATIVES)
    sv, sw = slot.short(v), slot.short(w)
    if kind == "restatement":
        opts = [
            f"{_cap(slot.first(v))}, same as before.",
            f"Nothing new there: {slot.first(v)}.",
            f"Still the case that {slot.first(v)}.",
            f"Like I said, {slot.first(v)}.",
            f"Still {sv}, nothing's changed.",
            f"{_cap(slot.first(v))}, and I don't see that changing.",
            f"Years on, {slot.first(v)}.",
            f"For the record, {slot.first(v)} still.",
            f"Some things never change: {slot.first(v)}.",
            f"Same as always, {slot.first(v)}.",
        ]
        if slot.key in _FAVOURITE:
            opts += [f"{_cap(sv)} has been my favourite for years and still is.",
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


# Which slots can carry which conflict type (scope and discrepancy need wording that fits).
def _conflict_types_for(slot: _Slot) -> tuple[str, ...]:
    if slot.key == "relationship":
        return ("temporal_update", "explicit_negation", "scope_mismatch")
    if slot.family == "numerical":
        return CONFLICT_TYPES
    if slot.key in ("job", "location", "pets"):
        return CONFLICT_TYPES
    return ("temporal_update", "explicit_negation", "scope_mismatch")


def _mention(slot: _Slot, fact: Mapping[str, Any]) -> str | None:
    """A short clause naming another slot's value, to build same-entity hard negatives."""
    v = fact["value"]
    if slot.key == "location":
        return f"Here in {v}"
    if slot.key == "pets":
        return f"With {v[1]} curled up next to me"
    if slot.key == "relationship" and v[0] != "single":
        return f"{v[1]} says hi"
    if slot.key == "job":
        return f"After a long day as {_a(v)}"
    return None


def _fact_text(rng: random.Random, slot: _Slot, name: str, value: Any) -> str:
    """A profile fact: a plain first/third-person statement, or (a third of the time) an
    everyday remark that states the value in passing, as a remembered conversation would."""
    r = rng.random()
    if r < 0.33 and _renderable(slot, value):
        return _fill(rng.choice(_details(slot) + tuple(slot.refine)), slot, value, value) + "."
    return (_cap(slot.first(value)) if r < 0.66 else slot.third(name, value)) + "."


def generate(seed: int = 13, *, n_profiles: int = 80, facts_per_profile: int = 10,
             n_interactions: int = 2400, conflict_share: float = 0.55) -> SentryData:
    """Build the dataset deterministically from ``seed``."""
    rng = random.Random(seed)
    names = rng.sample(_NAMES, n_profiles) if n_profiles <= len(_NAMES) else [
        rng.choice(_NAMES) + (f" {_NAMES[i % len(_NAMES)][0]}." if i >= len(_NAMES) else "")
        for i in range(n_profiles)]
    core = ("job", "location", "relationship", "pets", "hobby")
    profiles: list[dict[str, Any]] = []
    for pi, name in enumerate(names):
        rest = [s.key for s in _SLOTS if s.key not in core]
        keys = list(core) + rng.sample(rest, facts_per_profile - len(core))
        facts = []
        for fi, key in enumerate(keys):
            slot = _SLOT_BY_KEY[key]
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
    for ii, kind in enumerate(kinds):
        for _attempt in range(200):
            prof = rng.choice(profiles)
            fact = rng.choice(prof["facts"])
            slot = _SLOT_BY_KEY[fact["slot"]]
            if kind in CONFLICT_TYPES and kind not in _conflict_types_for(slot):
                continue
            v = tuple(fact["value"]) if isinstance(fact["value"], list) else fact["value"]
            if slot.key == "relationship" and v[0] == "single" and kind != "temporal_update" and (
                    kind in ("scope_mismatch", "refinement", "added_detail")):
                continue
            w = _other(rng, slot.values, v)
            if kind in CONFLICT_TYPES:
                text, style = _conflict_text(rng, slot, kind, v, w)
            else:
                text, style = _consistent_text(rng, slot, kind, v, w)
            others = [f for f in prof["facts"] if f["slot"] != fact["slot"]]
            negative, neg_kind = rng.choice(others), "other_slot"
            if rng.random() < 0.35:  # same entity, different slot: mention another slot's value
                mentionable = [(f, _mention(_SLOT_BY_KEY[f["slot"]], f)) for f in others]
                mentionable = [(f, m) for f, m in mentionable if m]
                if mentionable:
                    negative, clause = rng.choice(mentionable)
                    text = f"{clause}, {_decap(text)}"
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


# --------------------------------------------------------------------------- LTP cues
# The LTP reconstruction (data/ltp/) is built elsewhere; these readers accept the field
# names its builder may use for a two-cue state unit and resolve event ids through the
# scenario JSONL (stream format: {"id", "events": [{"id", "text", ...}], "probes": [...]}).
def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _ltp_scenarios(ltp_dir: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for p in sorted(ltp_dir.glob("*.jsonl")):
        if p.name == "units.jsonl":
            continue
        rows += [r for r in _jsonl(p) if isinstance(r, dict) and "events" in r]
    return rows


def _text_of(x: Any, events: Mapping[str, str]) -> str | None:
    if isinstance(x, dict):
        for k in ("text", "cue", "content"):
            if isinstance(x.get(k), str):
                return x[k]
        if "id" in x or "event_id" in x:
            return events.get(str(x.get("event_id", x.get("id"))))
        return None
    if isinstance(x, str):
        return events.get(x, x)
    return None


def load_ltp_units(ltp_dir: str | Path) -> list[dict[str, Any]]:
    """Two-cue units of the LTP reconstruction: ``unit_id``, ``profile_id``, ``slot``,
    ``cue1`` (old state text), ``cue2`` (new state text). Empty if ``units.jsonl`` is absent."""
    ltp_dir = Path(ltp_dir)
    units_path = ltp_dir / "units.jsonl"
    if not units_path.is_file():
        return []
    events = {str(e["id"]): e["text"] for sc in _ltp_scenarios(ltp_dir)
              for e in sc.get("events", []) if "id" in e and "text" in e}
    out = []
    for row in _jsonl(units_path):
        cue1 = cue2 = None
        for k1, k2 in (("cue1", "cue2"), ("cue1_text", "cue2_text"), ("old_cue", "new_cue"),
                       ("cue1_event_id", "cue2_event_id"), ("cue1_id", "cue2_id")):
            if k1 in row and k2 in row:
                cue1, cue2 = _text_of(row[k1], events), _text_of(row[k2], events)
                break
        else:
            cues = (row.get("cue_texts") or row.get("cues") or row.get("cue_ids")
                    or row.get("cue_event_ids") or row.get("events"))
            if isinstance(cues, list) and len(cues) >= 2:
                cue1, cue2 = _text_of(cues[0], events), _text_of(cues[-1], events)
        if not cue1 or not cue2:
            raise ValueError(f"cannot read the two cues of LTP unit {row.get('id')!r}: "
                             f"keys {sorted(row)}")
        out.append({
            "unit_id": str(row.get("unit_id", row.get("id"))),
            "profile_id": str(row.get("profile_id", row.get("profile", row.get(
                "scenario_id", row.get("sample_id", ""))))),
            "slot": str(row.get("slot", row.get("slot_key", row.get("key", "")))),
            "update_type": row.get("update_type"),
            "cue1": cue1, "cue2": cue2,
        })
    return out


def ltp_surface_strings(ltp_dir: str | Path) -> set[str]:
    """Every LTP cue text and probe question (what our data must never contain)."""
    ltp_dir = Path(ltp_dir)
    strings = {t for u in load_ltp_units(ltp_dir) for t in (u["cue1"], u["cue2"])}
    for sc in _ltp_scenarios(ltp_dir):
        strings.update(p["question"] for p in sc.get("probes", []) if p.get("question"))
    units_path = ltp_dir / "units.jsonl"
    if units_path.is_file():
        for row in _jsonl(units_path):
            for k, v in row.items():
                if "question" in k and isinstance(v, str):
                    strings.add(v)
                elif "question" in k and isinstance(v, list):
                    strings.update(x for x in v if isinstance(x, str))
    return strings


def _norm(s: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in s.lower()).split())


def ltp_overlap(data: SentryData, ltp_strings: Iterable[str]) -> list[tuple[str, str]]:
    """``(ltp_string, our_text)`` pairs where one contains the other after normalising case,
    punctuation and spaces (LTP strings shorter than 4 words are ignored)."""
    ours = [(_norm(t), t) for t in data.texts()]
    hits = []
    for s in ltp_strings:
        ns = _norm(s)
        if len(ns.split()) < 4:
            continue
        hits += [(s, t) for nt, t in ours if ns in nt or (len(nt.split()) >= 4 and nt in ns)]
    return hits
