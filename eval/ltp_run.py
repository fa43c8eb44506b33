"""Run the shipped LTP reconstruction (``data/ltp/ltp.jsonl``) through the stream runner.

    python -m eval.ltp_run --out DIR [--profiles 0,1] [--overlay on|off|both] [--llm SPEC] ...
    atma eval ltp --out DIR --profiles 0 --overlay both

Profiles are chosen by index (0-9, file order). ``--overlay both`` runs the host-alone
row and the host + overlay row in one go; they share the loaded models and nothing
else (each row replays into its own stores). Metrics: A-TMA App. A.6 (eval.metrics).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

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


def make_parser(prog: str = "python -m eval.ltp_run") -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="LTP reconstruction: host alone and/or host + overlay.")
    ap.add_argument("--profiles", default=None, help="profile indices, e.g. 0,1 (default: all 10)")
    ap.add_argument("--data", default=str(DEFAULT_FILE), help="LTP stream file (default: the shipped one)")
    add_common_args(ap)
    return ap


def main(argv: Sequence[str] | None = None, *, comps: Components | None = None, prog: str | None = None) -> int:
    args = make_parser(prog or "python -m eval.ltp_run").parse_args(argv)
    return guard(lambda: _main(args, comps))


def _main(args: argparse.Namespace, comps: Components | None) -> int:
    from .stream_format import load_stream

    check_common_args(args)
    if not Path(args.data).is_file():
        raise EvalError(f"LTP file not found: {args.data} (build it with python -m eval.ltp build)")
    scenarios = load_stream(args.data)
    picked = parse_profiles(args.profiles, len(scenarios))
    tasks = scenario_tasks([scenarios[i] for i in picked])
    source = {**file_source(args.data), "profiles": ",".join(map(str, picked))}
    run_stream(tasks, args, benchmark="ltp", source=source, comps=comps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
