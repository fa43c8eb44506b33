"""Audit items with gold verdicts and CoT targets for training the audit Judge (App. A.8).

What: ``generate(seed)`` builds (old record, new input, Sentry metrics) items, each with a
gold :class:`atma.judge.Verdict` (conflict status, conflict type, action, links, transition
summary, old state to preserve) and a chain-of-thought target: a ``<think>`` block with four
labelled steps, then the verdict as one line of JSON. About 700 training and 151 held-out
items; held-out items come from profiles no training item uses.

Why: the paper's SFT data (``interactions_v2.json``/``profiles_v2.json``) is not released.
Profiles, slots, value pools and conflict wording come from the Sentry generator
(:mod:`training.sentry_data`, "the same generator family"); transitions, coexisting second
values and *implicit violations* (a new value stated with no negation or change word, e.g.
"Another long shift as a paramedic today" against "I work as a pastry chef") are added here.
Nothing is drawn from the LTP reconstruction (``tests/unit/test_judge_data.py`` checks it).

Run: ``python -m training.judge_data --out DIR`` writes ``train.jsonl``, ``heldout.jsonl``
and ``manifest.json`` (sha256 per file, counts by action/type/implicit). Same seed, same
bytes. Sentry metrics a/b/d come from the shipped Sentry checkpoint (``--no-sentry``: none).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from atma.judge import CHANGE_WORDS, NEGATION_WORDS, Verdict, judge_messages, parse_verdict
from atma.protocols import GateScore, Message
from atma.records import Record
from training import sentry_data as sd

__all__ = [
    "GENERATOR_VERSION",
    "ITEM_KINDS",
    "STEP_LABELS",
    "cot_target",
    "generate",
    "is_implicit",
    "item_messages",
    "item_record_pair",
    "load_items",
    "needs_change",
    "split_think",
    "strip_think",
    "write_items",
]

GENERATOR_VERSION = "judge-data-1"

#: The four labelled reasoning steps of a CoT target (the format reward checks them).
STEP_LABELS = (
    "Step 1 (entity and attribute):",
    "Step 2 (old state):",
    "Step 3 (new state):",
    "Step 4 (relation):",
)

#: Item kinds and their share of a split. ``implicit`` items are supersessions whose new
#: text has no negation or change wording (the rule fallback cannot see them).
ITEM_KINDS: Mapping[str, float] = {
    "temporal_update": 0.09,
    "explicit_negation": 0.09,
    "value_discrepancy": 0.07,
    "implicit": 0.13,
    "transition": 0.10,
    "scope_mismatch": 0.11,
    "coexist": 0.09,
    "restatement": 0.04,
    "refinement": 0.05,
    "added_detail": 0.05,
    "friend_suggestion": 0.05,
    "other_person": 0.05,
    "other_slot": 0.08,
}

_ACTION_OF_KIND = {
    "temporal_update": "supersede", "explicit_negation": "supersede", "value_discrepancy": "supersede",
    "implicit": "supersede", "transition": "transition", "scope_mismatch": "scoped_exception",
    "coexist": "coexist", "restatement": "none", "refinement": "none", "added_detail": "none",
    "friend_suggestion": "none", "other_person": "none", "other_slot": "none",
}

# Slots where a second value can sit beside the first (coexist), with its wording.
_COEXIST = {
    "pets": ("We adopted {aw} named {wn} last weekend, so {pn} has company.",
             "{pn} has a housemate: we took in {aw} called {wn}."),
    "hobby": ("Besides {v}, I've also taken up {w} on Sunday mornings.",
              "{w} is my second hobby, alongside {v}."),
    "food_like": ("I've also discovered I love {w}, along with {v}.",
                  "Add {w} to the list of foods I love, next to {v}."),
    "music_like": ("I also listen to a lot of {w}, as well as {v}.",
                   "{w} is up there with {v} in my playlists."),
    "dislike": ("Another thing I dislike: {w}, right up there with {v}.",
                "I also can't bear {w}, on top of {v}."),
}

# Change still under way ("transition"), with its wording.
_TRANSITION = {
    "job": ("I'm halfway through retraining from {v} to {w}.",
            "I'm in the middle of switching careers, from {av} to {aw}."),
    "location": ("I'm in the middle of moving from {v} to {w}; half my boxes are already there.",
                 "I'm halfway through relocating from {v} to {w}."),
    "relationship": ("{p} and I are in the middle of separating.",
                     "{p} and I are slowly working through a separation."),
    "pets": ("I'm in the middle of rehoming {pn} with a family on a farm.",),
    "hobby": ("I'm gradually swapping {v} for {w}, a bit more each month.",
              "I'm in the middle of moving from {v} over to {w}."),
    "food_like": ("I'm slowly going off {v} and getting into {w}.",),
    "music_like": ("I'm gradually drifting from {v} towards {w}.",),
    "dislike": ("I'm slowly warming up to {v}; it's becoming bearable.",),
    "numerical": ("I'm gradually going from {v} to {w}, a little each week.",
                  "I'm halfway through a plan to get from {v} to {w}."),
}

# A new value stated with no negation and no change word (checked against atma.judge's
# regexes in the tests): the implicit violations of App. A.8.
_IMPLICIT = {
    "job": ("Another long shift as {aw} today, my feet are killing me.",
            "Today at work as {aw} I had to cover for two colleagues.",
            "My first pay slip as {aw} arrived this morning."),
    "location": ("Walking home along the waterfront in {w} tonight, the lights are lovely.",
                 "My landlord here in {w} finally fixed the heating.",
                 "The tram from my flat in {w} to the office takes ten minutes."),
    "relationship": ("{wp} and I celebrated our first month together at a tapas bar.",
                     "My girlfriend {wp} surprised me with concert tickets.",
                     "Spent the whole weekend at {wp}'s place; we're very happy together."),
    "pets": ("I planted a little tree in the garden in memory of {pn}.",
             "The vet sent a card after we lost {pn}; it made me cry."),
    "hobby": ("All my {v} gear went to the charity shop; weekends are for {w}.",
              "{w} takes up every free evening I have, and the {v} kit is in the loft."),
    "food_like": ("One bite of {v} at the party and I felt sick; I'll pass on it.",
                  "One look at {v} and I lose my appetite."),
    "music_like": ("Someone put on {v} at the party and I asked them to turn it off.",),
    "dislike": ("Had a wonderful time at {v} on Friday and I'm already planning the next one.",
                "{v} turned out to be the highlight of my week."),
    "numerical": ("Managed my usual {sw} again this week.",
                  "Right on schedule: my usual {sw}.",
                  "Same routine as always, {sw}."),
}

# Human labels for slots (CoT step 1).
_ATTRIBUTE = {
    "job": "job", "location": "home city", "relationship": "partner", "pets": "pet",
    "hobby": "main hobby", "food_like": "liked food", "music_like": "favourite music",
    "dislike": "dislikes", "sleep_hours": "sleep per night", "commute_min": "commute time",
    "running_km": "weekly running distance", "coffee_cups": "daily coffee",
    "books_month": "books per month", "rent_eur": "monthly rent",
}
# Slots the Sentry generator has beyond the ones named above take its own label.
_ATTRIBUTE = {**{s.key: s.label for s in sd.SLOTS}, **_ATTRIBUTE}


def fact_value(fact: Mapping[str, Any]) -> Any:
    """A profile fact's value as the slot tables hold it (a JSON list back to a tuple)."""
    return tuple(fact["value"]) if isinstance(fact["value"], list) else fact["value"]


