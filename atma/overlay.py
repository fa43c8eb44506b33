"""ATMAOverlay: the one orchestrator (A-TMA Algorithm 1). Calls host, models and bank.

Write: host search for prior states ∪ linked live successors -> pair gate -> Judge ->
one bank commit. Read: profile -> host seeds -> view-aware hops -> pre-rank ->
optional controller -> TopK -> labelled packet -> state-conditioned QA.
"""

from __future__ import annotations

import logging
import time as _time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

import numpy as np

from . import controller as ctl
from .bank import StateBank
from .judge import Verdict, admission, fallback_verdict, pair_prefilter, plan_commit
from .packet import Candidate, apply_selection, build_pool, prerank, top_k
from .profiler import profile
from .protocols import LLM, GateScore, Host, HostHit, LLMError, PairGate
from .records import Record, Status
from .serializer import qa_messages, serialize
from .trace import JudgeCall, PairTrace, QueryTrace, WriteTrace

__all__ = ["ATMAOverlay", "AddResult", "Answer", "OverlayConfig", "parse_time"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class OverlayConfig:
    """Run configuration. Defaults follow A-TMA App. A.8 where it gives numbers."""

    k: int = 5  # packet size (retrieval budget)
    seed_k: int = 10  # host seeds per query
    candidate_k: int = 8  # host hits searched per write for prior states
    # Judge calls per write at most (strongest gate pairs first). None: the Judge's own
    # ``max_pairs`` (1 for an LLM Judge, 3 for the verdict model, which takes milliseconds).
    max_judge_pairs: int | None = None
    admission: bool = True  # questions and short reactions are stored without an audit
    # True: pairs by two different speakers never reach the Judge. None: only when the Judge
    # cannot tell speakers apart (the LLM prompt, the rule); the verdict model is trained on
    # cross-speaker pairs (acknowledgements join a slot, others' news changes nothing).
    same_speaker_only: bool | None = None
    judge_max_tokens: int = 256
    judge_timeout_s: float = 180.0  # the first call also reads the (then cached) system prompt
    use_judge: bool = True  # False: the deterministic rule decides every escalated pair (whatever ``judge`` is)
    qa_max_tokens: int = 96
    qa_timeout_s: float = 120.0
    qa_labels: bool = True  # False: every row is "retrieved memory" (the -QA label ablation)
    with_time: bool = True
    # "retrieval": rows reach the answer model in rank order, as the paper's serializer does.
    # "time": oldest first (membership still decided by rank). Measured both ways on the LTP
    # reconstruction with the 1.5B model; neither wins everywhere (see README).
    packet_order: str = "retrieval"
    prerank: str = "interleave"  # or "bucket" (Eq. 10 literally)
    controller: ctl.ControllerConfig = field(default_factory=ctl.ControllerConfig)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AddResult:
    record: Record
    trace: WriteTrace


@dataclass(frozen=True)
class Answer:
    answer: str
    trace: QueryTrace
    packet: tuple[Record, ...]


def _time_key(r: Record) -> tuple[int, float, int]:
    """Oldest first; undated rows last, in bank order."""
    if r.time is None:
        return (1, 0.0, r.seq)
    t = r.time if r.time.tzinfo else r.time.replace(tzinfo=timezone.utc)
    return (0, t.timestamp(), r.seq)


def parse_time(value: datetime | str | None) -> datetime | None:
    """Accept a datetime, an ISO 8601 string or None; anything else is a one-line ValueError."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"malformed time {value!r}: use ISO 8601, e.g. 2024-06-02T10:00")


class ATMAOverlay:
    """Wraps a host memory system with a state bank, state-aware retrieval and labelled QA.

    ``llm`` answers questions; ``controller_llm`` defaults to it. ``judge`` decides state
    relations (an :class:`atma.judging.JudgeBackend`); when it is not given, ``judge_llm``
    (an LLM) judges with the Judge prompt if given, else the packaged verdict model
    (:func:`atma.judging.default_judge`; the deterministic rule where torch is missing).
    ``gate`` decides which pairs the Judge sees (default: the shipped Sentry checkpoint;
    where torch or the checkpoint is missing, cosine similarity over ``embedder`` or the
    host's embedder).
    """

    def __init__(
        self,
        host: Host,
        *,
        namespace: str,
        llm: LLM | None = None,
        judge_llm: LLM | None = None,
        judge: Any = None,
        controller_llm: LLM | None = None,
        gate: PairGate | None = None,
        embedder: Any = None,
        bank: StateBank | None = None,
        config: OverlayConfig | None = None,
    ) -> None:
        if not namespace or not isinstance(namespace, str):
            raise ValueError("namespace must be a non-empty string")
        self.host = host
        self.namespace = namespace
        self.llm = llm
        self.judge_llm = judge_llm
        self.controller_llm = controller_llm or llm
        self.config = config or OverlayConfig()
        if bank is None:
            path = getattr(host, "path", None)
            bank = StateBank(path if isinstance(path, str) and path else ":memory:")
        self.bank = bank
        if gate is None:
            from .sentry import default_gate

            try:
                gate = default_gate(embedder or getattr(host, "embedder", None))
            except (ImportError, OSError) as exc:
                raise ValueError("no pair gate: the shipped Sentry needs atma[embed] "
                                 f"({str(exc).splitlines()[0]}); pass gate=... or embedder=...") from exc
        self.gate = gate
        if judge is None:
            from .judging import LLMJudge, default_judge

            judge = (LLMJudge(judge_llm, max_tokens=self.config.judge_max_tokens, timeout_s=self.config.judge_timeout_s)
                     if judge_llm is not None else default_judge())
        self.judge = judge

    # ------------------------------------------------------------------- write
    def add(self, text: str, *, time: datetime | str | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> AddResult:
        """Store one event in the host and commit its state relations to the bank."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text must be a non-empty string")
        when = parse_time(time)
        ns, cfg = self.namespace, self.config
        t0 = _time.perf_counter()

        hits = self.host.search(text, namespace=ns, k=cfg.candidate_k)
        candidates = self._prior_states(hits)
        t_search = _time.perf_counter()

        new_feat = np.asarray(self.gate.features([text])[0], dtype=np.float32)
        scores = self._gate_scores(candidates, new_feat)
        t_gate = _time.perf_counter()

        host_id = self.host.add(text, namespace=ns, time=when, speaker=speaker, meta=meta)
        rid, seq = self.bank.next_id(ns)
        new = Record(id=rid, seq=seq, namespace=ns, text=text, time=when, speaker=speaker, host_id=host_id,
                     meta=dict(meta or {}))

        skip = admission(text) if cfg.admission else None
        escalated = [] if skip else sorted((p for p in zip(candidates, scores) if p[1].escalate), key=lambda p: -p[1].a)
        same_only = cfg.same_speaker_only
        if same_only is None:
            same_only = not getattr(self.judge, "handles_speakers", False) or not cfg.use_judge
        if same_only:
            escalated = [p for p in escalated if pair_prefilter(p[0][0], new) is None]
        max_pairs = cfg.max_judge_pairs if cfg.max_judge_pairs is not None else getattr(self.judge, "max_pairs", 1)
        if cfg.admission:  # an old question or reaction holds no state to retire
            escalated = [p for p in escalated if admission(p[0][0].text) is None]
        decisions: list[tuple[Record, Verdict]] = []
        calls: list[JudgeCall] = []
        llm_s = 0.0
        for (old, _src), score in escalated[: max_pairs]:
            verdict, call = self._judge(old, new, score)
            llm_s += call.latency_s
            decisions.append((old, verdict))
            calls.append(call)
        t_judge = _time.perf_counter()

        slots = {old.slot for old, v in decisions if v.action != "none" or v.same_value}
        members = {s: self.bank.slot_members(ns, s) for s in slots}
        commit = plan_commit(new, decisions, members)
        stored = self.bank.commit(commit, features={self.gate.cache_key: new_feat})
        t_end = _time.perf_counter()

        trace = WriteTrace(
            record_id=stored.id, host_id=host_id, text=text, gate=self.gate.name,
            candidates=tuple(PairTrace(id=old.id, text=old.text, status=old.status.value, source=src, a=s.a, b=s.b,
                                       d=s.d, escalate=s.escalate) for (old, src), s in zip(candidates, scores)),
            judge=tuple(calls),
            changes=tuple({"action": c.action.value, "old_id": c.old_id} for c in commit.changes),
            slot=stored.slot, status=stored.status.value, audit=skip or "audited",
            timings={"search_s": t_search - t0, "gate_s": t_gate - t_search, "judge_s": t_judge - t_gate,
                     "judge_llm_s": llm_s, "commit_s": t_end - t_judge, "total_s": t_end - t0},
        )
        self.bank.save_trace(ns, "write", trace.to_json(), [stored.id, *(old.id for (old, _), _ in zip(candidates, scores))])
        return AddResult(stored, trace)

    def _map_hits(self, hits: Sequence[HostHit]) -> list[tuple[HostHit, list[Record]]]:
        """Each hit with the bank records behind it: the record written for its host id, or,
        for hosts whose hits are derived facts (Graphiti), the records of the episodes
        named in ``native["episodes"]``."""
        ns = self.namespace
        ids = [h.host_id for h in hits]
        for h in hits:
            ids.extend(str(e) for e in (h.native or {}).get("episodes", ()) or ())
        mapped = self.bank.by_host_ids(ns, ids)
        out = []
        for h in hits:
            rec = mapped.get(h.host_id)
            if rec is not None:
                out.append((h, [rec]))
            else:
                eps = [mapped[str(e)] for e in (h.native or {}).get("episodes", ()) or () if str(e) in mapped]
                out.append((h, eps))
        return out

    def _prior_states(self, hits: Sequence[HostHit]) -> list[tuple[Record, str]]:
        """P_j: live records behind the host's hits, plus the live head of any stale hit's chain."""
        ns = self.namespace
        out: list[tuple[Record, str]] = []
        seen: set[str] = set()
        heads: list[tuple[str, str]] = []
        ranked = [(rank, rec) for rank, (_, recs) in enumerate(self._map_hits(hits), 1) for rec in recs]
        for rank, rec in ranked:
            if rec.id in seen:
                continue
            if rec.is_live:
                seen.add(rec.id)
                out.append((rec, f"host#{rank}"))
            else:
                heads.append((self.bank.head(ns, rec.id), rec.id))
        if heads:
            got = self.bank.get_many(ns, [h for h, _ in heads])
            for hid, via in heads:
                rec = got.get(hid)
                if rec is not None and rec.is_live and rec.id not in seen:
                    seen.add(rec.id)
                    out.append((rec, f"head<-{via}"))
        return out

    def _gate_scores(self, candidates: Sequence[tuple[Record, str]], new_feat: np.ndarray) -> list[GateScore]:
        if not candidates:
            return []
        ns, key = self.namespace, self.gate.cache_key
        ids = [r.id for r, _ in candidates]
        cached = self.bank.features(ns, ids, key, new_feat.shape[0])
        missing = [r for r, _ in candidates if r.id not in cached]
        if missing:  # records written before this gate existed: encode once and keep
            rows = np.asarray(self.gate.features([r.text for r in missing]), dtype=np.float32)
            fresh = {r.id: rows[i] for i, r in enumerate(missing)}
            self.bank.put_features(ns, fresh, key)
            cached.update(fresh)
        return self.gate.route(new_feat, np.stack([cached[i] for i in ids]))

    def _judge(self, old: Record, new: Record, score: GateScore) -> tuple[Verdict, JudgeCall]:
        """One pair through the configured Judge backend; never raises (a failing backend
        gives the deterministic rule's verdict, traced as a fallback)."""
        if not self.config.use_judge:
            v = fallback_verdict(old, new, score, why="judge disabled")
            return v, JudgeCall(old_id=old.id, status="skipped", verdict=v.model_dump(), fallback=True,
                                error="judge disabled")
        t0 = _time.perf_counter()
        try:
            return self.judge.decide(old, new, score)
        except Exception as e:  # noqa: BLE001 - a broken backend must not lose the write
            v = fallback_verdict(old, new, score, why="error")
            return v, JudgeCall(old_id=old.id, status="error", verdict=v.model_dump(), fallback=True,
                                error=f"{type(e).__name__}: {e}"[:300], latency_s=_time.perf_counter() - t0)

    # -------------------------------------------------------------------- read
    def retrieve(self, query: str, *, k: int | None = None) -> tuple[list[Record], dict[str, Any]]:
        """Build the evidence packet E_q. Returns the records and the retrieval part of the trace."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query must be a non-empty string")
        cfg, ns = self.config, self.namespace
        k = cfg.k if k is None else k
        t0 = _time.perf_counter()
        prof = profile(query)
        hits = self.host.search(query, namespace=ns, k=cfg.seed_k)
        seeds: list[tuple[Record, float]] = []
        for h, recs in self._map_hits(hits):
            if not recs:  # a host row the overlay never saw: keep it, state unknown
                recs = [Record(id=f"host:{h.host_id}", namespace=ns, text=h.text, time=h.time, speaker=h.speaker,
                               status=Status.UNKNOWN, host_id=h.host_id, meta={"native": dict(h.native)})]
            seeds.extend((rec, h.score) for rec in recs)
        neighbours = self._host_neighbours([r for r, _ in seeds])
        pool = build_pool(seeds, prof.view, lambda ids: self.bank.get_many(ns, ids), host_neighbors=neighbours,
                          mode="bucket" if cfg.prerank == "bucket" else "interleave")
        pi0 = prerank(pool)
        t_pool = _time.perf_counter()
        result = self._control(query, prof, pool, k)
        final = apply_selection(pi0, result.selected, k) if result.applied else top_k(pi0, k)
        by_id = {c.id: c for c in pool}
        packet = [by_id[i].record for i in final]
        t_end = _time.perf_counter()
        part = {
            "profile": prof.to_json(),
            "pool": tuple(c.to_json() for c in pool),
            "prerank": tuple(pi0),
            "controller": result.to_json(),
            "packet": tuple(final),
            "timings": {"retrieve_s": t_pool - t0, "controller_s": t_end - t_pool,
                        "controller_llm_s": result.latency_s},
            "view": prof.view,
        }
        return packet, part

    def _host_neighbours(self, seeds: Sequence[Record]) -> dict[str, list[Record]]:
        """Semantic hops the host itself keeps (A-Mem note links), mapped to bank records."""
        fn = getattr(self.host, "neighbors", None)
        if fn is None:
            return {}
        by_seed = {r.id: [str(x) for x in fn(r.host_id, namespace=self.namespace) or ()] for r in seeds if r.host_id}
        mapped = self.bank.by_host_ids(self.namespace, [x for xs in by_seed.values() for x in xs])
        return {rid: [mapped[x] for x in xs if x in mapped] for rid, xs in by_seed.items() if xs}

    def _control(self, query: str, prof: Any, pool: Sequence[Candidate], k: int) -> ctl.ControllerResult:
        cc = self.config.controller
        if cc.mode == "off" or not pool:
            return ctl.ControllerResult(cc.mode, "off", False)
        if self.controller_llm is None:
            return ctl.ControllerResult(cc.mode, "error", False, error="no controller model")
        msgs = ctl.controller_messages(query, prof, pool, k, cc)
        t0 = _time.perf_counter()
        try:
            comp = self.controller_llm.complete(msgs, max_tokens=cc.max_tokens, temperature=cc.temperature,
                                                json_schema=ctl.CONTROLLER_SCHEMA, timeout=cc.timeout_s)
        except LLMError as e:
            status = "timeout" if "timed out" in str(e).lower() or "timeout" in str(e).lower() else "error"
            return ctl.ControllerResult(cc.mode, status, False, error=str(e)[:300], latency_s=_time.perf_counter() - t0)
        res = ctl.parse_controller(comp.text, pool, k, cc)
        return replace(res, latency_s=comp.latency_s or (_time.perf_counter() - t0),
                       prompt_tokens=comp.prompt_tokens, completion_tokens=comp.completion_tokens)

    def answer(self, query: str, *, k: int | None = None) -> Answer:
        """Answer from a state-aligned, labelled packet; the trace is stored in the bank."""
        if self.llm is None:
            raise ValueError("no answer model: pass llm=... to ATMAOverlay")
        t0 = _time.perf_counter()
        packet, part = self.retrieve(query, k=k)
        shown = sorted(packet, key=_time_key) if self.config.packet_order == "time" else packet
        rows = serialize(shown, with_time=self.config.with_time)
        if not self.config.qa_labels:
            rows = [replace(r, label="retrieved memory") for r in rows]
        msgs = qa_messages(query, part["view"], rows)
        t1 = _time.perf_counter()
        comp = self.llm.complete(msgs, max_tokens=self.config.qa_max_tokens, temperature=0.0,
                                 timeout=self.config.qa_timeout_s)
        t2 = _time.perf_counter()
        text = comp.text.strip()
        timings = dict(part["timings"])
        timings.update({"qa_llm_s": comp.latency_s or (t2 - t1), "total_s": t2 - t0})
        timings["non_llm_s"] = timings["total_s"] - timings["qa_llm_s"] - timings.get("controller_llm_s", 0.0)
        trace = QueryTrace(query=query, namespace=self.namespace, profile=part["profile"], pool=part["pool"],
                           prerank=part["prerank"], controller=part["controller"], packet=part["packet"],
                           labelled=tuple(r.to_json() for r in rows), prompt=tuple(dict(m) for m in msgs),
                           answer=text, timings=timings,
                           config={"k": k or self.config.k, "gate": self.gate.name, "llm": getattr(self.llm, "name", "")})
        self.bank.save_trace(self.namespace, "query", trace.to_json(), [row["id"] for row in part["pool"]])
        return Answer(text, trace, tuple(packet))

    def host_answer(self, query: str, *, k: int | None = None) -> tuple[str, list[HostHit]]:
        """The host alone on the same store: its own top-k rows and its own plain answerer."""
        hits = self.host.search(query, namespace=self.namespace, k=k or self.config.k)
        answerer = getattr(self.host, "answer", None)
        if answerer is None:
            raise ValueError(f"host {getattr(self.host, 'name', type(self.host).__name__)!r} has no answerer")
        return answerer(query, hits, namespace=self.namespace), hits

    # ------------------------------------------------------------------ admin
    def records(self) -> list[Record]:
        return self.bank.records(self.namespace)

    def erase(self, record_ids: Sequence[str]) -> None:
        """Hard delete from the bank (records, links, features, traces) and from the host."""
        host_ids = self.bank.erase(self.namespace, record_ids)
        eraser = getattr(self.host, "erase", None)
        if host_ids and eraser is not None:
            eraser(host_ids, namespace=self.namespace)
