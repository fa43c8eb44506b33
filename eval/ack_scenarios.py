"""Own dev scenarios: a value acknowledged by another speaker, then changed.

    python -m eval.ack_scenarios --out runs/ack-dev.jsonl [--n 200] [--seed 5]
    atma eval stream runs/ack-dev.jsonl --overlay both --out runs/ack-dev

The failure they probe (seen on a public supersession set): a user states a value, an assistant or
a friend says it back ("Noted: you live in Leeds."), the user later changes it. If the
acknowledgement never joins the value's slot it stays "current memory" beside the new value and
the reader picks it. Each scenario: the user's value, another speaker's acknowledgement, filler
(other topics, the other speaker's own states, including their own value of the same attribute),
the user's change, sometimes an acknowledgement of the new value; probes about now and before,
and (a quarter of them) about the other speaker's own value, which must stay as it is.

Everything here was written for this purpose by the team (people, values, wording); no LTP,
LoCoMo or held-out text. Dev data: choices may be made on it.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .stream_format import Event, Probe, Scenario, dump_stream

PAIRS = [("user", "assistant"), ("Priya", "Tomasz"), ("Dele", "Hanna"), ("Marisol", "Ken"), ("user", "assistant"),
         ("Ines", "Rafe"), ("Oskar", "Bea"), ("user", "Memory assistant"), ("Yusuf", "Clare"), ("Noor", "Lev")]

# attribute: (values, first statement, change statements, acknowledgements, now question, before question,
#             other speaker's own value statement, question about the other speaker)
ATTRS: dict[str, dict[str, Any]] = {
    "city": dict(
        values=["Leeds", "Porto", "Halifax", "Tucson", "Gdansk", "Ballarat", "Nantes", "Wellington", "Cork", "Tampere"],
        state=["I live in {v} at the moment.", "Home for me is {v}, in a flat near the river.",
               "I've been living in {v} for a couple of years."],
        change=["I moved to {w}, so I'm not in {v} anymore.", "Big news: I relocated from {v} to {w}.",
                "I no longer live in {v} - I moved to {w}."],
        now="Which city does {p} live in now?", before="Which city did {p} live in before moving?",
        own="I live in {x} myself, near the station.", other="Which city does {q} live in?"),
    "job": dict(
        values=["a nurse", "a welder", "a paralegal", "a sound engineer", "a pharmacist", "a park ranger",
                "a data analyst", "a baker", "a librarian", "a tram driver"],
        state=["I work as {v}.", "I'm {v} at a place across town.", "These days I earn my living as {v}."],
        change=["I quit being {v}; I work as {w} now.", "I switched careers: no longer {v}, I'm {w} now.",
                "I left my job as {v} and started as {w}."],
        now="What does {p} work as now?", before="What did {p} work as before?",
        own="I work as {x} myself.", other="What does {q} work as?"),
    "pet": dict(
        values=["a beagle named Toast", "a cat named Miso", "a rabbit named Clover", "a parrot named Kiwi",
                "a hamster named Pip", "a tortoise named Boris", "a greyhound named Comet", "a ferret named Noodle"],
        state=["I have {v}.", "I share the flat with {v}.", "My only pet is {v}."],
        change=["I rehomed my pet; I no longer have {v}. I adopted {w} instead.",
                "Sad news, I gave up {v}. Now I have {w}.", "I don't have {v} anymore - it's {w} now."],
        now="What pet does {p} have now?", before="What pet did {p} have before?",
        own="I have {x} myself.", other="What pet does {q} have?"),
    "commute": dict(
        values=["20 minutes", "35 minutes", "50 minutes", "15 minutes", "70 minutes", "25 minutes", "40 minutes"],
        state=["My commute takes {v} each way.", "Getting to work takes me {v}.", "My commute is {v} door to door."],
        change=["My commute changed: it's {w} now instead of {v}.", "With the new route my commute is down to {w}, not {v}.",
                "My commute is no longer {v}; it takes {w} these days."],
        now="How long is {p}'s commute now?", before="How long was {p}'s commute before?",
        own="My own commute is {x}.", other="How long is {q}'s commute?"),
    "diet": dict(
        values=["vegetarian", "vegan", "pescatarian", "gluten-free", "keto", "dairy-free"],
        state=["I'm {v} these days.", "I eat {v} at home and out.", "I keep a strict {v} diet."],
        change=["I'm not {v} anymore; I switched to a {w} diet.", "I gave up being {v} - now I'm {w}.",
                "I stopped eating {v} and went {w} instead."],
        now="What diet does {p} follow now?", before="What diet did {p} follow before?",
        own="I'm {x} myself.", other="What diet does {q} follow?"),
    "hobby": dict(
        values=["bouldering", "pottery", "birdwatching", "salsa dancing", "woodworking", "chess", "open-water swimming",
                "calligraphy", "rowing"],
        state=["My main hobby is {v}.", "Most weekends I spend on {v}.", "{V} is my big hobby right now."],
        change=["I gave up {v}; my main hobby is {w} now.", "I'm done with {v}, switched to {w}.",
                "No more {v} for me - I've taken up {w} instead."],
        now="What is {p}'s main hobby now?", before="What was {p}'s main hobby before?",
        own="My own hobby is {x}.", other="What is {q}'s hobby?"),
    "car": dict(
        values=["a Honda Jazz", "a Volvo estate", "a Fiat Panda", "a Tesla Model 3", "a Ford Ranger", "a Kia Niro",
                "a Mini Cooper"],
        state=["I drive {v}.", "My car is {v}.", "I get around in {v}."],
        change=["I sold {v} and bought {w}.", "I traded in {v}; I drive {w} now.", "No longer {v} - I switched to {w}."],
        now="What car does {p} drive now?", before="What car did {p} drive before?",
        own="I drive {x} myself.", other="What car does {q} drive?"),
    "coffee": dict(
        values=["2 cups", "4 cups", "5 cups", "1 cup", "3 cups", "6 cups"],
        state=["I drink about {v} of coffee a day.", "My coffee habit is {v} a day.", "I get through {v} of coffee daily."],
        change=["I cut back my coffee from {v} to {w} a day.", "I'm down to {w} of coffee a day, no longer {v}.",
                "Coffee changed: {w} a day now instead of {v}."],
        now="How much coffee does {p} drink a day now?", before="How much coffee did {p} drink a day before?",
        own="I drink {x} of coffee a day myself.", other="How much coffee does {q} drink a day?"),
    "instrument": dict(
        values=["the cello", "the banjo", "the trumpet", "the harp", "the ukulele", "the oboe", "the drums"],
        state=["I play {v} in a community band.", "I've been learning {v} for years.", "My instrument is {v}."],
        change=["I stopped playing {v}; I switched to {w}.", "I gave up {v} and I'm learning {w} now.",
                "Not {v} anymore - I play {w} these days."],
        now="Which instrument does {p} play now?", before="Which instrument did {p} play before?",
        own="I play {x} myself.", other="Which instrument does {q} play?"),
    "gym": dict(
        values=["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Saturdays", "Sundays"],
        state=["I go to the gym on {v}.", "{V} are my gym days.", "My workout day is {v}."],
        change=["I moved my gym day from {v} to {w}.", "I switched my workouts to {w} instead of {v}.",
                "No more {v} at the gym - it's {w} now."],
        now="On which day does {p} go to the gym now?", before="On which day did {p} go to the gym before?",
        own="I go to the gym on {x} myself.", other="On which day does {q} go to the gym?"),
}

# {v}: the value; {p}: the person told (a name, or empty for "user"); written to vary the opener,
# person and stance of an acknowledgement, as assistants and friends say it.
ACKS = [
    "Noted: {you} {verb} {v}.", "Got it - {your} {noun} is {v}.", "Okay, I'll remember that {you} {verb} {v}.",
    "Thanks for telling me. So {you} {verb} {v}!", "Understood, {v} it is.", "Good to know: {you} {verb} {v}.",
    "I've noted that {your} {noun} is {v}.", "Ah, so {you} {verb} {v}. That's lovely.",
    "Saved: {your} {noun} is {v}.", "Oh nice, {you} {verb} {v}! That sounds great.",
]
VERB = {"city": ("live in", "home city"), "job": ("work as", "job"), "pet": ("have", "pet"),
        "commute": ("commute", "commute"), "diet": ("eat", "diet"), "hobby": ("spend your weekends on", "hobby"),
        "car": ("drive", "car"), "coffee": ("drink", "daily coffee"), "instrument": ("play", "instrument"),
        "gym": ("train on", "gym day")}

FILLER = ["The weather has been grey all week.", "I watched a documentary about octopuses last night.",
          "Work was busy, lots of meetings today.", "My sister visited and we cooked dumplings.",
          "I finally fixed the squeaky door at home.", "The bakery on my street started selling rye bread.",
          "I'm reading a mystery novel set in Lisbon.", "We had a long walk by the canal on Sunday.",
          "My neighbour's kids are learning the recorder.", "I need to renew my passport soon."]
OTHER_FILLER = ["That documentary sounds fun!", "Busy weeks are exhausting.", "Dumplings are the best.",
                "I love a good mystery.", "Canal walks are so calming."]


def aliases(v: str) -> list[str]:
    """The forms an answer may take: the value without its article ("sound engineer"), a pet's
    name ("Miso"), a weekday in the singular ("Tuesday"), a count's number ("2")."""
    out = [v]
    bare = re.sub(r"^(?:a|an|the) ", "", v)
    if bare != v:
        out.append(bare)
    if " named " in v:
        out.append(v.split(" named ")[-1])
    if v.endswith("days") and v[:1].isupper():
        out.append(v[:-1])
    m = re.match(r"^(\d+) ", v)
    if m:
        out.append(m.group(1))
    return out


