"""Speed benchmarks, one subcommand each.

    python -m eval.bench answer [--llm SPEC] [--units U] [--fillers F] [--questions Q] [--json FILE]
    python -m eval.bench write  [--llm SPEC] [--units U] [--fillers F] [--json FILE]

    python -m eval.bench scale  [--sizes 1000,10000,100000] [--queries Q] [--json FILE]
    python -m eval.bench ann    [--records N] [--embedder hash|minilm] [--queries Q]
    python -m eval.bench fanout [--workers 2] [--scenarios S] [--events E] [--probes Q] [--llm-latency SECONDS]
    python -m eval.bench sentry [--gate sentry|cosine|both] [--records N] [--candidates K]
                                [--threads T] [--json FILE]

``sentry``: records encoded per second (backbone + heads, batched; the texts of the shipped
checkpoint's training data, ``--texts``), single-record encode latency, and pairs scored
per second on cached feature rows (``route``: one new row against K candidates, the
overlay's write path), with p50/p99 per call.
``answer``: p50/p95 latency of ``overlay.answer`` on a small replayed bank (LTP profile 0:
the cues of U units plus F conversation turns, in time order), split into LLM time (QA +
controller) and non-LLM time (profiling, host search, hops, pre-rank, serialisation).
``write``: events/s of ``overlay.add`` on the same events without the LLM Judge (rule only)
and with it, plus Judge calls per event.
``storage``: bytes on disk per record written through the overlay (builtin host, cosine gate, rule
audit; N one-line facts), split by table, and the overhead beyond the text itself.
``scale``: one namespace grown to each of ``--sizes`` through ``overlay.add`` (builtin host, 384-d hash
embedder, rule Judge, cosine gate, no LLM): writes/s, non-LLM retrieve p50/p95, bytes per record,
recall@10 of the dense index against exact search, and the growth exponent of retrieve p50.
``ann``: recall@10 of the builtin host's ANN index against exact search on N generated memories,
with the hash embedder or the packaged MiniLM.
``fanout``: wall time of ``eval.stream`` on generated scenarios with the shipped fakes, serially and
with ``--workers`` Ray tasks (local cluster, start-up included), and whether the answers match.
Add other benchmarks as further subparsers in :func:`make_parser`.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

SENTRY_TEXTS = Path(__file__).resolve().parent.parent / "checkpoints" / "sentry" / "data" / "sentry_data.json"


def _percentiles_ms(samples: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(samples) * 1000.0
    return {"p50_ms": round(float(np.percentile(arr, 50)), 4),
            "p99_ms": round(float(np.percentile(arr, 99)), 4)}


def _bench_gate(gate, texts: list[str], *, candidates: int, calls: int, single: int,
                seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    gate.features(texts[:8])  # warm-up (first call builds kernels / tokenizer caches)
    t0 = time.perf_counter()
    rows = gate.features(texts)
    enc_s = time.perf_counter() - t0
    single_lat = []
    for t in texts[:single]:
        t1 = time.perf_counter()
        gate.features([t])
        single_lat.append(time.perf_counter() - t1)
    # Route: one new row against `candidates` cached rows, as at write time.
    news = rng.integers(0, len(rows), size=calls)
    olds = [rows[rng.integers(0, len(rows), size=candidates)] for _ in range(calls)]
    for i in range(min(50, calls)):
        gate.route(rows[news[i]], olds[i])
    lat = []
    t0 = time.perf_counter()
    for i in range(calls):
        t1 = time.perf_counter()
        gate.route(rows[news[i]], olds[i])
        lat.append(time.perf_counter() - t1)
    route_s = time.perf_counter() - t0
    # One new row against every cached row (a large candidate set).
    t0 = time.perf_counter()
    reps = 20
    for i in range(reps):
        gate.route(rows[news[i]], rows)
    big_s = time.perf_counter() - t0
    return {
        "cache_key": gate.cache_key,
        "feature_dim": int(rows.shape[1]),
        "encode": {"records": len(texts), "seconds": round(enc_s, 3),
                   "records_per_s": round(len(texts) / enc_s, 1),
                   "single_record": _percentiles_ms(single_lat)},
        "route": {"candidates_per_call": candidates, "calls": calls,
                  "pairs_per_s": round(calls * candidates / route_s, 1),
                  "per_call": _percentiles_ms(lat)},
        "route_all": {"candidates_per_call": len(rows),
                      "pairs_per_s": round(reps * len(rows) / big_s, 1)},
    }


def _training_texts(path: Path) -> list[str]:
    """Every text of a Sentry training data file written by ``python -m training.sentry``
    (``sentry_data.json``: profile facts first, then interactions)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [f["text"] for p in data["profiles"] for f in p["facts"]] + [i["text"] for i in data["interactions"]]


