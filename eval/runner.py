"""The replay engine every benchmark shares: fresh store per task, events in time order,
questions at their time, one row (host alone, or host + overlay) at a time; resumable.

A *task* is one scenario (stream / LTP profile) or one LoCoMo conversation: events to
write and questions to ask. Per row and task the store is ``<row dir>/work/<task>.db``
(host tables and the overlay's bank in one SQLite file; namespace = task id). Questions
are asked after every event whose time is not later than theirs (LTP and LoCoMo: after
the last event).

Resuming: each finished question is appended to ``<row dir>/probes.jsonl`` (flushed and
fsynced) under the key ``<task id>/<question id>``; a restart skips done keys. A replay
that finished wrote ``<task>.replay.json`` after its last event and is reused; one that
did not is redone from scratch (its db files deleted). ``<row dir>/config.json`` holds
the row's configuration; a different one is refused unless ``fresh``.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time as _time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = [
    "Ask",
    "Components",
    "EvalError",
    "Event",
    "ProbeLog",
    "Response",
    "Row",
    "Task",
    "atomic_write_json",
    "run_row",
    "task_store",
]

log = logging.getLogger(__name__)

HOST_ROW = "host"
OVERLAY_ROW = "host+overlay"
#: Attribution arms answered from the overlay row's own replay (same host store, same bank):
#: name -> (row dir, OverlayConfig.packet_mode).
ARMS = {"labelled": ("host+overlay, paper labels", "overlay-labelled", "labelled"),
        "control": ("length-matched control", "control", "control"),
        "oracle": ("oracle state", "oracle", "resolved"),
        "resolved": ("host+overlay, resolved packet", "overlay-resolved", "resolved"),
        "checked": ("host+overlay, host answer checked", "overlay-checked", "checked")}
ROW_DIRS = {HOST_ROW: "host", OVERLAY_ROW: "overlay", **{name: d for name, d, _ in ARMS.values()}}
_BATCH = 64  # events per add_many call in host-alone replays


def _check_summary(check: Mapping[str, Any]) -> dict[str, Any]:
    """What a probe record keeps of the answer check: whether it re-asked, why, and the
    first answer it replaced (``python -m eval.compare --reasks`` tallies these)."""
    if not check:
        return {}
    return {"reasked": bool(check.get("reasked")), "reason": check.get("reason", ""),
            "first_answer": check.get("first_answer", "")}


class EvalError(ValueError):
    """Bad input or an unusable run directory; the message is one line."""


@dataclass(frozen=True, kw_only=True)
class Event:
    id: str
    time: datetime | None
    speaker: str
    text: str


@dataclass(frozen=True, kw_only=True)
class Ask:
    """A question; ``question`` is the text the answerer gets, ``data`` what grading needs."""

    id: str
    question: str
    time: datetime | None = None  # None: after the last event
    data: Any = None


@dataclass(frozen=True, kw_only=True)
class Task:
    id: str
    events: tuple[Event, ...]
    asks: tuple[Ask, ...]
    data: Any = None


@dataclass(frozen=True, kw_only=True)
class Row:
    name: str  # "host" | "host+overlay" | an arm's name
    overlay: bool
    packet_mode: str = ""  # arms: the overlay's packet mode; "" = the configured one
    arm: bool = False  # answers from the overlay row's replay instead of replaying
    oracle: bool = False  # the arm's states are rewritten to the gold ones (eval.oracle)

    @property
    def dirname(self) -> str:
        return ROW_DIRS[self.name]


def rows_for(overlay: str, arms: Sequence[str] = ()) -> list[Row]:
    """``on`` | ``off`` | ``both`` (+ attribution ``arms``, which need the overlay row) -> the rows to run."""
    rows = {"off": [Row(name=HOST_ROW, overlay=False)], "on": [Row(name=OVERLAY_ROW, overlay=True)],
            "both": [Row(name=HOST_ROW, overlay=False), Row(name=OVERLAY_ROW, overlay=True)]}[overlay]
    for a in arms:
        if a not in ARMS:
            raise EvalError(f"unknown arm {a!r} (available: {', '.join(ARMS)})")
        if overlay == "off":
            raise EvalError("attribution arms need the overlay row (--overlay on or both)")
        name, _, mode = ARMS[a]
        rows.append(Row(name=name, overlay=True, packet_mode=mode, arm=True, oracle=a == "oracle"))
    return rows


@dataclass
class Components:
    """Loaded models shared by the rows (and nothing else)."""

    llm: Any
    embedder: Any
    make_host: Callable[[str, Any, Any], Any]  # (db path, embedder, answerer) -> Host
    gate: Any = None
    judge_llm: Any = None  # offline answer judge (eval), not the audit Judge
    audit_judge: Any = None  # the overlay's Judge backend (None: the overlay's default, the verdict model)
    overlay_config: Any = None  # atma.OverlayConfig
    manifest: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Response:
    """What one question produced, in event-id space."""

    answer: str
    pool: tuple[str | None, ...]  # candidate pool (host alone: its wider search)
    packet: tuple[str | None, ...]  # evidence the answerer saw, in rank order
    packet_rows: tuple[dict[str, Any], ...]  # {id, event_id, label, text}
    timings: dict[str, float]
    trace: dict[str, Any] = field(default_factory=dict)  # extra (controller status, view)


# ----------------------------------------------------------------------- files


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write JSON through a temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=1, ensure_ascii=False, default=str)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _safe(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60].strip("._") or "task"
    return f"{stem}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def task_store(row_dir: Path, task_id: str) -> tuple[Path, Path]:
    """(db path, replay marker path) of a task in a row dir."""
    work = row_dir / "work"
    stem = _safe(task_id)
    return work / f"{stem}.db", work / f"{stem}.replay.json"


def _store_files(db: Path) -> list[Path]:
    """The db and every sidecar a host keeps beside it (``-wal``, ``.amem/``, ``.kuzu``...)."""
    return sorted(db.parent.glob(db.name + "*")) if db.parent.is_dir() else []


def _remove_db(db: Path) -> None:
    """Delete a task's store: the SQLite file and every host sidecar beside it."""
    for p in _store_files(db):
        shutil.rmtree(p) if p.is_dir() else p.unlink()


