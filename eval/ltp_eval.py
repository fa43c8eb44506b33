"""Run the shipped LTP reconstruction (``data/ltp/ltp.jsonl``) through the stream runner.

    python -m eval.ltp_eval --out DIR [--profiles 0,1] [--overlay on|off|both] [--llm SPEC] ...
    atma eval ltp --out DIR --profiles 0 --overlay both

Profiles are chosen by index (0-9, file order). ``--overlay both`` runs the host-alone
row and the host + overlay row in one go; they share the loaded models and nothing
else (each row replays into its own stores). Metrics: A-TMA App. A.6 (eval.metrics).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from .runner import Components, EvalError
from .stream import add_common_args, check_common_args, file_source, guard, run_stream, scenario_tasks

__all__ = ["main", "make_parser", "parse_profiles"]

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "data" / "ltp" / "ltp.jsonl"


def parse_profiles(text: str | None, n: int) -> list[int]:
    """``"0,1"`` -> [0, 1]; None -> every profile. Unknown or malformed -> EvalError.

    >>> parse_profiles("2,0", 10)
    [2, 0]
    """
    if text is None:
        return list(range(n))
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise EvalError(f"bad --profiles {text!r}: expected indices like 0,1")
        i = int(part)
        if i >= n:
            raise EvalError(f"unknown profile index {i}: the LTP file has profiles 0-{n - 1}")
        if i not in out:
            out.append(i)
    return out


def _unit_of(event_id: str) -> str | None:
    """``cue-p000-u03-2`` -> ``p000-u03``; filler turns -> None."""
    if not event_id.startswith("cue-"):
        return None
    return event_id[4:].rsplit("-", 1)[0]


def subset(scenario: Any, *, units: int | None, cues_only: bool) -> Any:
    """The scenario cut to its first ``units`` state units (by unit id) and, with
    ``cues_only``, to the cue turns alone. Probes follow their units."""
    if units is None and not cues_only:
        return scenario
    all_units = sorted({str(p.meta.get("unit_id")) for p in scenario.probes if p.meta.get("unit_id")})
    keep = set(all_units if units is None else all_units[:units])
    events = [e for e in scenario.events
              if (_unit_of(e.id) in keep) or (_unit_of(e.id) is None and not cues_only)]
    probes = [p for p in scenario.probes if str(p.meta.get("unit_id")) in keep]
    return scenario.model_copy(update={"events": events, "probes": probes})


def make_parser(prog: str = "python -m eval.ltp_eval") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="LTP reconstruction: host alone and/or host + overlay.")
    ap.add_argument("--profiles", default=None, help="profile indices, e.g. 0,1 (default: all 10)")
    ap.add_argument("--data", default=str(DEFAULT_FILE), help="LTP stream file (default: the shipped one)")
    ap.add_argument("--units", type=int, default=None,
                    help="first N state units of each profile (their cues and probes; other units' cues are dropped)")
    ap.add_argument("--cues-only", action="store_true",
                    help="drop the LoCoMo filler turns: only the cue turns are written (for hosts that call an LLM "
                         "per event; easier than the full stream, report it as such)")
    add_common_args(ap)
    return ap


def main(argv: Sequence[str] | None = None, *, comps: Components | None = None, prog: str | None = None) -> int:
    args = make_parser(prog or "python -m eval.ltp_eval").parse_args(argv)
    return guard(lambda: _main(args, comps))


def _main(args: argparse.Namespace, comps: Components | None) -> int:
    from .stream_format import load_stream

    check_common_args(args)
    if args.units is not None and args.units < 1:
        raise EvalError("--units must be at least 1")
    if not Path(args.data).is_file():
        raise EvalError(f"LTP file not found: {args.data} (build it with python -m eval.ltp build)")
    scenarios = load_stream(args.data)
    picked = parse_profiles(args.profiles, len(scenarios))
    tasks = scenario_tasks([subset(scenarios[i], units=args.units, cues_only=args.cues_only) for i in picked])
    source = {**file_source(args.data), "profiles": ",".join(map(str, picked))}
    if args.units is not None or args.cues_only:
        source.update({"units": args.units, "cues_only": args.cues_only})
    run_stream(tasks, args, benchmark="ltp", source=source, comps=comps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