def bench_sentry(args: argparse.Namespace) -> dict[str, Any]:
    """Encode and route throughput of the Sentry gate and/or the cosine baseline on CPU."""
    import torch

    from atma.sentry import CosineGate
    from atma.sentry_encoder import load_sentry

    torch.set_num_threads(args.threads)
    texts = _training_texts(Path(args.texts))[: args.records]
    result: dict[str, Any] = {
        "benchmark": "sentry", "device": args.device, "threads": args.threads,
        "torch": torch.__version__, "cpu": platform.processor() or platform.machine(),
        "records": len(texts), "gates": {},
    }
    if args.gate in ("sentry", "both"):
        gate = load_sentry(args.checkpoint, device=args.device)
        result["gates"]["sentry"] = _bench_gate(gate, texts, candidates=args.candidates,
                                                calls=args.calls, single=args.single, seed=args.seed)
        backbone = gate.encoder.backbone
    else:
        backbone = None
    if args.gate in ("cosine", "both"):
        cos = CosineGate(backbone, device=args.device)
        result["gates"]["cosine"] = _bench_gate(cos, texts, candidates=args.candidates,
                                                calls=args.calls, single=args.single, seed=args.seed)
    print(f"{'gate':<8} {'rec/s':>8} {'enc1 p50':>9} {'pairs/s':>10} {'route p50':>10} "
          f"{'route p99':>10} {'pairs/s all':>12}")
    for name, r in result["gates"].items():
        print(f"{name:<8} {r['encode']['records_per_s']:8.1f} "
              f"{r['encode']['single_record']['p50_ms']:7.2f}ms "
              f"{r['route']['pairs_per_s']:10.0f} {r['route']['per_call']['p50_ms']:8.4f}ms "
              f"{r['route']['per_call']['p99_ms']:8.4f}ms {r['route_all']['pairs_per_s']:12.0f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return result


def _ltp_events(units: int, fillers: int) -> tuple[list[Any], list[Any]]:
    """Events (cues of the first ``units`` units + ``fillers`` turns, time order) and those units' probes."""
    from eval.ltp_eval import DEFAULT_FILE
    from eval.stream_format import load_stream

    sc = load_stream(DEFAULT_FILE)[0]
    probes = [p for p in sc.probes if int(p.meta["unit_id"].rsplit("u", 1)[1]) < units]
    cues = {p.meta["target_cue_id"] for p in probes}
    turns = [e for e in sc.events if not e.id.startswith("cue-")][:fillers]
    events = sorted([e for e in sc.events if e.id in cues] + turns, key=lambda e: e.time)
    return events, probes


def _overlay_for(path: str, llm: Any, embedder: Any, *, use_judge: bool, judge: str = "verdict") -> Any:
    from adapters.builtin import BuiltinHost
    from atma import ATMAOverlay, OverlayConfig, factory

    host = BuiltinHost(path, embedder=embedder, answerer=llm)
    return ATMAOverlay(host, namespace="bench", llm=llm, embedder=embedder, judge=factory.default_judge(judge, llm=llm),
                       config=OverlayConfig(use_judge=use_judge))


def _pcts(samples: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(samples) * 1000.0
    return {"p50_ms": round(float(np.percentile(arr, 50)), 1), "p95_ms": round(float(np.percentile(arr, 95)), 1)}


def _load_models(spec: str) -> tuple[Any, Any]:
    from atma import factory

    return factory.default_llm(spec, load=True), factory.default_embedder("minilm")


def bench_answer(args: argparse.Namespace) -> dict[str, Any]:
    """overlay.answer latency split into LLM and non-LLM time."""
    import tempfile

    llm, emb = _load_models(args.llm)
    events, probes = _ltp_events(args.units, args.fillers)
    with tempfile.TemporaryDirectory() as tmp:
        ov = _overlay_for(f"{tmp}/bank.db", llm, emb, use_judge=args.judge != "rule", judge=args.judge)
        for e in events:
            ov.add(e.text, time=e.time, speaker=e.speaker, meta={"event_id": e.id})
        ov.answer(probes[0].question)  # warm-up (prompt cache, kernels)
        rows = [ov.answer(p.question).trace.timings for p in probes[: args.questions]]
        ov.host.close()
    llm_s = [t.get("qa_llm_s", 0.0) + t.get("controller_llm_s", 0.0) for t in rows]
    result = {"benchmark": "answer", "events": len(events), "questions": len(rows),
              "total": _pcts([t["total_s"] for t in rows]), "llm": _pcts(llm_s),
              "non_llm": _pcts([t["non_llm_s"] for t in rows]), "llm_spec": args.llm}
    print(f"overlay.answer over {len(rows)} questions ({len(events)} events, {args.llm}):")
    for part in ("total", "llm", "non_llm"):
        print(f"  {part:<8} p50 {result[part]['p50_ms']:9.1f} ms   p95 {result[part]['p95_ms']:9.1f} ms")
    _dump(args, result)
    return result


def bench_write(args: argparse.Namespace) -> dict[str, Any]:
    """overlay.add throughput with the rule, the verdict model and the LLM Judge."""
    import tempfile

    llm, emb = _load_models(args.llm)
    events, _ = _ltp_events(args.units, args.fillers)
    emb.encode(["warm-up"])
    result: dict[str, Any] = {"benchmark": "write", "llm_spec": args.llm, "events": len(events), "modes": {}}
    for mode in args.modes.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            ov = _overlay_for(f"{tmp}/bank.db", llm, emb, use_judge=mode != "rule", judge=mode)
            t0 = time.perf_counter()
            calls = 0
            for e in events:
                res = ov.add(e.text, time=e.time, speaker=e.speaker, meta={"event_id": e.id})
                calls += sum(1 for j in res.trace.judge if j.status != "skipped")
            secs = time.perf_counter() - t0
            ov.host.close()
        result["modes"][mode] = {"seconds": round(secs, 2), "events_per_s": round(len(events) / secs, 2),
                                 "judge_calls": calls, "judge_calls_per_event": round(calls / len(events), 3)}
    print(f"overlay.add over {len(events)} events ({args.llm}):")
    for mode, r in result["modes"].items():
        print(f"  {mode:<11} {r['events_per_s']:8.2f} events/s  ({r['judge_calls']} Judge calls, {r['seconds']} s)")
    _dump(args, result)
    return result


_SUBJECTS = ["home", "job", "car", "phone", "gym", "bank", "dentist", "band", "team", "school"]
_VALUES = ["Leeds", "York", "Bristol", "a nurse", "a Civic", "a Prius", "a Pixel", "an iPhone", "jazz", "Arsenal",
           "Bath", "Derby", "chess", "tennis", "padel", "a teacher", "Hull", "Kent", "a bakery", "the hospital"]


def bench_storage(args: argparse.Namespace) -> dict[str, Any]:
    """N one-line facts through ``ATMAOverlay.add`` (rule audit, cosine gate, builtin host), then
    bytes per record: the file after a WAL checkpoint, split by table (SQLite ``dbstat``)."""
    import random
    import sqlite3
    import tempfile

    from adapters.builtin import BuiltinHost
    from atma import ATMAOverlay, OverlayConfig
    from atma.sentry import CosineGate

    if args.embedder == "hash":
        from atma.testing import HashEmbedder

        embedder: Any = HashEmbedder(384)
    else:
        from atma import factory

        embedder = factory.default_embedder(args.embedder)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "storage.db")
        host = BuiltinHost(path, embedder=embedder)
        ov = ATMAOverlay(host, namespace="bench", gate=CosineGate(embedder),
                         config=OverlayConfig(use_judge=False, trace_keep=args.trace_keep))
        text_bytes = 0
        t0 = time.perf_counter()
        for i in range(args.records):
            text = f"My {rng.choice(_SUBJECTS)} is now {rng.choice(_VALUES)}, since week {i}."
            text_bytes += len(text.encode("utf-8"))
            ov.add(text, speaker="Dana")
        write_s = time.perf_counter() - t0
        ov.bank.compact()
        db = sqlite3.connect(path)
        tables: dict[str, int] = {}
        owners = {"overlay": 0, "host": 0, "sqlite": 0}  # the bank's tables and indexes vs the host's
        for name, size in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
            owners["overlay" if "bank_" in name else "host" if "host" in name else "sqlite"] += int(size)
            key = name.split("_fts_")[0] + "_fts" if "_fts_" in name else name
            key = "indexes/internal" if key.startswith("sqlite_") or key.startswith("bank_records_") or \
                key.startswith("bank_links_") or key.startswith("bank_traces_") or key.startswith("bank_trace_refs_") else key
            tables[key] = tables.get(key, 0) + int(size)
        db.close()
        host.close()
        file_bytes = Path(path).stat().st_size
        wal = Path(path + "-wal")
        wal_bytes = wal.stat().st_size if wal.exists() else 0
    n = args.records
    result = {
        "benchmark": "storage", "records": n, "embedder": getattr(embedder, "name", args.embedder),
        "dim": int(embedder.dim), "trace_keep": args.trace_keep, "write_s": round(write_s, 1),
        "file_bytes": file_bytes, "wal_bytes_after_checkpoint": wal_bytes, "text_bytes": text_bytes,
        "bytes_per_record": round(file_bytes / n), "overhead_bytes_per_record": round((file_bytes - text_bytes) / n),
        "embedding_bytes_per_copy": int(embedder.dim) * 4,
        # what the overlay adds beyond the host's own rows (issue 12 target: <= 2 KB per record)
        "overlay_bytes_per_record": round(owners["overlay"] / n), "host_bytes_per_record": round(owners["host"] / n),
        "tables_bytes_per_record": {k: round(v / n) for k, v in sorted(tables.items(), key=lambda kv: -kv[1])},
    }
    print(json.dumps(result, indent=1))
    _dump(args, result)
    return result


def _scale_corpus(seed: int) -> Any:
    """A deterministic stream of one-line first-person memories with a Zipf-like spread of
    content words (a few thousand generated names, places and things, a long tail of rare
    ones), so that BM25 sees common and rare terms as in a long conversation history."""
    import random

    rng = random.Random(seed)
    syll = ["ka", "lo", "mi", "ra", "ten", "vo", "shi", "pa", "dor", "el", "un", "gri", "so", "ba", "fe", "zu"]

    def words(n: int, lo: int, hi: int) -> list[str]:
        out: dict[str, None] = {}
        while len(out) < n:
            out.setdefault("".join(rng.choice(syll) for _ in range(rng.randint(lo, hi))), None)
        return list(out)

    names = [w.capitalize() for w in words(800, 2, 3)]
    places = [w.capitalize() for w in words(1500, 2, 4)]
    things = words(4000, 2, 4)
    verbs = ["bought", "visited", "fixed", "sold", "painted", "cooked", "found", "lost", "booked", "moved",
             "started", "finished", "borrowed", "planned", "cleaned", "ordered", "watched", "read"]
    templates = [
        "I {v} the {t} in {p} with {n} last week.",
        "My {t} is now in {p}, {n} says it is fine.",
        "{n} and I {v} a {t} near {p} on day {d}.",
        "I think the {t} from {p} was better than the {t2}.",
        "Yesterday I {v} my {t} and then went to {p}.",
        "I keep my {t} at {n}'s place in {p} since {d} days.",
    ]

    def zipf(items: list[str]) -> str:  # rank r drawn with weight ~ 1/r
        return items[min(int(len(items) ** rng.random()) - 1, len(items) - 1)]

    def memory(i: int) -> str:
        return rng.choice(templates).format(v=rng.choice(verbs), t=zipf(things), t2=zipf(things), p=zipf(places),
                                            n=zipf(names), d=i % 365)

    def question() -> str:
        return rng.choice(["Where is my {t} now?", "What did {n} and I do in {p}?", "When did I visit {p}?",
                           "Who has the {t}?", "What happened to the {t} I {v}?"]).format(
            t=zipf(things), n=zipf(names), p=zipf(places), v=rng.choice(verbs))

    return memory, question


def bench_scale(args: argparse.Namespace) -> dict[str, Any]:
    """One namespace grown to each size through ``ATMAOverlay.add`` (builtin host, 384-d hash
    embedder, rule Judge, cosine gate, no LLM): writes/s over the writes that led to each size,
    non-LLM ``retrieve`` p50/p95, bytes per record on disk, recall@10 of the host's dense index
    against exact search, and the log-log slope of retrieve p50 over size."""
    import tempfile

    from adapters.builtin import BuiltinHost
    from atma import ATMAOverlay, OverlayConfig
    from atma.judging import RuleJudge
    from atma.sentry import CosineGate
    from atma.testing import HashEmbedder

    sizes = sorted({int(s) for s in args.sizes.split(",")})
    embedder = HashEmbedder(384)
    memory, question = _scale_corpus(args.seed)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        path = str(Path(tmp) / "scale.db")
        host = BuiltinHost(path, embedder=embedder, **({"ann_threshold": args.ann_threshold}
                                                       if args.ann_threshold is not None else {}))
        ov = ATMAOverlay(host, namespace="bench", gate=CosineGate(embedder), judge=RuleJudge(),
                         config=OverlayConfig(use_judge=False, trace_keep=args.trace_keep))
        written = 0
        for size in sizes:
            t0 = time.perf_counter()
            for i in range(written, size):
                ov.add(memory(i), speaker="Dana")
            write_s = time.perf_counter() - t0
            wrote, written = size - written, size
            queries = [question() for _ in range(args.queries + 5)]
            for q in queries[:5]:  # warm-up: index (re)load, statement cache
                ov.retrieve(q)
            lat = []
            for q in queries[5:]:
                t1 = time.perf_counter()
                ov.retrieve(q)
                lat.append(time.perf_counter() - t1)
            ov.bank.compact()
            db_bytes = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.name in ("scale.db", "scale.db-wal"))
            recall = host.dense_recall([embedder.encode([q])[0] for q in queries[5:]], namespace="bench", k=10)
            row = {"size": size, "writes": wrote, "write_s": round(write_s, 1),
                   "writes_per_s": round(wrote / write_s, 1), **_pcts(lat),
                   "bytes_per_record": round(db_bytes / size), "dense_search": host.dense_kind("bench"),
                   "recall_at_10": None if recall is None else round(recall, 4)}
            rows.append(row)
            print(f"{size:>8} {row['writes_per_s']:8.1f} w/s  p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  "
                  f"{row['bytes_per_record']:7d} B/rec  {row['dense_search']:<5} recall@10 {row['recall_at_10']}",
                  flush=True)
        host.close()  # writes the ANN index beside the file (a cache; not in bytes_per_record)
        ann_bytes = sum(p.stat().st_size for p in Path(tmp).glob("scale.db-ann-*"))
    slope = None
    if len(rows) >= 2:
        x = np.log([r["size"] for r in rows])
        y = np.log([max(r["p50_ms"], 1e-3) for r in rows])
        slope = round(float(np.polyfit(x, y, 1)[0]), 3)
    result = {"benchmark": "scale", "embedder": "hash-384", "judge": "rule", "gate": "cosine",
              "queries": args.queries, "ann_threshold": args.ann_threshold, "sizes": rows,
              "growth_exponent_p50": slope, "cpu": platform.processor() or platform.machine(),
              "ann_file_bytes_per_record_at_largest": round(ann_bytes / sizes[-1]) if ann_bytes else None}
    print(f"growth exponent (log-log slope of retrieve p50 over size): {slope}")
    if ann_bytes:
        print(f"ANN index file at {sizes[-1]}: {result['ann_file_bytes_per_record_at_largest']} bytes per record")
    _dump(args, result)
    return result


