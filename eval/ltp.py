"""LTP reconstruction: a conflict-heavy "ghost memory" benchmark rebuilt from the
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

Output (stream format, see DESIGN.md "Evaluation formats") in ``data/ltp/``:
``ltp.jsonl`` (one scenario per profile), ``units.jsonl``, ``manifest.json``,
``README.md`` (dataset card).

CLI::

    python -m eval.ltp build [--seed 0] [--locomo PATH] [--out data/ltp]
    python -m eval.ltp validate [DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable

from eval import ltp_slots as S

NAME = "LTP reconstruction"
VERSION = "1.0"
LOCOMO_SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
LICENSE = "CC BY-NC 4.0"
ATTRIBUTION = (
    "Derived from LoCoMo (Maharana, Lee, Tulyakov, Bansal, Barbieri, Fang: 'Evaluating Very Long-Term "
    "Conversational Memory of LLM Agents', ACL 2024; snap-research/LoCoMo, data/locomo10.json), "
    "licensed CC BY-NC 4.0. Changes: inserted synthetic state-change cue turns and added probes."
)
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "data" / "ltp"
SCENARIOS_FILE = "ltp.jsonl"
UNITS_FILE = "units.jsonl"
MANIFEST_FILE = "manifest.json"
README_FILE = "README.md"

N_PROFILES = 10
UNITS_PER_PROFILE = 40
CUE1_WINDOW = (0.12, 0.42)
CUE2_WINDOW = (0.58, 0.88)
TURN_SPACING_S = 30
PROBE_DELAY_S = 3600
DATE_FMT = "%I:%M %p on %d %B, %Y"
TIME_FMT = "%Y-%m-%dT%H:%M:%S"
EVENT_KEYS = ("id", "time", "speaker", "text")
PROBE_KEYS = ("id", "question", "view", "gold", "alternates", "time", "meta")
PROBE_META_KEYS = (
    "unit_id", "profile_id", "source_conversation", "speaker", "slot", "category", "topic",
    "update_type", "probe_type", "target_state", "target_cue_id", "other_cue_id", "old_value",
    "current_value",
)


class LocomoMissing(FileNotFoundError):
    pass


def default_locomo_path() -> Path:
    env = os.environ.get("ATMA_LOCOMO")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"


# --------------------------------------------------------------------------- text helpers

def normalize(s: str) -> str:
    """Lowercase, drop commas/punctuation and the words a/an/the/and, collapse spaces
    (the LoCoMo answer normalisation)."""
    s = s.lower().replace(",", "")
    s = re.sub(r"[^\w\s]", " ", s)
    s = re.sub(r"\b(a|an|the|and)\b", " ", s)
    return " ".join(s.split())


def word_in(needle: str, hay: str) -> bool:
    """Case-insensitive whole-word match of ``needle`` in ``hay``."""
    n = needle.strip().lower()
    if not n:
        return False
    return re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", hay.lower()) is not None


def aliases_clash(a: Iterable[str], b: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs (x, y) from a x b that a grader could confuse: equal after
    normalisation, or one a whole-word part of the other (raw or normalised)."""
    out = []
    for x in a:
        for y in b:
            nx, ny = normalize(x), normalize(y)
            if (nx == ny or (nx and word_in(nx, ny)) or (ny and word_in(ny, nx))
                    or word_in(x, y) or word_in(y, x)):
                out.append((x, y))
    return out


def article(w: str) -> str:
    return ("an " if w[:1].lower() in "aeiou" and not w.lower().startswith(("uni", "eu")) else "a ") + w