class ProbeLog:
    """Append-only JSONL of finished questions, keyed; tolerant of a torn last line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.exists():
            raw = path.read_bytes()
            good = raw[: raw.rfind(b"\n") + 1]  # a crash mid-write leaves a partial last line
            if len(good) != len(raw):
                with open(path, "r+b") as fh:
                    fh.truncate(len(good))
            for line in good.decode("utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.rows.setdefault(row["key"], row)

    def __contains__(self, key: str) -> bool:
        return key in self.rows

    def append(self, row: dict[str, Any]) -> None:
        if row["key"] in self.rows:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.rows[row["key"]] = row


def prepare_row_dir(row_dir: Path, config: Mapping[str, Any], *, fresh: bool) -> None:
    """Create or check ``row_dir/config.json``; a mismatch is an EvalError unless ``fresh``."""
    cfg_path = row_dir / "config.json"
    if fresh and row_dir.exists():
        shutil.rmtree(row_dir)
    if cfg_path.exists():
        try:
            have = json.loads(cfg_path.read_text("utf-8"))
        except ValueError:
            have = None
        want = json.loads(json.dumps(config, default=str))
        if have != want:
            diff = sorted(k for k in set(want) | set(have or {}) if (have or {}).get(k) != want.get(k))
            raise EvalError(f"{row_dir} holds a run with another configuration ({', '.join(diff) or 'unreadable'}); "
                            "use --fresh to start over or another --out")
        return
    atomic_write_json(cfg_path, config)


# ---------------------------------------------------------------------- replay


def schedule(task: Task, max_events: int | None) -> tuple[list[Event], dict[str, int]]:
    """Events in time order (stable; undated keep their place at the end), cut to
    ``max_events``, and each question's position: asked after that many events."""
    events = sorted(task.events, key=lambda e: (e.time is None, e.time or datetime.min))
    if max_events is not None:
        events = events[:max_events]
    times = [e.time for e in events if e.time is not None]
    pos = {}
    for a in task.asks:
        if a.time is None:
            pos[a.id] = len(events)
        else:
            at = a.time if (not times or (a.time.tzinfo is None) == (times[0].tzinfo is None)) else a.time.replace(tzinfo=None)
            pos[a.id] = min(bisect.bisect_right(times, at), len(events))
    return events, pos


