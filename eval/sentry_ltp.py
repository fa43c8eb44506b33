"""The Sentry gate on the LTP reconstruction: routing metrics of a trained checkpoint on
the two-cue state units of ``data/ltp/`` (each unit's cue2 against its own cue1, which
needs an audit, and against the other units' cue1s of its profile, which do not).

    python -m eval.sentry_ltp [--checkpoint DIR] [--ltp data/ltp] [--json FILE] [--device cpu]

Evaluation reads what training wrote: the checkpoint, its thresholds and card (through
:func:`training.sentry.load_eval_gates`, which also gives the cosine baseline) and the
gate metrics of :mod:`training.sentry`. Training never reads LTP files; the held-out
synthetic split is ``python -m training.sentry eval``. Also here: the check that the
Sentry's training texts never contain an LTP cue or probe question (:func:`ltp_overlap`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from training.sentry import EvalPairs

__all__ = ["DEFAULT_LTP", "load_ltp_units", "ltp_eval_pairs", "ltp_overlap", "ltp_surface_strings", "main",
           "run"]

DEFAULT_LTP = Path(__file__).resolve().parent.parent / "data" / "ltp"


# --------------------------------------------------------------------------- reading the LTP units
# These readers accept the field names a two-cue unit row may use and resolve event ids
# through the scenario JSONL (stream format: {"id", "events": [{"id", "text", ...}], "probes": [...]}).
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


def ltp_overlap(texts: Iterable[str], ltp_strings: Iterable[str]) -> list[tuple[str, str]]:
    """``(ltp_string, text)`` pairs where one contains the other after normalising case,
    punctuation and spaces (LTP strings shorter than 4 words are ignored). ``texts``: e.g.
    the Sentry's training texts (``SentryData.texts()``), which must never contain LTP text."""
    ours = [(_norm(t), t) for t in texts]
    hits = []
    for s in ltp_strings:
        ns = _norm(s)
        if len(ns.split()) < 4:
            continue
        hits += [(s, t) for nt, t in ours if ns in nt or (len(nt.split()) >= 4 and nt in ns)]
    return hits


# --------------------------------------------------------------------------- pair sets
def ltp_eval_pairs(ltp_dir: Path, *, cosine_rows: dict[str, np.ndarray] | None = None,
                   k: int = 10) -> list[EvalPairs]:
    """Pairs from the LTP reconstruction: for each unit, cue2 (the new record) against its own
    cue1 (needs audit) and other units' cue1s of the same profile (other slots).
    ``ltp_all``: every other-slot cue1 of the profile; ``ltp_top{k}``: the k-1 other-slot
    cue1s closest by backbone cosine plus the true cue1 (a host-like candidate set)."""
    units = load_ltp_units(ltp_dir)
    if not units:
        return []
    by_profile: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for u in units:
        by_profile[u["profile_id"]].append(u)
    all_pairs: list[tuple[str, str, bool, str]] = []
    top_pairs: list[tuple[str, str, bool, str]] = []
    for prof_units in by_profile.values():
        for u in prof_units:
            kind = str(u.get("update_type") or "ltp_update")
            negs = [o["cue1"] for o in prof_units if o["unit_id"] != u["unit_id"]]
            all_pairs.append((u["cue2"], u["cue1"], True, kind))
            all_pairs += [(u["cue2"], n, False, "other_slot") for n in negs]
            if cosine_rows is not None:
                sims = np.array([cosine_rows[n] @ cosine_rows[u["cue2"]] for n in negs])
                near = [negs[i] for i in np.argsort(-sims)[: k - 1]]
                top_pairs.append((u["cue2"], u["cue1"], True, kind))
                top_pairs += [(u["cue2"], n, False, "other_slot") for n in near]

    from training.sentry import EvalPairs

    def mk(name, ps, desc):
        return EvalPairs(name, [p[0] for p in ps], [p[1] for p in ps],
                         np.array([p[2] for p in ps], dtype=bool), [p[3] for p in ps], desc)

    out = [mk("ltp_all", all_pairs, "each unit's cue2 vs its cue1 and every other unit's cue1 "
              "in the same profile")]
    if top_pairs:
        out.append(mk(f"ltp_top{k}", top_pairs, f"each unit's cue2 vs its cue1 and the {k - 1} "
                      "other-slot cue1s of the profile nearest by backbone cosine"))
    return out


# --------------------------------------------------------------------------- run
def run(checkpoint: str | None, ltp_dir: Path, json_out: Path | None, *, device: str = "cpu"
        ) -> dict[str, Any]:
    """LTP pairs scored with the checkpoint's thresholds (Sentry) and the cosine baseline;
    print the table and write the result JSON."""
    from training.sentry import evaluate_sets, features_for, format_table, load_eval_gates

    gates = load_eval_gates(checkpoint, device=device)
    units = load_ltp_units(ltp_dir)
    if not units:
        raise SystemExit(f"error: no LTP units under {ltp_dir} (build them with python -m eval.ltp build)")
    texts = [t for u in units for t in (u["cue1"], u["cue2"])]
    c_rows = features_for(gates.cosine, texts)
    sets = ltp_eval_pairs(ltp_dir, cosine_rows=c_rows)
    s_rows = features_for(gates.gate, texts)
    metrics = evaluate_sets(sets, s_rows, c_rows, gates.gate, gates.cosine)
    result = {
        "checkpoint": str(gates.checkpoint_dir), "cache_key": gates.gate.cache_key,
        "thresholds": gates.thresholds, "cosine_threshold": gates.cosine.threshold,
        "ltp": {"dir": str(ltp_dir), "units": len(units)},
        "metrics": metrics,
    }
    print(format_table(metrics))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return result


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m eval.sentry_ltp", description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", default=None, help="checkpoint dir or file (default: shipped)")
    p.add_argument("--ltp", default=str(DEFAULT_LTP), help="LTP reconstruction directory")
    p.add_argument("--json", default=None,
                   help="where to write the result JSON (default: <checkpoint dir>/eval_ltp.json)")
    p.add_argument("--device", default="cpu")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    from atma.sentry_encoder import default_checkpoint_dir

    base = Path(args.checkpoint) if args.checkpoint else default_checkpoint_dir()
    json_out = Path(args.json) if args.json else (base if base.is_dir() else base.parent) / "eval_ltp.json"
    run(args.checkpoint, Path(args.ltp), json_out, device=args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