def _cap_sentences(s: str) -> str:
    s = s[:1].upper() + s[1:]
    return re.sub(r"([.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), s)


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _seed(*parts: Any) -> int:
    return int(_sha("/".join(map(str, parts)).encode())[:16], 16)


# --------------------------------------------------------------------------- LoCoMo

def load_locomo(path: str | Path | None = None) -> list[dict]:
    p = Path(path) if path else default_locomo_path()
    if not p.is_file():
        raise LocomoMissing(
            f"LoCoMo file not found: {p} (pass --locomo PATH or set ATMA_LOCOMO; "
            f"expected snap-research/LoCoMo data/locomo10.json, sha256 {LOCOMO_SHA256[:12]}...)")
    return json.loads(p.read_bytes())


def locomo_turns(sample: dict) -> list[dict]:
    """All turns of a conversation, sessions sorted by their timestamps, as
    events ``{id, time (datetime), speaker, text}``."""
    conv = sample["conversation"]
    sessions = []
    for k, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", k)
        if m and isinstance(turns, list):
            n = int(m.group(1))
            start = datetime.strptime(conv[f"session_{n}_date_time"].strip(), DATE_FMT)
            sessions.append((start, n, turns))
    sessions.sort(key=lambda x: (x[0], x[1]))
    out = []
    for start, _, turns in sessions:
        for j, t in enumerate(turns):
            text = t["text"]
            if t.get("blip_caption"):
                text = f"{text} [shares a photo: {t['blip_caption']}]"
            out.append({"id": t["dia_id"], "time": start + timedelta(seconds=TURN_SPACING_S * j),
                        "speaker": t["speaker"], "text": text})
    return out


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


def _build_profile(pi: int, sample: dict, seed: int) -> tuple[dict, list[dict]]:
    rng = random.Random(_seed("ltp", seed, pi, sample["sample_id"]))
    picker = _Picker(rng)
    conv = sample["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
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
            "unit_id": uid, "profile_id": pid, "source_conversation": sample["sample_id"],
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
                    "unit_id": u["unit_id"], "profile_id": pid, "source_conversation": sample["sample_id"],
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
            "source_conversation": sample["sample_id"], "speaker_a": a, "speaker_b": b,
            "n_original_turns": len(turns), "n_cues": 2 * len(units), "n_units": len(units), "seed": seed,
            "license": LICENSE,
        },
    }
    return scenario, units


def build_all(seed: int = 0, locomo_path: str | Path | None = None) -> tuple[list[dict], list[dict]]:
    data = load_locomo(locomo_path)
    if len(data) < N_PROFILES:
        raise ValueError(f"LoCoMo file has {len(data)} conversations, need {N_PROFILES}")
    scenarios, units = [], []
    for pi, sample in enumerate(data[:N_PROFILES]):
        sc, us = _build_profile(pi, sample, seed)
        scenarios.append(sc)
        units.extend(us)
    return scenarios, units


def build(seed: int = 0, locomo_path: str | Path | None = None) -> list[dict]:
    """The 10 scenarios (stream format). Units: ``units_from_scenarios``."""
    return build_all(seed, locomo_path)[0]


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


# --------------------------------------------------------------------------- validators
# Each validator returns a list of "[name] message" strings. validate() runs all.

Validator = Callable[[list[dict], list[dict]], list[str]]
VALIDATORS: dict[str, Validator] = {}


def _validator(name: str):
    def deco(fn):
        def wrapped(scenarios, units):
            try:
                return [f"[{name}] {m}" for m in fn(scenarios, units)]
            except Exception as e:  # a malformed file must still yield a readable message
                return [f"[{name}] could not check ({type(e).__name__}: {e})"]
        VALIDATORS[name] = wrapped
        return wrapped
    return deco


def _parse_time(s: str) -> datetime:
    return datetime.fromisoformat(s)


def _is_cue(e: dict) -> bool:
    return str(e.get("id", "")).startswith("cue-")


