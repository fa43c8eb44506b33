"""The LTP reconstruction's command: build ``data/ltp/`` from LoCoMo, or validate a release.

    python -m eval.ltp build [--seed 0] [--locomo PATH] [--out data/ltp]
    python -m eval.ltp validate [DIR]

The work is done by :mod:`eval.ltp_build` (scenarios and units), :mod:`eval.ltp_validate`
(structural checks) and :mod:`eval.ltp_release` (files, dataset card, manifest). Running
the benchmark is ``atma eval ltp`` (:mod:`eval.ltp_eval`).
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from eval.locomo_data import LocomoDataError, default_locomo_path
from eval.ltp_build import LOCOMO_SHA256, NAME, build_all
from eval.ltp_release import DEFAULT_OUT, SCENARIOS_FILE, check_manifest, load, stats, write
from eval.ltp_validate import validate

__all__ = ["main"]


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
    return _build(args) if args.cmd == "build" else _validate(Path(args.dir))


def _build(args: argparse.Namespace) -> int:
    path = Path(args.locomo) if args.locomo else default_locomo_path()
    if not path.is_file():
        print(f"error: LoCoMo file not found: {path} (use --locomo PATH or ATMA_LOCOMO)", file=sys.stderr)
        return 2
    src_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if src_sha != LOCOMO_SHA256:
        print(f"warning: {path} sha256 {src_sha[:12]}... is not the official locomo10.json", file=sys.stderr)
    try:
        scenarios, units = build_all(args.seed, path)
    except LocomoDataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
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


def _validate(d: Path) -> int:
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
