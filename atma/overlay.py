"""ATMAOverlay: the one orchestrator (A-TMA Algorithm 1). Calls host, models and bank.

Write: host search for prior states ∪ linked live successors -> pair gate -> Judge ->
one bank commit. Read: profile -> host seeds -> view-aware hops -> pre-rank ->
optional controller -> TopK -> labelled packet -> state-conditioned QA.
"""

from __future__ import annotations

import logging
import os
import time as _time
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Literal, Mapping, Sequence

import numpy as np

from . import controller as ctl
from .answercheck import check_answer
from .bank import BankError, StateBank, check_namespace
from .judge import (MAX_RAW_CHARS, Verdict, admission, fallback_verdict, keep_strongest_changes, named_old_values,
                    names_phrase, names_shared,
                    pair_prefilter, plan_commit, reported_earlier)
from .packet import PREDECESSOR, Candidate, apply_selection, build_pool, prerank, shape_packet, top_k
from .profiler import profile
from .protocols import LLM, GateScore, Host, HostHit, LLMError, PairGate, error_line as _why, failure_status as _failure_status
from .records import SUCCESSOR, Record, Status
from .serializer import qa_messages, resolved_messages, serialize, state_rows
from .trace import JudgeCall, PairTrace, QueryTrace, WriteTrace