@_validator("schema")
def _v_schema(scenarios, units):
    out = []
    for si, sc in enumerate(scenarios):
        sid = sc.get("id", f"#{si}") if isinstance(sc, dict) else f"#{si}"
        if not isinstance(sc, dict):
            out.append(f"scenario {sid} is not an object")
            continue
        for k in ("id", "events", "probes", "meta"):
            if k not in sc:
                out.append(f"{sid}: missing key {k!r}")
        for e in sc.get("events", []):
            if set(e) != set(EVENT_KEYS):
                out.append(f"{sid}: event {e.get('id')} has keys {sorted(e)}, expected {list(EVENT_KEYS)}")
                continue
            if not all(isinstance(e[k], str) and e[k] for k in EVENT_KEYS):
                out.append(f"{sid}: event {e.get('id')} has an empty or non-string field")
                continue
            try:
                _parse_time(e["time"])
            except ValueError:
                out.append(f"{sid}: event {e['id']} time {e['time']!r} is not ISO 8601")
        for p in sc.get("probes", []):
            if set(p) != set(PROBE_KEYS):
                out.append(f"{sid}: probe {p.get('id')} has keys {sorted(p)}, expected {list(PROBE_KEYS)}")
                continue
            if p["view"] not in ("historical", "current"):
                out.append(f"{sid}: probe {p['id']} view {p['view']!r} not historical/current")
            for k in ("gold", "alternates"):
                if not (isinstance(p[k], list) and p[k] and all(isinstance(x, str) and x.strip() for x in p[k])):
                    out.append(f"{sid}: probe {p['id']} {k} must be a non-empty list of strings")
            if not (isinstance(p["question"], str) and p["question"].strip()):
                out.append(f"{sid}: probe {p['id']} has an empty question")
            if set(p["meta"]) != set(PROBE_META_KEYS):
                out.append(f"{sid}: probe {p['id']} meta keys {sorted(p['meta'])} differ from {list(PROBE_META_KEYS)}")
            try:
                _parse_time(p["time"])
            except (ValueError, TypeError):
                out.append(f"{sid}: probe {p['id']} time {p['time']!r} is not ISO 8601")
    return out


@_validator("profiles")
def _v_profiles(scenarios, units):
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