def _fake_components(latency_s: float) -> Any:
    """Fakes for the fan-out benchmark: hash embedder, cosine gate, rule Judge, and a scripted
    answerer that takes ``latency_s`` per call (a remote endpoint's wait)."""
    from adapters.builtin import BuiltinHost
    from atma import OverlayConfig
    from atma.judging import RuleJudge
    from atma.sentry import CosineGate
    from atma.testing import HashEmbedder, ScriptedLLM
    from eval.runner import Components

    emb = HashEmbedder(384)
    llm = ScriptedLLM(default="I don't know", latency_s=latency_s)
    return Components(llm=llm, embedder=emb, make_host=_fake_host, gate=CosineGate(emb),
                      overlay_config=OverlayConfig(use_judge=False), audit_judge=RuleJudge())


def _fake_host(path: str, emb: Any, answerer: Any) -> Any:
    from adapters.builtin import BuiltinHost

    return BuiltinHost(path, embedder=emb, answerer=answerer)


def bench_fanout(args: argparse.Namespace) -> dict[str, Any]:
    """Wall time of ``eval.stream`` on generated scenarios with the shipped fakes, serially and
    with ``--workers`` Ray tasks on a local cluster (its start-up included); same results checked."""
    import tempfile

    import ray  # noqa: F401 - before the hosts load usearch (see eval.fanout.RayFanout)

    from eval import stream as stream_mod

    memory, question = _scale_corpus(args.seed)
    scenarios = []
    for s in range(args.scenarios):
        events = [{"id": f"e{i}", "time": f"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}", "speaker": "Dana",
                   "text": memory(s * args.events + i)} for i in range(args.events)]
        probes = [{"id": f"q{j}", "question": question(), "view": "current", "gold": ["Leeds"], "time": "2024-12-31T00:00:00",
                   "alternates": ["York"]} for j in range(args.probes)]
        scenarios.append({"id": f"s{s}", "events": events, "probes": probes})
    result: dict[str, Any] = {"benchmark": "fanout", "scenarios": args.scenarios, "events": args.events,
                              "probes": args.probes, "llm_latency_s": args.llm_latency, "runs": {}}
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        stream = Path(tmp) / "scenarios.jsonl"
        stream.write_text("".join(json.dumps(sc) + "\n" for sc in scenarios))
        answers = {}
        for workers in (1, args.workers):
            out = Path(tmp) / f"w{workers}"
            t0 = time.perf_counter()
            code = stream_mod.main([str(stream), "--out", str(out), "--quiet", "--overlay", "both",
                                    "--workers", str(workers)], comps=_fake_components(args.llm_latency))
            secs = time.perf_counter() - t0
            if code != 0:
                raise RuntimeError(f"eval.stream exited {code}")
            rows = json.loads((out / "results.json").read_text())["rows"]
            answers[workers] = {n: sorted((p["scenario"], p["probe"], p["answer"]) for p in r["probes"])
                                for n, r in rows.items()}
            result["runs"][str(workers)] = {"workers": workers, "seconds": round(secs, 1)}
            print(f"workers {workers}: {secs:.1f} s", flush=True)
    result["same_answers"] = answers[1] == answers[args.workers]
    result["speedup"] = round(result["runs"]["1"]["seconds"] / result["runs"][str(args.workers)]["seconds"], 2)
    print(f"serial / {args.workers} workers = {result['speedup']} (same answers: {result['same_answers']})")
    _dump(args, result)
    return result


