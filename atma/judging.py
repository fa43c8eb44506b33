"""Judge backends: what decides an (old record, new record) pair on the write path.

A backend is any object with ``decide(old, new, score) -> (Verdict, JudgeCall)`` (the
:class:`JudgeBackend` protocol). Shipped:

* :class:`VerdictJudge` — the trained verdict model (:mod:`atma.verdict`).
* :class:`LLMJudge` — an LLM with the Judge prompt (:func:`atma.judge.judge_messages`); any
  exception from the LLM object and any reply that is not text or not a valid verdict falls
  back to the deterministic rule, and the trace says why.
* :class:`RuleJudge` — the deterministic anchored rule (:func:`atma.judge.fallback_verdict`); the default.
* :class:`CascadeJudge` — the verdict model decides pairs it is confident about; an LLM
  Judge decides the rest.

``judge_from_spec("verdict" | "llm" | "rule" | "cascade", llm=...)`` builds one from a
command-line name; :func:`default_judge` is the overlay's default.
"""

from __future__ import annotations

import json
import logging
import time as _time
from typing import Any, Protocol, runtime_checkable

from .judge import JUDGE_SCHEMA, MAX_RAW_CHARS, Verdict, fallback_verdict, judge_messages, parse_verdict
from .protocols import GateScore, error_line as _why, failure_status
from .records import Record
from .trace import JudgeCall

__all__ = ["AgreeJudge", "CascadeJudge", "JUDGE_CHOICES", "JudgeBackend", "LLMJudge", "RuleJudge", "VerdictJudge", "default_judge",
           "judge_from_spec"]

log = logging.getLogger(__name__)

JUDGE_CHOICES = ("verdict", "llm", "rule", "cascade", "agree")


@runtime_checkable
class JudgeBackend(Protocol):
    name: str

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]: ...


class RuleJudge:
    """The deterministic rule (conservative: same speaker, topically close, change wording)."""

    name = "rule"
    # Pairs by two speakers reach it: another speaker's acknowledgement of a value joins the
    # value's slot (``same_value``); one person's news never retires another's state.
    handles_speakers = True
    max_pairs = 5  # microseconds per pair; the anchor keeps unrelated pairs out
    # ``max_pairs`` pairs by the new record's speaker, and as many by others, each strongest first:
    # another speaker's pairs never take a same-speaker pair's place.
    pairs_per_side = True
    cheap = True  # OverlayConfig.close_pair_a applies

    def __init__(self, why: str = "rule judge") -> None:
        self.why = why

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]:
        v = fallback_verdict(old, new, score, why=self.why)
        return v, JudgeCall(old_id=old.id, status="skipped", verdict=v.model_dump(), fallback=True, error=self.why)


class LLMJudge:
    """An LLM with the Judge prompt. Never raises: an LLM error, a timeout, a reply that is not
    a string, or one that is not a valid verdict gives the rule's verdict (``fallback=True``)."""

    handles_speakers = False
    max_pairs = 1

    def __init__(self, llm: Any, *, max_tokens: int = 256, timeout_s: float = 180.0) -> None:
        self.llm = llm
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.name = f"llm:{getattr(llm, 'name', type(llm).__name__)}"

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]:
        msgs = judge_messages(old, new, score)
        t0 = _time.perf_counter()
        try:
            comp = self.llm.complete(msgs, max_tokens=self.max_tokens, temperature=0.0, json_schema=JUDGE_SCHEMA,
                                     timeout=self.timeout_s)
        except Exception as e:  # noqa: BLE001 - any failure of the backend falls back, nothing is lost
            status = failure_status(e)
            v = fallback_verdict(old, new, score, why=status)
            return v, JudgeCall(old_id=old.id, status=status, verdict=v.model_dump(), fallback=True,
                                error=_why(e), latency_s=_time.perf_counter() - t0)
        try:
            text = getattr(comp, "text", None)
            latency = getattr(comp, "latency_s", 0.0)
            latency = float(latency) if isinstance(latency, (int, float)) and latency == latency else 0.0
        except Exception:  # noqa: BLE001 - a hostile reply object
            text, latency = None, 0.0
        latency = latency or (_time.perf_counter() - t0)
        parsed = parse_verdict(text)  # a reply that is not text is "not_text"; too long / too deep are refused
        raw = text[:MAX_RAW_CHARS] if isinstance(text, str) else ""
        if parsed.verdict is None:
            v = fallback_verdict(old, new, score, why=parsed.status)
            return v, JudgeCall(old_id=old.id, status=parsed.status, verdict=v.model_dump(), fallback=True,
                                raw=raw, error=parsed.error, latency_s=latency)
        return parsed.verdict, JudgeCall(old_id=old.id, status="ok", verdict=parsed.verdict.model_dump(),
                                         fallback=False, raw=raw, latency_s=latency)


