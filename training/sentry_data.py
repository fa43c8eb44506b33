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

Slots (``_SLOTS``, 58): narrow ones, as real state units are, so that neighbouring topics
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
    negates it; ``past(v)`` is a past-tense clause ("I was a welder"); the template lists use
    {v} (old value), {w} (other value), {rel}. ``label`` names the attribute in words."""

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
    past: Callable[[Any], str] | None = None
    label: str = ""


def _num_slot(key: str, values: Sequence[Any], first: str, third: str, np_: str,
              scope: Sequence[str], refine: Sequence[str], detail: Sequence[str],
              neg: str, past: str = "", label: str = "") -> _Slot:
    return _Slot(
        key=key, family="numerical", values=values,
        first=lambda n: first.format(n=n),
        third=lambda name, n: third.format(name=name, n=n),
        neg=lambda n: neg.format(n=n),
        short=lambda n: np_.format(n=n),
        scope=scope, refine=refine, detail=detail,
        suggest=lambda n: "aim for " + np_.format(n=n),
        past=(lambda n: past.format(n=n)) if past else None,
        label=label or key.replace("_", " "),
    )


def _fields_of(v: Any) -> dict[str, Any]:
    """Format fields of a value: {v} and {av} ("a"/"an" + v) for a plain value; {nm} (name),
    {sp} (species) and {asp} for a (species, name) pair."""
    if isinstance(v, tuple):
        return {"sp": v[0], "nm": v[1], "asp": _a(v[0])}
    return {"v": v, "av": _a(str(v))}


def _text_slot(key: str, family: str, label: str, values: Sequence[Any], *, first: str,
               third: str, neg: str, past: str, short: str, suggest: str,
               scope: Sequence[str], refine: Sequence[str], detail: Sequence[str]) -> _Slot:
    """A slot whose statements are format strings over :func:`_fields_of` (and {name})."""
    return _Slot(
        key=key, family=family, values=values,
        first=lambda v: first.format(**_fields_of(v)),
        third=lambda name, v: third.format(name=name, **_fields_of(v)),
        neg=lambda v: neg.format(**_fields_of(v)),
        short=lambda v: short.format(**_fields_of(v)),
        scope=scope, refine=refine, detail=detail,
        suggest=lambda w: suggest.format(**_fields_of(w)),
        past=lambda v: past.format(**_fields_of(v)),
        label=label,
    )


# Names for the people in role slots: one pool per role, so that two roles of one profile
# never share a name (a same-entity negative must name only the other slot's person).
_ROLE_NAMES = {
    "carpool": ("Wilhelmina", "Lysander", "Marit", "Fintan", "Ysolde", "Cuthbert", "Rosamund",
                "Thibault", "Evander", "Solveig"),
    "gym_buddy": ("Bartosz", "Agnieszka", "Hiroki", "Mathilde", "Emrys", "Oona", "Ambrose",
                  "Siobhan", "Petronella", "Godfrey"),
    "hiking_buddy": ("Tuula", "Laszlo", "Veronika", "Aurelie", "Ciaran", "Henrietta", "Ottokar",
                     "Bronwen", "Eberhard", "Marisa"),
    "language_partner": ("Joaquina", "Ruairi", "Sigrun", "Takumi", "Elowen", "Faustina",
                         "Gwilym", "Ludmila", "Wolfgang", "Ingeborg"),
    "mentor": ("Augustina", "Cornelius", "Ottavia", "Reinhold", "Winifred", "Aloysius",
               "Bernadette", "Crispin", "Dorothea", "Florentin"),
    "tennis_partner": ("Evadne", "Horatio", "Imelda", "Jasper", "Kirsten", "Lucan", "Mariela",
                       "Niamh", "Orlaith", "Peregrine"),
}


def _role_slot(key: str, label: str, *, first: str, third: str, neg: str, past: str,
               suggest: str, scope: Sequence[str], refine: Sequence[str],
               detail: Sequence[str]) -> _Slot:
    """A person in a role (carpool, mentor, ...): the value is the person's name."""
    return _text_slot(key, "relationship", label, _ROLE_NAMES[key], first=first, third=third,
                      neg=neg, past=past, short="{v}", suggest=suggest, scope=scope,
                      refine=refine, detail=detail)