def bench_ann(args: argparse.Namespace) -> dict[str, Any]:
    """Recall@10 of the builtin host's ANN path against its exact search, on ``--records``
    generated memories (the scale corpus) stored with ``add_many``, for generated questions."""
    import tempfile

    from adapters.builtin import BuiltinHost

    if args.embedder == "hash":
        from atma.testing import HashEmbedder

        embedder: Any = HashEmbedder(384)
    else:
        from atma.embed import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(args.embedder)
    memory, question = _scale_corpus(args.seed)
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        host = BuiltinHost(str(Path(tmp) / "ann.db"), embedder=embedder, ann_threshold=1)
        t0 = time.perf_counter()
        host.add_many([{"text": memory(i), "speaker": "Dana"} for i in range(args.records)], namespace="bench")
        add_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        kind = host.dense_kind("bench")  # builds the index
        build_s = time.perf_counter() - t0
        queries = embedder.encode([question() for _ in range(args.queries)])
        recall = host.dense_recall(list(queries), namespace="bench", k=10)
        host.close()
    result = {"benchmark": "ann", "embedder": getattr(embedder, "name", args.embedder), "records": args.records,
              "queries": args.queries, "dense_search": kind, "recall_at_10": round(recall, 4),
              "encode_and_store_s": round(add_s, 1), "index_build_s": round(build_s, 1)}
    print(json.dumps(result, indent=1))
    _dump(args, result)
    return result