def _fill(t: str, **kw: str) -> str:
    out = t.format(**{k: v for k, v in kw.items()}, V=kw.get("v", "").capitalize())
    return out[0].upper() + out[1:]


def scenario(k: int, rng: random.Random) -> Scenario:
    user, other = PAIRS[k % len(PAIRS)]
    key = list(ATTRS)[(k // len(PAIRS) + k) % len(ATTRS)]
    a = ATTRS[key]
    v, w, x = rng.sample(a["values"], 3)
    p = "the user" if user == "user" else user
    you = "you" if rng.random() < 0.8 or user == "user" else user
    your = "your" if you == "you" else f"{user}'s"
    verb, noun = VERB[key]
    if you != "you":
        verb = {"have": "has"}.get(verb, verb.split()[0] + "s" + verb[len(verb.split()[0]):])
    short = v.split(" named ")[-1] if key == "pet" and rng.random() < 0.4 else v
    ack = _fill(rng.choice(ACKS), you=you, your=your, verb=verb, noun=noun, v=short)
    t0 = datetime(2024, 1, 8, 9, 0) + timedelta(days=k)
    events: list[tuple[str, str]] = [(user, _fill(rng.choice(a["state"]), v=v)), (other, ack)]
    for _ in range(rng.randint(2, 4)):
        events.append((user, rng.choice(FILLER)) if rng.random() < 0.6 else (other, rng.choice(OTHER_FILLER)))
    own = k % 4 == 0
    if own:
        events.insert(rng.randint(2, len(events)), (other, _fill(a["own"], x=x)))
    events.append((user, _fill(rng.choice(a["change"]), v=v, w=w)))
    if rng.random() < 0.5:
        events.append((other, _fill(rng.choice(ACKS), you=you, your=your, verb=verb, noun=noun, v=w)))
    evs = [Event(id=f"e{i}", time=t0 + timedelta(hours=6 * i), speaker=s, text=t) for i, (s, t) in enumerate(events)]
    end = t0 + timedelta(hours=6 * len(events) + 1)
    probes = [Probe(id="now", question=a["now"].format(p=p), view="current", gold=aliases(w), alternates=aliases(v),
                    time=end),
              Probe(id="before", question=a["before"].format(p=p), view="historical", gold=aliases(v),
                    alternates=aliases(w), time=end)]
    if own:
        q = "the assistant" if other.lower().endswith("assistant") else other
        probes.append(Probe(id="other", question=a["other"].format(q=q), view="current", gold=aliases(x),
                            alternates=aliases(v) + aliases(w), time=end))
    return Scenario(id=f"ack-{k:03d}", events=evs, probes=probes, meta={"attribute": key, "pair": [user, other]})


def build(n: int = 200, seed: int = 5) -> list[Scenario]:
    """``n`` scenarios (deterministic for a seed)."""
    rng = random.Random(seed)
    return [scenario(k, rng) for k in range(n)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.ack_scenarios", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    if args.n < 1:
        print("error: --n must be at least 1", file=sys.stderr)
        return 2
    sc = build(args.n, args.seed)
    dump_stream(sc, args.out)
    print(f"{len(sc)} scenarios, {sum(len(s.probes) for s in sc)} probes -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
