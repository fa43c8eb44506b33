"""Closed-pool grading of free-form answers: correct, drift or other.

A probe's pool is its ``gold`` aliases (one option: the requested state's value) and
its ``alternates`` (each a value of another state of the same slot: the drift
targets). A deterministic word-boundary matcher decides answers that name exactly one
pool option; answers that name zero or several are flagged ``ambiguous`` and may be
resolved by an optional LLM judge (:func:`resolve_with_judge`), as in StateMemBench.

Rules (the matcher):

* Texts are compared after :func:`normalize`; an alias is named when its normalised
  tokens occur as a contiguous run of the normalised answer's tokens.
* Containment: an occurrence that lies inside an occurrence of a longer alias does
  not count ("Bristol Road" does not also name "Bristol"; "Bristol Road, in Bristol"
  names both).
* Question echo: options the question itself names are set aside, and the verdict is
  decided on the remaining options the answer names ("What did I drive before the
  Prius?" -> "Before the Prius I drove a Civic" is correct). When the answer names
  only options the question names, those are the only way to decide, so they are used
  after all, and the grade is flagged ``ambiguous`` ("I don't know what came before
  the Prius" must not be trusted as drift without a judge).
* Verdict on the deciding options: gold and no alternate -> correct; an alternate and
  no gold -> drift; anything else (none, or gold together with an alternate) -> other.
* ``ambiguous``: the deciding options are not exactly one, or they came from the
  question-echo fallback.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any, Literal, Mapping, Sequence

from atma.protocols import LLMError

__all__ = [
    "JUDGE_PROMPT_VERSION",
    "JUDGE_SCHEMA",
    "Grade",
    "JudgeReply",
    "grade",
    "judge_prompt",
    "names",
    "normalize",
    "parse_judge",
    "parse_judge_reply",
    "prompt_fingerprint",
    "resolve_with_judge",
]

Verdict = Literal["correct", "drift", "other"]
JudgeLabel = Literal["correct", "partial", "incorrect"]
JudgeOption = Literal["gold", "alternate", "none"]

_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
_DECIMAL_TOKEN = re.compile(r"(\d+)\.(\d+)")
_KEEP_POINT = "\x00"  # placeholder protecting decimal points from punctuation stripping


def _canonical_number(token: str) -> str:
    m = _DECIMAL_TOKEN.fullmatch(token)
    if m is None:
        return token
    frac = m.group(2).rstrip("0")
    return f"{m.group(1)}.{frac}" if frac else m.group(1)


def normalize(text: str) -> str:
    """Lowercase, strip accents, punctuation and symbols, canonicalise numbers, collapse spaces.

    Punctuation and symbols become spaces (so "Bristol's" still names "Bristol"),
    except a decimal point between digits. Thousands commas are dropped ("1,290" ==
    "1290") and decimals lose trailing zeros ("7.50" == "7.5", "7.0" == "7"): the pool
    holds values, and equal numbers are the same value. Leading zeros and number words
    are kept as written ("07" != "7", "three" != "3"): list such forms as aliases.

    >>> normalize("Before the Prius, I drove a CIVIC!")
    'before the prius i drove a civic'
    >>> normalize("$1,290.50 paid") == normalize("1290.5 paid")
    True
    >>> normalize("7.50"), normalize("7.0"), normalize("Zürich"), normalize("Bristol's")
    ('7.5', '7', 'zurich', 'bristol s')
    """
    t = unicodedata.normalize("NFKD", text)
    t = "".join(ch for ch in t if not unicodedata.combining(ch)).casefold()
    t = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in t)  # frees the placeholder
    t = _THOUSANDS_COMMA.sub("", t)
    t = _DECIMAL_POINT.sub(_KEEP_POINT, t)
    t = "".join(" " if unicodedata.category(ch)[0] in "PSZ" else ch for ch in t)
    t = t.replace(_KEEP_POINT, ".")
    return " ".join(_canonical_number(tok) for tok in t.split())


def _spans(tokens: Sequence[str], alias: Sequence[str]) -> list[tuple[int, int]]:
    n = len(alias)
    if n == 0:
        return []
    return [(i, i + n) for i in range(len(tokens) - n + 1) if list(tokens[i : i + n]) == list(alias)]


def names(answer: str, alias: str) -> bool:
    """True when the normalised alias occurs in the normalised answer on word boundaries.

    >>> names("I drove a Honda Civic.", "civic"), names("Civics class", "Civic")
    (True, False)
    >>> names("It was 7.50 dollars", "$7.5"), names("It was 17.5", "7.5")
    (True, False)
    """
    return bool(_spans(normalize(answer).split(), normalize(alias).split()))


@dataclass(frozen=True, kw_only=True)
class Grade:
    """One graded answer.

    ``gold_hit``/``alt_hit``: the deciding options include the gold value / an
    alternate. ``matched``: pool aliases (as given) whose occurrences decided;
    ``ignored``: aliases the answer names but set aside because the question names them.
    ``decided_by`` is ``"judge"`` once :func:`resolve_with_judge` changed the verdict
    source; ``judge_label`` is the judge's three-way label, ``judge_error`` why a
    judge call gave nothing usable.
    """

    verdict: Verdict
    gold_hit: bool
    alt_hit: bool
    ambiguous: bool
    matched: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    decided_by: Literal["matcher", "judge"] = "matcher"
    judge_label: JudgeLabel | None = None
    judge_error: str = ""


_GOLD = "gold"


def _pool(gold: Sequence[str], alternates: Sequence[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(option key, alias as given, normalised tokens) for every alias; validates the pool."""
    if not gold:
        raise ValueError("gold must name at least one alias")
    pool: list[tuple[str, str, tuple[str, ...]]] = []
    owner: dict[tuple[str, ...], str] = {}
    for kind, aliases in ((_GOLD, gold), ("alt", alternates)):
        for alias in aliases:
            toks = tuple(normalize(alias).split())
            if not toks:
                raise ValueError(f"{kind} alias {alias!r} is empty after normalisation")
            key = _GOLD if kind == _GOLD else "alt:" + " ".join(toks)
            if owner.setdefault(toks, key) != key:  # alt keys derive from tokens: one side is gold
                raise ValueError(f"alias {alias!r} is both gold and alternate after normalisation")
            pool.append((key, alias, toks))
    return pool