def bench_verdict(args: argparse.Namespace) -> dict[str, Any]:
    """The verdict model per pair on one thread: cold (both texts through every layer) and
    warm (the old record's lower-layer rows cached, as in the overlay), over held-out items."""
    import torch

    from atma.verdict import load_verdict_model

    torch.set_num_threads(args.threads)
    model = load_verdict_model(args.checkpoint or None)
    data = Path(args.data)
    data = data / "heldout.jsonl" if data.is_dir() else data  # evaluation reads data files, never training code
    items = [json.loads(line) for line in data.read_text("utf-8").splitlines() if line.strip()][: args.pairs]
    pairs = [(i["old_text"], i.get("old_speaker", i["speaker"]), i["new_text"], i.get("new_speaker", i["speaker"]))
             for i in items]
    model.predict(pairs[:4])  # warm-up
    cold, warm = [], []
    for p in pairs:
        model.lower.cache.clear()
        t0 = time.perf_counter()
        model.predict([p])
        cold.append(time.perf_counter() - t0)
        model.lower.cache.pop(model_text_new(p), None)  # new text is encoded again, old stays cached
        t0 = time.perf_counter()
        model.predict([p])
        warm.append(time.perf_counter() - t0)
    batch = pairs[: args.batch]
    model.lower.cache.clear()
    t0 = time.perf_counter()
    model.predict(batch)
    batch_s = time.perf_counter() - t0
    result = {"benchmark": "verdict", "threads": args.threads, "pairs": len(pairs), "cold": _pcts(cold),
              "warm_old_cached": _pcts(warm), "mean_cold_ms": round(1000 * float(np.mean(cold)), 2),
              "mean_warm_ms": round(1000 * float(np.mean(warm)), 2),
              "batch": {"pairs": len(batch), "ms_per_pair": round(1000 * batch_s / max(len(batch), 1), 2)},
              "model": model.name}
    print(f"verdict model, {len(pairs)} held-out pairs, {args.threads} thread(s):")
    print(f"  cold  mean {result['mean_cold_ms']:7.2f} ms  p50 {result['cold']['p50_ms']} ms  p95 {result['cold']['p95_ms']} ms")
    print(f"  warm  mean {result['mean_warm_ms']:7.2f} ms  p50 {result['warm_old_cached']['p50_ms']} ms  "
          f"p95 {result['warm_old_cached']['p95_ms']} ms  (old record's rows cached)")
    print(f"  batch of {len(batch)} cold: {result['batch']['ms_per_pair']} ms per pair")
    _dump(args, result)
    return result