def _fields(slot: Any, v: Any, w: Any) -> dict[str, Any]:
    f: dict[str, Any] = {"v": slot.short(v), "w": slot.short(w), "sv": slot.short(v), "sw": slot.short(w)}
    if slot.family == "job":
        f.update(v=v, w=w, av=sd.with_article(v), aw=sd.with_article(w))
    if slot.key == "relationship":
        f.update(p=v[1] or sd.PARTNERS[0], wp=w[1] or sd.PARTNERS[1])
    if slot.key == "pets":
        f.update(pn=v[1], ps=v[0], aw=sd.with_article(w[0]), wn=w[1])
    if slot.family == "numerical":
        f.update(v=v, w=w)
    return f


def _fmt(template: str, slot: Any, v: Any, w: Any) -> str:
    return sd.cap(template.format(**_fields(slot, v, w)))


def _kinds_for(slot: Any, v: Any) -> set[str]:
    """Item kinds whose wording fits this slot and old value."""
    ok = {"restatement", "added_detail", "friend_suggestion", "other_person", "other_slot", "temporal_update",
          "explicit_negation", "implicit"}
    if slot.family != "numerical" and slot.key not in _IMPLICIT:  # no implicit wording for it
        ok.discard("implicit")
    if v != ("single", "") or slot.key != "relationship":
        ok |= {"scope_mismatch", "refinement"}
    if slot.key in sd.SLOT_BY_KEY and "value_discrepancy" in sd.conflict_types_for(slot):
        ok.add("value_discrepancy")
    if slot.key in _COEXIST:
        ok.add("coexist")
    if slot.key in _TRANSITION or slot.family == "numerical":
        if not (slot.key == "relationship" and v[0] == "single"):
            ok.add("transition")
    if slot.key == "relationship" and v[0] == "single":
        ok -= {"explicit_negation"}
    return ok