def _named(text: str, pool: Sequence[tuple[str, str, tuple[str, ...]]]) -> dict[str, list[str]]:
    """Option key -> aliases with an occurrence in ``text`` not inside a longer alias's occurrence."""
    tokens = normalize(text).split()
    hits = [(key, alias, span) for key, alias, toks in pool for span in _spans(tokens, toks)]
    named: dict[str, list[str]] = {}
    for key, alias, (s, e) in hits:
        covered = any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for _, _, (s2, e2) in hits)
        if not covered and alias not in named.setdefault(key, []):
            named[key].append(alias)
    return {k: v for k, v in named.items() if v}


def grade(answer: str, gold: Sequence[str], alternates: Sequence[str], question: str = "") -> Grade:
    """Closed-pool verdict for ``answer`` (rules in the module docstring).

    >>> q = "What did I drive before the Prius?"
    >>> grade("Before the Prius I drove a Civic", ["Civic"], ["Prius"], q).verdict
    'correct'
    >>> g = grade("The Prius.", ["Civic"], ["Prius"], q)
    >>> g.verdict, g.ambiguous
    ('drift', True)
    >>> g = grade("I live on Bristol Road", ["Bristol Road"], ["Bristol"])
    >>> g.verdict, g.ambiguous
    ('correct', False)
    >>> grade("Either Civic or Prius", ["Civic"], ["Prius"]).verdict
    'other'
    """
    pool = _pool(gold, alternates)
    named = _named(answer, pool)
    echoed = set(_named(question, pool)) if question else set()
    residual = {k: v for k, v in named.items() if k not in echoed}
    fallback = bool(named) and not residual
    deciding = named if fallback else residual
    gold_hit = _GOLD in deciding
    alt_hit = any(k != _GOLD for k in deciding)
    if gold_hit and not alt_hit:
        verdict: Verdict = "correct"
    elif alt_hit and not gold_hit:
        verdict = "drift"
    else:
        verdict = "other"
    return Grade(
        verdict=verdict,
        gold_hit=gold_hit,
        alt_hit=alt_hit,
        ambiguous=len(deciding) != 1 or fallback,
        matched=tuple(a for v in deciding.values() for a in v),
        ignored=() if fallback else tuple(a for k, v in named.items() if k in echoed for a in v),
    )


# ---------------------------------------------------------------- optional LLM judge

JUDGE_PROMPT_VERSION = "closed-pool-judge/v1"

JUDGE_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["correct", "partial", "incorrect"]},
        "option": {"type": "string", "enum": ["gold", "alternate", "none"]},
    },
    "required": ["label", "option"],
    "additionalProperties": False,
}

_JUDGE_SYSTEM = """You grade one answer of a memory assistant against a closed pool of values.
The gold answer is the value of the state the question asks about. Alternate answers are values of other states of the same slot (for example an outdated value); answering with one of them is wrong.
Labels (the same three-way rubric for every item; allow semantic equivalence of wording, units and date formats):
- correct: the response gives the gold answer as its answer and does not commit to an alternate.
- partial: the response gives the gold answer but incompletely (it omits a required qualifier or part) or hedges between it and other values.
- incorrect: anything else: an alternate answer, another value, an abstention, or no answer.
Option: which pool value the response commits to as its answer: "gold", "alternate" (any alternate answer), or "none" (no pool value, or several without committing).
Values the question itself mentions are not the answer merely because the response repeats them.
Reply with only a JSON object: {"label": "correct" | "partial" | "incorrect", "option": "gold" | "alternate" | "none"}"""