_SLOTS: tuple[_Slot, ...] = (
    # ------------------------------------------------------------------ job
    _Slot(
        key="job", family="job", label="job",
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
        past=lambda v: f"I was {_a(v)}",
    ),
    _text_slot(
        "side_job", "job", "side job",
        ("pub quiz host", "piano tuner", "wedding DJ", "cinema usher", "mystery shopper",
         "gallery attendant", "escape room host", "stagehand", "hotel night porter",
         "festival steward", "bicycle courier", "crossword setter", "ice rink attendant",
         "choir accompanist"),
        first="I earn a bit extra on the side as {av}",
        third="{name} earns a bit extra on the side as {av}",
        neg="I've given up my side work as {av}",
        past="I moonlighted as {av}", short="{av}",
        suggest="pick up evening shifts as {av}",
        scope=("My side work is as {av}, apart from December, when I fill in as {aw}",
               "Most weekends I earn extra as {av}, though in the summer it's shifts as {aw}",
               "On top of the day job I'm {av}, except during the festival season, when I work as {aw}"),
        refine=("My side gig is as {av}, two evenings a week on top of the day job",
                "On the side I'm {av}, paid per shift and booked a month ahead"),
        detail=("Did a late shift as {av} after my day job, what a long Friday",
                "The extra money from working as {av} is going into the holiday fund",
                "My evening hours as {av} pay for the car",
                "Another Saturday working as {av} on top of the office week"),
    ),
    # ------------------------------------------------------------------ location
    _Slot(
        key="location", family="location", label="home city",
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
        past=lambda v: f"I lived in {v}",
    ),
    # ------------------------------------------------------------------ relationships
    _Slot(
        key="relationship", family="relationship", label="partner",
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
        past=lambda v: "I was single" if v[0] == "single" else f"I was with {v[1]}",
    ),
    _role_slot(
        "carpool", "carpool partner",
        first="I share the drive to work with {v}",
        third="{name} shares the drive to work with {v}",
        neg="I don't share the drive to work with {v} anymore",
        past="I shared the drive to work with {v}",
        suggest="split the petrol with {v}",
        scope=("{v} gives me a lift to work most days, but on Fridays I ride with {w}",
               "In winter {w} drives me in; the rest of the year it's {v} behind the wheel",
               "I car-share with {v}, except in school holidays, when {w} takes me"),
        refine=("{v} and I take turns at the wheel, a week each",
                "{v} picks me up at the roundabout and we split the fuel"),
        detail=("{v} was ten minutes late picking me up for work again",
                "{v} and I argued about the radio the whole way to the office",
                "{v} drove us in through the fog this morning, very slowly",
                "Bought {v} a coffee to say thanks for all the lifts to work"),
    ),
    _role_slot(
        "gym_buddy", "gym partner",
        first="I lift weights with {v} at the gym",
        third="{name} lifts weights with {v} at the gym",
        neg="I don't lift weights with {v} anymore",
        past="I lifted weights with {v}",
        suggest="train with {v} at the gym",
        scope=("At the gym I train with {v}, but on early mornings {w} spots me",
               "{v} is my lifting partner, except over the summer, when I go with {w}"),
        refine=("{v} spots me on the bench press at the gym twice a week",
                "{v} and I do our gym sessions together, with a shared training plan"),
        detail=("{v} talked me into one more set of squats at the gym",
                "{v} and I both hit a new deadlift record at the gym tonight",
                "{v} was already warming up at the gym when I got there",
                "{v} sent me our gym plan for the week, heavy on shoulders"),
    ),
    _role_slot(
        "hiking_buddy", "hiking companion",
        first="I go on mountain walks with {v}",
        third="{name} goes on mountain walks with {v}",
        neg="the mountain walks with {v} are over",
        past="I went on mountain walks with {v}",
        suggest="go up the hills with {v}",
        scope=("My trail companion is {v}, but for the long summer treks it's {w}",
               "I hike with {v}, except for the winter routes, which I do with {w}"),
        refine=("{v} plans our hill routes, and I bring the flask and the map",
                "{v} and I pick a new ridge walk every other Saturday"),
        detail=("{v} and I reached the summit just as the cloud lifted",
                "{v} packed far too many sandwiches for our walk up the ridge",
                "Blisters everywhere after that trail with {v}",
                "{v} found us a shortcut down the valley on Saturday"),
    ),
    _role_slot(
        "language_partner", "language exchange partner",
        first="{v} and I do a weekly language swap",
        third="{name} does a weekly language swap with {v}",
        neg="the language swap with {v} has ended",
        past="{v} and I did language swaps",
        suggest="set up a conversation swap with {v}",
        scope=("My conversation swap is with {v}, though over the holidays I practise with {w}",
               "{v} is my exchange partner, except on Sundays, when I talk with {w}"),
        refine=("{v} and I spend half an hour in each language over video",
                "{v} corrects my verbs and I help with English idioms, every Wednesday"),
        detail=("{v} laughed at my pronunciation during our call, fairly",
                "{v} taught me three new idioms in our exchange last night",
                "Our swap ran over an hour, {v} had so many questions",
                "{v} sent me a voice note full of slang to practise"),
    ),
    _role_slot(
        "mentor", "mentor",
        first="I'm mentored by {v}",
        third="{name} is mentored by {v}",
        neg="{v} doesn't mentor me anymore",
        past="{v} was my mentor",
        suggest="ask {v} to mentor me",
        scope=("{v} mentors me on the long-term stuff, but for the project this quarter it's {w}",
               "My mentor is {v}, apart from the summer programme, where {w} coaches me"),
        refine=("{v} mentors me through the company scheme, an hour every fortnight",
                "I'm mentored by {v}, mainly on career planning"),
        detail=("{v} went through my promotion case with me over lunch",
                "{v} gave me blunt feedback on my presentation, which I needed",
                "My mentoring hour with {v} ran long again",
                "{v} suggested three books for my career reading list"),
    ),
    _role_slot(
        "tennis_partner", "tennis partner",
        first="I book the tennis court with {v} every week",
        third="{name} books the tennis court with {v} every week",
        neg="I don't book the tennis court with {v} anymore",
        past="I played my tennis matches against {v}",
        suggest="find a court and play {v}",
        scope=("My tennis opponent is {v}, but in the indoor season I play {w}",
               "I play tennis with {v}, except on holidays, when {w} is my opponent"),
        refine=("{v} and I play two sets on the clay court, loser buys lunch",
                "{v} and I play singles on the park courts, early on Saturdays"),
        detail=("{v} beat me in a tie-break on the court, so lunch is on me",
                "{v} served three aces past me in the first set",
                "Rain stopped our tennis match, {v} was a set up",
                "{v} restrung both our racquets for the club match"),
    ),
    # ------------------------------------------------------------------ pets
    _Slot(
        key="pets", family="pets", label="pet",
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
        past=lambda v: f"I had {_a(v[0])} called {v[1]}",
    ),
    _text_slot(
        "pet_foster", "pets", "foster animal",
        tuple(zip(("spaniel puppy", "ginger kitten", "lop-eared rabbit", "three-legged terrier",
                   "deaf Dalmatian", "tortoiseshell cat", "mastiff cross", "elderly poodle",
                   "Staffordshire terrier", "black kitten", "retired racing whippet", "collie cross"),
                  ("Rhubarb", "Custard", "Tinsel", "Sprocket", "Wellington", "Crumpet", "Hopscotch",
                   "Mortimer", "Flapjack", "Pickwick", "Tuppence", "Jellybean"))),
        first="I'm foster carer to {asp} called {nm}",
        third="{name} is foster carer to {asp} called {nm}",
        neg="I'm no longer fostering {nm} the {sp}",
        past="I fostered {asp} called {nm}",
        short="fostering {nm} the {sp}",
        suggest="foster {asp} from the rescue",
        scope=("{pn} the {ps} is my foster for the rescue, but while the rescue's kennels are full I'm also {w}",
               "I foster {pn} during the week; at weekends the shelter has me {w}"),
        refine=("{pn} is the {ps} I foster for the rescue, until a home comes up",
                "The rescue placed {pn}, a nervous {ps}, with me as a foster"),
        detail=("{pn} the foster {ps} finally let me brush its coat",
                "The rescue rang to check how {pn} is settling in",
                "{pn}, my foster {ps}, slept through the whole night for once",
                "Took photos of {pn} for the rescue's adoption page"),
    ),
    _text_slot(
        "pet_sitting", "pets", "pet-sitting",
        tuple(zip(("Pomeranian", "cockapoo", "Weimaraner", "Sphynx cat", "African grey parrot",
                   "corn snake", "Shetland sheepdog", "Ragdoll cat", "Vizsla", "Abyssinian cat",
                   "saluki", "dwarf rabbit"),
                  ("Admiral", "Bramwell", "Taffeta", "Bartleby", "Snickerdoodle", "Gingersnap",
                   "Winnifred", "Archibald", "Figaro", "Sherbet", "Barnaby", "Dumpkin"))),
        first="I'm minding {asp} called {nm} while its owners travel",
        third="{name} is minding {asp} called {nm} while its owners travel",
        neg="I'm not minding {nm} the {sp} anymore",
        past="I minded {asp} called {nm}",
        short="minding {nm} the {sp}",
        suggest="mind {asp} for the neighbours",
        scope=("I look after {pn} the {ps} on weekdays, but at weekends I'm {w}",
               "Most of the month I'm minding {pn}; for the odd weekend I'm {w} as well"),
        refine=("{pn} is the {ps} I'm minding for my neighbours until the end of the month",
                "I'm minding {pn}, a very spoilt {ps}, with a list of rules from the owners"),
        detail=("Sent the owners a photo of {pn} the {ps} asleep on my sofa",
                "{pn}, the {ps} I'm minding, refused its dinner again",
                "Walked {pn} round the park for the owners twice today",
                "{pn} has totally taken over my spare room while its owners are away"),
    ),
    # ------------------------------------------------------------------ hobbies
    _text_slot(
        "collecting", "hobbies", "collection",
        ("stamps", "antique keys", "matchbox labels", "football programmes", "tin toys", "fossils",
         "beer mats", "vintage typewriters", "thimbles", "old railway tickets", "mineral specimens",
         "toy soldiers"),
        first="I collect {v}", third="{name} collects {v}",
        neg="I've stopped collecting {v}", past="I collected {v}", short="{v}",
        suggest="start collecting {v}",
        scope=("At home I collect {v}, but when I travel I pick up {w}",
               "I collect {v}, apart from the odd box of {w} I buy at auctions"),
        refine=("I collect {v}, mostly from car boot sales",
                "I collect {v}, and I keep them catalogued in a big folder"),
        detail=("Found three rare {v} at a flea market for my collection",
                "My shelf of {v} needs a bigger cabinet",
                "Spent Sunday sorting my {v} by year",
                "A dealer offered me good money for my {v}, I said no"),
    ),
    _text_slot(
        "craft", "hobbies", "craft",
        ("lacemaking", "marquetry", "glass etching", "pottery", "basket weaving", "whittling",
         "needle felting", "lino printing", "paper marbling", "tapestry weaving", "mosaic making",
         "enamelling"),
        first="my craft of choice is {v}", third="{name}'s craft of choice is {v}",
        neg="I've put {v} aside for good", past="{v} was my craft", short="{v}",
        suggest="take a class in {v}",
        scope=("{v} is my craft most of the year, but in December I switch to {w} for presents",
               "I do {v} at home; on craft retreats I try {w}"),
        refine=("My craft is {v}, done at a shared studio on Tuesdays",
                "I do {v}, mostly small pieces for friends"),
        detail=("Finished a {v} piece for my aunt's birthday",
                "Ordered supplies for {v} and they arrived today",
                "My table is covered in half-done {v} projects",
                "Spent a rainy Sunday on {v} with the radio on"),
    ),
    _text_slot(
        "dance", "hobbies", "dance style",
        ("morris dancing", "ceilidh dancing", "belly dancing", "breakdancing", "clog dancing",
         "kizomba", "samba", "polka", "Viennese waltz", "square dancing", "jive", "Bollywood dancing"),
        first="I take dance lessons in {v}", third="{name} takes dance lessons in {v}",
        neg="I've quit my {v} lessons", past="my dance lessons were in {v}", short="{v}",
        suggest="sign up for {v}",
        scope=("I dance {v} at my weekly lessons, though at the summer socials it's {w}",
               "My lessons are in {v}, apart from the winter term, which is {w}"),
        refine=("My dance lessons are in {v}, at a hall above the library",
                "I learn {v} with a partner from my class, on Monday nights"),
        detail=("My feet ache after two hours of {v} practice",
                "Our {v} group is performing at the village fete",
                "Learned a tricky new {v} routine last night",
                "Bought proper shoes for {v} class"),
    ),
    _text_slot(
        "game", "hobbies", "game",
        ("shogi", "draughts", "canasta", "xiangqi", "whist", "poker", "mancala", "euchre",
         "Carcassonne", "Azul", "pinochle", "Othello"),
        first="the game I play most with friends is {v}",
        third="{name} plays {v} more than any other game",
        neg="I've given up playing {v}", past="{v} was my game", short="{v}",
        suggest="learn {v}",
        scope=("With friends it's always {v}, but at family gatherings we play {w}",
               "Our game nights are {v}, except at the holiday cottage, where it's {w}"),
        refine=("I play {v}, usually at the cafe on Thursdays with the same three friends",
                "My game is {v}; I play online as well as at the club"),
        detail=("Won three rounds of {v} last night and I'm unbearable",
                "Lost a long game of {v} to my cousin",
                "We played {v} until two in the morning",
                "Got a new {v} set as a birthday present"),
    ),
    _text_slot(
        "instrument", "hobbies", "instrument",
        ("double bass", "oboe", "bassoon", "French horn", "tuba", "piccolo", "sitar", "bagpipes",
         "theremin", "marimba", "hurdy-gurdy", "tabla", "lute"),
        first="I'm learning to play the {v}", third="{name} is learning to play the {v}",
        neg="I've put the {v} away for good", past="I played the {v}", short="the {v}",
        suggest="pick up the {v}",
        scope=("At home I practise {v}, but in the community band I play {w}",
               "I play {v}, except at the summer folk camp, where I borrow {w}"),
        refine=("I'm learning {v} with a teacher who comes round on Wednesdays",
                "I play {v} in a small amateur ensemble"),
        detail=("Practised {v} until the neighbours knocked on the wall",
                "My {n} teacher gave me a really hard piece this week",
                "Got my {n} serviced at the music shop",
                "Played {v} at my grandmother's party"),
    ),
    _text_slot(
        "language", "hobbies", "language being learned",
        ("Welsh", "Icelandic", "Finnish", "Polish", "Hungarian", "Swahili", "Vietnamese",
         "Catalan", "Czech", "Tagalog", "Hebrew", "Basque", "Romanian"),
        first="I'm taking evening classes in {v}", third="{name} takes evening classes in {v}",
        neg="I've dropped my {v} classes", past="I studied {v}", short="{v}",
        suggest="start learning {v}",
        scope=("I study {v} at the evening class, though for the summer trip I'm cramming {w}",
               "My class is in {v}, except for the month abroad, when it's {w}"),
        refine=("My evening class in {v} is at the intermediate level",
                "I study {v} with a textbook and a tutor on Thursdays"),
        detail=("Did my {v} homework on the train this morning",
                "Managed a whole phone call in {v} with the hotel",
                "My {v} vocabulary list is up to a few hundred words",
                "Watched a film in {v} without subtitles"),
    ),
    _text_slot(
        "outdoor", "hobbies", "outdoor pastime",
        ("canyoning", "fell walking", "falconry", "coasteering", "wild swimming", "rock pooling",
         "caving", "paragliding", "horse riding", "metal detecting", "bushcraft", "ice climbing"),
        first="my favourite thing to do outdoors is {v}",
        third="{name}'s favourite thing to do outdoors is {v}",
        neg="I've hung up my gear for {v}", past="{v} was my outdoor thing", short="{v}",
        suggest="try {v}",
        scope=("Outdoors it's mostly {v} for me, but on holiday I go {w}",
               "I go {v} when the weather allows; in the cold months it's {w}"),
        refine=("I go {v} with a local club on the first Sunday of the month",
                "Mostly {v} near the coast, with a guide when it's tricky"),
        detail=("Spent a muddy Saturday {v} and loved every minute",
                "Bought new gear for {v} at the outdoor shop",
                "The forecast looks good for {v} on Sunday",
                "Came home from {v} soaked and happy"),
    ),
    _text_slot(
        "weekend_sport", "hobbies", "weekend sport",
        ("fencing", "netball", "field hockey", "cricket", "curling", "rounders", "korfball",
         "five-a-side football", "croquet", "lawn bowls", "padel", "hurling"),
        first="on weekends I play {v}", third="{name} plays {v} at the weekend",
        neg="I don't play {v} at weekends anymore", past="I played {v} on weekends", short="{v}",
        suggest="join a {v} team",
        scope=("My weekend sport is {v}, but during the off-season I play {w}",
               "I play {v} on Saturdays, except in the holidays, when the club does {w}"),
        refine=("I play {v} for a local club on Saturday afternoons",
                "Saturday is {v} day, in the second team of my club"),
        detail=("Our {v} team won the Saturday match by a whisker",
                "Bruised my knee at {v} on the weekend",
                "Signed up for the {v} tournament next month",
                "Weekend {v} training was cold but fun"),
    ),
    _text_slot(
        "wind_down", "hobbies", "evening wind-down",
        ("a long bath", "audiobooks", "colouring books", "word searches", "a game of patience",
         "my bonsai trees", "letter writing", "doodling", "card tricks", "old photo albums",
         "a pot of chamomile", "gentle tai chi"),
        first="last thing at night, I relax with {v}",
        third="{name} relaxes with {v} last thing at night",
        neg="I don't relax with {v} at night anymore", past="my bedtime ritual was {v}",
        short="{v}", suggest="try {v} at bedtime",
        scope=("Most nights I unwind with {v}, but on Sundays it's {w}",
               "Before bed it's {v} for me, apart from when I'm travelling, when it's {w}"),
        refine=("My bedtime routine is {v}, for about half an hour, phone off",
                "I end each day with {v} and a lamp on low"),
        detail=("Fell asleep halfway through {v} last night",
                "Nothing calms me after work like {v}",
                "Set aside twenty minutes for {v} before bed",
                "{v} at bedtime and I slept like a log"),
    ),
    _text_slot(
        "workout", "hobbies", "workout",
        ("circuit training", "yin yoga", "aerial silks", "suspension training", "step aerobics",
         "lap swimming", "calisthenics", "interval sprints", "Olympic lifting", "Muay Thai",
         "Nordic walking", "hula hoop fitness"),
        first="my regular workout is {v}", third="{name}'s regular workout is {v}",
        neg="I've given up {v} as a workout", past="my regular workout was {v}", short="{v}",
        suggest="try {v}",
        scope=("My workout is {v} most weeks, but when I travel I do {w}",
               "I do {v} in the warm months; in winter it's {w}"),
        refine=("My workout is {v}, three sessions a week at the leisure centre",
                "I do {v}, usually before work, with an instructor"),
        detail=("Did {v} this morning and I can barely lift my arms",
                "The {v} class was packed tonight",
                "Bought new kit for {v}",
                "My {v} session left me drenched"),
    ),
    # ------------------------------------------------------------------ preferences
    _Slot(
        key="music_like", family="preferences", label="favourite music",
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
        past=lambda v: f"I mostly listened to {v}",
    ),
    _text_slot(
        "book_genre", "preferences", "favourite kind of book",
        ("Nordic noir", "nature writing", "literary fiction", "horror novels", "cyberpunk",
         "biographies", "Russian classics", "manga", "gothic fiction", "philosophy books",
         "magical realism", "dystopian fiction"),
        first="I read mostly {v}", third="{name} reads mostly {v}",
        neg="I've gone off {v}", past="I read mostly {v}", short="{v}",
        suggest="read some {v}",
        scope=("At home I read {v}, but on the beach it's {w}",
               "My reading is {v}, apart from book club months, when it's {w}"),
        refine=("I read {v}, mostly secondhand paperbacks",
                "Mostly {v}, the longer and darker the better"),
        detail=("Stayed up far too late with a piece of {v}",
                "The library had a whole table of {v} on display",
                "Picked up three bits of {v} at the charity shop",
                "My reading pile is all {v}"),
    ),
    _text_slot(
        "breakfast", "preferences", "usual breakfast",
        ("porridge with honey", "poached eggs on toast", "muesli with grated apple",
         "miso soup and rice", "crumpets with butter", "chia pudding", "French toast",
         "kippers on toast", "boiled eggs and soldiers", "banana on rye", "idli with chutney",
         "croissants with jam"),
        first="I have {v} for breakfast every morning",
        third="{name} has {v} for breakfast every morning",
        neg="I don't have {v} for breakfast anymore",
        past="I had {v} for breakfast", short="{v}",
        suggest="have {v} for breakfast",
        scope=("Breakfast is {v} on workdays, but on Sundays I make {w}",
               "I have {v} in the morning, except on holiday, when it's {w}"),
        refine=("Breakfast is {v}, eaten standing at the kitchen counter",
                "I start the day with {v} and a glass of juice"),
        detail=("Made {v} for breakfast and ate it on the balcony",
                "Ran out of the stuff for {v}, so breakfast was a sad affair",
                "Breakfast of {v} keeps me going until lunch",
                "Bought supplies for a week of {v} breakfasts"),
    ),
    _text_slot(
        "comfort_food", "preferences", "comfort food",
        ("beef stew", "dal with rice", "chicken noodle soup", "bangers and mash", "goulash",
         "jacket potatoes", "katsu curry", "bibimbap", "spaghetti carbonara", "cheesy polenta",
         "chili con carne", "kedgeree"),
        first="my comfort food is {v}", third="{name}'s comfort food is {v}",
        neg="{v} doesn't comfort me the way it did", past="my comfort food was {v}", short="{v}",
        suggest="cook {v} on bad days",
        scope=("When I'm down it's {v}, but when I'm ill I want {w}",
               "{v} is my comfort food at home; at my parents' it's {w}"),
        refine=("My comfort food is {v}, made from my grandmother's recipe",
                "On bad days I make {v}, a huge pot of it"),
        detail=("Rough day, so I made a big bowl of {v}",
                "Cooked {v} after the long week and felt human again",
                "There's {v} in the freezer for emergencies",
                "Nothing fixes a grey Monday like {v}"),
    ),
    _text_slot(
        "dessert", "preferences", "favourite dessert",
        ("sticky toffee pudding", "pavlova", "bread and butter pudding", "profiteroles",
         "Black Forest gateau", "rice pudding", "treacle tart", "chocolate mousse", "Eton mess",
         "plum crumble", "tarte tatin", "knafeh"),
        first="my favourite dessert is {v}", third="{name}'s favourite dessert is {v}",
        neg="{v} isn't my favourite dessert anymore", past="I always chose {v} for dessert",
        short="{v}", suggest="order {v} for dessert",
        scope=("For dessert I go for {v}, but in summer I prefer {w}",
               "{v} is my dessert at home, though at restaurants I order {w}"),
        refine=("My favourite dessert is {v}, served warm with cream",
                "{v} is my pick for dessert, the bakery version especially"),
        detail=("Had {v} for dessert after Sunday lunch",
                "Made {v} for the dinner party and it vanished",
                "The cafe on the corner does an amazing {v}",
                "Saved room for {v} at the restaurant"),
    ),
    _text_slot(
        "disliked_chore", "preferences", "most disliked chore",
        ("defrosting the freezer", "weeding the garden", "cleaning the gutters",
         "descaling the kettle", "sorting the recycling", "pairing socks",
         "wiping down the fridge", "mowing the lawn", "polishing shoes",
         "unloading the dishwasher", "scraping ice off the car", "filing paperwork"),
        first="the housework I loathe above all is {v}", third="{name} loathes {v} above all other housework",
        neg="I don't mind {v} anymore", past="I dreaded {v} above all", short="{v}",
        suggest="learn to love {v}",
        scope=("I hate {v} most of the year, though in spring it's {w} that gets me",
               "At home the worst chore is {v}; at the allotment it's {w}"),
        refine=("Of all the housework, {v} is what I loathe, and I put it off for weeks",
                "I dread {v}, it always takes longer than I think"),
        detail=("Spent Saturday {v} and grumbled the whole time",
                "Bribed myself with cake to get through {v}",
                "Put off {v} for another week",
                "Finally did {v} and it was as awful as ever"),
    ),
    _text_slot(
        "disliked_food", "preferences", "most disliked food",
        ("celery", "kidney beans", "tripe", "liver", "fennel", "capers", "cottage cheese",
         "pickled onions", "black pudding", "runny eggs", "grapefruit", "jellied eels"),
        first="I'll eat almost anything except {v}", third="{name} eats almost anything except {v}",
        neg="I'm not fussy about {v} anymore", past="I wouldn't touch {v}", short="{v}",
        suggest="give {v} another try",
        scope=("I avoid {v} at home, but when I'm abroad it's {w} I can't face",
               "{v} is the food I refuse, apart from at Christmas, when it's {w} I push away"),
        refine=("I can't bear {v}, the smell alone puts me off",
                "{v} never makes it onto my plate, in any form"),
        detail=("Picked every bit of {v} out of my lunch",
                "Someone put {v} in the salad and I couldn't eat it",
                "Asked the waiter to leave out the {v}",
                "Pushed the {v} to the side of my plate again"),
    ),
    _text_slot(
        "ice_cream", "preferences", "favourite ice cream flavour",
        ("stracciatella", "hazelnut", "raspberry ripple", "dulce de leche", "cherry", "vanilla bean",
         "blackcurrant", "honeycomb", "peanut butter", "coconut", "tutti frutti", "cinnamon"),
        first="my favourite ice cream flavour is {v}",
        third="{name}'s favourite ice cream flavour is {v}",
        neg="{v} isn't my ice cream flavour anymore", past="I always got {v} ice cream",
        short="{v} ice cream", suggest="order {v} ice cream",
        scope=("My ice cream order is {v}, but at the seaside I get {w}",
               "I pick {n} ice cream, except at the Italian gelateria, where I go for {m}"),
        refine=("{n} is my flavour, two scoops in a cone",
                "My ice cream flavour is {n}, the homemade kind from the van"),
        detail=("Finished a whole tub of {n} ice cream on the sofa",
                "The ice cream van had {n}, so I got two scoops",
                "Bought {n} ice cream for the freezer",
                "Had {n} ice cream on the pier at sunset"),
    ),
    _text_slot(
        "morning_drink", "preferences", "morning drink",
        ("rooibos tea", "cafe au lait", "builder's tea", "fresh mint tea", "lemon and ginger tea",
         "macchiato", "barley tea", "hot water with lemon", "mocha", "Americano", "oolong tea",
         "chicory coffee"),
        first="my first drink of the day is {v}", third="{name}'s first drink of the day is {v}",
        neg="I don't start the day with {v} anymore", past="I started every day with {v}",
        short="{v}", suggest="start the day with {v}",
        scope=("I start with {v} at home, but in the office it's {w}",
               "My morning drink is {v}, except on weekends, when I have {w}"),
        refine=("My first drink is {v}, in my big blue mug",
                "I have {v} first thing, before I even check my phone"),
        detail=("Made my {v} and watched the sunrise",
                "Couldn't function until my {v} this morning",
                "Bought a new flask for my morning {v}",
                "Sipped {v} while reading the news"),
    ),
    _text_slot(
        "podcast", "preferences", "favourite kind of podcast",
        ("astronomy", "economics", "gardening", "film criticism", "architecture", "ancient Rome",
         "linguistics", "wine", "urban legends", "medical mysteries", "space missions",
         "climbing expeditions"),
        first="I mostly listen to podcasts about {v}",
        third="{name} mostly listens to podcasts about {v}",
        neg="I've stopped listening to podcasts about {v}",
        past="my podcasts were about {v}", short="podcasts about {v}",
        suggest="try some podcasts about {v}",
        scope=("My podcasts are about {n}, but on long drives I switch to ones about {m}",
               "I listen to shows about {n}, except in the gym, where it's {w}"),
        refine=("My podcast queue is all about {n}, mostly long interviews",
                "I listen to podcasts on {n}, two or three episodes a week"),
        detail=("Heard a fascinating episode about {n} on the bus",
                "Subscribed to another podcast about {n}",
                "My podcast app is full of shows about {n}",
                "Recommended a show about {n} to my colleague"),
    ),
    _text_slot(
        "snack", "preferences", "go-to snack",
        ("salted almonds", "oatcakes", "beef jerky", "edamame", "banana chips", "plantain chips",
         "frozen grapes", "medjool dates", "pumpkin seeds", "cheese straws", "sesame snaps",
         "cashews"),
        first="what I snack on is {v}", third="{name} snacks on {v}",
        neg="I don't snack on {v} anymore", past="I snacked on {v}", short="{v}",
        suggest="snack on {v}",
        scope=("At my desk I snack on {v}, but at the cinema it's {w}",
               "My snack is {v}, apart from road trips, when it's {w}"),
        refine=("My snack is {v}, a handful mid-afternoon",
                "I keep {v} in my bag for when I'm peckish"),
        detail=("Got through a whole bag of {v} during the meeting",
                "Stocked my desk drawer with {v}",
                "The corner shop sold out of {v}",
                "Shared my {v} with the whole office"),
    ),
    _text_slot(
        "takeout", "preferences", "usual takeaway",
        ("Georgian food", "Nepalese food", "Sri Lankan food", "Burmese food", "Cantonese food",
         "Persian food", "Filipino food", "Moroccan food", "Uzbek food", "Malaysian food",
         "Syrian food", "Brazilian food"),
        first="my usual takeaway is {v}", third="{name}'s usual takeaway is {v}",
        neg="I don't order {v} anymore", past="I always ordered {v}", short="{v}",
        suggest="order {v}",
        scope=("My takeaway is {v}, except when friends come round and we get {w}",
               "I order {v} on weeknights, but on Saturdays it's {w}"),
        refine=("My takeaway is {v}, from the family place two streets over",
                "I order {v}, always the same set menu"),
        detail=("Ordered {v} and ate it in front of the telly",
                "The delivery driver knows my {v} order by heart",
                "Too tired to cook, so {v} it was",
                "Shared a big {v} order with my flatmates"),
    ),
    _text_slot(
        "tv_genre", "preferences", "favourite kind of TV",
        ("hospital dramas", "quiz shows", "stand-up specials", "political satire", "sketch comedy",
         "Korean dramas", "detective series", "travel shows", "soap operas", "westerns",
         "zombie series", "sports documentaries"),
        first="I mostly watch {v} on TV", third="{name} mostly watches {v} on TV",
        neg="I've stopped watching {v}", past="I watched {v} all the time", short="{v}",
        suggest="watch some {v}",
        scope=("On my own I watch {v}, but with my flatmates it's {w}",
               "It's {v} most evenings; on Saturday nights we put on {w}"),
        refine=("Mostly {v}, a couple of episodes each evening",
                "I watch {v}, the older the better"),
        detail=("Binged three episodes of {v} on Sunday",
                "My streaming list is wall-to-wall {v}",
                "Stayed up late with {v} again",
                "Found a new batch of {v} to watch"),
    ),
    _text_slot(
        "vacation", "preferences", "favourite kind of holiday",
        ("walking holidays", "canal boat trips", "spa weekends", "rail journeys", "safari trips",
         "cycling tours", "farm stays", "staycations", "all-inclusive resorts", "festival trips",
         "lakeside retreats", "desert treks"),
        first="when I get time off I go for {v}", third="{name} goes for {v} when there's time off",
        neg="I've had my fill of {v}", past="my holidays were {v}", short="{v}",
        suggest="book {v}",
        scope=("My holidays are {v}, but the short breaks in spring are {w}",
               "I book {v} in summer; in winter it's {w}"),
        refine=("I go for {v}, ideally booked months ahead",
                "My time off goes on {v}, with a stack of books"),
        detail=("Booked {v} for the autumn break",
                "Showed my colleagues photos from my {v}",
                "Saving up for another round of {v}",
                "Planning the route for my next {v}"),
    ),
    # ------------------------------------------------------------------ numerical
    _num_slot("sleep_hours", (4, 5, 6, 7, 8, 9, 10, 11),
              "I sleep {n} hours a night", "{name} sleeps {n} hours a night", "{n} hours of sleep",
              scope=("On weekdays I get only {m} hours of sleep; {n} is just on weekends",
                     "When the baby's teething I sleep {m} hours; normally it's {n}"),
              refine=("I sleep {n} hours a night, give or take",),
              detail=("{n} hours of sleep keeps me sharp at work",),
              neg="I definitely don't get {n} hours of sleep anymore",
              past="I slept {n} hours a night", label="sleep per night"),
    _num_slot("commute_min", (10, 15, 20, 25, 30, 40, 45, 50, 60, 75),
              "my commute takes {n} minutes", "{name}'s commute takes {n} minutes",
              "a {n}-minute commute",
              scope=("When it snows my commute is {m} minutes; normally it's {n}",
                     "On market days my commute is {m} minutes; other days it's {n}"),
              refine=("My commute is {n} minutes door to door",),
              detail=("I listen to podcasts during my {n}-minute commute",),
              neg="my commute is no longer {n} minutes",
              past="my commute was {n} minutes", label="commute time"),
    _num_slot("running_km", (5, 10, 15, 20, 25, 30, 40, 50),
              "I run {n} kilometres a week", "{name} runs {n} kilometres a week",
              "{n} kilometres a week",
              scope=("During marathon training I run {m} kilometres a week; otherwise {n}",
                     "On holiday I manage {m} kilometres a week; at home it's {n}"),
              refine=("I run {n} kilometres a week, split over three runs",),
              detail=("Running {n} kilometres a week keeps my head clear",),
              neg="I'm not running {n} kilometres a week anymore",
              past="I ran {n} kilometres a week", label="weekly running distance"),
    _num_slot("coffee_cups", (2, 3, 4, 5, 6, 7, 8, 9),
              "I drink {n} cups of coffee a day", "{name} drinks {n} cups of coffee a day",
              "{n} cups of coffee a day",
              scope=("On workdays it's {m} cups of coffee; {n} is only on weekends",
                     "During exams it's {m} cups of coffee a day; normally {n}"),
              refine=("{n} cups of coffee a day, all before noon",),
              detail=("My {n} cups of coffee a day are non-negotiable",),
              neg="I no longer drink {n} cups of coffee a day",
              past="I had {n} cups of coffee a day", label="daily coffee"),
    _num_slot("books_month", (2, 3, 4, 5, 6, 8, 10, 12),
              "I read {n} books a month", "{name} reads {n} books a month",
              "{n} books a month",
              scope=("On holiday I read {m} books a month; usually it's {n}",
                     "In the dark months I get through {m} books a month; in summer {n}"),
              refine=("About {n} books a month, mostly on my e-reader",),
              detail=("Reading {n} books a month is my way to unwind",),
              neg="I'm not reading {n} books a month anymore",
              past="I got through {n} books a month", label="books per month"),
    _num_slot("rent_eur", (650, 720, 800, 880, 950, 1100, 1250, 1400, 1600),
              "my rent is {n} euros a month", "{name}'s rent is {n} euros a month",
              "{n} euros in rent",
              scope=("In the summer months my rent is {m} euros; the rest of the year it's {n}",
                     "While the landlord renovates I pay {m} euros; normally my rent is {n}"),
              refine=("My rent is {n} euros a month, utilities included",),
              detail=("Paying {n} euros in rent leaves enough for savings",),
              neg="my rent isn't {n} euros a month anymore",
              past="I paid {n} euros in rent", label="monthly rent"),
    _num_slot("cycling_km", (35, 45, 55, 65, 85, 95, 105, 125, 135),
              "I cycle {n} kilometres a week", "{name} cycles {n} kilometres a week",
              "{n} kilometres on the bike a week",
              scope=("In summer I ride {m} kilometres a week; the rest of the year it's {n}",
                     "When the bike lanes are icy I cycle only {m} kilometres; normally {n}"),
              refine=("{n} kilometres a week on the bike, mostly to and from work",
                      "I cycle {n} kilometres a week, with one long ride on Sundays"),
              detail=("My bike computer shows {n} kilometres for the week",
                      "Clocked my usual {n} kilometres on the bike",
                      "Another {n}-kilometre cycling week done"),
              neg="I'm not cycling {n} kilometres a week anymore",
              past="I cycled {n} kilometres a week", label="weekly cycling distance"),
    _num_slot("daily_steps", (4200, 5800, 6300, 7100, 8400, 9200, 10700, 11300, 12600, 13900),
              "I walk about {n} steps a day", "{name} walks about {n} steps a day",
              "{n} steps a day",
              scope=("On office days I walk {m} steps; {n} is my daily average otherwise",
                     "On holiday my tracker shows {m} steps a day; at home it's {n}"),
              refine=("About {n} steps a day, if the pedometer is right",
                      "I walk {n} steps a day, most of them on the way to work"),
              detail=("My pedometer hit {n} steps again today",
                      "The usual {n} steps today, mostly walking the long way home",
                      "Hit {n} steps by dinner time"),
              neg="I'm not walking {n} steps a day anymore",
              past="I walked {n} steps a day", label="daily steps"),
    _num_slot("five_k_minutes", ("22:40", "24:15", "25:50", "27:05", "28:30", "29:55", "31:10",
                                 "33:45", "35:20"),
              "my best 5K time is {n}", "{name}'s best 5K time is {n}", "a {n} 5K",
              scope=("On the hilly course my 5K takes {m}; on the flat it's {n}",
                     "In the heat of summer I run the 5K in {m}; normally in {n}"),
              refine=("My 5K time is {n}, from the park race in spring",
                      "I run 5K in {n}, on a good day with no wind"),
              detail=("Crossed the 5K finish line in {n} again",
                      "My watch says {n} for this morning's 5K",
                      "Ran the Saturday 5K in {n}, right on my usual pace"),
              neg="{n} isn't my 5K time anymore",
              past="I ran 5K in {n}", label="5K time"),
    _num_slot("gaming_hours", (7, 9, 11, 13, 14, 16, 18, 19, 22, 25),
              "I play video games {n} hours a week", "{name} plays video games {n} hours a week",
              "{n} hours of gaming a week",
              scope=("In the school holidays I game {m} hours a week; in term time it's {n}",
                     "When a big release comes out I play {m} hours; usually {n}"),
              refine=("About {n} hours of video games a week, mostly online with friends",
                      "I game {n} hours a week, mostly late evenings"),
              detail=("My console says {n} hours of play for the week",
                      "Put in my usual {n} hours on the games console",
                      "{n} hours of gaming this week and a new high score"),
              neg="I'm not gaming {n} hours a week anymore",
              past="I gamed {n} hours a week", label="weekly gaming time"),
    _num_slot("grocery_budget", (45, 55, 65, 75, 85, 95, 115, 135, 155, 175),
              "I spend {n} euros a week on groceries", "{name} spends {n} euros a week on groceries",
              "{n} euros a week on groceries",
              scope=("When my kids visit groceries come to {m} euros a week; otherwise {n}",
                     "Around the holidays I spend {m} euros a week on food; normally {n}"),
              refine=("{n} euros a week on groceries, with a strict shopping list",
                      "My grocery budget is {n} euros a week, market and supermarket together"),
              detail=("The supermarket receipt came to {n} euros, right on budget",
                      "Kept the weekly shop to {n} euros again",
                      "{n} euros of groceries in the boot of the car"),
              neg="I'm not spending {n} euros a week on groceries anymore",
              past="I spent {n} euros a week on groceries", label="weekly grocery budget"),
    _num_slot("gym_sessions", (2, 3, 4, 5, 6, 7, 8, 9),
              "I do {n} gym sessions a week", "{name} does {n} gym sessions a week",
              "{n} gym sessions a week",
              scope=("Before a competition I train {m} times a week; otherwise {n}",
                     "In the busy season at work I make it to the gym {m} times; normally {n}"),
              refine=("{n} gym sessions a week, early mornings",
                      "{n} gym sessions a week, each about an hour"),
              detail=("Ticked off all {n} of my gym sessions this week",
                      "My gym card shows {n} visits for the week",
                      "The usual {n} trips to the gym this week"),
              neg="I'm not doing {n} gym sessions a week anymore",
              past="I did {n} gym sessions a week", label="gym sessions per week"),
    _num_slot("houseplants", (4, 7, 10, 13, 15, 16, 18, 21, 24, 29, 35, 40),
              "I keep {n} houseplants", "{name} keeps {n} houseplants", "{n} houseplants",
              scope=("In summer {m} of my plants live on the balcony; indoors I keep {n}",
                     "At the office I look after {m} plants; at home I keep {n}"),
              refine=("I keep {n} houseplants, mostly ferns and cacti",
                      "{n} houseplants, spread over every windowsill"),
              detail=("Watering all {n} houseplants takes me half of Sunday",
                      "Repotted one of my {n} houseplants today",
                      "My {n} houseplants make the flat feel like a greenhouse"),
              neg="I don't have {n} houseplants anymore",
              past="I kept {n} houseplants", label="number of houseplants"),
    _num_slot("meditation_minutes", (7, 8, 12, 14, 18, 22, 28, 33, 50, 60),
              "I meditate {n} minutes a day", "{name} meditates {n} minutes a day",
              "{n} minutes of daily meditation",
              scope=("On retreat days I meditate {m} minutes; at home it's {n}",
                     "On busy workdays it's only {m} minutes of meditation; normally {n}"),
              refine=("{n} minutes of meditation daily, sitting by the window",
                      "I meditate {n} minutes a day with a timer on my phone"),
              detail=("Did my {n} minutes of meditation before breakfast",
                      "My meditation timer went off after {n} minutes, as usual",
                      "{n} quiet minutes on the cushion this morning"),
              neg="I don't meditate {n} minutes a day anymore",
              past="I meditated {n} minutes a day", label="daily meditation"),
    _num_slot("pages_per_night", (5, 8, 12, 18, 35, 45, 55, 70, 80, 100),
              "I read {n} pages every night in bed", "{name} reads {n} pages every night in bed",
              "{n} pages a night",
              scope=("On Friday nights I read {m} pages; the other nights {n}",
                     "With a gripping book it's {m} pages a night; normally {n}"),
              refine=("I read {n} pages in bed each night, with a little lamp",
                      "{n} pages a night, then lights out"),
              detail=("Got through my {n} pages before the lights went out",
                      "Marked the page after my usual {n} in bed",
                      "{n} pages in bed and my eyes were closing"),
              neg="I'm not reading {n} pages a night anymore",
              past="I read {n} pages a night", label="pages read per night"),
    _num_slot("practice_hours", (1.5, 2.5, 9, 11, 13, 14, 16, 20),
              "I put in {n} hours of instrument practice a week",
              "{name} puts in {n} hours of instrument practice a week",
              "{n} hours of instrument practice a week",
              scope=("Before a concert I practise {m} hours a week; normally {n}",
                     "In the summer break I practise {m} hours; during term it's {n}"),
              refine=("{n} hours of instrument practice a week, scales first",
                      "I put in {n} hours of practice a week, mostly in the evenings"),
              detail=("Logged {n} hours of instrument practice in my diary this week",
                      "My teacher checked my practice log, {n} hours as usual",
                      "{n} hours of scales and pieces this week"),
              neg="I'm not putting in {n} hours of practice a week anymore",
              past="I put in {n} hours of instrument practice a week", label="weekly music practice"),
    _num_slot("screen_time", (2, 3, 7.5, 8.5, 9.5, 10, 11, 12),
              "I average {n} hours a day of phone use",
              "{name} averages {n} hours a day of phone use",
              "{n} hours of phone use a day",
              scope=("On weekends I'm on my phone {m} hours a day; on weekdays it's {n}",
                     "When I'm travelling I spend {m} hours a day on my phone; normally {n}"),
              refine=("{n} hours a day on my phone, according to the weekly report",
                      "I average {n} hours of phone use a day, mostly messages"),
              detail=("The weekly report says {n} hours a day on my phone",
                      "My phone tells me I averaged {n} hours on it per day this week",
                      "{n} hours a day on the phone, says my screen report"),
              neg="I don't average {n} hours a day of phone use anymore",
              past="I averaged {n} hours a day of phone use", label="daily screen time"),
    _num_slot("volunteer_hours", (7, 9, 11, 14, 16, 18, 24, 30),
              "I volunteer {n} hours a month", "{name} volunteers {n} hours a month",
              "{n} hours of volunteering a month",
              scope=("Around Christmas I volunteer {m} hours a month; the rest of the year {n}",
                     "During the summer fair I give {m} hours; normally {n} a month"),
              refine=("{n} hours a month of volunteering, at the animal shelter",
                      "I volunteer {n} hours a month, mostly on Saturday mornings"),
              detail=("Logged my {n} volunteering hours for the month",
                      "The charity thanked me for {n} hours of help this month",
                      "{n} hours at the charity shop this month"),
              neg="I'm not volunteering {n} hours a month anymore",
              past="I volunteered {n} hours a month", label="monthly volunteering"),
    _num_slot("wake_time", ("5:05", "5:20", "5:40", "5:50", "6:05", "6:20", "6:40", "6:50",
                            "7:10", "7:20", "7:40", "8:10", "8:20"),
              "I get up at {n} every day", "{name} gets up at {n} every day", "a {n} alarm",
              scope=("On Saturdays I sleep in until {m}; every other day I'm up at {n}",
                     "On early shifts I'm up at {m}; normally I get up at {n}"),
              refine=("I get up at {n}, without snoozing",
                      "Up at {n} every day, before the rest of the house"),
              detail=("My alarm rang at {n} and I was up straight away",
                      "Up at {n} and the kettle is on",
                      "Out of bed at {n} as usual, it was still dark"),
              neg="I don't get up at {n} anymore",
              past="I got up at {n}", label="wake-up time"),
    _num_slot("water_glasses", (2, 3, 5, 7, 9, 11, 13, 14),
              "I drink {n} glasses of water a day", "{name} drinks {n} glasses of water a day",
              "{n} glasses of water a day",
              scope=("On hot days I drink {m} glasses of water; usually {n}",
                     "On training days it's {m} glasses of water; other days {n}"),
              refine=("{n} glasses of water a day, from a jug on my desk",
                      "I drink {n} glasses of water a day, tracked in an app"),
              detail=("Finished my {n} glasses of water by the afternoon",
                      "My water app counted {n} glasses today",
                      "{n} glasses of water down and the day isn't over"),
              neg="I don't drink {n} glasses of water a day anymore",
              past="I drank {n} glasses of water a day", label="daily water"),
    _num_slot("wfh_days", (3, 5, 6, 8, 10, 12, 15, 18),
              "I do {n} home-office days a month", "{name} does {n} home-office days a month",
              "{n} home-office days a month",
              scope=("In the summer I work from home {m} days a month; the rest of the year {n}",
                     "During the office refit it's {m} home days a month; usually {n}"),
              refine=("{n} days a month from home, agreed with my manager",
                      "I do {n} home-office days a month, the rest at the office"),
              detail=("My calendar shows {n} home-office days this month",
                      "Booked my {n} days at the kitchen table for the month",
                      "{n} days working from home this month, as planned"),
              neg="I don't do {n} home-office days a month anymore",
              past="I did {n} home-office days a month", label="remote days per month"),
)
_SLOT_BY_KEY = {s.key: s for s in _SLOTS}