def _text(result: str | tuple[str, str]) -> str:
    """The Sentry generator's wording helpers return ``text`` or ``(text, style)``."""
    return result if isinstance(result, str) else result[0]


# Update markers the fallback's regexes miss but a reader would still call explicit.
_EXPLICIT = re.compile(r"\b(change|update|correction|actually|gone from|went from|swapped|was off|wrong|misspoke|"
                       r"earlier|before|realistically)\b", re.IGNORECASE)


def is_implicit(action: str, new_text: str) -> bool:
    """An implicit violation: the old state is superseded but the new text carries none of the
    negation or change words the rule fallback (:func:`atma.judge.fallback_verdict`) reads."""
    return action == "supersede" and not (CHANGE_WORDS.search(new_text) or NEGATION_WORDS.search(new_text)
                                          or _EXPLICIT.search(new_text))


def _new_text(rng: random.Random, kind: str, slot: Any, v: Any, w: Any) -> str:
    fam = "numerical" if slot.family == "numerical" else slot.key
    if kind in sd.CONFLICT_TYPES:
        return _text(sd.conflict_text(rng, slot, kind, v, w))
    if kind in sd.CONSISTENT_KINDS:
        return _text(sd.consistent_text(rng, slot, kind, v, w))
    if kind == "coexist":
        return _fmt(rng.choice(_COEXIST[slot.key]), slot, v, w)
    if kind == "transition":
        return _fmt(rng.choice(_TRANSITION[fam]), slot, v, w)
    if kind == "implicit":
        return _fmt(rng.choice(_IMPLICIT[fam]), slot, v, w)
    if kind == "other_person":
        return f"My {rng.choice(sd.RELATIVES)} says {sd.decap(slot.third('she', w))}." if rng.random() < 0.5 \
            else sd.cap(slot.third(f"my {rng.choice(sd.RELATIVES)}", w)) + "."
    raise ValueError(kind)


def _state(name: str, slot: Any, v: Any) -> str:
    """The old state as a short third-person phrase, e.g. ``Kwame lives in Porto``."""
    return slot.third(name, v)