def model_text_new(pair: tuple[str, str, str, str]) -> str:
    from atma.verdict import text_of

    return text_of(pair[2], pair[3])


def _dump(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


def _tmp_seed_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tmp", default=None, help="directory for the benchmark's files (default: the system's)")
    p.add_argument("--seed", type=int, default=13, help="seed of the generated memories and questions")
    p.add_argument("--json", default=None, help="write the result here")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eval.bench", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sentry", help="Sentry / cosine gate: records/s, pairs/s, latencies")
    p.add_argument("--gate", choices=("sentry", "cosine", "both"), default="both")
    p.add_argument("--checkpoint", default=None, help="Sentry checkpoint (default: shipped)")
    p.add_argument("--records", type=int, default=1000, help="records to encode")
    p.add_argument("--candidates", type=int, default=10, help="old rows per route call")
    p.add_argument("--calls", type=int, default=5000, help="route calls to time")
    p.add_argument("--single", type=int, default=50, help="single-record encodes to time")
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    p.add_argument("--device", default="cpu")
    p.add_argument("--texts", default=str(SENTRY_TEXTS),
                   help="records to encode: a Sentry training data file (default: the shipped checkpoint's)")
    p.add_argument("--seed", type=int, default=13, help="seed of the sampled route calls")
    p.add_argument("--json", default=None, help="write the result here")
    p.set_defaults(func=bench_sentry)
    p = sub.add_parser("storage", help="bytes on disk per record written through the overlay")
    p.add_argument("--records", type=int, default=1000, help="one-line facts written")
    p.add_argument("--embedder", default="minilm", help="minilm (the packaged MiniLM) or hash (no model)")
    p.add_argument("--trace-keep", type=int, default=None, help="keep the last N traces per kind (default: all)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--json", default=None, help="write the result here")
    p.set_defaults(func=bench_storage)
    p = sub.add_parser("scale", help="one namespace at growing sizes: writes/s, retrieve p50/p95, bytes, recall")
    p.add_argument("--sizes", default="1000,10000,100000", help="comma-separated namespace sizes (one growing bank)")
    p.add_argument("--queries", type=int, default=200, help="retrieve calls timed at each size")
    p.add_argument("--ann-threshold", type=int, default=None,
                   help="host rows from which the dense search uses the ANN index (default: the host's)")
    p.add_argument("--trace-keep", type=int, default=None, help="keep the last N traces per kind (default: all)")
    _tmp_seed_json(p)
    p.set_defaults(func=bench_scale)
    p = sub.add_parser("fanout", help="eval.stream serially vs --workers N on Ray, shipped fakes")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scenarios", type=int, default=8)
    p.add_argument("--events", type=int, default=300, help="events per scenario (written through the overlay)")
    p.add_argument("--probes", type=int, default=20, help="questions per scenario")
    p.add_argument("--llm-latency", type=float, default=0.05, help="seconds the fake answerer takes per call")
    _tmp_seed_json(p)
    p.set_defaults(func=bench_fanout)
    p = sub.add_parser("ann", help="recall@10 of the builtin host's ANN index against exact search")
    p.add_argument("--records", type=int, default=20000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--embedder", default="hash", help="hash (384-d, no model) or minilm (the packaged MiniLM)")
    _tmp_seed_json(p)
    p.set_defaults(func=bench_ann)
    p = sub.add_parser("verdict", help="verdict-model Judge: ms per pair on one core")
    p.add_argument("--checkpoint", default=None, help="verdict checkpoint (default: the packaged one)")
    p.add_argument("--data", default="checkpoints/judge/data", help="judge_data dir (held-out pairs)")
    p.add_argument("--pairs", type=int, default=151)
    p.add_argument("--batch", type=int, default=8, help="pairs in the batched timing (one write's pairs)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=None, help="write the result here")
    p.set_defaults(func=bench_verdict)
    from atma.llm.spec import DEFAULT_LLM

    for name, fn, help_ in (("answer", bench_answer, "overlay.answer p50/p95, LLM vs non-LLM time"),
                            ("write", bench_write, "overlay.add events/s with and without the Judge")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--llm", default=DEFAULT_LLM, help="LLM spec (default: %(default)s)")
        p.add_argument("--units", type=int, default=4, help="LTP profile-0 units whose cues are written")
        p.add_argument("--fillers", type=int, default=12, help="conversation turns written besides the cues")
        if name == "answer":
            p.add_argument("--questions", type=int, default=6, help="questions timed (after one warm-up)")
            p.add_argument("--judge", default="rule", choices=("rule", "verdict", "llm"),
                           help="audit Judge that builds the bank (default: %(default)s)")
        else:
            p.add_argument("--modes", default="rule,verdict,llm", help="comma-separated Judges to time")
        p.add_argument("--json", default=None, help="write the result here")
        p.set_defaults(func=fn)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
