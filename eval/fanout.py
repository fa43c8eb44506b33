"""Fan a benchmark row's tasks (scenarios, LTP profiles, LoCoMo samples) out as Ray tasks.

    atma eval ltp --out DIR --workers 4 [--ray-address ADDR] [--llm-endpoints URL,URL,...]

Why tasks can run apart: each task already has its own store (``<row dir>/work/<task>.db``),
its own namespace and its own replay marker (:mod:`eval.runner`); only the row's probe log
is shared. So a Ray task replays and asks one task with :func:`eval.runner.run_task` and
logs its answers to its own part file (``<row dir>/parts/<task>.jsonl``, fsynced per
answer); the driver, the only writer of ``probes.jsonl``, merges a part when its task
returns and deletes it. Merging is by probe key, so it is idempotent: parts left by an
interrupted driver are merged at the next start, and a task that Ray retries after its
worker died (``max_retries``) skips the answers its part already holds and redoes the
replay it had not finished (the runner's rule: no marker, replay from scratch). The
report is computed from the row folder exactly as after a serial run.

Models: with ``--llm-endpoints`` each task is sent with the endpoint that has the fewest
tasks in flight (an LLM spec, or a bare ``http(s)://`` URL that replaces the base URL of an
``openai:`` ``--llm``), so N workers on N endpoints each have their own; each worker process
loads its components once per endpoint and reuses them. Components given in process
(tests' fakes) are shipped to the workers as they are (Ray pickles them) and endpoints do
not apply to them.

Cluster arithmetic: wall time ~ probes x seconds per probe / workers, while every worker
has its own endpoint (the answer model is the bottleneck; workers sharing one endpoint
queue on it).
"""

from __future__ import annotations

import argparse
import copy
import logging
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .runner import Components, ProbeLog, Row, Task, _safe, run_task

__all__ = ["RayFanout", "add_fanout_args", "fanout_from_args", "endpoint_spec"]

log = logging.getLogger(__name__)

_PARTS = "parts"


def add_fanout_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=1,
                   help="tasks run at once as Ray tasks (1: in this process, no Ray; needs atma[ray] above 1)")
    p.add_argument("--ray-address", default=None,
                   help="an existing Ray cluster (ray.init address, e.g. auto or ray://host:10001); default: a local one")
    p.add_argument("--llm-endpoints", default=None,
                   help="comma-separated LLM specs or base URLs, one per worker: a task gets the least busy one")


def endpoint_spec(endpoint: str, llm: str) -> str:
    """The LLM spec for one ``--llm-endpoints`` item: a full spec as is; a bare URL takes the
    served model name from an ``openai:<url>#<model>`` ``--llm``.

    >>> endpoint_spec("http://10.0.0.2:8000/v1", "openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-3B-Instruct")
    'openai:http://10.0.0.2:8000/v1#Qwen/Qwen2.5-3B-Instruct'
    """
    from atma.llm.spec import parse_spec

    endpoint = endpoint.strip()
    if not endpoint.startswith(("http://", "https://")):
        parse_spec(endpoint)  # ValueError with the reason
        return endpoint
    spec = parse_spec(llm)
    if spec.backend != "openai":
        raise ValueError(f"--llm-endpoints {endpoint!r} is a bare URL; give --llm as openai:<url>#<model> "
                         "so the served model name is known, or give full specs")
    return f"openai:{endpoint.rstrip('/')}#{spec.model}"


def fanout_from_args(args: argparse.Namespace, comps: Components | None,
                     make_evaluate: Callable[[Components], Callable[..., dict[str, Any]]]) -> "RayFanout | None":
    """A fan-out for ``--workers N`` (N > 1), else None (the serial runner). ``comps``: models
    given in process (shipped to the workers); ``make_evaluate``: the benchmark's grader from
    components (a module-level callable: workers build their own)."""
    workers = getattr(args, "workers", 1) or 1
    if workers < 1:
        raise ValueError("--workers must be at least 1")
    endpoints = [e for e in (getattr(args, "llm_endpoints", None) or "").split(",") if e.strip()]
    if workers == 1:
        if endpoints or getattr(args, "ray_address", None):
            raise ValueError("--llm-endpoints and --ray-address need --workers above 1")
        return None
    specs = [endpoint_spec(e, args.llm) for e in endpoints]
    return RayFanout(args, make_evaluate, workers=workers, address=args.ray_address, llm_specs=specs, comps=comps)


class _PartLog:
    """What a Ray task logs to: its task's part file, seen together with the keys the
    row's probe log already had when the task was sent."""

    def __init__(self, path: Path, done: frozenset[str]) -> None:
        self.part = ProbeLog(path)
        self.done = done

    def __contains__(self, key: str) -> bool:
        return key in self.done or key in self.part

    def append(self, row: dict[str, Any]) -> None:
        if row["key"] not in self.done:
            self.part.append(row)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


_WORKER_COMPONENTS: dict[str, Components] = {}  # per worker process: endpoint spec -> loaded models