class VerdictJudge:
    """The trained verdict model. ``threshold`` overrides the checkpoint's confidence threshold."""

    handles_speakers = True  # trained on cross-speaker pairs (acknowledgements, others' suggestions)
    max_pairs = 3
    cheap = True  # milliseconds per pair: OverlayConfig.close_pair_a applies

    def __init__(self, model: Any = None, *, threshold: float | None = None) -> None:
        if model is None:
            from .verdict import shared_verdict_model

            model = shared_verdict_model()
        self.model = model
        self.threshold = threshold
        self.name = getattr(model, "name", "verdict")

    def predict(self, old: Record, new: Record) -> Any:
        return self.model.predict([(old.text, old.speaker, new.text, new.speaker)], threshold=self.threshold)[0]

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]:
        from .verdict import to_verdict

        t0 = _time.perf_counter()
        try:
            pred = self.predict(old, new)
            v = to_verdict(pred, old, new)
        except Exception as e:  # noqa: BLE001 - a broken model must not lose the write
            v = fallback_verdict(old, new, score, why="verdict model error")
            return v, JudgeCall(old_id=old.id, status="error", verdict=v.model_dump(), fallback=True,
                                error=f"{type(e).__name__}: {e}"[:300], latency_s=_time.perf_counter() - t0)
        raw = json.dumps({"label": pred.label, "p": round(pred.confidence, 4),
                          "probs": {k: round(p, 4) for k, p in pred.probs.items()}})
        return v, JudgeCall(old_id=old.id, status="ok", verdict=v.model_dump(), fallback=False, raw=raw,
                            latency_s=_time.perf_counter() - t0)


class CascadeJudge:
    """The verdict model first; pairs where its top calibrated probability is below ``band``
    go to ``second`` (an :class:`LLMJudge`)."""

    handles_speakers = True
    max_pairs = 3

    def __init__(self, first: VerdictJudge, second: Any, *, band: float = 0.9) -> None:
        self.first, self.second, self.band = first, second, band
        self.name = f"cascade:{first.name}>{getattr(second, 'name', 'llm')}@{band}"
        self.escalated = 0

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]:
        v, call = self.first.decide(old, new, score)
        conf = v.confidence if v.confidence is not None else 0.0
        if call.fallback or conf >= self.band:
            return v, call
        if old.speaker and new.speaker and old.speaker != new.speaker:
            return v, call  # the LLM prompt cannot tell speakers' states apart; keep the model's answer
        self.escalated += 1
        v2, call2 = self.second.decide(old, new, score)
        raw = json.dumps({"verdict_model": json.loads(call.raw or "{}"), "llm": call2.raw[:1500]})
        return v2, JudgeCall(old_id=call2.old_id, status=call2.status, verdict=call2.verdict, fallback=call2.fallback,
                             raw=raw[:2000], error=call2.error, latency_s=call.latency_s + call2.latency_s)


class AgreeJudge:
    """The verdict model, but a state change (supersede / transition) is committed only when
    the deterministic rule also sees one (same speaker, topically close, change wording);
    otherwise the pair changes nothing. Restatements, coexistence and scoped exceptions are
    the model's. Fail-safe by construction: neither judge alone can retire a state."""

    handles_speakers = True
    max_pairs = 3

    def __init__(self, first: VerdictJudge) -> None:
        self.first = first
        self.name = f"agree:{first.name}+rule"

    def decide(self, old: Record, new: Record, score: GateScore | None) -> tuple[Verdict, JudgeCall]:
        v, call = self.first.decide(old, new, score)
        if v.action not in ("supersede", "transition") or call.fallback:
            return v, call
        rule = fallback_verdict(old, new, score, why="agreement check")
        if rule.action != "none":
            return v, call
        kept = Verdict(action="none", conflict_status="unclear", conflict_type="none", links=[],
                       reason=f"verdict model said {v.action}, the rule saw no change: not committed",
                       confidence=v.confidence)
        return kept, JudgeCall(old_id=call.old_id, status="ok", verdict=kept.model_dump(), fallback=False,
                               raw=call.raw, latency_s=call.latency_s)


def judge_from_spec(spec: str, *, llm: Any = None, band: float = 0.9) -> Any:
    """``verdict`` (the packaged verdict model), ``llm`` (``llm`` with the Judge prompt),
    ``rule``, ``cascade`` (verdict model, ``llm`` for uncertain pairs), or a verdict-model
    checkpoint path."""
    if spec == "rule":
        return RuleJudge()
    if spec == "llm":
        if llm is None:
            raise ValueError("--judge llm needs an LLM")
        return LLMJudge(llm)
    if spec == "cascade":
        if llm is None:
            raise ValueError("--judge cascade needs an LLM for the uncertain pairs")
        return CascadeJudge(VerdictJudge(), LLMJudge(llm), band=band)
    if spec == "verdict":
        return VerdictJudge()
    if spec == "agree":
        return AgreeJudge(VerdictJudge())
    from .verdict import load_verdict_model

    return VerdictJudge(load_verdict_model(spec))


def default_judge() -> Any:
    """The overlay's Judge when none is given: the deterministic anchored rule
    (:func:`atma.judge.fallback_verdict`). Chosen in the write loop on LTP dev profiles 0-4
    (``python -m eval.write_loop``): update cues committed right 0.89, 1.5 spurious changes per
    100 other events, against 0.30 and 39.9 (profile 0) for the packaged verdict model, whose
    pair-level accuracy on synthetic items does not carry over to real conversation turns."""
    return RuleJudge(why="rule judge")