def _proper_words() -> frozenset[str]:
    """First words of capitalised values (names, cities, languages, cuisines): :func:`_decap`
    must not lower-case a sentence that starts with one. Also their forms with trailing
    letters stripped the way :func:`_decap` strips them ("Idris" -> "Idri")."""
    words: set[str] = set(_PARTNERS) | {"K-pop", "klezmer"}
    for s in _SLOTS:
        for v in s.values:
            for part in (v if isinstance(v, tuple) else (v,)):
                if isinstance(part, str) and part[:1].isupper():
                    w = part.split(" ", 1)[0]
                    words |= {w, w.rstrip(",.:;'s")}
    return frozenset(words)


_PROPER = _proper_words()


# --------------------------------------------------------------------------- phrasing extras
# Past-tense clause per slot ("I was a welder"), used by the "both values named" families.
def _past(slot: _Slot, v: Any) -> str:
    if slot.past is None:
        raise KeyError(slot.key)
    return slot.past(v)


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
    "music_like": ("Had {v} playing all evening while I cooked",
                   "Made a new {v} playlist for the weekend",
                   "Spent the evening digging through {v} records"),
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
# Slots with a favourite (singular) value: "X was my favourite for ages" reads well.
_FAVOURITE = frozenset({
    "music_like", "comfort_food", "dessert", "ice_cream", "morning_drink", "takeout", "breakfast",
    "craft", "dance", "game", "instrument", "language", "outdoor", "weekend_sport", "workout",
})
# Single-valued slots: naming another value implies a change even without change words.
# (Not: pets, fostering, pet-sitting and collections, where a second value can sit beside the first.)
_EXCLUSIVE = frozenset(
    {"job", "side_job", "location", "relationship", "carpool", "gym_buddy", "hiking_buddy",
     "language_partner", "mentor", "tennis_partner", "craft", "dance", "game", "instrument",
     "language", "outdoor", "weekend_sport", "wind_down", "workout"}
    | {s.key for s in _SLOTS if s.family == "preferences"}
    | {s.key for s in _SLOTS if s.family == "numerical"})
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
    if slot.family == "pets":
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
        if slot.family not in ("job", "relationship"):
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


