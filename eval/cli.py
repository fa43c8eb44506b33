"""``atma eval ...``: the benchmark entry points.

    atma eval stream FILE --out DIR [...]     stream file (eval.stream)
    atma eval ltp --out DIR [--profiles 0]    the shipped LTP reconstruction (eval.ltp_eval)
    atma eval locomo --out DIR [--samples …]  LoCoMo (eval.locomo)

Each also runs as ``python -m eval.<module>``; ``atma eval <cmd> -h`` lists the options.
Bad input gives one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from typing import Sequence

__all__ = ["main"]

_COMMANDS = {"stream": "eval.stream", "ltp": "eval.ltp_eval", "locomo": "eval.locomo"}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in _COMMANDS:
        print(f"atma eval: error: unknown benchmark {cmd!r} (choose from {', '.join(_COMMANDS)})", file=sys.stderr)
        return 2
    import importlib

    module = importlib.import_module(_COMMANDS[cmd])
    try:
        return module.main(rest, prog=f"atma eval {cmd}")
    except SystemExit as e:  # argparse usage errors exit 2 with their own one-line message
        return int(e.code or 0)


if __name__ == "__main__":
    sys.exit(main())
