"""The ``atma`` console script.

    atma add   --ns user-1 [--time ISO] [--speaker NAME] TEXT
    atma ask   --ns user-1 QUESTION [--json] [--host-too]
    atma trace --ns user-1 [--kind query|write] [--last N] [--json]
    atma namespaces | erase | demo | eval ...

The bank file is ``--db`` (default ``atma.db``, or ``$ATMA_DB``). Bad input gives one
line on stderr, exit status 2, and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Sequence

__all__ = ["main"]

EXIT_USAGE = 2
#: The host the CLI keeps its events in, by its :mod:`adapters.registry` name (one SQLite file
#: holds its rows and the state bank).
HOST = "builtin"


class CLIError(Exception):
    """A user-facing error: printed as one line."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="atma", description="State-aware overlay for agent memory.")
    ap.add_argument("--db", default=os.environ.get("ATMA_DB", "atma.db"), help="bank file (default: %(default)s)")
    ap.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def model_opts(p: argparse.ArgumentParser) -> None:
        from atma.factory import llm_spec

        p.add_argument("--llm", default=llm_spec(), help="LLM spec (default: %(default)s, from $ATMA_LLM when set)")
        p.add_argument("--embedder", default="minilm", help="embedder: minilm, an HF id or a local path")
        p.add_argument("--gate", default="sentry",
                   help="pair gate: sentry (the shipped checkpoint), cosine, or a Sentry checkpoint folder")
        p.add_argument("--judge", default="rule",
                       help="audit Judge: rule (the deterministic anchored rule), verdict (the packaged verdict "
                            "model), agree (verdict model and rule must both see a change), llm (--llm with the "
                            "Judge prompt), cascade (verdict model; --llm for uncertain pairs), or a verdict "
                            "checkpoint (default: %(default)s)")

    p = sub.add_parser("add", help="store one event and commit its state relations")
    p.add_argument("--ns", required=True, help="namespace (user / tenant); created on first add")
    p.add_argument("--time", default=None, help="event time, ISO 8601 (e.g. 2024-06-02T10:00)")
    p.add_argument("--speaker", default="", help="who said it")
    p.add_argument("text", help="the event text, or - to read it from stdin")
    model_opts(p)

    p = sub.add_parser("ask", help="answer a question from a state-aligned, labelled packet")
    p.add_argument("--ns", required=True)
    p.add_argument("question")
    p.add_argument("--k", type=int, default=5, help="packet size (default: %(default)s)")
    p.add_argument("--controller", choices=["off", "online", "shadow"], default="off")
    p.add_argument("--host-too", action="store_true", help="also print the host's own answer")
    p.add_argument("--json", action="store_true", help="print the whole trace as JSON")
    model_opts(p)

    p = sub.add_parser("trace", help="show stored traces")
    p.add_argument("--ns", required=True)
    p.add_argument("--kind", choices=["query", "write"], default="query")
    p.add_argument("--last", type=int, default=1, help="how many (newest first)")
    p.add_argument("--json", action="store_true")

    sub.add_parser("namespaces", help="list namespaces in the bank")

    p = sub.add_parser("records", help="list a namespace's records with status and links")
    p.add_argument("--ns", required=True)

    p = sub.add_parser("erase", help="hard-delete records from bank, host, indexes and traces")
    p.add_argument("--ns", required=True)
    p.add_argument("ids", nargs="+")
    p.add_argument("--embedder", default="minilm", help="the embedder the bank was built with")

    p = sub.add_parser("demo", help="scripted walk: host alone vs host + overlay", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p = sub.add_parser("eval", help="benchmarks: stream | ltp | locomo", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    return ap


def _valid_text(what: str, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        i = next((i for i, ch in enumerate(value) if 0xD800 <= ord(ch) <= 0xDFFF), -1)
        raise CLIError(f"{what} is not valid text (lone surrogate at position {i})") from None
    return value


def _validate(args: argparse.Namespace) -> None:
    """Every argument checked before any file is opened or created."""
    if hasattr(args, "ns"):
        if not args.ns.strip():
            raise CLIError("--ns must be a non-empty namespace")
        _valid_text("--ns", args.ns)
    for what in ("speaker", "question", "time"):
        value = getattr(args, what, None)
        if isinstance(value, str):
            _valid_text(f"--{what}" if what != "question" else "question", value)
    if getattr(args, "text", None) not in (None, "-"):
        _valid_text("event text", args.text)
    for i in getattr(args, "ids", None) or ():
        _valid_text("record id", i)
    if args.cmd == "trace" and args.last < 1:
        raise CLIError("--last must be at least 1")
    if args.cmd == "ask" and args.k < 1:
        raise CLIError("--k must be at least 1")
    _valid_text("--db", args.db)


def _open_existing(db: str) -> None:
    path = Path(db)
    if not path.exists():
        raise CLIError(f"no bank at {db}: add an event first (atma --db {db} add --ns NAME TEXT)")
    if path.is_dir():
        raise CLIError(f"{db} is a directory, not a bank file")
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise CLIError(f"cannot read {db}: {e.strerror}") from e
    if head and not head.startswith(b"SQLite format 3"):
        raise CLIError(f"{db} is not an atma bank (not an SQLite file)")


def _check_writable_target(db: str) -> None:
    path = Path(db)
    if path.exists():
        _open_existing(db)
    elif not path.parent.exists():
        raise CLIError(f"folder {path.parent} does not exist")


def _overlay(args: argparse.Namespace, *, need_llm: bool = True) -> Any:
    """Load models first (so a missing model fails before anything is written), then open stores."""
    from adapters.registry import make_host
    from atma import ATMAOverlay, OverlayConfig, factory
    from atma.controller import ControllerConfig

    judge_spec = getattr(args, "judge", "rule")
    need_llm = need_llm or judge_spec in ("llm", "cascade")
    llm = factory.default_llm(args.llm, load=True) if need_llm else None
    embedder = factory.default_embedder(args.embedder)
    gate = factory.default_gate(embedder, spec=args.gate)
    judge = factory.default_judge(judge_spec, llm=llm)
    cfg = OverlayConfig(k=getattr(args, "k", 5), controller=ControllerConfig(mode=getattr(args, "controller", "off")))
    host = make_host(HOST, path=args.db, embedder=embedder, llm=llm)
    return ATMAOverlay(host, namespace=args.ns, llm=llm, gate=gate, judge=judge, config=cfg)


def _bank(db: str) -> Any:
    from atma.bank import StateBank

    _open_existing(db)
    return StateBank(db)


def cmd_add(args: argparse.Namespace) -> int:
    from atma.overlay import parse_time

    text = sys.stdin.read() if args.text == "-" else args.text
    if not text.strip():
        raise CLIError("empty event text")
    _valid_text("event text", text)
    parse_time(args.time)  # validate before touching anything
    _check_writable_target(args.db)
    ov = _overlay(args)
    res = ov.add(text.strip(), time=args.time, speaker=args.speaker)
    changes = ", ".join(f"{c['action']} {c['old_id']}" for c in res.trace.changes) or "no relation to earlier records"
    fallbacks = sum(j.fallback for j in res.trace.judge)
    print(f"{res.record.id} [{res.record.status.value}] {changes}"
          + (f" ({len(res.trace.judge)} judge calls, {fallbacks} fell back to the rule)" if res.trace.judge else ""))
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise CLIError("--k must be at least 1")
    bank = _bank(args.db)
    bank.require_namespace(args.ns)
    bank.close()
    ov = _overlay(args)
    ans = ov.answer(args.question)
    if args.json:
        print(json.dumps(ans.trace.to_json(), indent=2, ensure_ascii=False))
        return 0
    if args.host_too:
        alone, _ = ov.host_answer(args.question)
        print(f"host alone: {alone}")
    print(f"answer: {ans.answer}\n")
    print(ans.trace.render())
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    from atma.trace import QueryTrace

    bank = _bank(args.db)
    bank.require_namespace(args.ns)
    rows = bank.traces(args.ns, kind=args.kind, limit=args.last)
    if not rows:
        raise CLIError(f"no {args.kind} traces in namespace {args.ns!r}")
    if args.json:
        print(json.dumps([r["body"] for r in rows], indent=2, ensure_ascii=False))
        return 0
    for r in rows:
        body = r["body"]
        print(f"--- trace {r['trace_id']} ({r['created']})")
        if args.kind == "query":
            fields = {k: (tuple(v) if isinstance(v, list) else v) for k, v in body.items() if k != "kind"}
            print(QueryTrace(**fields).render())
        else:
            # stored write traces reference records by id; their text is read from the bank
            texts = {i: r.text for i, r in bank.get_many(
                args.ns, [body["record_id"], *(c["id"] for c in body["candidates"])]).items()}
            print(f"record {body['record_id']}: {body.get('text') or texts.get(body['record_id'], '(erased)')}")
            for c in body["candidates"]:
                b = "" if c["b"] is None else f" b={c['b']:.2f}"
                text = c.get("text") or texts.get(c["id"], "(erased)")
                print(f"  candidate {c['id']} ({c['source']}) a={c['a']:.2f}{b} escalate={c['escalate']}: {text[:70]}")
            for j in body["judge"]:
                print(f"  judge {j['old_id']}: {j['status']}{' (fallback)' if j['fallback'] else ''} -> {j['verdict']['action']}: {j['verdict']['reason']}")
            print(f"  changes: {body['changes'] or 'none'}; status {body['status']}, slot {body['slot']}")
    return 0


def cmd_namespaces(args: argparse.Namespace) -> int:
    bank = _bank(args.db)
    for ns in bank.namespaces():
        print(f"{ns}\t{bank.count(ns)} records")
    return 0


def cmd_records(args: argparse.Namespace) -> int:
    bank = _bank(args.db)
    bank.require_namespace(args.ns)
    for r in bank.records(args.ns):
        links = " ".join(f"{l.type.value}:{l.target}" for l in r.links)
        when = r.time.isoformat(sep=" ", timespec="minutes") if r.time else "-"
        print(f"{r.id:>6} {r.status.value:<10} {when:<16} {r.speaker[:12]:<12} {r.text[:60]:<60} {links}")
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    """Everything is opened and checked before anything is deleted; the erase itself is
    :meth:`ATMAOverlay.erase` (bank, host, indexes, traces, WAL in one go)."""
    from adapters.registry import make_host
    from atma import ATMAOverlay, factory

    bank = _bank(args.db)
    bank.require_namespace(args.ns)
    missing = [i for i in args.ids if bank.get(args.ns, i) is None]
    if missing:
        raise CLIError(f"unknown record ids in namespace {args.ns!r}: {', '.join(missing)}")
    embedder = factory.default_embedder(args.embedder)  # a missing model fails here, before any delete
    host = make_host(HOST, path=args.db, embedder=embedder)  # an embedder mismatch fails here, before any delete
    ov = ATMAOverlay(host, namespace=args.ns, bank=bank)  # erasing loads no gate and no answer model
    ov.erase(args.ids)
    print(f"erased {len(set(args.ids))} records")
    return 0


def _eval_main() -> Any:
    """``eval.cli.main`` of the checkout this ``atma`` package lives in, or None.

    The wheel installs ``atma`` and ``adapters`` only; the benchmarks (``eval/``) and the
    training scripts (``training/``) run from the repository. An editable install's package
    sits in the checkout, so its ``eval/`` is found even when the ``atma`` console script runs
    from another directory (its ``sys.path`` starts at the script's folder, not the cwd)."""
    try:
        from eval.cli import main as eval_main  # type: ignore[import-not-found]
    except ModuleNotFoundError as e:
        if e.name not in ("eval", "eval.cli"):
            raise
        root = Path(__file__).resolve().parent.parent
        if not (root / "eval" / "cli.py").is_file():
            return None
        sys.path.insert(0, str(root))
        from eval.cli import main as eval_main  # type: ignore[import-not-found]
    return eval_main


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        from atma.demo import main as demo_main

        return _guard(lambda: demo_main(argv[1:]))
    if argv[:1] == ["eval"]:
        eval_main = _eval_main()
        if eval_main is None:
            print("atma: error: `atma eval` runs from a checkout of the repository (the wheel ships `atma` and "
                  "`adapters` only): git clone the project, `bash scripts/setup.sh`, then run it there", file=sys.stderr)
            return 2
        return _guard(lambda: eval_main(argv[1:]))
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    handler = {"add": cmd_add, "ask": cmd_ask, "trace": cmd_trace, "namespaces": cmd_namespaces,
               "records": cmd_records, "erase": cmd_erase}[args.cmd]
    return _guard(lambda: (_validate(args), handler(args))[1])


def _guard(fn: Any) -> int:
    from atma.bank import BankError
    from atma.models import ModelError
    from atma.protocols import LLMError

    try:
        return int(fn() or 0)
    except (CLIError, ValueError, BankError, ModelError, LLMError, OSError, sqlite3.DatabaseError) as e:
        msg = " ".join(str(e).split()) or type(e).__name__
        print(f"atma: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("atma: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