# Which slots can carry which conflict type (scope and discrepancy need wording that fits):
# a correction ("..., not X") fits numbers, jobs, places, animals and the people in role
# slots, not a partner or a taste.
def _conflict_types_for(slot: _Slot) -> tuple[str, ...]:
    if slot.key == "relationship":
        return ("temporal_update", "explicit_negation", "scope_mismatch")
    if slot.family in ("numerical", "job", "location", "pets", "relationship"):
        return CONFLICT_TYPES
    return ("temporal_update", "explicit_negation", "scope_mismatch")


_MENTIONS: Mapping[str, Callable[[Any], str]] = {
    "location": lambda v: f"Here in {v}",
    "pets": lambda v: f"With {v[1]} curled up next to me",
    "job": lambda v: f"After a long day as {_a(v)}",
    "side_job": lambda v: f"Between shifts as {_a(v)}",
    "pet_foster": lambda v: f"With {v[1]} the foster {v[0]} snoring by the radiator",
    "pet_sitting": lambda v: f"While I'm minding {v[1]} for the neighbours",
    "carpool": lambda v: f"After {v} dropped me home from work",
    "gym_buddy": lambda v: f"Aching from the gym with {v}",
    "hiking_buddy": lambda v: f"Back from the hills with {v}",
    "language_partner": lambda v: f"Right after my call with {v}",
    "mentor": lambda v: f"Over lunch with {v}",
    "tennis_partner": lambda v: f"Fresh off the court with {v}",
}