def _verdict(kind: str, name: str, slot: Any, v: Any, w: Any, *, old_slot: Any | None = None) -> Verdict:
    action = _ACTION_OF_KIND[kind]
    attr = _ATTRIBUTE[slot.key]
    if kind in ("temporal_update", "explicit_negation", "value_discrepancy"):
        return Verdict(same_attribute=True, old_still_true=False, action="supersede", conflict_status="conflict",
                       conflict_type=kind, links=["supersedes"], reason=f"{attr} changed",
                       old_state=_state(name, slot, v))
    if kind == "implicit":
        ctype = "value_discrepancy" if slot.family == "numerical" else "temporal_update"
        return Verdict(same_attribute=True, old_still_true=False, action="supersede", conflict_status="conflict",
                       conflict_type=ctype, links=["supersedes"], reason=f"{attr} changed without saying so",
                       old_state=_state(name, slot, v))
    if kind == "transition":
        summary = (f"{slot.short(v)} to {slot.short(w)}" if slot.key not in ("relationship", "pets", "dislike")
                   else f"{slot.short(v)}: {'ending' if slot.key != 'dislike' else 'fading'}")
        return Verdict(same_attribute=True, old_still_true=False, action="transition", conflict_status="conflict",
                       conflict_type="temporal_update", links=["evolves_from"], reason=f"{attr} change under way",
                       transition_summary=summary, old_state=_state(name, slot, v))
    if kind == "scope_mismatch":
        return Verdict(same_attribute=True, old_still_true=True, action="scoped_exception", conflict_status="conflict",
                       conflict_type="scope_mismatch", links=["scoped_exception"],
                       reason=f"{attr} differs only in a narrower situation")
    if kind == "coexist":
        return Verdict(same_attribute=True, old_still_true=True, action="coexist", conflict_status="no_conflict",
                       conflict_type="none", links=["coexists_with"], reason=f"a second {attr}; the old one stays")
    if kind == "refinement":
        return Verdict(same_attribute=True, old_still_true=True, action="none", conflict_status="no_conflict",
                       conflict_type="refinement", links=[], reason=f"more detail on the same {attr}")
    if kind in ("restatement", "added_detail", "friend_suggestion"):
        why = {"restatement": "restates the same value", "added_detail": "detail, no change of state",
               "friend_suggestion": "a suggestion that was turned down"}[kind]
        return Verdict(same_attribute=True, old_still_true=True, action="none", conflict_status="no_conflict",
                       conflict_type="none", links=[], reason=why)
    if kind == "other_person":
        return Verdict(same_attribute=False, old_still_true=True, action="none", conflict_status="no_conflict",
                       conflict_type="none", links=[], reason="about another person")
    if kind == "other_slot":
        return Verdict(same_attribute=False, old_still_true=True, action="none", conflict_status="no_conflict",
                       conflict_type="none", links=[],
                       reason=f"{attr} vs {_ATTRIBUTE[old_slot.key] if old_slot else 'another attribute'}")
    raise ValueError(kind)  # pragma: no cover


def cot_target(item: Mapping[str, Any]) -> str:
    """The SFT/GRPO target: ``<think>`` with the four labelled steps, then one JSON line."""
    v = item["verdict"]
    kind, name = item["kind"], item["speaker"]
    attr_new, attr_old = item["attribute"], item["old_attribute"]
    if kind == "other_person":
        step1 = f"The old memory is {name}'s {attr_old}; the new one is about someone else."
    elif not v["same_attribute"]:
        step1 = f"The old memory is {name}'s {attr_old}; the new one is about {name}'s {attr_new}, a different attribute."
    else:
        step1 = f"Both memories are about {name}'s {attr_old}."
    step2 = f"{item['old_state_phrase']}."
    cue = " No negation or change word is used, but the value is different." if item["implicit"] else ""
    step3 = f"{item['new_gist']}.{cue}"
    rel = {
        "supersede": "The new value replaces the old one; the old memory is no longer current, so supersede.",
        "transition": "The change is still under way; record it as a transition from the old state.",
        "scoped_exception": "The new fact holds only in a narrower situation; the old one stays, so scoped exception.",
        "coexist": "Both values hold at the same time, so they coexist.",
        "none": "No change of state, so no action.",
    }[v["action"]]
    body = "\n".join(f"{label} {text}" for label, text in zip(STEP_LABELS, (step1, step2, step3, rel)))
    return f"<think>\n{body}\n</think>\n{json.dumps(v, ensure_ascii=False)}"


