"""A second held-out set for the Judge, from separately written templates (transfer, not
memorisation).

Written after the verdict model's training data and configuration were frozen (while its
final training run was in progress) and never used for any choice: attributes, value pools,
names and every wording family here are new — none comes from :mod:`training.sentry_data`,
:mod:`training.judge_data` or :mod:`training.verdict_data`. Items have the audit-item fields
that :mod:`training.judge_eval` reads (``old_text``, ``new_text``, ``speaker``, plus
``old_speaker``/``new_speaker`` when two people speak, gold ``verdict.action``, ``implicit``).

Run: ``python -m training.verdict_transfer --out checkpoints/verdict/transfer`` (writes
``heldout.jsonl``); evaluate with ``python -m training.judge_eval --judge verdict --data
checkpoints/verdict/transfer``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from training.judge_data import is_implicit, needs_change

NAMES = ("Marisol", "Teodor", "Ayodele", "Birgit", "Kenji", "Oksana", "Rashid", "Siobhan", "Wilhelm", "Zanele")
FRIENDS = ("Agent", "Coach", "Ulla", "Pavel", "Nadia")

# attribute: values, I-form, you-form, noun form, multi-valued?, implicit wordings (new value, no change word)
ATTRS: dict[str, dict[str, Any]] = {
    "city": {"values": ["Ghent", "Arequipa", "Bergamo", "Kaunas", "Tromsø", "Timisoara", "Quebec City"],
             "i": "I'm based in {x}", "you": "you're based in {x}", "n": "{x}", "multi": False,
             "implicit": ["The ferry ride into {w} at dawn is the best part of living here.",
                          "Got my library card for the {w} public library today; my flat is five minutes away."]},
    "employer": {"values": ["a ferry company", "a bike shop", "a dental clinic", "a seed bank", "a brewery",
                            "a natural history museum", "an architecture firm"],
                 "i": "I work for {x}", "you": "you work for {x}", "n": "{x}", "multi": False,
                 "implicit": ["Spent the morning at {w} untangling the rota for my team.",
                              "My badge for {w} finally arrived, so I can get into the office on my own."]},
    "car": {"values": ["a Skoda Fabia", "a Volvo estate", "a Nissan Leaf", "a Fiat Panda", "a Mazda MX-5"],
            "i": "I drive {x}", "you": "you drive {x}", "n": "{x}", "multi": False,
            "implicit": ["Washed {w} this afternoon; it's the car I take to work every day.",
                         "Parked {w} outside my place and the neighbours keep asking about my car."]},
    "partner": {"values": ["Ines", "Marek", "Leontyne", "Tobias", "Yara", "Dmitri"],
                "i": "I'm seeing {x}", "you": "you're seeing {x}", "n": "{x}", "multi": False,
                "implicit": ["{w} cooked me dinner tonight; three weeks together and it feels easy.",
                             "Introduced {w} to my parents as my girlfriend on Sunday."]},
    "phone": {"values": ["an iPhone", "a Pixel", "a Fairphone", "a Galaxy"],
              "i": "my phone is {x}", "you": "your phone is {x}", "n": "{x}", "multi": False,
              "implicit": ["The camera on my phone, {w}, takes brilliant night shots.",
                           "Set up {w} as my only phone this weekend and copied all my contacts over."]},
    "sport": {"values": ["water polo", "bouldering", "badminton", "rowing", "judo", "ultimate frisbee"],
              "i": "I do {x} twice a week", "you": "you do {x} twice a week", "n": "{x}", "multi": True,
              "implicit": []},
    "language": {"values": ["Japanese", "Portuguese", "Arabic", "Korean"],
                 "i": "I'm studying {x}", "you": "you're studying {x}", "n": "{x}", "multi": True,
                 "implicit": []},
    "allergy": {"values": ["peanuts", "shellfish", "penicillin", "cats"],
                "i": "I'm allergic to {x}", "you": "you're allergic to {x}", "n": "{x}", "multi": True,
                "implicit": []},
    "bench": {"values": ["55 kilos", "60 kilos", "70 kilos", "80 kilos"], "numeric": True,
              "i": "I bench {x}", "you": "you bench {x}", "n": "{x}", "multi": False,
              "implicit": ["Benched {w} on Tuesday, same as every session.", "Another solid gym night: {w} on the bench."]},
    "sleep": {"values": ["six hours", "seven hours", "eight hours", "five hours"], "numeric": True,
              "i": "I get about {x} of sleep", "you": "you get about {x} of sleep", "n": "{x}", "multi": False,
              "implicit": ["Another night of {w} in bed, like clockwork.", "Clocked {w} of sleep again, my usual."]},
}

# kind -> (gold action, templates); kinds in _OTHER_SPEAKER are said by someone else
KINDS: dict[str, tuple[str, Sequence[str]]] = {
    "explicit_update": ("supersede", (
        "{nv} is history; {iw}.", "Not {nv} anymore, {iw}.", "Since the spring {iw}, no more {nv}.",
        "A lot has changed: {iw} and {nv} is behind me.")),
    "negation": ("supersede", (
        "Scrap the {nv} part, it stopped being true a while ago.", "Ignore what I said about {nv}; that's not me any more.",
        "Honestly, {nv}? That's over, it doesn't apply to me now.")),
    "typo": ("supersede", (
        "Ugh, autocorrect: {nw}, not {nv}.", "Small fix to what I wrote: it should read {nw}, I typed {nv} by mistake.")),
    "transition": ("transition", (
        "Halfway done with the switch from {nv} to {nw}.",
        "Currently in transition: {nv} is on its way out and {nw} on its way in.",
        "Mid-switch right now, from {nv} over to {nw}; give it a few more weeks.")),
    "scoped": ("scoped_exception", (
        "When I visit my parents it's {nw}, but normally {iv}.",
        "{Iv}; the only exception is business trips, when it's {nw}.")),
    "coexist": ("coexist", (
        "I've added {nw} to the mix as well; {nv} stays.", "Also picked up {nw}, on top of {nv}.")),
    "restate": ("none", ("Yep, {iv}, nothing new there.", "Same as ever: {iv}.")),
    "added_detail": ("none", ("{Iv}, and honestly I love it.", "{Iv}; it suits me better than anything before.")),
    "other_person": ("none", ("My cousin just told me {other_w}.", "My flatmate mentioned that for her it's {nw}.")),
    "chitchat": ("none", ("Random thought: does anyone actually enjoy {nw}?", "Saw a funny video about {nw} on the train.")),
    "plan": ("none", ("I've been reading up on {nw}, might be fun one day, no rush.",)),
    "suggestion": ("none", ("Ever thought of {nw}? Just an idea.", "I reckon {nw} would suit you, {name}.")),
    "ack": ("none", ("Okay {name}, I'll keep in mind that {yv}.", "Thanks, saved: {yv}.")),
    "other_self": ("none", ("For me it's {nw}, actually.", "Ha, {iw} myself.")),
}
_OTHER_SPEAKER = {"suggestion", "ack", "other_self"}
_SHARES = {"explicit_update": 18, "negation": 12, "typo": 10, "implicit": 22, "transition": 15, "scoped": 15,
           "coexist": 12, "restate": 8, "added_detail": 7, "other_person": 6, "chitchat": 6, "plan": 4,
           "suggestion": 6, "ack": 6, "other_self": 6}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _make(rng: random.Random, kind: str, idx: int) -> dict[str, Any] | None:
    attr = rng.choice(list(ATTRS))
    a = ATTRS[attr]
    if kind == "coexist" and not a["multi"]:
        return None
    if kind == "implicit" and not a["implicit"]:
        return None
    if kind in ("scoped", "transition") and attr in ("allergy", "partner"):
        return None
    if attr == "partner" and kind in ("plan", "chitchat", "suggestion"):
        return None
    v, w = rng.sample(a["values"], 2)
    name = rng.choice(NAMES)
    f = {"iv": a["i"].format(x=v), "iw": a["i"].format(x=w), "Iv": _cap(a["i"].format(x=v)), "nv": a["n"].format(x=v),
         "nw": a["n"].format(x=w), "yv": a["you"].format(x=v), "name": name,
         "other_w": a["i"].format(x=w).replace("I'm ", "she's ").replace("I ", "she ").replace("my ", "her ")}
    if kind == "implicit":
        action, text, who = "supersede", rng.choice(a["implicit"]).format(w=w), "same"
    else:
        action, tpls = KINDS[kind]
        text = rng.choice(tpls).format(**f)
    old = _cap(a["i"].format(x=v)) + "."
    other = rng.choice(FRIENDS)
    new_speaker = other if kind in _OTHER_SPEAKER else name
    return {"id": f"transfer-{idx:04d}", "kind": kind, "attribute": attr, "speaker": name, "old_speaker": name,
            "new_speaker": new_speaker, "old_text": old, "new_text": _cap(text),
            "verdict": {"action": action}, "implicit": is_implicit(action, text), "needs_change": needs_change(action)}


def generate(seed: int = 2026) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for kind, n in _SHARES.items():
        k = 0
        while k < n:
            it = _make(rng, kind, len(out))
            if it is None or (it["old_text"], it["new_text"]) in seen:
                continue
            seen.add((it["old_text"], it["new_text"]))
            out.append(it)
            k += 1
    return out


def template_strings() -> list[str]:
    return [t for _, ts in KINDS.values() for t in ts] + [t for a in ATTRS.values() for t in a["implicit"]]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m training.verdict_transfer", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="checkpoints/verdict/transfer")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    items = generate(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "heldout.jsonl").write_text("".join(json.dumps(i, ensure_ascii=False, sort_keys=True) + "\n" for i in items))
    print(json.dumps({"items": len(items), "by_action": Counter(i["verdict"]["action"] for i in items),
                      "implicit": sum(i["implicit"] for i in items),
                      "cross_speaker": sum(i["old_speaker"] != i["new_speaker"] for i in items)}))


if __name__ == "__main__":
    main()
