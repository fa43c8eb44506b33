"""LTP reconstruction builder: a conflict-heavy "ghost memory" benchmark rebuilt from the
text of the A-TMA paper (App. A.2-A.4) on top of LoCoMo (Maharana et al., ACL 2024).

There is no public LTP release; this module rebuilds one ("LTP reconstruction").

* 10 profiles, each bound to one LoCoMo conversation (``locomo10.json``).
* 40 two-cue state units per profile over job, location, relationship, pets,
  hobbies, preferences (likes/dislikes) and numerical facts. Update type by
  category: job/location -> temporal_update, relationship/pets ->
  explicit_negation, numerical -> value_discrepancy, hobbies/preferences ->
  scope_mismatch; per profile 2 / 5 / 13 / 20 (the A.4 skew).
* cue1 (old state) is inserted at the 0.12-0.42 quantiles of the conversation's
  turns, cue2 (current state) at 0.58-0.88; the original tail is kept. The
  quantile of a cue is (original turns before it) / (original turns).
* Two probes per unit: fact recall (view "historical", gold = old value) and
  current conflict (view "current", gold = current value). Probes are asked
  after the last event (the final bank is queried).

The wording tables are in :mod:`eval.ltp_slot_tables`, the structural checks in
:mod:`eval.ltp_validate`, the files (``data/ltp/``) in :mod:`eval.ltp_release`; the
command is ``python -m eval.ltp build`` (:mod:`eval.ltp`).
"""
from __future__ import annotations

import hashlib
import random
import re
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable

from eval import ltp_slot_tables as S
from eval.grading import normalize
from eval.locomo_data import Sample, load_locomo

__all__ = [
    "ATTRIBUTION", "CUE1_WINDOW", "CUE2_WINDOW", "LICENSE", "LOCOMO_SHA256", "NAME", "N_PROFILES",
    "UNITS_PER_PROFILE", "VERSION", "aliases_clash", "build_all", "is_cue", "locomo_turns",
    "units_from_scenarios", "word_in",
]

NAME = "LTP reconstruction"
VERSION = "1.0"
LOCOMO_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
LICENSE = "CC BY-NC 4.0"
ATTRIBUTION = (
    "Derived from LoCoMo (Maharana, Lee, Tulyakov, Bansal, Barbieri, Fang: 'Evaluating Very Long-Term "
    "Conversational Memory of LLM Agents', ACL 2024; snap-research/LoCoMo, data/locomo10.json), "
    "licensed CC BY-NC 4.0. Changes: inserted synthetic state-change cue turns and added probes."
)

N_PROFILES = 10
UNITS_PER_PROFILE = 40
CUE1_WINDOW = (0.12, 0.42)
CUE2_WINDOW = (0.58, 0.88)
TURN_SPACING_S = 30
PROBE_DELAY_S = 3600
TIME_FMT = "%Y-%m-%dT%H:%M:%S"


# --------------------------------------------------------------------------- text helpers

def word_in(needle: str, hay: str) -> bool:
    """Case-insensitive whole-word match of ``needle`` in ``hay``."""
    n = needle.strip().lower()
    if not n:
        return False
    return re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", hay.lower()) is not None