_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)


def split_think(text: str) -> tuple[str | None, str]:
    """``(think_body or None, rest)``. An unclosed ``<think>`` swallows everything.

    >>> split_think("<think>\\nStep 1\\n</think>\\n{}")
    ('\\nStep 1\\n', '{}')
    >>> split_think('{"a": 1}')
    (None, '{"a": 1}')
    """
    m = _THINK.search(text or "")
    if m:
        return m.group(1), (text[: m.start()] + text[m.end():]).strip()
    if "<think>" in (text or ""):
        return text.split("<think>", 1)[1], ""
    return None, (text or "").strip()


def strip_think(text: str) -> str:
    """The reply without its ``<think>`` block (what :func:`atma.judge.parse_verdict` reads).

    >>> strip_think('<think>x</think>\\n{"action": "none"}')
    '{"action": "none"}'
    """
    return split_think(text)[1]


def needs_change(action: str) -> bool:
    """The paper's binary label: the old state stops being current (supersede or transition)."""
    return action in ("supersede", "transition")


def item_record_pair(item: Mapping[str, Any]) -> tuple[Record, Record, GateScore | None]:
    """The (old, new, score) an overlay would hand to the Judge for this item."""
    old = Record(id=f"{item['id']}-old", namespace="judge-data", text=item["old_text"],
                 speaker=item.get("old_speaker", item["speaker"]))
    new = Record(id=f"{item['id']}-new", namespace="judge-data", text=item["new_text"],
                 speaker=item.get("new_speaker", item["speaker"]))
    s = item.get("sentry")
    score = GateScore(a=s["a"], b=s.get("b"), d=s.get("d"), escalate=bool(s.get("escalate", True))) if s else None
    return old, new, score


def item_messages(item: Mapping[str, Any]) -> list[Message]:
    """The Judge prompt for an item: exactly :func:`atma.judge.judge_messages`."""
    return judge_messages(*item_record_pair(item))


_IMPLICIT_GIST = {
    "pets": "{name}'s pet {v} has died",
    "food_like": "{name} can no longer face {v}",
    "music_like": "{name} no longer wants to hear {v}",
    "dislike": "{name} now enjoys {v}",
}


def _gist(kind: str, name: str, slot: Any, v: Any, w: Any, new_slot: Any) -> str:
    if kind == "implicit" and slot.key in _IMPLICIT_GIST:
        return _IMPLICIT_GIST[slot.key].format(name=name, v=slot.short(v), w=slot.short(w))
    if kind in ("temporal_update", "value_discrepancy", "implicit"):
        return slot.third(name, w)
    if kind == "explicit_negation":
        return f"{name} says the old value no longer holds"
    if kind == "transition":
        return f"{name} is changing from {slot.short(v)}" + (
            f" to {slot.short(w)}" if slot.key not in ("relationship", "pets", "dislike") else "")
    if kind == "scope_mismatch":
        return f"A different value applies only in a narrower situation ({slot.short(w)})"
    if kind == "coexist":
        return f"{name} adds a second {_ATTRIBUTE[slot.key]}: {slot.short(w)}"
    if kind == "other_person":
        return f"Someone else's {_ATTRIBUTE[slot.key]} is {slot.short(w)}"
    if kind == "other_slot":
        return f"It is about {name}'s {_ATTRIBUTE[new_slot.key]}"
    if kind == "friend_suggestion":
        return f"A suggestion to change, turned down; still {slot.short(v)}"
    return f"Still {slot.short(v)}, with more detail"


