"""Own scenarios for the write path's second search (``OverlayConfig.named_search_k``): a state said
once, then turns by both speakers about the *new* value's topic, then a statement that ends the
old value by name ("No more tap dance for me, I signed up for bachata"). The first search follows
the new value's words; the old statement may no longer be among its hits.

Written for session 12 after the mechanism was chosen on LTP dev (one unit); the wording, the
speakers and the topics are mine, not LTP's. Writes an LTP-shaped pair of files that
``eval.write_loop`` replays::

    python -m eval.named_scenarios --out runs/named
    python -m eval.write_loop --data runs/named/scenarios.jsonl --units runs/named/units.jsonl \\
        --profiles 0,1,2,3 --judges rule --named-search-k 0 --out runs/named-k0
    python -m eval.write_loop --data runs/named/scenarios.jsonl --units runs/named/units.jsonl \\
        --profiles 0,1,2,3 --judges rule --out runs/named-k4
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Sequence

__all__ = ["SCENARIOS", "build", "main"]

# (old statement, turns of the other speaker, turns of the speaker, update naming the old value)
Unit = tuple[str, Sequence[str], Sequence[str], str]

SCENARIOS: dict[str, tuple[str, str, list[Unit]]] = {
    "named-a": ("Priya", "Tom", [
        ("Thursday evenings are for my pottery class, I love getting my hands dirty.",
         ["I tried a climbing wall once, my arms were jelly for days.", "Climbing gyms are everywhere now, aren't they?",
          "My brother goes bouldering every Sunday.", "Did you know climbing is in the Olympics now?",
          "I still have those climbing shoes somewhere."],
         ["Bought chalk and a harness this week.", "The climbing gym near work opened a new wall.",
          "Watched a documentary about free solo climbers.", "My forearms ache in a good way.",
          "Signed up for an intro course at the climbing gym."],
         "Quick update: I quit the pottery class, I'm climbing on Thursdays now."),
        ("I drive a little red Fiat, it's perfect for city parking.",
         ["Electric cars are so quiet, I nearly got hit by one.", "My neighbour charges his Tesla overnight.",
          "Charging points are popping up at the supermarket.", "Is an electric car cheaper to run?",
          "The bus company is going electric too."],
         ["Test drove an electric hatchback on Saturday.", "Looked at charging tariffs all evening.",
          "The dealer gave us a good trade-in offer.", "Range anxiety is a real thing, apparently.",
          "Picked a colour for the new car, dark green."],
         "Sold the Fiat last week - we drive an electric Kia now."),
        ("I'm vegetarian, have been for about six years.",
         ["Our barbecue is on Saturday, bring whatever you like to grill.", "I do a mean steak on the grill.",
          "The butcher on our street is excellent.", "Do you want burgers or sausages?",
          "Grilled chicken is my comfort food."],
         ["Had a great burger at the new diner.", "My doctor said more protein would help with my iron.",
          "Cooked chicken thighs with lemon last night.", "I found a good butcher in town.",
          "Fish tacos were amazing at the market."],
         "I'm not vegetarian anymore - I eat chicken and fish again."),
        ("I sing in the church choir every Sunday morning.",
         ["Our quiz team won the pub quiz last night!", "Pub quizzes are the best way to spend a Tuesday.",
          "The quizmaster at the Crown is brutal.", "We need a sixth person for our quiz team.",
          "Geography rounds are my nemesis."],
         ["I joined a quiz team at the Crown.", "Studied capital cities on the train.",
          "We came third in the quiz, not bad.", "Our team name is The Quizzly Bears.",
          "Sunday mornings are free now, so I sleep in."],
         "I left the choir in March, Sundays are for lie-ins and quizzes now."),
        ("We live in a flat in Croydon, right above a bakery.",
         ["Brighton is lovely in the summer.", "The pier in Brighton is a bit tacky but fun.",
          "Brighton rents are wild though.", "Do you like the seaside?",
          "My cousin has a house near the beach in Hove."],
         ["Walked along the seafront this morning.", "The lanes in Brighton have great coffee.",
          "The sea air helps my sleep.", "Unpacking is taking forever.", "Found a good pub near the station."],
         "We moved out of Croydon - Brighton is home now, two streets from the sea."),
        ("My go-to drink is a flat white with oat milk.",
         ["Green tea is supposed to be so good for you.", "I drink matcha every morning now.",
          "Matcha lattes are a bit grassy for me.", "Tea is cheaper than coffee too.",
          "Have you tried jasmine tea?"],
         ["Bought a bamboo whisk for matcha.", "The tea shop gave me a sample of sencha.",
          "I sleep better with less caffeine.", "Matcha is an acquired taste.", "My new mug is huge."],
         "No more flat whites for me, I've switched to matcha every morning."),
    ]),
    "named-b": ("Marcus", "Elena", [
        ("I work as a bike courier in the city centre.",
         ["My friend became a paramedic last year.", "Ambulance shifts are twelve hours long.",
          "Paramedics see everything, don't they?", "The training sounds tough.",
          "Night shifts would wreck me."],
         ["Passed the first aid module with full marks.", "Shadowed an ambulance crew on Friday.",
          "Learned how to use a defibrillator.", "My new uniform is green.",
          "Twelve-hour shifts are long but I like the team."],
         "Gave up couriering for good - I'm a trainee paramedic now."),
        ("I play five-a-side football on Wednesday nights.",
         ["Padel is taking over the tennis clubs.", "Padel courts are glass boxes, so fun.",
          "My aunt plays padel three times a week.", "Is padel easier than tennis?",
          "You can book padel courts online now."],
         ["Bought a padel racket on sale.", "My shoulder prefers padel.", "We booked a padel court for Saturday.",
          "The padel club has a nice cafe.", "Lost my first padel match six-love."],
         "I stopped playing five-a-side, my knees hated it; padel is my sport now."),
        ("My phone is an old iPhone 8 with a cracked screen.",
         ["Pixel phones have great cameras.", "My Pixel takes amazing night photos.",
          "Android updates are much better these days.", "Do you back up your photos?",
          "Phone prices are silly now."],
         ["Moved all my photos to the cloud.", "Learned how to use Android gestures.",
          "My new case is bright orange.", "The battery lasts two days now.",
          "Setting up the new phone took an evening."],
         "Ditched the iPhone 8 at last, I'm on a Pixel 8 now."),
        ("I'm on the night shift at the warehouse, ten till six.",
         ["Day shifts give you your evenings back.", "I could never sleep in the day.",
          "Morning people are a different species.", "Do you like early starts?",
          "The canteen is better on days."],
         ["Waking up at 5 is brutal.", "Had dinner with friends for once.",
          "My sleep is so much better.", "The early bus is always empty.", "Saw the sunrise on the way in."],
         "No longer on nights - the warehouse moved me to days, 6 till 2."),
        ("Our dog Biscuit is a beagle, he is a menace with socks.",
         ["Cats are so much less work than dogs.", "My cat sleeps eighteen hours a day.",
          "Kittens are pure chaos though.", "Do you have a litter tray sorted?",
          "Cat food is surprisingly expensive."],
         ["Bought a scratching post and a litter tray.", "The shelter had so many kittens.",
          "The house is very quiet now.", "We named the kitten Pickle.", "Pickle knocked a glass off the table."],
         "We rehomed Biscuit with my parents' farm, it's just our kitten Pickle now."),
        ("I'm learning Spanish on an app, twenty minutes a day.",
         ["Japanese is so hard to read.", "My colleague is learning Japanese for a trip.",
          "Kanji would break my brain.", "Anime helped me learn some words.",
          "Are you going to Japan?"],
         ["Practised hiragana on the train.", "My Japanese tutor is very patient.",
          "Booked flights to Osaka for spring.", "Wrote my name in katakana.", "Japanese grammar is backwards."],
         "Dropped Spanish, I'm learning Japanese instead for the trip to Osaka."),
    ]),
    "named-c": ("Aisha", "Ben", [
        ("I run about 20 km a week, mostly along the canal.",
         ["Swimming is gentle on the joints.", "The leisure centre pool reopened.",
          "Lane swimming at 7am is peaceful.", "Do you like swimming?",
          "Goggles always fog up on me."],
         ["Bought a swim cap and new goggles.", "Did forty lengths this morning.",
          "My physio says swimming is ideal.", "The pool is warm in the mornings.", "Learned flip turns, sort of."],
         "Running is off the table after the knee op; instead of the canal runs I swim 3 times a week."),
        ("I bank with Barclays, have done since uni.",
         ["Monzo has a nice app.", "Online banks split bills so easily.",
          "My bank closed its local branch.", "Do you still use cheques?",
          "Savings rates are terrible."],
         ["Set up savings pots for holidays.", "The app tells me when I overspend.",
          "Moved my direct debits over.", "My new card is hot coral.", "No more queueing at the branch."],
         "Switched from Barclays to Monzo, the app is so much better."),
        ("My partner is Daniel, we met at a wedding.",
         ["Dating apps are exhausting.", "My friend met her husband on holiday.",
          "Long distance is hard.", "Do you believe in soulmates?", "Weddings always make me cry."],
         ["Had a lovely dinner with Sam on Friday.", "Sam and I went to the coast.",
          "Sam cooks better than me.", "Introduced Sam to my parents.", "We adopted a plant together."],
         "Daniel and I split up in spring; I'm with Sam now."),
        ("I take the 7:40 train to work every day.",
         ["Cycling to work is so good for you.", "The new cycle lane is brilliant.",
          "E-bikes make hills easy.", "Do you lock your bike at the station?",
          "Rain is the only problem with cycling."],
         ["Bought panniers and a rain jacket.", "The cycle lane saves me ten minutes.",
          "My legs are getting stronger.", "Had my first puncture today.", "The bike shed at work is full."],
         "No more 7:40 train for me - I cycle to work every day now."),
        ("My favourite band is Arctic Monkeys, I've seen them live twice.",
         ["Jazz records sound amazing on vinyl.", "The jazz club downtown has live sets.",
          "Coltrane is my dad's favourite.", "Do you play any instruments?", "Vinyl is making a comeback."],
         ["Bought a Miles Davis record.", "The jazz club was packed on Friday.",
          "Learned what a modal scale is.", "My turntable arrived.", "Saxophone solos give me chills."],
         "I've gone off Arctic Monkeys, jazz is all I listen to these days, Coltrane above all."),
        ("I'm renting a room in a shared house in Leeds.",
         ["Buying a house is so stressful.", "Mortgage rates went up again.",
          "Solicitors take forever.", "Do you want a garden?", "Surveys always find something."],
         ["Got the keys on Friday.", "Painted the spare room blue.", "My first mortgage payment went out.",
          "The garden needs a lot of work.", "Neighbours brought us cake."],
         "Moved out of the shared house in Leeds, we bought a terrace in Harrogate."),
    ]),
    "named-d": ("Jonas", "Mia", [
        ("I teach maths at a secondary school in Bremen.",
         ["Software jobs pay so well.", "My cousin became a developer after a bootcamp.",
          "Coding bootcamps are intense.", "Do you like computers?", "Remote work suits some people."],
         ["Finished the bootcamp project.", "My first pull request got merged.",
          "Stand-ups are at 9:30.", "Learned TypeScript this month.", "Working from home on Fridays."],
         "Left teaching at the end of term - I'm a junior developer now."),
        ("I sleep about six hours a night, it's never enough.",
         ["Sleep trackers are a bit obsessive.", "I read that eight hours is ideal.",
          "Naps are underrated.", "Do you use an alarm?", "Blue light before bed is bad."],
         ["Bought blackout curtains.", "Stopped looking at my phone in bed.", "I feel more awake at work.",
          "Bedtime is 10:30 now.", "My tracker says deep sleep went up."],
         "Instead of six hours I get a solid eight now, bed at 10:30."),
        ("Saturday mornings I go to the farmers market for vegetables.",
         ["Veg boxes are so convenient.", "We get a veg box delivered on Thursdays.",
          "The box always has too many beetroots.", "Do you cook a lot?", "Organic veg is pricey."],
         ["Our first veg box came with kale.", "Made beetroot soup from the box.",
          "The delivery driver is very friendly.", "Saturday mornings are slow now.", "Learned three kale recipes."],
         "No more farmers market on Saturdays, a veg box comes to the door instead."),
        ("I play bass in a covers band called The Loose Ends.",
         ["DJing looks like so much fun.", "Vinyl DJs are the real deal.", "The club on Main Street has DJ nights.",
          "Do you like techno?", "Mixing is harder than it looks."],
         ["Bought a second-hand controller.", "Practised beatmatching for hours.", "Played my first set at a bar.",
          "Techno sets run long.", "My headphones are the best thing I own."],
         "I left The Loose Ends last month, I DJ at the bar on Fridays now."),
        ("I live in Hamburg, near the harbour.",
         ["Munich is so expensive.", "Beer gardens in Munich are lovely.", "The Alps are close to Munich.",
          "Do you ski?", "Bavarian food is heavy."],
         ["Found a flat in Schwabing.", "Cycled to the Englischer Garten.", "The U-Bahn is so clean.",
          "Went skiing on Sunday.", "My new office is in the centre."],
         "Moved from Hamburg to Munich for the job, still getting used to the mountains."),
        ("My diet is keto, no bread or pasta at all.",
         ["Mediterranean food is the healthiest, they say.", "Olive oil on everything.",
          "Greek salads are my favourite.", "Do you like lentils?", "Fish twice a week is recommended."],
         ["Made a lentil stew.", "Bought good olive oil.", "Pasta is back on the menu.",
          "My energy is better.", "Grilled sardines for dinner."],
         "I'm off keto - Mediterranean style eating suits me better, pasta included."),
    ]),
}

_CHAT = ["Haha, that's so true.", "How was your weekend?", "The weather has been wild lately.",
         "Did you watch the match?", "I need a holiday.", "My week has been busy.",
         "Let's catch up soon.", "That sounds fun!"]


def build() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The scenarios (``ltp.jsonl`` shape) and their units (``units.jsonl`` shape)."""
    scenarios, units = [], []
    for sid, (me, other, rows) in SCENARIOS.items():
        t = datetime(2023, 1, 9, 9, 0)
        events: list[dict[str, Any]] = []

        def say(who: str, text: str, eid: str) -> None:
            nonlocal t
            t += timedelta(days=2)  # ~5 months a scenario: "in March", "last month" fall after the old value
            events.append({"id": eid, "time": t.isoformat(), "speaker": who, "text": text})

        olds = []
        for i, (old, _o, _m, _new) in enumerate(rows):  # every old value first, then the talk, then the news
            say(me, old, f"{sid}-u{i}-old")
            say(other, _CHAT[i % len(_CHAT)], f"{sid}-u{i}-c")
            olds.append(f"{sid}-u{i}-old")
        for i, (old, theirs, mine, new) in enumerate(rows):
            for j, (a, b) in enumerate(zip(theirs, mine)):
                say(other, a, f"{sid}-u{i}-o{j}")
                say(me, b, f"{sid}-u{i}-m{j}")
            say(me, new, f"{sid}-u{i}-new")
            units.append({"unit_id": f"{sid}-u{i}", "profile_id": sid, "speaker": me, "update_type": "named_end",
                          "cue_ids": [olds[i], f"{sid}-u{i}-new"], "cue_texts": [old, new]})
        scenarios.append({"id": f"ltp-{sid}", "events": events, "probes": []})
    return scenarios, units


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.named_scenarios", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for scenarios.jsonl and units.jsonl")
    args = ap.parse_args(argv)
    scenarios, units = build()
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, rows in (("scenarios.jsonl", scenarios), ("units.jsonl", units)):
            tmp = out / f".{name}.tmp"
            tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
            tmp.replace(out / name)
    except OSError as e:
        print(f"error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{len(scenarios)} scenarios, {len(units)} units, "
          f"{sum(len(s['events']) for s in scenarios)} events -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