def _mention(slot: _Slot, fact: Mapping[str, Any]) -> str | None:
    """A short clause naming another slot's value, to build same-entity hard negatives."""
    v = fact["value"]
    if slot.key == "relationship":
        return f"{v[1]} says hi" if v[0] != "single" else None
    m = _MENTIONS.get(slot.key)
    return m(tuple(v) if isinstance(v, list) else v) if m else None


def _fact_text(rng: random.Random, slot: _Slot, name: str, value: Any) -> str:
    """A profile fact: a plain first/third-person statement, or (a third of the time) an
    everyday remark that states the value in passing, as a remembered conversation would."""
    r = rng.random()
    if r < 0.33 and _renderable(slot, value):
        return _fill(rng.choice(_details(slot) + tuple(slot.refine)), slot, value, value) + "."
    return (_cap(slot.first(value)) if r < 0.66 else slot.third(name, value)) + "."


_CORE = ("job", "location")  # every profile has a job and a home city


def generate(seed: int = 13, *, n_profiles: int = 80, facts_per_profile: int = 14,
             n_interactions: int = 2400, conflict_share: float = 0.55) -> SentryData:
    """Build the dataset deterministically from ``seed``.

    Each profile holds the core slots plus ``facts_per_profile - 2`` further slots, dealt so
    that every slot appears in about as many profiles as any other; each interaction picks a
    slot uniformly first, then a profile fact of that slot (so all slots get about as many
    interactions, whatever their share of profile facts)."""
    rng = random.Random(seed)
    names = rng.sample(_NAMES, n_profiles) if n_profiles <= len(_NAMES) else [
        rng.choice(_NAMES) + (f" {_NAMES[i % len(_NAMES)][0]}." if i >= len(_NAMES) else "")
        for i in range(n_profiles)]
    rest = [s.key for s in _SLOTS if s.key not in _CORE]
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
    by_slot: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for prof in profiles:
        for f in prof["facts"]:
            by_slot[f["slot"]].append((prof, f))
    slot_keys = [s.key for s in _SLOTS if by_slot[s.key]]
    for ii, kind in enumerate(kinds):
        for _attempt in range(200):
            prof, fact = rng.choice(by_slot[rng.choice(slot_keys)])
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