def _overlay(host: Any, ns: str, comps: Components, bank: Any, row: Row | None = None) -> Any:
    from atma import ATMAOverlay, OverlayConfig

    cfg = comps.overlay_config or OverlayConfig()
    if row is not None and row.packet_mode:
        cfg = replace(cfg, packet_mode=row.packet_mode)
    return ATMAOverlay(host, namespace=ns, llm=comps.llm, gate=comps.gate, embedder=comps.embedder, bank=bank,
                       config=cfg, judge=comps.audit_judge)


class _Store:
    """One task's store for one row: host (+ bank and overlay) in one SQLite file."""

    def __init__(self, db: Path, ns: str, row: Row, comps: Components, event_hosts: dict[str, str]) -> None:
        from atma.bank import StateBank

        self.row, self.ns, self.comps = row, ns, comps
        self.host = comps.make_host(str(db), comps.embedder, comps.llm)
        self.bank = StateBank(str(db) if row.overlay else ":memory:")
        self.overlay = _overlay(self.host, ns, comps, self.bank, row)
        self.event_hosts = event_hosts  # host id per event id (host rows)
        self._rec_events: dict[str, str] = {}
        self._rec_count = -1

    def close(self) -> None:
        for obj in (self.host, self.bank):
            closer = getattr(obj, "close", None)
            if closer is not None:
                closer()

    def write(self, events: Sequence[Event]) -> None:
        if not events:
            return
        if self.row.overlay:
            for e in events:
                self.overlay.add(e.text, time=e.time, speaker=e.speaker, meta={"event_id": e.id})
            return
        items = [{"text": e.text, "time": e.time, "speaker": e.speaker, "meta": {"event_id": e.id}} for e in events]
        add_many = getattr(self.host, "add_many", None)
        if add_many is not None:
            ids = add_many(items, namespace=self.ns)
        else:
            ids = [self.host.add(it["text"], namespace=self.ns, time=it["time"], speaker=it["speaker"], meta=it["meta"])
                   for it in items]
        self.event_hosts.update({e.id: hid for e, hid in zip(events, ids)})

    def _record_events(self) -> dict[str, str]:
        n = self.bank.count(self.ns) if self.bank.has_namespace(self.ns) else 0
        if n != self._rec_count:
            self._rec_events = {r.id: str(r.meta.get("event_id")) for r in self.bank.records(self.ns)
                                if r.meta.get("event_id") is not None}
            self._rec_count = n
        return self._rec_events

    def ask(self, question: str) -> Response:
        cfg = self.overlay.config
        if self.row.overlay:
            ans = self.overlay.answer(question)
            rec_ev = self._record_events()
            tr = ans.trace
            labels = tr.labels
            rows = tuple({"id": r.id, "event_id": rec_ev.get(r.id), "label": labels.get(r.id, ""), "text": r.text}
                         for r in ans.packet)
            return Response(answer=ans.answer, pool=tuple(rec_ev.get(p["id"]) for p in tr.pool),
                            packet=tuple(rec_ev.get(i) for i in tr.packet), packet_rows=rows, timings=dict(tr.timings),
                            trace={"view": tr.profile.get("view"), "controller": tr.controller.get("status"),
                                   "controller_applied": tr.controller.get("applied"),
                                   "check": _check_summary(tr.check)})
        host_ev = {h: e for e, h in self.event_hosts.items()}

        def event_of(hit: Any) -> str | None:
            # A derived hit (a Graphiti fact) counts as evidence from the event it came from.
            if hit.host_id in host_ev:
                return host_ev[hit.host_id]
            eps = (getattr(hit, "native", None) or {}).get("episodes") or ()
            return next((host_ev[e] for e in eps if e in host_ev), None)

        t0 = _time.perf_counter()
        text, hits = self.overlay.host_answer(question)
        t1 = _time.perf_counter()
        wider = self.host.search(question, namespace=self.ns, k=max(cfg.seed_k, len(hits)))
        rows = tuple({"id": h.host_id, "event_id": event_of(h), "label": "", "text": h.text} for h in hits)
        pool = tuple(dict.fromkeys([event_of(h) for h in wider] + [r["event_id"] for r in rows]))
        return Response(answer=text, pool=pool, packet=tuple(r["event_id"] for r in rows), packet_rows=rows,
                        timings={"total_s": t1 - t0})