def _components(args: argparse.Namespace, rows: Sequence[Row], llm_spec: str | None, shipped: Any) -> Components:
    if shipped is not None:
        return shipped
    key = llm_spec or args.llm
    if key not in _WORKER_COMPONENTS:
        from .stream import load_components

        mine = copy.copy(args)
        mine.llm = key
        _WORKER_COMPONENTS[key] = load_components(mine, rows)
    return _WORKER_COMPONENTS[key]


def _run_one(task: Task, row: Row, row_dir: str, chosen: frozenset[str], done: frozenset[str], *,
             args: argparse.Namespace, rows: Sequence[Row], llm_spec: str | None, shipped: Any,
             make_evaluate: Callable[[Components], Any], max_events: int | None, share_from: str | None) -> str:
    """Body of one Ray task: run ``task`` into its part file; returns the part file's path."""
    comps = _components(args, rows, llm_spec, shipped)
    part = Path(row_dir) / _PARTS / f"{_safe(task.id)}.jsonl"
    plog = _PartLog(part, done)
    run_task(task, row, comps, Path(row_dir), plog, set(chosen), evaluate=make_evaluate(comps),
             max_events=max_events, share_from=Path(share_from) if share_from else None, progress=False, bar=_NoBar())
    return str(part)


def merge_parts(row_dir: Path, plog: ProbeLog) -> int:
    """Append every part file's answers to the row's probe log (by key, so twice is once),
    then delete the part files. Returns the answers that were new."""
    new = 0
    folder = row_dir / _PARTS
    for part in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        for key, row in ProbeLog(part).rows.items():
            if key not in plog:
                plog.append(row)
                new += 1
        part.unlink()
    return new


class RayFanout:
    """Runs one row's tasks as Ray tasks, at most ``workers`` at once (see the module docstring)."""

    def __init__(self, args: argparse.Namespace, make_evaluate: Callable[[Components], Any], *, workers: int,
                 address: str | None = None, llm_specs: Sequence[str] = (), comps: Components | None = None,
                 max_retries: int = 3) -> None:
        import sys

        if "ray" not in sys.modules and "usearch.index" in sys.modules:
            # Measured with ray 2.60.0 and usearch 2.26.6: usearch loaded first makes ray.init abort
            # the process (std::regex_error from two C++ runtimes); import ray before any host.
            raise RuntimeError("import ray before usearch (the builtin host's ANN index) is loaded: "
                               "ray.init aborts the process otherwise")
        try:
            import ray  # noqa: F401
        except ImportError as exc:
            raise ImportError("--workers above 1 runs tasks on Ray: pip install 'atma[ray]'") from exc
        self.args = args
        self.make_evaluate = make_evaluate
        self.workers = workers
        self.address = address
        self.llm_specs = list(llm_specs)
        self.comps = comps
        self.max_retries = max_retries

    def _ray(self) -> Any:
        import ray

        if not ray.is_initialized():
            if self.address:  # the cluster's nodes need atma installed at this version
                ray.init(address=self.address, log_to_driver=False)
            else:  # local workers import the code this process runs (a checkout may shadow the install)
                code = str(Path(__file__).resolve().parent.parent)
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": {"PYTHONPATH": code}})
        return ray

    def run(self, tasks: Sequence[Task], row: Row, row_dir: Path, plog: ProbeLog, chosen: Mapping[str, set[str]], *,
            max_events: int | None, share_from: Path | None, progress: bool, bar: Any) -> None:
        from .stream import planned_rows

        merged = merge_parts(row_dir, plog)  # answers an interrupted run left in parts
        if merged:
            bar.update(merged)
        todo = [t for t in tasks if t.id in chosen]
        if not todo:
            return
        ray = self._ray()
        remote = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)(_run_one)
        rows = [r for r, _ in planned_rows(self.args, Path(self.args.out))]
        shipped = ray.put(self.comps) if self.comps is not None else None
        waiting: dict[Any, tuple[Task, int]] = {}  # in flight: task and the endpoint it asks
        load = [0] * max(1, len(self.llm_specs))
        queue = list(todo)
        while queue or waiting:
            while queue and len(waiting) < self.workers:
                task = queue.pop(0)
                slot = load.index(min(load))  # the least busy endpoint
                load[slot] += 1
                done = frozenset(k for k in (f"{task.id}/{a}" for a in chosen[task.id]) if k in plog)
                ref = remote.remote(task, row, str(row_dir), frozenset(chosen[task.id]), done, args=self.args,
                                    rows=rows, llm_spec=self.llm_specs[slot] if self.llm_specs else None,
                                    shipped=shipped, make_evaluate=self.make_evaluate, max_events=max_events,
                                    share_from=str(share_from) if share_from else None)
                waiting[ref] = (task, slot)
            ready, _ = ray.wait(list(waiting), num_returns=1)
            for ref in ready:
                task, slot = waiting.pop(ref)
                load[slot] -= 1
                part = Path(ray.get(ref))  # a task that failed for good raises here, with its traceback
                before = len(plog.rows)
                if part.exists():
                    for key, r in ProbeLog(part).rows.items():
                        plog.append(r)
                    part.unlink()
                bar.update(len(plog.rows) - before)
                log.info("task %s done", task.id)