@_validator("ids")
def _v_ids(scenarios, units):
    out = []
    for name, ids in (("scenario", [sc["id"] for sc in scenarios]),
                      ("probe", [p["id"] for sc in scenarios for p in sc["probes"]]),
                      ("cue event", [e["id"] for sc in scenarios for e in sc["events"] if _is_cue(e)]),
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
            if _is_cue(e) and e["id"] not in unit_cues:
                out.append(f"{sc['id']}: cue event {e['id']} belongs to no unit")
    return out


@_validator("coverage")
def _v_coverage(scenarios, units):
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


@_validator("probes_per_unit")
def _v_probes_per_unit(scenarios, units):
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


@_validator("gold")
def _v_gold(scenarios, units):
    out = []
    probes = {p["id"]: p for sc in scenarios for p in sc["probes"]}
    events = {e["id"]: e for sc in scenarios for e in sc["events"] if _is_cue(e)}
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


@_validator("timing")
def _v_timing(scenarios, units):
    out = []
    umap = {u["unit_id"]: u for u in units}
    for sc in scenarios:
        ev = sc["events"]
        n = sum(1 for e in ev if not _is_cue(e))
        times = [_parse_time(e["time"]) for e in ev]
        for i in range(1, len(ev)):
            if times[i] < times[i - 1]:
                out.append(f"{sc['id']}: event {ev[i]['id']} at {ev[i]['time']} is earlier than {ev[i-1]['id']}")
        pos: dict[str, tuple[int, int]] = {}  # cue id -> (event index, original turns before)
        k = 0
        for i, e in enumerate(ev):
            if _is_cue(e):
                pos[e["id"]] = (i, k)
                if 0 < i < len(ev) - 1 and not (times[i - 1] < times[i] < times[i + 1]):
                    out.append(f"{sc['id']}: cue {e['id']} time {e['time']} not strictly between its neighbours")
            else:
                k += 1
        if ev and _is_cue(ev[-1]):
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


@_validator("labels")
def _v_labels(scenarios, units):
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


@_validator("leakage")
def _v_leakage(scenarios, units):
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


@_validator("totals")
def _v_totals(scenarios, units):
    out = []
    n_units = len(units)
    n_cues = sum(1 for sc in scenarios for e in sc["events"] if _is_cue(e))
    n_probes = sum(len(sc["probes"]) for sc in scenarios)
    for what, got, want in (("units", n_units, N_PROFILES * UNITS_PER_PROFILE),
                            ("cue events", n_cues, 2 * N_PROFILES * UNITS_PER_PROFILE),
                            ("probes", n_probes, 2 * N_PROFILES * UNITS_PER_PROFILE)):
        if got != want:
            out.append(f"{got} {what}, expected {want}")
    return out


def validate(scenarios: list[dict], units: list[dict]) -> list[str]:
    """All structural violations (empty list = valid)."""
    out: list[str] = []
    for fn in VALIDATORS.values():
        out.extend(fn(scenarios, units))
    return out


# --------------------------------------------------------------------------- files

def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def stats(scenarios: list[dict], units: list[dict]) -> dict:
    return {
        "profiles": len(scenarios),
        "units": len(units),
        "cue_events": sum(1 for sc in scenarios for e in sc["events"] if _is_cue(e)),
        "probes": sum(len(sc["probes"]) for sc in scenarios),
        "events": sum(len(sc["events"]) for sc in scenarios),
        "original_turns": sum(sc["meta"]["n_original_turns"] for sc in scenarios),
        "probes_by_view": dict(sorted(Counter(p["view"] for sc in scenarios for p in sc["probes"]).items())),
        "units_by_category": dict(sorted(Counter(u["category"] for u in units).items())),
        "units_by_update_type": dict(sorted(Counter(u["update_type"] for u in units).items())),
        "units_by_slot": dict(sorted(Counter(u["slot"] for u in units).items())),
    }


def _readme(st: dict, seed: int) -> str:
    cat = "\n".join(f"| {k} | {S.UPDATE_TYPE[k]} | {v} |" for k, v in st["units_by_category"].items())
    return f"""---
license: cc-by-nc-4.0
language:
- en
pretty_name: LTP reconstruction (LoCoMo Temporal Plus, rebuilt from the paper text)
task_categories:
- question-answering
tags:
- long-term-memory
- conversational-memory
- state-tracking
- knowledge-update
size_categories:
- n<1K
configs:
- config_name: scenarios
  default: true
  data_files:
  - split: test
    path: {SCENARIOS_FILE}
- config_name: units
  data_files:
  - split: test
    path: {UNITS_FILE}
---

# LTP reconstruction

A conflict-heavy benchmark for *ghost memory* (old, current and transition facts
coexisting in one memory bank), **rebuilt** from the description of LTP
(LoCoMo Temporal Plus) in App. A.2-A.4 of the A-TMA paper. There is no public LTP
release: this is the *LTP reconstruction*, not the authors' data, and numbers on it
are not comparable to the paper's tables.

Built by `python -m eval.ltp build --seed {seed}` (project `atma`) from LoCoMo
`locomo10.json` (sha256 `{LOCOMO_SHA256}`). Deterministic: the same seed and
source give byte-identical files (sha256s in `manifest.json`).

## Contents

| | count |
|---|---|
| profiles (one per LoCoMo conversation) | {st['profiles']} |
| state units (40 per profile) | {st['units']} |
| cue events (2 per unit) | {st['cue_events']} |
| probes (fact recall + current conflict per unit) | {st['probes']} |
| events in all (LoCoMo turns + cues) | {st['events']} |

| slot category | update type | units |
|---|---|---|
{cat}

Per profile: 2 temporal updates (one side job, one home city), 5 explicit
negations, 13 value discrepancies and 20 scope mismatches - the A.4 skew
(4 / 10 / 26 / 40 in 80 units). Units are split 20 / 20 between the two speakers.

## Construction

* **Profiles.** Profile `profileNNN` is bound to the N-th conversation of
  `locomo10.json`; its units are about the conversation's two speakers
  (`speaker_a`, `speaker_b`).
* **Units.** Each unit has a slot (e.g. `numerical.sleep_hours`), an old value and
  a current value. Values are drawn from large pools, distinct within a profile,
  avoid strings already used in that conversation where possible, and old/current
  aliases never overlap (equal after normalisation or one a whole word of the
  other). Job units are a *side job* so they do not contradict the speakers'
  main careers in LoCoMo.
* **Cues.** Two first-person turns by the unit's speaker: cue1 states the old value,
  cue2 the update (temporal: "I moved to ..."; negation: "X isn't my mentor
  anymore ..."; value discrepancy: "it's more like 5.5 hours"; scope mismatch:
  "I used to love sushi, but these days I'm really into ramen").
* **Replay stream.** All LoCoMo turns, sessions sorted by date, turns of a session
  30 s apart from the session time; image turns get ` [shares a photo: <caption>]`.
  cue1 events are inserted at the 0.12-0.42 turn quantiles, cue2 events at
  0.58-0.88 (so always after cue1), each right after a turn of its own speaker and
  15 s after it; the original tail follows. Quantile = original turns before the
  cue / original turns.
* **Probes.** Per unit a *fact recall* probe (`view: historical`, gold = old value,
  targets cue1) and a *current conflict* probe (`view: current`, gold = current
  value, targets cue2), in the third person with the speaker's name, asked one hour
  after the last event (the final bank is queried). `alternates` are the other
  state's aliases (the drift target). Questions never contain gold or alternates.

Structural validators (`python -m eval.ltp validate data/ltp`): schema, profile
count/ids, unique ids, per-profile coverage (40 units, all 7 categories, update
type by category and the 2/5/13/20 split), two probes per unit, gold consistency
and disjointness, cue timing (cue1 < cue2, quantile windows, times between
neighbours, probes after the stream), target-state labels, leakage, totals.
Not done here (unlike the paper): model-assisted preaudit and manual verification.

## Files

* `{SCENARIOS_FILE}` - stream format, one scenario per line:
  `{{"id", "events": [{{"id","time","speaker","text"}}], "probes": [{{"id","question","view","gold","alternates","time","meta"}}], "meta"}}`.
  LoCoMo turns keep their `dia_id` as event id; cue events are `cue-pNNN-uMM-1|2`.
* `{UNITS_FILE}` - one row per state unit (slot, category, topic, update type, old
  and current value with aliases, cue ids/texts/times, probe ids, questions).
* `manifest.json` - seed, sha256 of each file, counts, source and license.

```python
from datasets import load_dataset
ds = load_dataset("data/ltp")                      # scenarios (default config)
units = load_dataset("data/ltp", "units")
```

## License and attribution

{LICENSE}. {ATTRIBUTION} This derivative is distributed under the same
license (non-commercial use only).
"""


def write(out_dir: str | Path, scenarios: list[dict], units: list[dict], seed: int,
          locomo_sha: str) -> dict:
    """Write the release atomically (temp dir, then rename). Returns the manifest."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    st = stats(scenarios, units)
    files = {SCENARIOS_FILE: _jsonl(scenarios), UNITS_FILE: _jsonl(units),
             README_FILE: _readme(st, seed).encode("utf-8")}
    manifest = {
        "name": NAME, "version": VERSION,
        "description": "LoCoMo Temporal Plus rebuilt from the text of the A-TMA paper (App. A.2-A.4); "
                       "not the authors' release.",
        "builder": "python -m eval.ltp build", "seed": seed,
        "source": {"dataset": "LoCoMo", "file": "locomo10.json", "sha256": locomo_sha,
                   "citation": "Maharana et al., Evaluating Very Long-Term Conversational Memory of LLM Agents, ACL 2024"},
        "license": LICENSE, "attribution": ATTRIBUTION,
        "files": {k: {"sha256": _sha(v), "bytes": len(v)} for k, v in files.items()},
        "counts": st,
        "cue_windows": {"cue1": list(CUE1_WINDOW), "cue2": list(CUE2_WINDOW)},
    }
    files[MANIFEST_FILE] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        for k, v in files.items():
            (tmp / k).write_bytes(v)
        old = None
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def load(dir_: str | Path = DEFAULT_OUT) -> tuple[list[dict], list[dict]]:
    d = Path(dir_)
    read = lambda f: [json.loads(line) for line in (d / f).read_text("utf-8").splitlines() if line.strip()]
    return read(SCENARIOS_FILE), read(UNITS_FILE)


def check_manifest(dir_: str | Path) -> list[str]:
    d = Path(dir_)
    try:
        man = json.loads((d / MANIFEST_FILE).read_text("utf-8"))
    except (OSError, ValueError) as e:
        return [f"[manifest] cannot read {d / MANIFEST_FILE}: {e}"]
    out = []
    for f, info in man.get("files", {}).items():
        p = d / f
        if not p.is_file():
            out.append(f"[manifest] {f} listed but missing")
        elif _sha(p.read_bytes()) != info["sha256"]:
            out.append(f"[manifest] {f} sha256 differs from manifest")
    for f in (SCENARIOS_FILE, UNITS_FILE, README_FILE):
        if f not in man.get("files", {}):
            out.append(f"[manifest] {f} not listed")
    if man.get("source", {}).get("sha256") != LOCOMO_SHA256:
        out.append("[manifest] source sha256 is not the official locomo10.json")
    return out


# --------------------------------------------------------------------------- CLI

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.ltp", description=f"{NAME}: build or validate.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build data/ltp from LoCoMo")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--locomo", default=None, help="path to locomo10.json (default: $ATMA_LOCOMO or "
                                                 "../shared/data/locomo/locomo10.json beside the repo)")
    b.add_argument("--out", default=str(DEFAULT_OUT))
    v = sub.add_parser("validate", help="validate a built directory")
    v.add_argument("dir", nargs="?", default=str(DEFAULT_OUT))
    args = ap.parse_args(argv)

    if args.cmd == "build":
        path = Path(args.locomo) if args.locomo else default_locomo_path()
        if not path.is_file():
            print(f"error: LoCoMo file not found: {path} (use --locomo PATH or ATMA_LOCOMO)", file=sys.stderr)
            return 2
        raw = path.read_bytes()
        src_sha = _sha(raw)
        if src_sha != LOCOMO_SHA256:
            print(f"warning: {path} sha256 {src_sha[:12]}... is not the official locomo10.json", file=sys.stderr)
        scenarios, units = build_all(args.seed, path)
        errs = validate(scenarios, units)
        if errs:
            for e in errs:
                print(e, file=sys.stderr)
            print(f"build failed: {len(errs)} violation(s); nothing written", file=sys.stderr)
            return 1
        man = write(args.out, scenarios, units, args.seed, src_sha)
        c = man["counts"]
        print(f"{NAME}: {c['profiles']} profiles, {c['units']} units, {c['cue_events']} cue events, "
              f"{c['probes']} probes -> {args.out}")
        for f, info in man["files"].items():
            print(f"  {f}  sha256 {info['sha256']}")
        return 0

    d = Path(args.dir)
    if not (d / SCENARIOS_FILE).is_file():
        print(f"error: {d / SCENARIOS_FILE} not found", file=sys.stderr)
        return 2
    scenarios, units = load(d)
    errs = check_manifest(d) + validate(scenarios, units)
    if errs:
        for e in errs:
            print(e, file=sys.stderr)
        print(f"invalid: {len(errs)} violation(s)", file=sys.stderr)
        return 1
    st = stats(scenarios, units)
    print(f"{NAME} OK: {st['profiles']} profiles, {st['units']} units, {st['cue_events']} cue events, "
          f"{st['probes']} probes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