def run_row(tasks: Sequence[Task], row: Row, comps: Components, row_dir: Path, *,
            evaluate: Callable[[Task, Ask, Response], dict[str, Any]],
            max_events: int | None = None, max_probes: int | None = None,
            progress: bool = True, share_from: Path | None = None, fanout: Any = None) -> ProbeLog:
    """Replay and ask every selected question of ``tasks`` for one row; returns the probe log.

    ``max_probes``: only the first N questions (in task order) are selected; a later run
    without the limit completes the rest. ``evaluate`` grades a response into the row
    dict stored in probes.jsonl (it gets ``key``, ``task``, ``ask`` added).

    ``share_from`` (host-alone rows only): the overlay row's dir. A task whose questions all
    come after the last event and whose overlay replay finished adopts a copy of that
    store instead of replaying: the host saw exactly the same ``add`` calls there (the
    overlay only reads from its host), so hosts that call an LLM per event are paid for
    once. Tasks without a finished overlay replay are replayed as usual.

    ``fanout`` (an :class:`eval.fanout.RayFanout`): tasks run as Ray tasks, each answer still
    lands in this row's probe log under its key, so a run can be resumed serially or in parallel."""
    from tqdm import tqdm

    plog = ProbeLog(row_dir / "probes.jsonl")
    selected: list[tuple[Task, Ask]] = [(t, a) for t in tasks for a in t.asks]
    if max_probes is not None:
        selected = selected[:max_probes]
    chosen: dict[str, set[str]] = {}
    for t, a in selected:
        chosen.setdefault(t.id, set()).add(a.id)
    bar = tqdm(total=len(selected), desc=f"{row.name} probes", unit="q", disable=not progress, leave=True,
               initial=sum(1 for t, a in selected if _key(t, a) in plog))
    try:
        if fanout is not None:
            fanout.run(tasks, row, row_dir, plog, chosen, max_events=max_events, share_from=share_from,
                       progress=progress, bar=bar)
            return plog
        for task in tasks:
            if task.id in chosen:
                run_task(task, row, comps, row_dir, plog, chosen[task.id], evaluate=evaluate, max_events=max_events,
                         share_from=share_from, progress=progress, bar=bar)
    finally:
        bar.close()
    return plog


def run_task(task: Task, row: Row, comps: Components, row_dir: Path, plog: ProbeLog, chosen: set[str], *,
             evaluate: Callable[[Task, Ask, Response], dict[str, Any]], max_events: int | None,
             share_from: Path | None, progress: bool, bar: Any) -> None:
    """Replay one task (or reuse its finished replay) and ask its ``chosen`` questions not in
    ``plog``; each answer is appended to ``plog`` as it is graded. See :func:`run_row`."""
    from tqdm import tqdm

    events, pos = schedule(task, max_events)
    pending = [a for a in task.asks if a.id in chosen and _key(task, a) not in plog]
    db, marker = task_store(row_dir, task.id)
    replayed = _read_marker(marker, len(events))
    need_replay = replayed is None or any(pos[a.id] < len(events) for a in pending)
    if not pending and replayed is not None:
        return
    if need_replay and share_from is not None and (row.arm or not row.overlay) and pending \
            and all(pos[a.id] == len(events) for a in pending):
        replayed = adopt_replay(share_from, row_dir, task, len(events))
        need_replay = replayed is None
        if replayed is not None and row.oracle:
            from .oracle import gold_pairs, relabel

            relabel(db, task.id, gold_pairs(task.asks))
    if need_replay and row.arm:
        raise EvalError(f"arm {row.name!r} answers from the overlay row's finished replay of {task.id}, "
                        "and there is none (its questions must all come after the last event)")
    if need_replay:
        _remove_db(db)
        if marker.exists():
            marker.unlink()
        db.parent.mkdir(parents=True, exist_ok=True)
    store = _Store(db, task.id, row, comps, dict(replayed["event_hosts"]) if replayed and not need_replay else {})
    try:
        by_pos: dict[int, list[Ask]] = {}
        for a in pending:
            by_pos.setdefault(pos[a.id] if need_replay else len(events), []).append(a)
        if need_replay:
            t0 = _time.perf_counter()
            calls0 = getattr(store.host, "llm_calls", None)
            ebar = tqdm(total=len(events), desc=f"{row.name} replay {task.id}", unit="ev",
                        disable=not progress, leave=False)
            done = 0
            for cut in sorted(set(by_pos) | {len(events)}):
                while done < cut:
                    step = 1 if row.overlay else min(_BATCH, cut - done)
                    store.write(events[done: done + step])
                    done += step
                    ebar.update(step)
                if cut < len(events):
                    _ask_all(store, task, by_pos.get(cut, []), plog, evaluate, bar)
            ebar.close()
            flush = getattr(store.host, "flush", None)
            if flush is not None:  # hosts that batch their writes (InsideOut chunks) finish them here
                flush(store.ns)
            calls1 = getattr(store.host, "llm_calls", None)
            atomic_write_json(marker, {"task": task.id, "n_events": len(events), "event_hosts": store.event_hosts,
                                       "replay_s": _time.perf_counter() - t0,
                                       "host_llm_calls": calls1 - calls0 if isinstance(calls0, int)
                                       and isinstance(calls1, int) else None})
        _ask_all(store, task, by_pos.get(len(events), []), plog, evaluate, bar)
    finally:
        store.close()