def aliases_clash(a: Iterable[str], b: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs (x, y) from a x b that a grader could confuse: equal after the grader's
    normalisation, or one a whole-word part of the other (raw or normalised)."""
    out = []
    for x in a:
        for y in b:
            nx, ny = normalize(x), normalize(y)
            if (nx == ny or (nx and word_in(nx, ny)) or (ny and word_in(ny, nx))
                    or word_in(x, y) or word_in(y, x)):
                out.append((x, y))
    return out


def is_cue(event: dict) -> bool:
    """True for an inserted cue turn (id ``cue-pNNN-uMM-1|2``), False for a LoCoMo turn."""
    return str(event.get("id", "")).startswith("cue-")


def article(w: str) -> str:
    return ("an " if w[:1].lower() in "aeiou" and not w.lower().startswith(("uni", "eu")) else "a ") + w


def _cap_sentences(s: str) -> str:
    s = s[:1].upper() + s[1:]
    return re.sub(r"([.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), s)


def _seed(*parts: Any) -> int:
    return int(hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:16], 16)


# --------------------------------------------------------------------------- LoCoMo

def locomo_turns(sample: Sample) -> list[dict]:
    """All turns of a conversation as events ``{id, time (datetime), speaker, text}``:
    sessions sorted by their timestamps, turns of a session ``TURN_SPACING_S`` apart
    from the session time."""
    sessions: dict[int, list] = defaultdict(list)
    for t in sample.turns:
        sessions[t.session].append(t)
    ordered = sorted(sessions.items(), key=lambda kv: (kv[1][0].time, kv[0]))
    return [{"id": t.dia_id, "time": t.time + timedelta(seconds=TURN_SPACING_S * j),
             "speaker": t.speaker, "text": t.text}
            for _, turns in ordered for j, t in enumerate(turns)]


# --------------------------------------------------------------------------- value rendering

def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _numeric_value(slot: dict, x: Any) -> tuple[str, str, list[str]]:
    """(cue text of the value, canonical value, aliases)."""
    fmt, unit = slot["fmt"], slot["unit"]
    if fmt == "money":
        n = int(x)
        s = f"{n:,}"
        al = [f"${s}", s] + ([str(n)] if s != str(n) else [])
        return s, f"${s}", al
    if fmt == "thousands":
        n = int(x)
        s = f"{n:,}"
        return s, f"{s} {unit}", [s, str(n), f"{s} {unit}"]
    if fmt == "clock":
        return x, f"{x} {unit}", [x, f"{x} {unit}"]
    s = _fmt_num(x)
    return s, f"{s} {unit}", [s, f"{s} {unit}"]


def _value_aliases(v: str) -> list[str]:
    return [v] + [a for a in S.ALIASES.get(v, []) if a != v]


# --------------------------------------------------------------------------- per-profile builder

class _Picker:
    """Seeded choice that prefers the least-used options (varied wording)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: Counter = Counter()

    def pick(self, options: list[str], group: str = "") -> str:
        low = min(self.used[(group, o)] for o in options)
        cands = [o for o in options if self.used[(group, o)] == low]
        o = self.rng.choice(cands)
        self.used[(group, o)] += 1
        return o


def _render(template: str, fields: dict) -> str:
    return template.format(**fields)


def _compose(picker: _Picker, rng: random.Random, template: str, fields: dict, pos: str,
             closer_key: str, other: str) -> str:
    core = _render(template, fields)
    opener = ""
    if rng.random() < 0.6 and not template.startswith(S.DISCOURSE_LEADS):
        opener = picker.pick([o for o in S.OPENERS[pos] if o], "open-" + pos).format(other=other)
    closer = ""
    if rng.random() < 0.4:
        closer = picker.pick([c for c in S.CLOSERS[closer_key] if c], "close-" + closer_key)
    if opener and not opener.endswith((": ", "! ", "? ")) and not re.match(r"I\b|I'", core) \
            and not template.startswith(("{",) + S.WEEKDAYS):
        core = core[:1].lower() + core[1:]
    text = opener + core + closer
    return _cap_sentences(text)


def _slot_catalogue() -> dict[str, list[dict]]:
    return {
        "temporal": S.TEMPORAL_SLOTS,
        "negation": S.NEGATION_SLOTS,
        "numerical": S.NUMERIC_SLOTS,
        "scope": S.HOBBY_SLOTS + S.PREF_SLOTS,
    }


def _plan_slots(rng: random.Random, a: str, b: str) -> list[tuple[str, dict]]:
    """40 (speaker, slot) pairs: 2 temporal, 5 negation, 13 numerical, 20 scope;
    20 units per speaker; both job and location; >=1 relationship, >=1 pet,
    >=1 hobby, >=1 preference."""
    cat = _slot_catalogue()
    x, y = (a, b) if rng.random() < 0.5 else (b, a)
    job, loc = cat["temporal"]
    plan = [(x, job), (y, loc)] if rng.random() < 0.5 else [(x, loc), (y, job)]
    rel = [s for s in cat["negation"] if s["category"] == "relationship"]
    pets = [s for s in cat["negation"] if s["category"] == "pets"]
    while True:
        nx = rng.sample(cat["negation"], 3)
        ny = rng.sample(cat["negation"], 2)
        cats = {s["category"] for s in nx + ny}
        if {"relationship", "pets"} <= cats:
            break
    plan += [(x, s) for s in nx] + [(y, s) for s in ny]
    plan += [(x, s) for s in rng.sample(cat["numerical"], 6)] + [(y, s) for s in rng.sample(cat["numerical"], 7)]
    while True:
        sx = rng.sample(cat["scope"], 10)
        sy = rng.sample(cat["scope"], 10)
        cats = {s["category"] for s in sx + sy}
        if {"hobbies", "preferences"} <= cats:
            break
    plan += [(x, s) for s in sx] + [(y, s) for s in sy]
    assert len(plan) == UNITS_PER_PROFILE and rel and pets
    rng.shuffle(plan)
    return plan


def _choose_values(rng: random.Random, slot: dict, conv_text: str, taken: set[str],
                   banned_names: set[str]) -> dict:
    """Old and current value of a unit: distinct, no alias clash, preferably not
    mentioned in the conversation, not reused within the profile."""
    def fresh(aliases: list[str]) -> bool:
        return not any(normalize(al) in taken for al in aliases)

    def unseen(aliases: list[str]) -> bool:
        return not any(al.lower() in conv_text and word_in(al, conv_text) for al in aliases)

    if slot["category"] == "numerical":
        vals = list(slot["values"])
        for _ in range(500):
            o, n = rng.sample(vals, 2)
            if len(vals) > 4 and abs(vals.index(o) - vals.index(n)) < 2:
                continue
            oc, ov, oa = _numeric_value(slot, o)
            nc, nv, na = _numeric_value(slot, n)
            if not aliases_clash(oa, na):
                return {"old": (oc, ov, oa), "new": (nc, nv, na)}
        raise RuntimeError(f"no numeric values for {slot['key']}")

    if slot["values"] == "PET":
        names = [n for n in S.PET_NAMES if unseen([n]) and fresh([n]) and n.lower() not in banned_names]
        species = [s for s in S.SPECIES if unseen([s])] or list(S.SPECIES)
        for _ in range(500):
            n1, n2 = rng.sample(names, 2)
            s1, s2 = rng.sample(species, 2)
            oa, na = [n1, s1], [n2, s2]
            if not aliases_clash(oa, na):
                return {"old": ({"name": n1, "species": s1}, f"{article(s1)} named {n1}", oa),
                        "new": ({"name": n2, "species": s2}, f"{article(s2)} named {n2}", na)}
        raise RuntimeError("no pet values")

    pool = S.PERSON_NAMES if slot["values"] == "PERSON" else slot["values"]
    pool = [v for v in pool if fresh(_value_aliases(v)) and v.lower() not in banned_names]
    good = [v for v in pool if unseen(_value_aliases(v))]
    if len(good) >= 2:
        pool = good
    for _ in range(500):
        o, n = rng.sample(pool, 2)
        oa, na = _value_aliases(o), _value_aliases(n)
        if not aliases_clash(oa, na):
            return {"old": (o, o, oa), "new": (n, n, na)}
    raise RuntimeError(f"no values for {slot['key']}")


def _plural(v: str) -> bool:
    return (v.endswith("s") and not v.endswith("ss") and v not in S.SINGULAR_S
            and not v.split()[0].endswith("ing")
            and " with " not in v and " and " not in v)


def _grammar(prefix: str, v: str) -> dict:
    pl = _plural(v)
    return {f"{prefix}_is": "are" if pl else "is", f"{prefix}_was": "were" if pl else "was",
            f"{prefix}_doesnt": "don't" if pl else "doesn't", f"{prefix}_them": "them" if pl else "it"}


def _cue_fields(slot: dict, cue_val: Any, old_val: Any = None) -> dict:
    f: dict[str, Any] = {"np": slot.get("np", "")}
    if isinstance(cue_val, dict):  # pets
        f.update(name=cue_val["name"], species=cue_val["species"], a_species=article(cue_val["species"]))
        if old_val is not None:
            f.update(old_name=old_val["name"], old_species=old_val["species"],
                     a_old_species=article(old_val["species"]))
    else:
        f.update(v=cue_val, a_v=article(cue_val), **_grammar("v", cue_val))
        if old_val is not None:
            f.update(old=old_val, a_old=article(old_val), **_grammar("old", old_val))
    return f


def _templates(slot: dict, key: str) -> list[str]:
    t = list(slot[key])
    if slot["category"] in ("hobbies", "preferences") and slot.get("generic", True) and key in ("cue1", "cue2"):
        t += S.SCOPE_GENERIC[key]
    return t


def _questions(slot: dict, key: str) -> list[str]:
    if key in slot:
        return slot[key]
    return S.SCOPE_QUESTIONS[key]


def _place(rng: random.Random, turns: list[dict], window: tuple[float, float], units: list[int],
           speakers: dict[int, str]) -> dict[int, int]:
    """Insertion index k (= number of original turns before the cue) per unit,
    spread evenly over the window, after a turn by the cue's own speaker."""
    n = len(turns)
    lo = -(-int(window[0] * n * 1000) // 1000)  # ceil(window[0] * n) without float noise
    while lo / n < window[0]:
        lo += 1
    hi = int(window[1] * n)
    while hi / n > window[1]:
        hi -= 1
    order = list(units)
    rng.shuffle(order)
    used: set[int] = set()
    out = {}
    m = len(order)
    for i, u in enumerate(order):
        q = window[0] + (window[1] - window[0]) * (i + rng.uniform(0.15, 0.85)) / m
        k0 = min(max(round(q * n), lo), hi)
        for d in range(0, hi - lo + 1):
            for k in (k0 - d, k0 + d):
                if lo <= k <= hi and k not in used and 1 <= k < n and turns[k - 1]["speaker"] == speakers[u]:
                    out[u] = k
                    used.add(k)
                    break
            if u in out:
                break
        else:
            raise RuntimeError("no insertion slot left")
    return out


def _build_profile(pi: int, sample: Sample, seed: int) -> tuple[dict, list[dict]]:
    rng = random.Random(_seed("ltp", seed, pi, sample.sample_id))
    picker = _Picker(rng)
    a, b = sample.speaker_a, sample.speaker_b
    turns = locomo_turns(sample)
    conv_text = "\n".join(t["text"] for t in turns).lower()
    banned = {a.lower(), b.lower()}
    pid = f"profile{pi:03d}"
    plan = _plan_slots(rng, a, b)

    taken: set[str] = set()
    units: list[dict] = []
    for ui, (spk, slot) in enumerate(plan):
        other = b if spk == a else a
        vals = _choose_values(rng, slot, conv_text, taken, banned)
        (oc, ov, oa), (nc, nv, na) = vals["old"], vals["new"]
        taken.update(normalize(x) for x in oa + na)
        utype = S.UPDATE_TYPE[slot["category"]]
        t1 = picker.pick(_templates(slot, "cue1"), slot["key"] + "/1")
        t2 = picker.pick(_templates(slot, "cue2"), slot["key"] + "/2")
        text1 = _compose(picker, rng, t1, _cue_fields(slot, oc), "cue1", "cue1", other)
        text2 = _compose(picker, rng, t2, _cue_fields(slot, nc, oc), "cue2", utype, other)
        pron = S.PRONOUN_FORMS[S.PRONOUNS.get(spk, "x")]
        qf = {"name": spk, "pos": pron["pos"], "np": slot.get("np", "")}
        uid = f"p{pi:03d}-u{ui:02d}"
        units.append({
            "unit_id": uid, "profile_id": pid, "source_conversation": sample.sample_id,
            "speaker": spk, "slot": slot["key"], "category": slot["category"], "topic": slot["topic"],
            "update_type": utype, "old_value": ov, "current_value": nv,
            "old_aliases": oa, "current_aliases": na,
            "cue_ids": [f"cue-p{pi:03d}-u{ui:02d}-1", f"cue-p{pi:03d}-u{ui:02d}-2"],
            "cue_texts": [text1, text2],
            "probe_ids": [f"probe-p{pi:03d}-u{ui:02d}-hist", f"probe-p{pi:03d}-u{ui:02d}-cur"],
            "questions": [_render(picker.pick(_questions(slot, "q_hist"), slot["key"] + "/qh"), qf),
                          _render(picker.pick(_questions(slot, "q_cur"), slot["key"] + "/qc"), qf)],
        })

    speakers = {i: u["speaker"] for i, u in enumerate(units)}
    idx = list(range(len(units)))
    k1 = _place(rng, turns, CUE1_WINDOW, idx, speakers)
    k2 = _place(rng, turns, CUE2_WINDOW, idx, speakers)

    inserts: dict[int, tuple[int, int]] = {}
    for i in idx:
        inserts[k1[i]] = (i, 0)
        inserts[k2[i]] = (i, 1)
    events: list[dict] = []
    cue_time: dict[str, str] = {}
    for k, t in enumerate(turns):
        if k in inserts:
            i, c = inserts[k]
            u = units[i]
            prev_t = turns[k - 1]["time"]
            gap = (t["time"] - prev_t).total_seconds()
            tt = prev_t + timedelta(seconds=min(TURN_SPACING_S // 2, gap / 2))
            cue_time[u["cue_ids"][c]] = tt.strftime(TIME_FMT)
            events.append({"id": u["cue_ids"][c], "time": tt.strftime(TIME_FMT), "speaker": u["speaker"],
                           "text": u["cue_texts"][c]})
        events.append({"id": t["id"], "time": t["time"].strftime(TIME_FMT), "speaker": t["speaker"],
                       "text": t["text"]})
    probe_time = (turns[-1]["time"] + timedelta(seconds=PROBE_DELAY_S)).strftime(TIME_FMT)

    probes = []
    for u in units:
        u["cue_times"] = [cue_time[c] for c in u["cue_ids"]]
        for j, (view, state, ptype) in enumerate((("historical", "old", "fact_recall"),
                                                   ("current", "current", "conflict"))):
            gold, alt = (u["old_aliases"], u["current_aliases"]) if j == 0 else (u["current_aliases"], u["old_aliases"])
            probes.append({
                "id": u["probe_ids"][j], "question": u["questions"][j], "view": view,
                "gold": list(gold), "alternates": list(alt), "time": probe_time,
                "meta": {
                    "unit_id": u["unit_id"], "profile_id": pid, "source_conversation": sample.sample_id,
                    "speaker": u["speaker"], "slot": u["slot"], "category": u["category"], "topic": u["topic"],
                    "update_type": u["update_type"], "probe_type": ptype, "target_state": state,
                    "target_cue_id": u["cue_ids"][j], "other_cue_id": u["cue_ids"][1 - j],
                    "old_value": u["old_value"], "current_value": u["current_value"],
                },
            })
    scenario = {
        "id": f"ltp-{pid}",
        "events": events,
        "probes": probes,
        "meta": {
            "name": NAME, "version": VERSION, "profile_id": pid, "source": "LoCoMo",
            "source_conversation": sample.sample_id, "speaker_a": a, "speaker_b": b,
            "n_original_turns": len(turns), "n_cues": 2 * len(units), "n_units": len(units), "seed": seed,
            "license": LICENSE,
        },
    }
    return scenario, units


def build_all(seed: int = 0, locomo_path: str | Path | None = None) -> tuple[list[dict], list[dict]]:
    """The 10 scenarios (stream format) and their 400 unit rows, from ``locomo10.json``
    at ``locomo_path`` (default: :func:`eval.locomo_data.default_locomo_path`)."""
    data = load_locomo(locomo_path)
    if len(data) < N_PROFILES:
        raise ValueError(f"LoCoMo file has {len(data)} conversations, need {N_PROFILES}")
    scenarios, units = [], []
    for pi, sample in enumerate(data[:N_PROFILES]):
        sc, us = _build_profile(pi, sample, seed)
        scenarios.append(sc)
        units.extend(us)
    return scenarios, units


def units_from_scenarios(scenarios: list[dict]) -> list[dict]:
    """Rebuild unit rows from probe/event metadata (the same rows as units.jsonl)."""
    out = []
    for sc in scenarios:
        ev = {e["id"]: e for e in sc["events"]}
        by_unit: dict[str, list[dict]] = defaultdict(list)
        for p in sc["probes"]:
            by_unit[p["meta"]["unit_id"]].append(p)
        for uid, ps in by_unit.items():
            h = next(p for p in ps if p["meta"]["target_state"] == "old")
            c = next(p for p in ps if p["meta"]["target_state"] == "current")
            m = h["meta"]
            cues = [m["target_cue_id"], m["other_cue_id"]]
            out.append({
                "unit_id": uid, "profile_id": m["profile_id"], "source_conversation": m["source_conversation"],
                "speaker": m["speaker"], "slot": m["slot"], "category": m["category"], "topic": m["topic"],
                "update_type": m["update_type"], "old_value": m["old_value"], "current_value": m["current_value"],
                "old_aliases": h["gold"], "current_aliases": c["gold"], "cue_ids": cues,
                "cue_texts": [ev[c_]["text"] for c_ in cues], "probe_ids": [h["id"], c["id"]],
                "questions": [h["question"], c["question"]], "cue_times": [ev[c_]["time"] for c_ in cues],
            })
    return out