def judge_prompt(question: str, answer: str, gold: Sequence[str], alternates: Sequence[str]) -> list[dict[str, str]]:
    """Messages asking the judge for a three-way label and the pool option the answer commits to.

    Version: :data:`JUDGE_PROMPT_VERSION`. The response is fenced so that its text
    cannot pose as instructions.

    >>> msgs = judge_prompt("Where do I live now?", "Bristol Road", ["Bristol Road"], ["Leeds"])
    >>> [m["role"] for m in msgs]
    ['system', 'user']
    >>> "Alternate answers: Leeds" in msgs[1]["content"]
    True
    """
    alts = " | ".join(alternates) if alternates else "(none)"
    user = (
        f"Question: {question}\n"
        f"Gold answer: {' | '.join(gold)}\n"
        f"Alternate answers: {alts}\n"
        f"Response (between the markers):\n<<<RESPONSE\n{answer}\nRESPONSE>>>\n"
        "Grade the response."
    )
    return [{"role": "system", "content": _JUDGE_SYSTEM}, {"role": "user", "content": user}]


def prompt_fingerprint() -> str:
    """All text of the answer judge's prompt: version, system text and the user-message
    template. Run manifests hash it (eval.stream)."""
    user = judge_prompt("{question}", "{answer}", ["{gold}"], ["{alternates}"])[1]["content"]
    return "\n".join([JUDGE_PROMPT_VERSION, _JUDGE_SYSTEM, user])


@dataclass(frozen=True, kw_only=True)
class JudgeReply:
    """A judge reply that passed strict parsing."""

    label: JudgeLabel
    option: JudgeOption


_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)\n?\s*```", re.DOTALL)


def parse_judge_reply(text: str) -> JudgeReply | None:
    """Strictly parse a judge reply: exactly one JSON object with ``label`` and ``option``.

    Surrounding whitespace and one enclosing code fence are tolerated; any other text,
    extra keys, unknown values, or ``correct`` paired with an option other than
    ``gold`` give None.

    >>> parse_judge_reply('{"label": "partial", "option": "gold"}')
    JudgeReply(label='partial', option='gold')
    >>> parse_judge_reply('Sure! {"label": "correct", "option": "gold"}') is None
    True
    """
    body = text.strip()
    fenced = _FENCE.fullmatch(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or set(obj) != {"label", "option"}:
        return None
    label, option = obj["label"], obj["option"]
    if label not in ("correct", "partial", "incorrect") or option not in ("gold", "alternate", "none"):
        return None
    if label == "correct" and option != "gold":
        return None
    return JudgeReply(label=label, option=option)


def parse_judge(text: str) -> JudgeLabel | None:
    """The three-way label of a strictly parsed judge reply, else None.

    >>> parse_judge('{"label": "incorrect", "option": "alternate"}')
    'incorrect'
    >>> parse_judge('incorrect') is None
    True
    """
    reply = parse_judge_reply(text)
    return None if reply is None else reply.label


def resolve_with_judge(
    result: Grade,
    llm: Any,
    /,
    *,
    question: str,
    answer: str,
    gold: Sequence[str],
    alternates: Sequence[str],
    max_tokens: int = 48,
    timeout: float | None = None,
    always: bool = False,
) -> Grade:
    """Ask ``llm`` (anything with ``complete(messages, *, max_tokens, temperature,
    json_schema, timeout) -> .text``) to settle an ambiguous grade.

    Only ``ambiguous`` grades are sent unless ``always``. Mapping: ``correct`` ->
    correct; ``partial`` or ``incorrect`` -> drift when the judge says the answer
    commits to an alternate, else other (partial credit is not a closed-pool
    correct; ``judge_label`` keeps it for a lenient view). A backend error
    (:class:`atma.protocols.LLMError`) or an unparsable reply leaves the matcher's
    verdict and records ``judge_error``.
    """
    if not (result.ambiguous or always):
        return result
    messages = judge_prompt(question, answer, gold, alternates)
    try:
        completion = llm.complete(
            messages, max_tokens=max_tokens, temperature=0.0, json_schema=JUDGE_SCHEMA, timeout=timeout
        )
    except LLMError as exc:
        return replace(result, judge_error=f"llm error: {exc}")
    reply = parse_judge_reply(completion.text)
    if reply is None:
        return replace(result, judge_error=f"unparsable judge reply: {completion.text[:120]!r}")
    if reply.label == "correct":
        verdict: Verdict = "correct"
    elif reply.option == "alternate":
        verdict = "drift"
    else:
        verdict = "other"
    return replace(result, verdict=verdict, decided_by="judge", judge_label=reply.label, judge_error="")