def adopt_replay(src_dir: Path, row_dir: Path, task: Task, n_events: int) -> dict[str, Any] | None:
    """Copy the finished overlay-row store of ``task`` from ``src_dir`` into ``row_dir`` and
    write this row's replay marker (event -> host id from the overlay's records). None when
    the source replay did not finish."""
    from atma.bank import StateBank

    src_db, src_marker = task_store(src_dir, task.id)
    src = _read_marker(src_marker, n_events)
    if src is None or not src_db.exists():
        return None
    db, marker = task_store(row_dir, task.id)
    db.parent.mkdir(parents=True, exist_ok=True)
    _remove_db(db)
    for f in _store_files(src_db):
        dst = db.parent / (db.name + f.name[len(src_db.name):])
        shutil.copytree(f, dst) if f.is_dir() else shutil.copy2(f, dst)
    bank = StateBank(str(db))
    try:
        recs = bank.records(task.id) if bank.has_namespace(task.id) else []
        event_hosts = {str(r.meta["event_id"]): r.host_id for r in recs
                       if r.meta.get("event_id") is not None and r.host_id}
    finally:
        bank.close()
    m = {"task": task.id, "n_events": n_events, "event_hosts": event_hosts, "replay_s": None,  # no replay of its own
         "host_llm_calls": src.get("host_llm_calls"), "shared_from": str(src_dir)}
    atomic_write_json(marker, m)
    return m


def _key(task: Task, ask: Ask) -> str:
    return f"{task.id}/{ask.id}"


def _ask_all(store: _Store, task: Task, asks: Iterable[Ask], plog: ProbeLog,
             evaluate: Callable[[Task, Ask, Response], dict[str, Any]], bar: Any) -> None:
    for a in asks:
        resp = store.ask(a.question)
        row = {"key": _key(task, a), "task": task.id, "ask": a.id}
        row.update(evaluate(task, a, resp))
        plog.append(row)
        bar.update(1)


def _read_marker(marker: Path, n_events: int) -> dict[str, Any] | None:
    if not marker.exists():
        return None
    try:
        m = json.loads(marker.read_text("utf-8"))
    except ValueError:
        return None
    return m if m.get("n_events") == n_events else None


def final_store(row_dir: Path, task: Task, row: Row, comps: Components, max_events: int | None) -> dict[str, Any] | None:
    """The finished replay of ``task`` as metric inputs: stored items, write traces, event
    count; None when its replay did not finish."""
    from atma.bank import StateBank

    from .metrics import StoredItem, items_from_records

    events, _ = schedule(task, max_events)
    db, marker = task_store(row_dir, task.id)
    m = _read_marker(marker, len(events))
    if m is None or not db.exists():
        return None
    if row.overlay:
        bank = StateBank(str(db))
        try:
            has = bank.has_namespace(task.id)
            items = items_from_records(bank.records(task.id)) if has else []
            writes = [t["body"] for t in bank.traces(task.id, kind="write", limit=10**9)] if has else []
        finally:
            bank.close()
    else:
        host = comps.make_host(str(db), comps.embedder, None)
        try:
            getter = getattr(host, "get", None)
            items = [StoredItem(id=h, event_id=e) for e, h in m["event_hosts"].items()
                     if getter is None or getter(h, namespace=task.id) is not None]
        finally:
            closer = getattr(host, "close", None)
            if closer:
                closer()
        writes = []
    return {"items": items, "writes": writes, "n_events": m["n_events"], "event_order": {e.id: i for i, e in enumerate(events)},
            "host_llm_calls": m.get("host_llm_calls"), "replay_s": m.get("replay_s")}