__all__ = ["ATMAOverlay", "AddResult", "Answer", "OverlayConfig", "fit_packet", "parse_time"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class OverlayConfig:
    """Run configuration. Defaults follow A-TMA App. A.8 where it gives numbers."""

    k: int = 5  # packet size (retrieval budget)
    seed_k: int = 10  # host seeds per query
    candidate_k: int = 12  # host hits searched per write for prior states
    # A statement that names what ended ("No more tap dance for me, I signed up for bachata")
    # searches the host once more for that name (this many hits, each kept only when it holds
    # the name), and a candidate holding the name is judged whatever the gate says: the first
    # search follows the new value's words. 0: off.
    named_search_k: int = 4
    # Judge calls per write at most (strongest gate pairs first). None: the Judge's own
    # ``max_pairs`` (1 for an LLM Judge, 3 for the verdict model, which takes milliseconds).
    max_judge_pairs: int | None = None
    # Pairs at least this close in topic (the gate's ``a``) are judged even when the gate does not
    # escalate them, when the Judge is cheap (the rule, the verdict model): the Sentry's logic head
    # calls many plain revisions consistent ("6 cups of coffee a day" / "3 cups a day now - 6 was
    # way off"), and pairs that share a name ("I live in Nashville" / "I don't live in Nashville
    # anymore"). None: the gate alone decides.
    close_pair_a: float | None = 0.65
    # State changes (supersede / transition) one write may commit from its independently judged
    # pairs: the most confident are kept, the rest change nothing (one statement rarely ends two
    # states; a restated copy of a retired value is retired through its slot anyway). None: all.
    max_changes: int | None = 1
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
    # "resolved": the packet is shaped by the view (a stale hit shows its live successor for
    # current questions; the replaced state leads for historical ones), the host's own top
    # hits stay unless replaced that way, and rows carry plain state notes.
    # "labelled": the paper's packet (pool order, five bracketed labels, qa-v3 prompt).
    # "control": the length-matched control of the attribution arms: as many rows as the
    # resolved packet, taken from the host's own top hits, same prompt, no state at all.
    # "checked": the host's own packet and answer first; the overlay re-asks, from a resolved
    # packet with a one-line hint, only when that answer names a value of the state the question
    # does not ask for (the host's answer stands otherwise: never worse than the host unless the
    # bank's state says the host's answer is stale).
    packet_mode: Literal["resolved", "labelled", "control", "checked"] = "checked"
    # "time": oldest first (membership still decided by rank), as the builtin host shows its
    # rows, so a packet without state differs from the host's in nothing but its prompt.
    # "retrieval": rank order, as the paper's serializer does.
    packet_order: Literal["retrieval", "time"] = "time"
    prerank: Literal["interleave", "bucket"] = "interleave"  # "bucket": Eq. 10 literally
    # Re-ask once, without the wrong-state rows, when the answer names only a value of the
    # state the question did not ask for (resolved packets).
    answer_check: bool = True
    # What a checked answer's re-ask shows. "focused": the host's own rows without the stale
    # row, with the chain's record of the asked state added (found one link from the host's
    # rows even when its search missed it). "asked": for a question about now, that record
    # of the live state alone (the host's other rows are other slots' values, which the
    # small reader picked: LTP dev, 54 re-asks, 11 more right and 1 fewer vs "focused");
    # other views as "focused" (there the record alone did worse: 2 more right, 5 fewer).
    # "resolved": the resolved packet of ``retrieve`` (its hops can hold other slots'
    # values too).
    reask_packet: Literal["asked", "focused", "resolved"] = "asked"
    # Only the chains of the host's first N hits are resolved (shaped and noted); other hits
    # are shown as the host ranked them. None resolves every hit's chain.
    resolve_top: int | None = 2
    # Adaptive k: rows kept when the first row already answers the view from a resolved
    # chain; None keeps k rows.
    resolved_k: int | None = None
    # Prompt budget in tokens; None: the answer model's context (``context_tokens`` or
    # ``config.n_ctx``), else 4096.
    context_tokens: int | None = None
    # Stored traces kept per namespace and kind: None keeps all, 0 stores none, N keeps the newest N.
    trace_keep: int | None = None
    controller: ctl.ControllerConfig = field(default_factory=ctl.ControllerConfig)

    def __post_init__(self) -> None:
        for name, allowed in (("packet_mode", ("resolved", "labelled", "control", "checked")), ("packet_order", ("retrieval", "time")),
                              ("prerank", ("interleave", "bucket")),
                              ("reask_packet", ("asked", "focused", "resolved"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"OverlayConfig.{name} must be one of {', '.join(allowed)}; "
                                 f"got {getattr(self, name)!r}")
        if self.k < 1 or self.seed_k < 1:
            raise ValueError("OverlayConfig.k and seed_k must be at least 1")

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


#: Key of a bank record's time annotation (:func:`atma.timeexpr.annotations_json`) in ``Record.meta``.
TIME_META = "time"


def annotate_time(text: str, when: datetime | None, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The record's meta with its time expressions resolved against its own timestamp
    (``meta["time"]``: span, resolved date or range, granularity, and the event time); the
    text is never altered. A caller's own ``meta["time"]`` is kept as given."""
    out = dict(meta)
    if when is not None and TIME_META not in out:
        from .timeexpr import annotations_json

        ann = annotations_json(text, when)
        if ann.get("expressions"):
            out[TIME_META] = ann
    return out


def host_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """What the host stores of a record's meta: the caller's, without the bank's time annotation."""
    return {k: v for k, v in meta.items() if k != TIME_META}


def _event_key(r: Record) -> tuple[int, float, int]:
    from .timeexpr import annotations_json, event_range

    ann = r.meta.get("time") if isinstance(r.meta, Mapping) else None
    if ann is None and r.time is not None:
        ann = annotations_json(r.text, r.time)
    rng = event_range(ann) if ann else None
    if rng is None:
        return _time_key(r)
    return (0, datetime(rng[0].year, rng[0].month, rng[0].day, tzinfo=timezone.utc).timestamp(), r.seq)


def approx_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """A safe over-estimate of a chat prompt's tokens (about 3 characters a token for
    English with Qwen's tokenizer, plus the template's few tokens per message)."""
    return sum(len(m.get("content", "")) // 3 + 8 for m in messages)


def fit_packet(packet: Sequence[Record], build: Any, budget: int) -> list[Record]:
    """The longest prefix of ``packet`` (rank order) whose prompt fits ``budget`` tokens:
    the lowest-ranked rows go first. Rows themselves are cut to length by the serializer."""
    shown = list(packet)
    while shown and approx_tokens(build(shown)) > budget:
        shown.pop()
    return shown


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


#: Plans per write: when another writer changes the state a plan relied on, the write is planned again.
MAX_PLAN_ATTEMPTS = 3


class _Conflict(Exception):
    """Another writer changed a record or slot this write was planned against."""


@dataclass(frozen=True)
class _Pending:
    token: str
    host_id: str


@dataclass(frozen=True)
class _WritePlan:
    new: Record
    new_feat: np.ndarray
    candidates: list[tuple[Record, str]]
    scores: list[GateScore]
    decisions: list[tuple[Record, Verdict]]
    calls: tuple[JudgeCall, ...]
    skip: str | None
    slots_seen: dict[str, tuple[tuple[str, str], ...]]
    timings: dict[str, float]
    t_end: float
    t0: float


def _members_key(members: Sequence[Record]) -> tuple[tuple[str, str], ...]:
    return tuple((m.id, m.status.value) for m in members)


def _shared_sqlite(host: Any) -> Any:
    fn = getattr(host, "shared_sqlite", None)
    try:
        return fn() if fn is not None else None
    except Exception:  # noqa: BLE001 - a host that cannot share writes on its own
        return None


def _same_file(a: Any, b: Any) -> bool:
    if not isinstance(a, str) or not isinstance(b, str) or ":memory:" in (a, b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_text(what: str, value: Any) -> None:
    """Refuse text that cannot be stored (not a string, or a lone surrogate UTF-8 cannot encode)."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} is not valid text (lone surrogate at position {_surrogate_at(value)})") from None


def _surrogate_at(value: str) -> int:
    return next((i for i, ch in enumerate(value) if 0xD800 <= ord(ch) <= 0xDFFF), -1)


def _reply_text(comp: Any) -> tuple[Any, float, int, int]:
    """``(text, latency_s, prompt_tokens, completion_tokens)`` of whatever an LLM object returned;
    fields that are missing or not numbers read as 0, ``text`` is returned as is (the parser
    rejects what is not a string)."""
    def num(x: Any, kind: type) -> Any:
        return kind(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf") else kind(0)
    try:
        text = getattr(comp, "text", None)
        return (text, num(getattr(comp, "latency_s", 0.0), float), num(getattr(comp, "prompt_tokens", 0), int),
                num(getattr(comp, "completion_tokens", 0), int))
    except Exception:  # noqa: BLE001 - a hostile reply object
        return None, 0.0, 0, 0


class ATMAOverlay:
    """Wraps a host memory system with a state bank, state-aware retrieval and labelled QA.

    ``ATMAOverlay(host)`` is enough: what is not given comes from :mod:`atma.factory`, built
    on first use, never here (constructing an overlay loads no model).

    ``namespace`` is the user / tenant every call reads and writes (default ``"default"``).
    ``llm`` answers questions (default: the packaged answer model, :func:`atma.factory.default_llm`,
    loaded on the first :meth:`answer`); ``controller_llm`` defaults to it. ``judge`` decides
    state relations (an :class:`atma.judging.JudgeBackend`); when it is not given, ``judge_llm``
    (an LLM) judges with the Judge prompt if given, else the deterministic anchored rule
    (:func:`atma.factory.default_judge`).
    ``gate`` decides which pairs the Judge sees (default, loaded on the first :meth:`add`: the
    shipped Sentry checkpoint; where torch or the checkpoint is missing, cosine similarity
    over ``embedder`` or the host's embedder, :func:`atma.factory.default_gate`).
    """

    def __init__(
        self,
        host: Host,
        *,
        namespace: str = "default",
        llm: LLM | None = None,
        judge_llm: LLM | None = None,
        judge: Any = None,
        controller_llm: LLM | None = None,
        gate: PairGate | None = None,
        embedder: Any = None,
        bank: StateBank | None = None,
        config: OverlayConfig | None = None,
    ) -> None:
        check_namespace(namespace)  # refused at once, before any store is touched
        self.host = host
        self.namespace = namespace
        self._llm = llm
        self.judge_llm = judge_llm
        self._controller_llm = controller_llm
        self._gate = gate
        self._embedder = embedder
        self.config = config or OverlayConfig()
        path = getattr(host, "path", None)
        share = _shared_sqlite(host)
        if bank is None:
            if share is not None:  # one file, one connection: a write is one transaction
                bank = StateBank(path, connection=share[0], lock=share[1])
            else:
                bank = StateBank(path if isinstance(path, str) and path else ":memory:")
        elif share is not None and not bank.shared and _same_file(bank.path, path):
            bank.share_connection(*share)
        self.bank = bank
        if not bank.shared:
            self.recover()
        if judge is None:
            from .factory import default_judge
            from .judging import LLMJudge

            judge = (LLMJudge(judge_llm, max_tokens=self.config.judge_max_tokens, timeout_s=self.config.judge_timeout_s)
                     if judge_llm is not None else default_judge())  # the rule: nothing to load
        self.judge = judge

    # ------------------------------------------------------------------- models, on first use
    def _gate_name(self) -> str:
        """The gate's name for a trace, without loading a default gate that no write has used."""
        return self._gate.name if self._gate is not None else "(default, not loaded)"

    @property
    def llm(self) -> LLM:
        """The answer model: the one given, else the packaged default, loaded now (once). A model
        that cannot be loaded raises one :class:`LLMError` line saying what to pass instead."""
        return self._answer_model()

    def _answer_model(self) -> LLM:
        if self._llm is None:
            from .factory import default_llm

            self._llm = default_llm(load=True)
        return self._llm

    @property
    def controller_llm(self) -> LLM:
        """The retrieve controller's model: the one given, else :attr:`llm`."""
        return self._controller_llm if self._controller_llm is not None else self.llm

    @property
    def gate(self) -> PairGate:
        """The pair gate: the one given, else the factory's default, built now (once)."""
        if self._gate is None:
            from .factory import default_gate

            try:
                self._gate = default_gate(self._embedder or getattr(self.host, "embedder", None))
            except (ImportError, OSError) as exc:
                raise ValueError("no pair gate: the shipped Sentry needs atma[embed] "
                                 f"({str(exc).splitlines()[0]}); pass gate=... or embedder=...") from exc
        return self._gate

    # ------------------------------------------------------------------- write
    def add(self, text: str, *, time: datetime | str | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> AddResult:
        """Store one event in the host and commit its state relations to the bank."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("text must be a non-empty string")
        _check_text("text", text)
        _check_text("speaker", speaker)
        when = parse_time(time)
        meta = dict(meta or {})
        last = MAX_PLAN_ATTEMPTS - 1
        pending: _Pending | None = None  # an external host's row, written ahead of the bank commit
        try:
            for attempt in range(MAX_PLAN_ATTEMPTS):
                plan = self._plan(text, when, speaker, meta)
                if not self.bank.shared and pending is None:
                    pending = self._host_write_ahead(plan.new)
                try:
                    return self._apply(plan, attempt=attempt, final=attempt == last, pending=pending)
                except _Conflict:
                    log.info("another writer changed the state this write was planned against; re-planning")
        except BaseException:
            if pending is not None:
                self._undo_host_write(pending)
            raise
        raise AssertionError("unreachable: the final attempt never raises _Conflict")  # pragma: no cover

    def _host_write_ahead(self, new: Record) -> "_Pending":
        """For a host that does not share the bank's transaction: record the intent in the bank,
        write the host row, note its id. The intent is closed in the bank commit's transaction;
        one left open (a killed writer) is finished by :meth:`recover` (the host row is erased)."""
        ns = self.namespace
        token = self.bank.open_intent(ns)
        try:
            host_id = self.host.add(new.text, namespace=ns, time=new.time, speaker=new.speaker, meta=host_meta(new.meta))
        except BaseException:
            self.bank.close_intent(ns, token)  # nothing (known) was written
            raise
        self.bank.set_intent_host(ns, token, host_id)
        return _Pending(token=token, host_id=host_id)

    def recover(self) -> int:
        """Finish writes a killed process left half done (external hosts only; a host sharing the
        bank's file needs none): a host row written without its bank commit is erased. Intents of
        live processes are left alone. Returns how many intents were settled."""
        ns = self.namespace
        settled = 0
        for token, host_id in self.bank.stale_intents(ns):
            if host_id and not self.bank.by_host_ids(ns, [host_id]):
                eraser = getattr(self.host, "erase", None)
                if eraser is None:
                    log.warning("host row %s of an interrupted write stays: the host cannot erase", host_id)
                else:
                    eraser([host_id], namespace=ns)
            elif not host_id:
                log.warning("a write was interrupted inside host.add; the host may hold one row the bank "
                            "does not know (intent %s)", token)
            self.bank.close_intent(ns, token)
            settled += 1
        return settled

    def _plan(self, text: str, when: datetime | None, speaker: str, meta: Mapping[str, Any]) -> "_WritePlan":
        """Search, gate and Judge for a new event, outside any write lock (model calls are slow).
        The new record is provisional: its id and host id are given when the plan is applied."""
        ns, cfg = self.namespace, self.config
        t0 = _time.perf_counter()
        hits = list(self.host.search(text, namespace=ns, k=cfg.candidate_k))
        not_admitted = admission(text)  # a question or a short reaction (None: a statement)
        named = named_old_values(text) if cfg.named_search_k > 0 and not_admitted is None else []
        first = len(hits)
        seen_hosts = {h.host_id for h in hits}
        for phrase in named:
            for h in self.host.search(phrase, namespace=ns, k=cfg.named_search_k):
                if h.host_id not in seen_hosts and names_phrase(h.text, phrase):
                    seen_hosts.add(h.host_id)
                    hits.append(h)
        candidates = self._prior_states(hits, named_from=first)
        holds_name = {old.id for old, _src in candidates if any(names_phrase(old.text, ph) for ph in named)}
        t_search = _time.perf_counter()

        new_feat = np.asarray(self.gate.features([text])[0], dtype=np.float32)
        scores = self._gate_scores(candidates, new_feat)
        t_gate = _time.perf_counter()

        new = Record(id="", seq=0, namespace=ns, text=text, time=when, speaker=speaker,
                     meta=annotate_time(text, when, meta))
        skip = not_admitted if cfg.admission else None
        close = cfg.close_pair_a if (getattr(self.judge, "cheap", False) or not cfg.use_judge) else None
        escalated = [] if skip else sorted(
            (p for p in zip(candidates, scores)
             if p[1].escalate or p[0][0].id in holds_name
             or (close is not None and (p[1].a >= close or names_shared(p[0][0], text)))),
            key=lambda p: (p[0][0].id not in holds_name, -p[1].a))
        same_only = cfg.same_speaker_only
        if same_only is None:
            same_only = not getattr(self.judge, "handles_speakers", False) or not cfg.use_judge
        if same_only:
            escalated = [p for p in escalated if pair_prefilter(p[0][0], new) is None]
        max_pairs = cfg.max_judge_pairs if cfg.max_judge_pairs is not None else getattr(self.judge, "max_pairs", 1)
        if cfg.admission:  # an old question or reaction holds no state to retire
            escalated = [p for p in escalated if admission(p[0][0].text) is None]
        # a memory about a time before the old statement ("back in 2019 I lived in Leeds") retires nothing
        escalated = [p for p in escalated if not reported_earlier(p[0][0], new)]
        decisions: list[tuple[Record, Verdict]] = []
        calls: list[JudgeCall] = []
        llm_s = 0.0
        if getattr(self.judge, "pairs_per_side", False):
            mine: list = []
            others: list = []
            for p in escalated:
                (mine if pair_prefilter(p[0][0], new) is None else others).append(p)
            escalated = sorted(mine[:max_pairs] + others[:max_pairs], key=lambda p: -p[1].a)
        else:
            escalated = escalated[:max_pairs]
        for (old, _src), score in escalated:
            verdict, call = self._judge(old, new, score)
            llm_s += call.latency_s
            decisions.append((old, verdict))
            calls.append(call)
        decisions = keep_strongest_changes(decisions, cfg.max_changes, text)
        t_judge = _time.perf_counter()
        slots = {old.slot or old.id for old, v in decisions if v.action != "none" or v.same_value}
        seen = {s: _members_key(self.bank.slot_members(ns, s)) for s in slots}
        return _WritePlan(new=new, new_feat=new_feat, candidates=candidates, scores=scores, decisions=decisions,
                          calls=tuple(calls), skip=skip, slots_seen=seen,
                          timings={"search_s": t_search - t0, "gate_s": t_gate - t_search, "judge_s": t_judge - t_gate,
                                   "judge_llm_s": llm_s}, t_end=t_judge, t0=t0)

    def _apply(self, plan: "_WritePlan", *, attempt: int, final: bool, pending: "_Pending | None") -> AddResult:
        """Write a plan as one unit: host row, bank record and links, features and the write trace.

        With a builtin host on the bank's file they share one connection and this is one SQLite
        transaction (all or nothing, even under SIGKILL). The write lock is taken first
        (``BEGIN IMMEDIATE``), so the state read here is the state committed against: when another
        writer changed a record or a slot the plan relied on, :class:`_Conflict` sends the write
        back to planning; the final attempt instead drops decisions about records no longer live
        and lets the slot's current members coexist, so the invariants hold without an error."""
        ns = self.namespace
        new, decisions = plan.new, plan.decisions
        try:
            with self.bank.unit():
                ids = [old.id for (old, _src) in plan.candidates]
                fresh = self.bank.get_many(ns, ids)
                slots_now = {s: _members_key(self.bank.slot_members(ns, s)) for s in plan.slots_seen}
                changed = (any(fresh.get(o.id) is None or fresh[o.id].status is not o.status for (o, _s) in plan.candidates)
                           or slots_now != plan.slots_seen)
                if changed and not final:
                    raise _Conflict()
                if changed:
                    decisions = [(fresh[o.id], v) for o, v in decisions if o.id in fresh and fresh[o.id].is_live]
                if pending is None:  # the host shares this transaction
                    host_id = self.host.add(new.text, namespace=ns, time=new.time, speaker=new.speaker,
                                            meta=host_meta(new.meta))
                else:
                    host_id = pending.host_id
                    self.bank.close_intent(ns, pending.token)
                rid, seq = self.bank.next_id(ns)
                new = replace(new, id=rid, seq=seq, host_id=host_id)
                # every slot the new record may join: changes, and restatements (action "none"
                # with same_value) too, so the slot's other live members get their links
                slots = {old.slot or old.id for old, v in decisions if v.action != "none" or v.same_value}
                members = {s: self.bank.slot_members(ns, s) for s in slots}
                commit = plan_commit(new, decisions, members)
                stored = self.bank.commit(commit, features={self.gate.cache_key: plan.new_feat})
                t_end = _time.perf_counter()
                timings = dict(plan.timings)
                timings.update({"commit_s": t_end - plan.t_end, "total_s": t_end - plan.t0,
                                "plan_attempts": float(attempt + 1)})
                trace = WriteTrace(
                    record_id=stored.id, host_id=host_id, text=new.text, gate=self.gate.name,
                    candidates=tuple(PairTrace(id=old.id, text=old.text, status=old.status.value, source=src, a=s.a,
                                               b=s.b, d=s.d, escalate=s.escalate)
                                     for (old, src), s in zip(plan.candidates, plan.scores)),
                    judge=plan.calls,
                    changes=tuple({"action": c.action.value, "old_id": c.old_id} for c in commit.changes),
                    slot=stored.slot, status=stored.status.value, audit=plan.skip or "audited", timings=timings,
                )
                self.bank.save_trace(ns, "write", trace.to_stored(), [stored.id, *ids], keep=self.config.trace_keep)
        except _Conflict:
            raise
        except BaseException:
            if pending is None:  # the rollback took the host's rows; its caches must forget them
                inv = getattr(self.host, "invalidate", None)
                if inv is not None:
                    inv(ns)
            raise
        return AddResult(stored, trace)

    def _undo_host_write(self, pending: "_Pending") -> None:
        """After a failed write: erase the external host's row written ahead, then close its intent
        (if the erase fails, the intent stays for :meth:`recover`)."""
        ns = self.namespace
        eraser = getattr(self.host, "erase", None)
        try:
            if eraser is not None:
                eraser([pending.host_id], namespace=ns)
            self.bank.close_intent(ns, pending.token)
        except Exception as exc:  # noqa: BLE001 - the original error is the one to raise
            log.warning("could not undo host row %s after a failed write: %s", pending.host_id, exc)

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

    def _prior_states(self, hits: Sequence[HostHit], named_from: int | None = None) -> list[tuple[Record, str]]:
        """P_j: live records behind the host's hits, plus the live head of any stale hit's chain.
        Hits from ``named_from`` on came from the search for a name the statement ended."""
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
                out.append((rec, f"host#{rank}" if named_from is None or rank <= named_from
                                else f"named#{rank - named_from}"))
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
            status = _failure_status(e)
            v = fallback_verdict(old, new, score, why=status)
            return v, JudgeCall(old_id=old.id, status=status, verdict=v.model_dump(), fallback=True,
                                error=_why(e), latency_s=_time.perf_counter() - t0)

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
        fetch = lambda ids: self.bank.get_many(ns, ids)  # noqa: E731
        pool = build_pool(seeds, prof.view, fetch, host_neighbors=neighbours,
                          mode="bucket" if cfg.prerank == "bucket" else "interleave")
        pi0 = prerank(pool)
        t_pool = _time.perf_counter()
        result = self._control(query, prof, pool, k)
        by_id = {c.id: c for c in pool}
        sources: dict[str, str] = {}
        noted: list[str] = []
        if cfg.packet_mode in ("resolved", "control", "checked"):
            # Host seeds in host order (one row per record); hops, controller picks first, fill the rest.
            seed_recs = list({r.id: r for r, _ in seeds}.values())
            hop_order = (list(dict.fromkeys([*result.selected, *pi0])) if result.applied else pi0)
            hops = [by_id[i] for i in hop_order if i in by_id and by_id[i].bucket != "seed"]
            shaped = shape_packet(seed_recs, prof.view, fetch, k, hops=hops, resolved_k=cfg.resolved_k,
                                  relevant={r.id for r in seed_recs}, resolve_top=cfg.resolve_top)
            packet = [row.record for row in shaped]
            sources = {row.record.id: row.source for row in shaped}
            noted = [row.record.id for row in shaped if row.resolved]
            if cfg.packet_mode == "control":  # same length, the host's own rows, no state
                packet = [replace(r, status=Status.UNKNOWN, links=()) for r in seed_recs[: len(packet)]]
                sources = {r.id: f"host#{i}" for i, r in enumerate(packet, 1)}
            final = [r.id for r in packet]
        else:
            final = apply_selection(pi0, result.selected, k) if result.applied else top_k(pi0, k)
            packet = [by_id[i].record for i in final]
        t_end = _time.perf_counter()
        part = {
            "profile": prof.to_json(),
            "pool": tuple(c.to_json() for c in pool),
            "prerank": tuple(pi0),
            "controller": result.to_json(),
            "packet": tuple(final),
            "sources": sources,
            "relevant": tuple(dict.fromkeys(r.id for r, _ in seeds)),
            "noted": tuple(noted) if cfg.packet_mode in ("resolved", "checked") else None,
            "timings": {"retrieve_s": t_pool - t0, "controller_s": t_end - t_pool,
                        "controller_llm_s": result.latency_s},
            "view": prof.view,
        }
        return packet, part

    def _chain_pairs(self, packet: Sequence[Record], relevant: Sequence[str] | None
                     ) -> tuple[dict[str, Record], list[tuple[Record, Record]]]:
        """Records one link away from the packet's rows that the host also found relevant
        (for state notes; ``relevant=None``: any one link away), and the (earlier, later)
        pairs among them (for the answer check)."""
        ok = None if relevant is None else set(relevant)
        want = {t for r in packet for t in r.linked(*SUCCESSOR, *PREDECESSOR) if ok is None or t in ok}
        shown = {r.id: r for r in packet}
        related = dict(self.bank.get_many(self.namespace, [t for t in want if t not in shown])) if want else {}
        every = {**related, **shown}
        pairs = []
        for r in packet:
            for t in r.linked(*PREDECESSOR):
                if t in every:
                    pairs.append((every[t], r))
            for t in r.linked(*SUCCESSOR):
                if t in every and t not in shown:
                    pairs.append((r, every[t]))
        return related, pairs

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
        try:
            model = self.controller_llm
        except LLMError as e:  # no model to ask: the pre-rank stays, as for any controller failure
            return ctl.ControllerResult(cc.mode, "error", False, error=_why(e))
        msgs = ctl.controller_messages(query, prof, pool, k, cc)
        t0 = _time.perf_counter()
        try:  # any failure of a user's LLM object leaves the pre-rank in place
            comp = model.complete(msgs, max_tokens=cc.max_tokens, temperature=cc.temperature,
                                  json_schema=ctl.CONTROLLER_SCHEMA, timeout=cc.timeout_s)
        except Exception as e:  # noqa: BLE001
            return ctl.ControllerResult(cc.mode, _failure_status(e), False, error=_why(e),
                                        latency_s=_time.perf_counter() - t0)
        text, latency, ptok, ctok = _reply_text(comp)
        res = ctl.parse_controller(text, pool, k, cc)
        return replace(res, latency_s=latency or (_time.perf_counter() - t0), prompt_tokens=ptok, completion_tokens=ctok)

    def answer(self, query: str, *, k: int | None = None) -> Answer:
        """Answer from a state-aligned packet; the trace is stored in the bank."""
        self._answer_model()  # the default model loads here, before anything is read or stored
        cfg = self.config
        t0 = _time.perf_counter()
        first: dict[str, Any] | None = None
        packet, part = self.retrieve(query, k=k)
        view = part["view"]
        if cfg.packet_mode == "checked":
            first = self._host_first(query, k, part)
            if not first["check"].suspect:
                host_part = {**part, "packet": tuple(r.id for r in first["shown"]),
                             "sources": {r.id: f"host#{i}" for i, r in enumerate(first["shown"], 1)}}
                return self._finish(query, host_part, first["shown"], first["rows"], first["msgs"], first["answer"],
                                    first["llm_s"], t0, first["t1"], {**first["check"].to_json(), "first_pass": "host",
                                                                       "first_answer": first["answer"], "reasked": False}, k)
            if cfg.reask_packet in ("asked", "focused"):  # no resolved packet is built for this re-ask
                return self._focused_reask(query, part, first, t0, k)
        budget = self._prompt_budget()
        check: dict[str, Any] = {}
        if cfg.packet_mode in ("resolved", "control", "checked"):
            related, pairs = self._chain_pairs(packet, part["relevant"])
            temporal = bool(part["profile"].get("guards", {}).get("temporal"))
            noted = None if part["noted"] is None else set(part["noted"])
            rows_for = lambda recs: state_rows(self._shown_order(recs, temporal), related,  # noqa: E731
                                               with_time=cfg.with_time, noted=noted)
            if noted is not None:  # the answer check only trusts the chains the packet resolves
                pairs = [(a, b) for a, b in pairs if a.id in noted and b.id in noted]
            build = lambda recs, hint="": resolved_messages(query, view, rows_for(recs), hint=hint,  # noqa: E731
                                                            temporal=temporal)
        else:
            pairs = []
            rows_for = self._labelled_rows
            build = lambda recs, hint="": qa_messages(query, view, rows_for(recs))  # noqa: E731
        shown = fit_packet(packet, lambda recs: build(recs), budget)
        msgs = build(shown)
        t1 = _time.perf_counter()
        if first is not None:  # the host's answer named a stale value: ask the resolved packet, with the hint
            chk = first["check"]
            keep = [r for r in shown if r.id not in set(chk.drop)] or shown
            text, llm_s, msgs, shown = self._ask(build(keep, chk.hint), keep, lambda recs: build(recs, chk.hint))
            llm_s += first["llm_s"]
            check = {**chk.to_json(), "first_pass": "host", "first_answer": first["answer"], "reasked": True,
                     "final_answer": text}
            return self._finish(query, part, shown, rows_for(shown), msgs, text, llm_s, t0, t1, check, k)
        text, llm_s, msgs, shown = self._ask(msgs, shown, build)
        if cfg.packet_mode == "resolved" and cfg.answer_check:
            chk = check_answer(text, query, view, pairs)
            check = {"first_answer": text, **chk.to_json(), "reasked": False}
            if chk.suspect:
                keep = [r for r in shown if r.id not in set(chk.drop)] or shown
                msgs2 = build(keep, chk.hint)
                text2, llm2_s, msgs2, keep = self._ask(msgs2, keep, lambda recs: build(recs, chk.hint))
                llm_s += llm2_s
                text, msgs, shown = text2, msgs2, keep
                check.update({"reasked": True, "final_answer": text})
        return self._finish(query, part, shown, rows_for(shown), msgs, text, llm_s, t0, t1, check, k)

    def _finish(self, query: str, part: Mapping[str, Any], shown: Sequence[Record], rows: Sequence[Any],
                msgs: Sequence[Any], text: str, llm_s: float, t0: float, t1: float, check: Mapping[str, Any],
                k: int | None = None) -> Answer:
        """The query trace (stored in the bank) and the answer."""
        cfg = self.config
        t2 = _time.perf_counter()
        timings = dict(part["timings"])
        timings.update({"qa_llm_s": llm_s or (t2 - t1), "total_s": t2 - t0})
        timings["non_llm_s"] = timings["total_s"] - timings["qa_llm_s"] - timings.get("controller_llm_s", 0.0)
        trace = QueryTrace(query=query, namespace=self.namespace, profile=part["profile"], pool=part["pool"],
                           prerank=part["prerank"], controller=part["controller"], packet=tuple(r.id for r in shown),
                           labelled=tuple(r.to_json() for r in rows), prompt=tuple(dict(m) for m in msgs),
                           answer=text, timings=timings, check=dict(check), sources=dict(part["sources"]),
                           config={"k": k or cfg.k, "gate": self._gate_name(), "llm": getattr(self.llm, "name", ""),
                                   "packet_mode": cfg.packet_mode})
        self.bank.save_trace(self.namespace, "query", trace.to_json(), [row["id"] for row in part["pool"]],
                             keep=cfg.trace_keep)
        return Answer(text, trace, tuple(shown))

    def _focused_reask(self, query: str, part: Mapping[str, Any], first: Mapping[str, Any], t0: float,
                       k: int | None) -> Answer:
        """The host's answer named a stale value: ask again from its own rows without the stale
        one, the record of the asked state first, with the check's one-line hint; with
        ``reask_packet="asked"`` a question about now sees that live record alone."""
        cfg, view, chk = self.config, part["view"], first["check"]
        temporal = bool(part["profile"].get("guards", {}).get("temporal"))
        focus = [first["records"][i] for i in chk.want if i in first["records"]]
        alone = bool(focus) and cfg.reask_packet == "asked" and view == "current"
        if not alone:
            focus += [r for r in first["shown"] if r.id not in set(chk.drop) and r.id not in set(chk.want)]
        plain_rows = lambda recs: state_rows(self._shown_order(recs, temporal), {},  # noqa: E731
                                             with_time=cfg.with_time)
        ask = lambda recs: resolved_messages(query, view, plain_rows(recs), hint=chk.hint,  # noqa: E731
                                             temporal=temporal)
        keep = fit_packet(focus, ask, self._prompt_budget())
        t1 = _time.perf_counter()
        text, llm_s, msgs, shown = self._ask(ask(keep), keep, ask)
        check = {**chk.to_json(), "first_pass": "host", "first_answer": first["answer"], "reasked": True,
                 "reask_packet": "asked state alone" if alone else "focused", "final_answer": text}
        fpart = {**part, "sources": {r.id: ("asked state" if r.id in chk.want else "host") for r in shown}}
        return self._finish(query, fpart, shown, plain_rows(shown), msgs, text, llm_s + first["llm_s"], t0, t1,
                            check, k)

    def _host_first(self, query: str, k: int | None, part: Mapping[str, Any]) -> dict[str, Any]:
        """The host's own top-k rows and answer (its own prompt; ours over its rows when it has
        no answerer), checked against the bank's chains among the host's relevant hits
        (``part["relevant"]``, the retrieval's seeds)."""
        cfg, ns = self.config, self.namespace
        k = cfg.k if k is None else k
        view = part["view"]
        hits = self.host.search(query, namespace=ns, k=k)
        top: list[Record] = []
        for h, recs in self._map_hits(hits):
            if not recs:
                recs = [Record(id=f"host:{h.host_id}", namespace=ns, text=h.text, time=h.time, speaker=h.speaker,
                               status=Status.UNKNOWN, host_id=h.host_id)]
            top.extend(r for r in recs if r not in top)
        plain = [replace(r, status=Status.UNKNOWN, links=()) for r in top]
        temporal = bool(part["profile"].get("guards", {}).get("temporal"))
        build = lambda recs, hint="": resolved_messages(  # noqa: E731
            query, view, state_rows(self._shown_order(recs, temporal), {}, with_time=cfg.with_time), hint=hint,
            temporal=temporal)
        msgs: list[Any] = []
        answerer = getattr(self.host, "answer", None)
        if answerer is not None and getattr(self.host, "answerer", True) is not None:
            t_llm = _time.perf_counter()
            text = str(answerer(query, hits, namespace=ns) or "").strip()[:MAX_RAW_CHARS]
            llm_s = _time.perf_counter() - t_llm
            shown = plain
        else:  # a host without an answerer of its own: our prompt over its rows, without state
            shown = fit_packet(plain, lambda recs: build(recs), self._prompt_budget())
            text, llm_s, msgs, shown = self._ask(build(shown), shown, build)
        t1 = _time.perf_counter()
        # Any record one link from the host's shown rows: a predecessor the host did not
        # retrieve still tells that its answer is the later state (check_answer keeps only
        # the chains about the question).
        _related, pairs = self._chain_pairs([r for r in top if not r.id.startswith("host:")], None)
        chk = check_answer(text, query, view, pairs)
        rows = state_rows(self._shown_order(shown, temporal), {}, with_time=cfg.with_time)
        records = {r.id: replace(r, status=Status.UNKNOWN, links=()) for pair in pairs for r in pair}
        return {"answer": text, "check": chk, "shown": shown, "rows": rows, "msgs": msgs, "llm_s": llm_s, "t1": t1,
                "records": records}

    def _shown_order(self, recs: Sequence[Record], by_event: bool = False) -> list[Record]:
        """Rows in the order the reader sees them; for "when" questions, by when the event
        happened (a resolved time expression), else when it was said."""
        if by_event:
            return sorted(recs, key=_event_key)
        return sorted(recs, key=_time_key) if self.config.packet_order == "time" else list(recs)

    def _labelled_rows(self, recs: Sequence[Record]) -> list[Any]:
        rows = serialize(self._shown_order(recs), with_time=self.config.with_time)
        if not self.config.qa_labels:
            rows = [replace(r, label="retrieved memory") for r in rows]
        return rows

    def _prompt_budget(self) -> int:
        """Tokens a QA prompt may use: the model's context less the answer's room."""
        ctx = self.config.context_tokens or getattr(self.llm, "context_tokens", None) \
            or getattr(getattr(self.llm, "config", None), "n_ctx", None) or 4096
        return max(int(ctx) - self.config.qa_max_tokens - 64, 256)

    def _ask(self, msgs: list[Any], shown: list[Record], build: Any) -> tuple[str, float, list[Any], list[Record]]:
        """One QA call -> (answer, LLM seconds, messages sent, rows shown). A request the
        model refuses as too long is retried with the lowest-ranked half of the rows
        dropped, down to none: never an exception. Any other failure of a user's LLM object
        is one readable LLMError; a reply that is not text answers nothing."""
        cfg = self.config
        while True:
            try:
                comp = self.llm.complete(msgs, max_tokens=cfg.qa_max_tokens, temperature=0.0, timeout=cfg.qa_timeout_s)
                reply, latency, _, _ = _reply_text(comp)
                # the answer is capped like every stored model reply
                return (reply.strip()[:MAX_RAW_CHARS] if isinstance(reply, str) else ""), latency, msgs, shown
            except LLMError as e:
                if not shown or e.kind != "context":
                    raise
                log.warning("QA prompt over the model's context (%s); retrying with fewer rows", str(e)[:120])
                shown = shown[: len(shown) // 2]
                msgs = build(shown)
            except Exception as e:  # noqa: BLE001 - a user's LLM object failing: one readable error type
                raise LLMError(f"answer model failed: {_why(e)}") from e

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

    def erase(self, record_ids: Sequence[str], *, vacuum: bool = True) -> None:
        """Hard delete from the bank (records, links, features, traces, copies of the text in
        transition summaries) and from the host (rows, FTS, vectors), then checkpoint the WAL and
        (``vacuum``) rebuild the file, so no copy of the text is left on disk.

        All or nothing: with a host sharing the bank's file it is one transaction; with another host
        the host is erased first and the bank second, so an erase that fails half-way is finished by
        running it again (the ids stay known until the bank forgets them)."""
        ns = self.namespace
        ids = list(dict.fromkeys(record_ids))
        got = self.bank.get_many(ns, ids)
        unknown = [i for i in ids if i not in got]
        if unknown:
            raise BankError(f"unknown record ids in namespace {ns!r}: {', '.join(unknown)}")
        host_ids = [r.host_id for r in got.values() if r.host_id]
        eraser = getattr(self.host, "erase", None)
        if self.bank.shared:
            try:
                with self.bank.unit():
                    if host_ids and eraser is not None:
                        eraser(host_ids, namespace=ns)
                    self.bank.erase(ns, ids)
            except BaseException:
                inv = getattr(self.host, "invalidate", None)
                if inv is not None:
                    inv(ns)
                raise
        else:
            if host_ids and eraser is not None:
                eraser(host_ids, namespace=ns)
            self.bank.erase(ns, ids)
        if not self.bank.compact(vacuum=vacuum):
            log.warning("erase: another connection kept the WAL from being truncated; the erased text may "
                        "remain in %s-wal until the next checkpoint", self.bank.path)