def _counts(n: int) -> list[str]:
    raw = {k: n * share for k, share in ITEM_KINDS.items()}
    out = {k: int(x) for k, x in raw.items()}
    for k in sorted(raw, key=lambda k: raw[k] - out[k], reverse=True)[: n - sum(out.values())]:
        out[k] += 1
    return [k for k in ITEM_KINDS for _ in range(out[k])]


def make_items(rng: random.Random, profiles: Sequence[Mapping[str, Any]], n: int, split: str,
                seen: set[str]) -> list[dict[str, Any]]:
    """``n`` Judge items of ``split`` drawn from ``profiles``; texts already in ``seen`` are skipped."""
    kinds = _counts(n)
    rng.shuffle(kinds)
    items: list[dict[str, Any]] = []
    for idx, kind in enumerate(kinds):
        for _attempt in range(200):
            prof = rng.choice(profiles)
            name = prof["name"]
            fact = rng.choice(prof["facts"])
            slot = sd.SLOT_BY_KEY[fact["slot"]]
            v = fact_value(fact)
            if kind not in _kinds_for(slot, v):
                continue
            w = sd.other_value(rng, slot.values, v)
            if kind in ("implicit", "coexist") and slot.key == "relationship" and w[0] == "single":
                continue
            old_fact, new_slot, nv = fact, slot, v
            # The old record states the fact plainly (the profile's own wording may be a
            # detail sentence that a new input could repeat word for word).
            old_text = (sd.cap(slot.first(v)) if rng.random() < 0.5 else slot.third(name, v)) + "."
            if kind == "other_slot":  # new input about another slot; the old fact stays untouched
                other = rng.choice([f for f in prof["facts"] if f["slot"] != fact["slot"]])
                new_slot, nv = sd.SLOT_BY_KEY[other["slot"]], fact_value(other)
                ckind = rng.choice(sd.conflict_types_for(new_slot))
                text = _text(sd.conflict_text(rng, new_slot, ckind, nv, sd.other_value(rng, new_slot.values, nv)))
                clause = sd.mention_clause(slot, fact)
                if clause and rng.random() < 0.5:  # same entity, different slot: the hard case
                    text = f"{clause}, {sd.decap(text)}"
            else:
                text = _new_text(rng, kind, slot, v, w)
            if text in seen or text == old_text:
                continue
            seen.add(text)
            verdict = _verdict(kind, name, slot, v, w, old_slot=slot if kind != "other_slot" else slot)
            if kind == "other_slot":
                verdict = verdict.model_copy(update={"reason": f"{_ATTRIBUTE[new_slot.key]}, not {_ATTRIBUTE[slot.key]}"})
            item = {
                "id": f"{split}-{idx:04d}", "split": split, "profile_id": prof["id"], "speaker": name,
                "kind": kind, "slot": slot.key, "new_slot": new_slot.key, "attribute": _ATTRIBUTE[new_slot.key],
                "old_attribute": _ATTRIBUTE[slot.key], "old_fact_id": old_fact["id"], "old_text": old_text,
                "new_text": text, "implicit": is_implicit(verdict.action, text), "needs_change": needs_change(verdict.action),
                "old_state_phrase": _state(name, slot, v),
                "new_gist": _gist(kind, name, slot, v, w, new_slot),
                "verdict": verdict.model_dump(),
            }
            item["target"] = cot_target(item)
            items.append(item)
            break
        else:  # pragma: no cover - pools are large enough
            raise RuntimeError(f"could not generate item {idx} ({kind})")
    return items


SentryScorer = Callable[[Sequence[tuple[str, str]]], list[dict[str, float]]]


