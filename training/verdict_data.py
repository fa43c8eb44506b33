"""Training data for the verdict model (:mod:`atma.verdict`): ≥10k (old record, new input,
speakers) pairs with an action label and a conflict type.

What: two sources, mixed about half and half.

1. The audit data generator (:mod:`training.judge_data`) scaled up, on the *training*
   profiles of its seed-17 profile set (the 12 held-out profiles are never used) plus the
   profiles of other seeds; any item whose new text, or whose (old, new) pair, occurs in
   ``checkpoints/judge/data/heldout.jsonl`` is dropped.
2. Templates written here, for what the overlay's write path really meets and the audit
   generator lacks: same-topic chit-chat, questions, plans ("thinking about trying X" is not
   a transition), other speakers' suggestions, another speaker stating *their own* value
   (never a change of the user's state), an assistant or friend acknowledging or restating
   the user's value ("Noted: ..."), the user restating it, explicit updates, corrections of
   a typo, numeric revisions, negations, bare new values (implicit), changes in progress,
   scoped exceptions, second values, and updates against an *acknowledgement* record (the
   old record is the assistant's "Noted: ..."; the user's new value supersedes it).

Labels (``label``): the five Judge actions plus ``restate`` — the new input states the same
value as the old record (a restatement, acknowledgement, refinement or added detail). A
``restate`` is reported as action ``none`` (no state change, so held-out scoring is the same
as for the audit items) with ``same_value: true``; the overlay then puts the new record in
the old one's slot so a later supersession retires both (see :func:`atma.judge.plan_commit`).

Nothing is read from ``data/ltp/`` or LoCoMo except by the test that checks no LTP cue or
question occurs here (``tests/unit/test_verdict_data.py``).

Run: ``python -m training.verdict_data --out checkpoints/verdict/data`` writes
``train.jsonl`` (train + validation split marked per item) and ``manifest.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from training import judge_data as jd
from training import sentry_data as sd

__all__ = ["LABELS", "CONFLICT_TYPES", "GENERATOR_VERSION", "generate", "own_items", "scaled_audit_items",
           "load", "main", "template_strings"]

GENERATOR_VERSION = "verdict-data-2"
LABELS = ("supersede", "transition", "coexist", "scoped_exception", "none", "restate")
CONFLICT_TYPES = ("temporal_update", "explicit_negation", "value_discrepancy", "scope_mismatch", "refinement", "none")
HELDOUT = Path(__file__).resolve().parents[1] / "checkpoints" / "judge" / "data" / "heldout.jsonl"

_OTHERS = ("Assistant", "assistant", "Bot", "Mira", "Jonas", "Priya", "Theo", "Grace", "Luis", "Helga", "Sam")
_WHEN = ("at weekends", "on holiday", "when it rains", "on Fridays", "in winter", "when I'm travelling",
         "during exam season", "at my parents' place", "on night shifts", "in August")

# ---------------------------------------------------------------- wording (written for this file)
# Placeholders: {I} first-person statement of the value (no final stop), {you} the same in the
# second person, {he} third person with the name, {v}/{w} short old/new values, {name}, {when}.
_T: dict[str, tuple[str, ...]] = {
    # ---- no change
    "chitchat": (
        "I was chatting with someone about {w} at lunch today.",
        "Saw a post about {w} this morning, it looked like fun.",
        "There's a documentary on {w} tonight, might watch it.",
        "Long day today, I'm completely wiped out.",
        "The weather has been all over the place this week.",
        "My phone battery died twice today, so annoying.",
        "Funny, a stranger on the bus was talking about {v}.",
        "I'll tell you a funny story about {v} some other time.",
        "Just got back home, the traffic was unreal.",
        "Read an interesting article that mentioned {w}.",
    ),
    "question": (
        "Do you think I'd enjoy {w}?",
        "What do people usually like about {w}?",
        "Any tips for getting better at {v}?",
        "Is {w} hard to get into?",
        "How long did it take you to get used to {w}?",
        "Would {w} be a silly idea for someone like me?",
    ),
    "plan": (
        "I'm toying with the idea of {w} one day, nothing decided.",
        "Maybe next year I'll look into {w}, who knows.",
        "Part of me wonders whether {w} would suit me better, but no plans yet.",
        "I keep daydreaming about {w}, though I'm not about to change anything.",
        "Someday I might consider {w}, but not now.",
    ),
    "suggestion": (  # said by someone else
        "You should give {w} a try, {name}!",
        "Have you ever thought about {w}?",
        "What about {w} instead, {name}?",
        "If I were you I'd look into {w}.",
        "Honestly, {w} would be perfect for you.",
        "My vote goes to {w}, for what it's worth.",
    ),
    "other_self_new": (  # someone else about their own state, another value
        "{I_w}.",
        "Same here, sort of: {I_w}.",
        "Ha, for me it's different: {I_w}.",
        "Funny, {I_w}.",
    ),
    "other_self_same": (  # someone else about their own state, the same value
        "{I_v} too!",
        "Oh nice, {I_v} as well.",
        "Snap, {I_v} too.",
    ),
    "ack": (  # someone else acknowledges the user's value
        "Noted: {he_v}.",
        "Got it, {name}. I'll remember that {he_v}.",
        "Okay, so {you_v}. Thanks for telling me.",
        "Thanks! Noting down that {he_v}.",
        "Understood, {you_v}.",
        "Good to know, {name}: {you_v}.",
        "Right, {you_v}, I've made a note of that.",
    ),
    "restate_self": (  # the user restates
        "Like I said, {I_v}.",
        "Just to repeat, {I_v}.",
        "Nothing has changed: {I_v}.",
        "Still the same as before, {I_v}.",
        "As I mentioned, {I_v}.",
    ),
    # ---- change
    "update": (
        "Update: {I_w} now.",
        "Quick update, {name} here: {I_w} now.",
        "Just so you know, {I_w} these days.",
        "Big news, {I_w} as of this month.",
        "Heads up: {v} is over, {I_w} now.",
    ),
    "correction": (
        "Sorry, I mistyped earlier: {w}, not {v}.",
        "Correction: {I_w}, I got it wrong before.",
        "Oops, I meant {w}, not {v}.",
        "Typo earlier, it's {w}, not {v}.",
        "Let me fix what I said: {I_w}.",
    ),
    "negation": (
        "Turns out it's not {v} after all.",
        "Forget what I said about {v}, that's no longer true.",
        "That bit about {v}? Not true any more.",
        "{v} is no longer part of my life.",
        "I have to take back the {v} thing, it doesn't apply anymore.",
    ),
    "bare": (  # a new value, no change word (implicit)
        "{I_w}.",
        "For the record, {I_w}.",
        "{I_w}, in case you wondered.",
        "Oh and {I_w}.",
    ),
    "numeric_revision": (
        "Revised figure: {I_w}.",
        "I recounted: {I_w}.",
        "Scratch {v}, {I_w}.",
        "Make that {w} rather than {v}.",
    ),
    "in_progress": (
        "I'm partway through switching from {v} to {w}.",
        "In the process of going from {v} to {w}, not done yet.",
        "Slowly changing over from {v} to {w}, about half done.",
        "Right now I'm mid-way between {v} and {w}.",
    ),
    "scoped": (
        "{I_v}, except {when}, when it's {w}.",
        "Only {when} is it {w}; otherwise {I_v}.",
        "{when}, {w}; the rest of the time {I_v}.",
        "Apart from {when} ({w} then), {I_v}.",
    ),
    "second_value": (
        "Alongside {v}, {I_w} as well.",
        "On top of {v}, {I_w} too.",
        "Besides {v}, {I_w} these days too.",
    ),
}

_KIND_LABEL = {
    "chitchat": ("none", "none"), "question": ("none", "none"), "plan": ("none", "none"),
    "suggestion": ("none", "none"), "other_self_new": ("none", "none"), "other_self_same": ("none", "none"),
    "ack": ("restate", "none"), "restate_self": ("restate", "none"),
    "update": ("supersede", "temporal_update"), "correction": ("supersede", "value_discrepancy"),
    "negation": ("supersede", "explicit_negation"), "bare": ("supersede", "value_discrepancy"),
    "numeric_revision": ("supersede", "value_discrepancy"), "in_progress": ("transition", "temporal_update"),
    "scoped": ("scoped_exception", "scope_mismatch"), "second_value": ("coexist", "none"),
    "ack_then_update": ("supersede", "temporal_update"), "ack_then_bare": ("supersede", "value_discrepancy"),
    "other_slot_change": ("none", "none"),
}
_OTHER_SPEAKER = {"suggestion", "other_self_new", "other_self_same", "ack"}
# Shares of the own-template part.
_KIND_SHARE = {
    "chitchat": 0.07, "question": 0.04, "plan": 0.05, "suggestion": 0.07, "other_self_new": 0.07,
    "other_self_same": 0.04, "ack": 0.10, "restate_self": 0.05, "update": 0.07, "correction": 0.06,
    "negation": 0.06, "bare": 0.08, "numeric_revision": 0.03, "in_progress": 0.05, "scoped": 0.05,
    "second_value": 0.04, "ack_then_update": 0.04, "ack_then_bare": 0.03,
    # verdict-data-2: the same person's change of *another* attribute (the first model's most
    # frequent validation error: it took such changes for a change of the old record's value)
    "other_slot_change": 0.12,
}
_MULTI = frozenset({"hobbies", "pets"})  # families where a second value can sit beside the first

_PRON = [(re.compile(r"\bI'm\b"), "you're"), (re.compile(r"\bI've\b"), "you've"), (re.compile(r"\bI'll\b"), "you'll"),
         (re.compile(r"\bI\b"), "you"), (re.compile(r"\bmy\b"), "your"), (re.compile(r"\bMy\b"), "Your"),
         (re.compile(r"\bme\b"), "you")]


def _second_person(s: str) -> str:
    for rx, rep in _PRON:
        s = rx.sub(rep, s)
    return s


def _fill(tpl: str, slot: Any, name: str, v: Any, w: Any, when: str) -> str:
    f = {"I_v": slot.first(v), "I_w": slot.first(w), "you_v": _second_person(slot.first(v)),
         "he_v": slot.third(name, v), "v": slot.short(v), "w": slot.short(w), "name": name, "when": when}
    out = tpl.format(**f)
    return sd.cap(out[0].upper() + out[1:] if out else out)


def _kind_ok(kind: str, slot: Any, v: Any, w: Any) -> bool:
    fam = slot.family
    if kind == "numeric_revision":
        return fam == "numerical"
    if kind == "second_value":
        return fam in _MULTI
    if kind in ("bare", "ack_then_bare"):
        return fam not in _MULTI  # a bare second hobby could be an addition
    if kind == "in_progress" or kind == "scoped":
        return not (slot.key == "relationship")
    return True


def _counts(n: int, shares: Mapping[str, float]) -> list[str]:
    tot = sum(shares.values())
    out = {k: int(n * s / tot) for k, s in shares.items()}
    for k in list(shares)[: n - sum(out.values())]:
        out[k] += 1
    return [k for k in shares for _ in range(out[k])]


def _old_plain(rng: random.Random, slot: Any, name: str, v: Any) -> str:
    return (sd.cap(slot.first(v)) if rng.random() < 0.5 else slot.third(name, v)) + "."


def own_items(rng: random.Random, profiles: Sequence[Mapping[str, Any]], n: int, seen: set[tuple[str, str]],
              banned: set[str]) -> list[dict[str, Any]]:
    """``n`` items from the templates above."""
    kinds = _counts(n, _KIND_SHARE)
    rng.shuffle(kinds)
    items = []
    for idx, kind in enumerate(kinds):
        for _ in range(300):
            prof = rng.choice(profiles)
            name = prof["name"]
            fact = rng.choice(prof["facts"])
            slot = sd.SLOT_BY_KEY[fact["slot"]]
            v = jd.fact_value(fact)
            w = sd.other_value(rng, slot.values, v)
            if not _kind_ok(kind, slot, v, w):
                continue
            other = rng.choice([o for o in _OTHERS if o != name])
            when = rng.choice(_WHEN)
            old_speaker, new_speaker = name, name
            old_text = _old_plain(rng, slot, name, v)
            if kind == "other_slot_change":  # a change of another attribute of the same person
                others = [f for f in prof["facts"] if f["slot"] != fact["slot"]]
                if not others:
                    continue
                of = rng.choice(others)
                oslot = sd.SLOT_BY_KEY[of["slot"]]
                ov = jd.fact_value(of)
                ow = sd.other_value(rng, oslot.values, ov)
                tk = rng.choice(("update", "correction", "negation", "bare", "in_progress"))
                new_text = _fill(rng.choice(_T[tk]), oslot, name, ov, ow, when)
            elif kind in ("ack_then_update", "ack_then_bare"):  # the old record is an acknowledgement
                old_speaker = other
                old_text = _fill(rng.choice(_T["ack"]), slot, name, v, w, when)
                new_text = _fill(rng.choice(_T["update" if kind == "ack_then_update" else "bare"]), slot, name, v, w, when)
            else:
                if kind in _OTHER_SPEAKER:
                    new_speaker = other
                new_text = _fill(rng.choice(_T[kind]), slot, name, v, w, when)
            if (old_text, new_text) in seen or new_text in banned or new_text == old_text:
                continue
            seen.add((old_text, new_text))
            label, ctype = _KIND_LABEL[kind]
            items.append(_item(f"own-{idx:05d}", kind, label, ctype, prof["id"], slot.key, old_speaker, old_text,
                               new_speaker, new_text, source="own"))
            break
    return items


def _item(iid: str, kind: str, label: str, ctype: str, profile: str, slot: str, old_speaker: str, old_text: str,
          new_speaker: str, new_text: str, *, source: str) -> dict[str, Any]:
    action = "none" if label == "restate" else label
    return {"id": iid, "kind": kind, "label": label, "conflict_type": ctype, "profile_id": profile, "slot": slot,
            "old_speaker": old_speaker, "old_text": old_text, "new_speaker": new_speaker, "new_text": new_text,
            "speaker": old_speaker if old_speaker == new_speaker else "",
            "verdict": {"action": action, "conflict_type": ctype, "same_value": label == "restate"},
            "implicit": jd.is_implicit(action, new_text), "needs_change": jd.needs_change(action), "source": source}


_AUDIT_RESTATE = {"restatement", "added_detail", "refinement"}


def scaled_audit_items(n: int, seeds: Sequence[int], seen: set[tuple[str, str]], banned: set[str],
                       chunk: int = 120) -> list[dict[str, Any]]:
    """``n`` items of :mod:`training.judge_data` wording on profiles no held-out item uses
    (drawn in chunks of ``chunk``: the audit generator never repeats a new text within one call)."""
    out: list[dict[str, Any]] = []
    pools = []
    for seed in seeds:
        profiles = sd.generate(seed, n_profiles=60, n_interactions=0).profiles
        if seed == 17:  # the seed of the held-out set: its last 12 profiles are held out
            profiles = profiles[:-12]
        pools.append((seed, profiles))
    r = 0
    while len(out) < n:
        seed, profiles = pools[r % len(pools)]
        rng = random.Random(seed * 7919 + r)
        try:
            got = jd.make_items(rng, profiles, chunk, "train", set())
        except RuntimeError:  # too few facts of some kind in this profile set for this draw
            got = []
        r += 1
        for it in got:
            pair = (it["old_text"], it["new_text"])
            if pair in seen or it["new_text"] in banned or len(out) >= n:
                continue
            seen.add(pair)
            act = it["verdict"]["action"]
            label = "restate" if it["kind"] in _AUDIT_RESTATE else act
            out.append(_item(f"audit{seed}-{len(out):05d}", it["kind"], label, it["verdict"]["conflict_type"],
                             f"s{seed}-{it['profile_id']}", it["slot"], it["speaker"], it["old_text"], it["speaker"],
                             it["new_text"], source="audit"))
        if r > 2000:  # pragma: no cover
            raise RuntimeError("audit generator exhausted")
    return out


def _heldout_texts() -> tuple[set[str], set[tuple[str, str]]]:
    if not HELDOUT.is_file():
        return set(), set()
    rows = [json.loads(x) for x in HELDOUT.read_text().splitlines() if x.strip()]
    return {r["new_text"] for r in rows}, {(r["old_text"], r["new_text"]) for r in rows}


def generate(seed: int = 31, *, n: int = 12000, own_share: float = 0.5, val_share: float = 0.1) -> list[dict[str, Any]]:
    """All items, shuffled, each with ``split`` ``train`` or ``val`` (val: whole profiles)."""
    banned, pairs = _heldout_texts()
    seen = set(pairs)
    n_own = int(n * own_share)
    audit = scaled_audit_items(n - n_own, (17, 41, 43), seen, banned)
    profiles = sd.generate(seed, n_profiles=80, n_interactions=0).profiles
    own = own_items(random.Random(seed), profiles, n_own, seen, banned)
    items = audit + own
    _pad_with_filler(random.Random(seed + 3), items)
    rng = random.Random(seed + 1)
    rng.shuffle(items)
    prof_ids = sorted({i["profile_id"] for i in items})
    val_profiles = set(random.Random(seed + 2).sample(prof_ids, max(1, int(len(prof_ids) * val_share))))
    for i in items:
        i["split"] = "val" if i["profile_id"] in val_profiles else "train"
    return items


_FILLER_BEFORE = ("Hi!", "Morning!", "Sorry for the late reply.", "Hey, quick one.", "Okay so.", "Ha, well.",
                  "Thanks for asking!", "What a week.")
_FILLER_AFTER = ("Anyway, enough about me.", "Hope your week is going well.", "Talk soon!", "How are things with you?",
                 "Anyway.", "Just thought I'd mention it.", "Long story.")


def _pad_with_filler(rng: random.Random, items: list[dict[str, Any]]) -> None:
    """Messages in a conversation are rarely one clean sentence: wrap some new (25%) and old
    (15%) texts in a greeting or sign-off that states nothing. Labels do not change."""
    for it in items:
        if it["kind"] == "question":
            continue
        for key, share in (("new_text", 0.25), ("old_text", 0.15)):
            if rng.random() < share:
                if rng.random() < 0.5:
                    it[key] = f"{rng.choice(_FILLER_BEFORE)} {it[key]}"
                else:
                    it[key] = f"{it[key]} {rng.choice(_FILLER_AFTER)}"
        it["implicit"] = jd.is_implicit(it["verdict"]["action"], it["new_text"])


def template_strings() -> list[str]:
    """Every template string written in this module (what the LTP overlap test checks)."""
    return [t for ts in _T.values() for t in ts] + list(_FILLER_BEFORE) + list(_FILLER_AFTER)


def load(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    if p.is_dir():
        p = p / "train.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def _summary(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    items = list(items)
    return {"items": len(items), "by_label": dict(sorted(Counter(i["label"] for i in items).items())),
            "by_source": dict(sorted(Counter(i["source"] for i in items).items())),
            "by_kind": dict(sorted(Counter(i["kind"] for i in items).items())),
            "cross_speaker": sum(1 for i in items if i["old_speaker"] != i["new_speaker"]),
            "implicit": sum(1 for i in items if i["implicit"])}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m training.verdict_data", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="checkpoints/verdict/data")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--n", type=int, default=12000)
    args = ap.parse_args(argv)
    items = generate(args.seed, n=args.n)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    raw = "".join(json.dumps(i, ensure_ascii=False, sort_keys=True) + "\n" for i in items).encode()
    (out / "train.jsonl").write_bytes(raw)
    m = {"generator": GENERATOR_VERSION, "seed": args.seed, "sha256": hashlib.sha256(raw).hexdigest(),
         "train": _summary(i for i in items if i["split"] == "train"),
         "val": _summary(i for i in items if i["split"] == "val")}
    (out / "manifest.json").write_text(json.dumps(m, indent=1, sort_keys=True) + "\n")
    print(json.dumps(m, indent=1))
    return m


if __name__ == "__main__":
    main()
