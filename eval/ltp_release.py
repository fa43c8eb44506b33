"""The LTP reconstruction as released files: ``data/ltp/`` with ``ltp.jsonl`` (one
scenario per profile, stream format), ``units.jsonl`` (one row per state unit),
``README.md`` (the dataset card, rendered from the counts) and ``manifest.json``
(seed, source, license, sha256 of each file). Writing is atomic; :func:`check_manifest`
verifies a release against its manifest.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from eval import ltp_slot_tables as S
from eval.ltp_build import (
    ATTRIBUTION, CUE1_WINDOW, CUE2_WINDOW, LICENSE, LOCOMO_SHA256, NAME, VERSION, is_cue,
)

__all__ = [
    "DEFAULT_OUT", "MANIFEST_FILE", "README_FILE", "SCENARIOS_FILE", "UNITS_FILE", "check_manifest", "jsonl_bytes", "load",
    "stats", "write",
]

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "ltp"
SCENARIOS_FILE = "ltp.jsonl"
UNITS_FILE = "units.jsonl"
MANIFEST_FILE = "manifest.json"
README_FILE = "README.md"


def _sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def jsonl_bytes(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def stats(scenarios: list[dict], units: list[dict]) -> dict:
    return {
        "profiles": len(scenarios),
        "units": len(units),
        "cue_events": sum(1 for sc in scenarios for e in sc["events"] if is_cue(e)),
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
    files = {SCENARIOS_FILE: jsonl_bytes(scenarios), UNITS_FILE: jsonl_bytes(units),
             README_FILE: _readme(st, seed).encode("utf-8")}
    manifest = {
        "name": NAME, "version": VERSION,
        "description": "LoCoMo Temporal Plus rebuilt from the text of the A-TMA paper (App. A.2-A.4); "
                       "not the authors' release.",
        "builder": "python -m eval.ltp build", "seed": seed,
        "source": {"dataset": "LoCoMo", "file": "locomo10.json", "sha256": locomo_sha,
                   "citation": "Maharana et al., Evaluating Very Long-Term Conversational Memory of LLM Agents, ACL 2024"},
        "license": LICENSE, "attribution": ATTRIBUTION,
        "files": {k: {"sha256": _sha256(v), "bytes": len(v)} for k, v in files.items()},
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
        elif _sha256(p.read_bytes()) != info["sha256"]:
            out.append(f"[manifest] {f} sha256 differs from manifest")
    for f in (SCENARIOS_FILE, UNITS_FILE, README_FILE):
        if f not in man.get("files", {}):
            out.append(f"[manifest] {f} not listed")
    if man.get("source", {}).get("sha256") != LOCOMO_SHA256:
        out.append("[manifest] source sha256 is not the official locomo10.json")
    return out