def sentry_scorer(path: str | None = None) -> SentryScorer:
    """Score (old, new) text pairs with the shipped Sentry gate: ``{"a", "b", "d", "escalate"}``."""
    from atma.sentry_encoder import load_sentry

    gate = load_sentry(path)

    def score(pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        out = []
        olds = gate.features([o for o, _ in pairs])
        news = gate.features([n for _, n in pairs])
        for i in range(len(pairs)):
            s = gate.route(news[i], olds[i: i + 1])[0]
            out.append({"a": round(float(s.a), 3), "b": round(float(s.b), 3) if s.b is not None else None,
                        "d": round(float(s.d), 3) if s.d is not None else None, "escalate": bool(s.escalate)})
        return out

    return score


def generate(seed: int = 17, *, n_train: int = 700, n_heldout: int = 151, n_profiles: int = 60,
             heldout_profiles: int = 12, scorer: SentryScorer | None = None) -> dict[str, list[dict[str, Any]]]:
    """Build ``{"train": [...], "heldout": [...]}`` deterministically from ``seed``.

    Profiles come from :func:`training.sentry_data.generate`; held-out items use only the
    last ``heldout_profiles`` profiles. ``scorer`` adds Sentry metrics to every item.
    """
    profiles = sd.generate(seed, n_profiles=n_profiles, n_interactions=0).profiles
    rng = random.Random(seed)
    seen: set[str] = set()
    out = {
        "train": make_items(rng, profiles[:-heldout_profiles], n_train, "train", seen),
        "heldout": make_items(rng, profiles[-heldout_profiles:], n_heldout, "heldout", seen),
    }
    for items in out.values():
        for it in items:
            assert parse_verdict(strip_think(it["target"])).status == "ok", it["id"]
        if scorer is not None:
            for it, s in zip(items, scorer([(it["old_text"], it["new_text"]) for it in items])):
                it["sentry"] = s
    return out


# --------------------------------------------------------------------------- I/O
def _jsonl_bytes(items: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(it, ensure_ascii=False, sort_keys=True) + "\n" for it in items).encode()


def _summary(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "items": len(items),
        "by_action": dict(sorted(Counter(i["verdict"]["action"] for i in items).items())),
        "by_conflict_type": dict(sorted(Counter(i["verdict"]["conflict_type"] for i in items).items())),
        "by_kind": dict(sorted(Counter(i["kind"] for i in items).items())),
        "implicit": sum(1 for i in items if i["implicit"]),
        "needs_change": sum(1 for i in items if i["needs_change"]),
    }


def write_items(data: Mapping[str, Sequence[Mapping[str, Any]]], out_dir: str | Path, *, seed: int,
                sentry: str = "") -> dict[str, Any]:
    """Write ``<split>.jsonl`` per split and ``manifest.json``; return the manifest."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Any] = {}
    for split, items in data.items():
        raw = _jsonl_bytes(items)
        (out / f"{split}.jsonl").write_bytes(raw)
        files[split] = {"file": f"{split}.jsonl", "sha256": hashlib.sha256(raw).hexdigest(), **_summary(items)}
    manifest = {"generator": GENERATOR_VERSION, "sentry_generator": sd.GENERATOR_VERSION, "seed": seed, "sentry_metrics": sentry or None,
                "step_labels": list(STEP_LABELS), "splits": files}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def load_items(path: str | Path, split: str = "heldout") -> list[dict[str, Any]]:
    """Items of ``split`` from a directory written by :func:`write_items` (or a .jsonl file)."""
    p = Path(path)
    if p.is_dir():
        p = p / f"{split}.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m training.judge_data", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=17, help="generator seed")
    ap.add_argument("--n-train", type=int, default=700, help="training items")
    ap.add_argument("--n-heldout", type=int, default=151, help="held-out items")
    ap.add_argument("--sentry", default=None, help="Sentry checkpoint dir (default: the shipped one)")
    ap.add_argument("--no-sentry", action="store_true", help="do not add Sentry metrics a/b/d")
    args = ap.parse_args(argv)
    scorer = None if args.no_sentry else sentry_scorer(args.sentry)
    data = generate(args.seed, n_train=args.n_train, n_heldout=args.n_heldout, scorer=scorer)
    m = write_items(data, args.out, seed=args.seed, sentry="" if args.no_sentry else (args.sentry or "checkpoints/sentry"))
    print(json.dumps(m, indent=1))
    return m


if __name__ == "__main__":
    main()
