"""Audit Judge: prompt, JSON schema, strict parsing, deterministic fallback, and commit planning.

Pure: the overlay makes the LLM call and hands the text back here. A reply that is
not valid JSON, breaks the schema, or contradicts itself is rejected; the caller then
uses :func:`fallback_verdict`, and the trace records why.
"""

from __future__ import annotations

import json
import re
from datetime import date
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .aspect import ALTERNATIVE, CONTRAST, DIMINISHED, PROGRESS, SITUATION, scope_cue, under_way
from .implicit import first_person, implied_change
from .protocols import GateScore, Message
from .records import Action, Change, Commit, Record, Status

__all__ = [
    "JUDGE_PROMPT_VERSION",
    "JUDGE_SCHEMA",
    "JudgeParse",
    "Verdict",
    "fallback_verdict",
    "keep_strongest_changes",
    "attribute_families",
    "counts_other_things",
    "measured_activities",
    "MEASURED_ACTIVITIES",
    "ATTRIBUTE_FAMILIES",
    "reported_earlier",
    "lexical_anchor",
    "names_shared",
    "judge_messages",
    "load_reply",
    "parse_verdict",
    "strip_fence",
    "plan_commit",
    "admission",
    "pair_prefilter",
    "prompt_fingerprint",
    "CHANGE_WORDS",
    "NEGATION_WORDS",
]

JUDGE_PROMPT_VERSION = "judge-v2"

ConflictType = Literal["temporal_update", "explicit_negation", "value_discrepancy", "scope_mismatch", "refinement", "none"]
ActionName = Literal["supersede", "transition", "coexist", "scoped_exception", "none"]
LinkName = Literal["supersedes", "evolves_from", "coexists_with", "scoped_exception"]

#: The one link each action writes from the new record to the old one.
ACTION_LINK: Mapping[str, str | None] = {
    "supersede": "supersedes",
    "transition": "evolves_from",
    "coexist": "coexists_with",
    "scoped_exception": "scoped_exception",
    "none": None,
}


class Verdict(BaseModel):
    """The Judge's decision about one (old record, new record) pair.

    ``same_attribute`` and ``old_still_true`` come first in the schema: a small model
    answers two yes/no questions before it names the action, and the action must
    agree with them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    same_attribute: bool | None = None
    old_still_true: bool | None = None
    action: ActionName
    conflict_status: Literal["conflict", "no_conflict", "unclear"]
    conflict_type: ConflictType
    links: list[LinkName] = Field(default_factory=list, max_length=2)
    reason: str = Field(default="", max_length=600)
    transition_summary: str = Field(default="", max_length=300)
    old_state: str = Field(default="", max_length=300)
    clarification_needed: bool = False
    # Set by the verdict model (not part of the LLM schema): the new record states the old
    # record's value again (restatement / acknowledgement), and the calibrated probability.
    same_value: bool | None = None
    confidence: float | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "Verdict":
        want = ACTION_LINK[self.action]
        if any(l != want for l in self.links):
            raise ValueError(f"links {self.links} do not match action {self.action!r}")
        if self.action in ("supersede", "transition") and self.conflict_status == "no_conflict":
            raise ValueError(f"action {self.action!r} needs a conflict")
        if self.same_attribute is False and self.action not in ("none", "coexist"):
            raise ValueError(f"action {self.action!r} on a different attribute")
        if self.old_still_true is True and self.action in ("supersede", "transition"):
            raise ValueError(f"action {self.action!r} while the old memory is still true")
        return self


JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "same_attribute": {"type": "boolean"},
        "old_still_true": {"type": "boolean"},
        "action": {"type": "string", "enum": list(ActionName.__args__)},  # type: ignore[attr-defined]
        "conflict_status": {"type": "string", "enum": ["conflict", "no_conflict", "unclear"]},
        "conflict_type": {"type": "string", "enum": list(ConflictType.__args__)},  # type: ignore[attr-defined]
        "links": {"type": "array", "items": {"type": "string", "enum": list(LinkName.__args__)}, "maxItems": 1},  # type: ignore[attr-defined]
        "reason": {"type": "string", "maxLength": 160},
        "transition_summary": {"type": "string", "maxLength": 160},
        "old_state": {"type": "string", "maxLength": 160},
        "clarification_needed": {"type": "boolean"},
    },
    "required": ["same_attribute", "old_still_true", "action", "conflict_status", "conflict_type", "links", "reason",
                 "clarification_needed"],
    "additionalProperties": False,
}

_EXAMPLES = [
    ("Dana: I play tennis on weekends.", "Dana: I'm halfway through switching from tennis to padel.",
     {"same_attribute": True, "old_still_true": False, "action": "transition", "conflict_status": "conflict",
      "conflict_type": "scope_mismatch", "links": ["evolves_from"], "reason": "change in progress",
      "transition_summary": "tennis to padel", "clarification_needed": False}),
    ("Dana: I rent a flat in Leeds.", "Dana: We finally moved to York last month!",
     {"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
      "conflict_type": "temporal_update", "links": ["supersedes"], "reason": "home city changed from Leeds to York",
      "old_state": "lives in Leeds", "clarification_needed": False}),
    ("Dana: I teach maths at the high school.", "Dana: Work at the hospital was long today, three night shifts in a row.",
     {"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
      "conflict_type": "temporal_update", "links": ["supersedes"], "reason": "job changed without saying so",
      "old_state": "teaches maths", "clarification_needed": False}),
    ("Dana: My partner Alex and I are going to Rome.", "Dana: Alex and I split up in March.",
     {"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
      "conflict_type": "explicit_negation", "links": ["supersedes"], "reason": "relationship with Alex ended",
      "old_state": "partner is Alex", "clarification_needed": False}),
    ("Dana: I run about 20 km a week.", "Dana: These days I only manage 8 km a week.",
     {"same_attribute": True, "old_still_true": False, "action": "supersede", "conflict_status": "conflict",
      "conflict_type": "value_discrepancy", "links": ["supersedes"], "reason": "weekly distance changed",
      "old_state": "runs 20 km a week", "clarification_needed": False}),
    ("Dana: I have a dog called Rex.", "Dana: We adopted a second dog, a beagle called Pip.",
     {"same_attribute": True, "old_still_true": True, "action": "coexist", "conflict_status": "no_conflict",
      "conflict_type": "none", "links": ["coexists_with"], "reason": "a second pet, Rex is still there",
      "clarification_needed": False}),
    ("Dana: I don't eat meat.", "Dana: The one exception is fish at my grandma's on Sundays.",
     {"same_attribute": True, "old_still_true": True, "action": "scoped_exception", "conflict_status": "conflict",
      "conflict_type": "scope_mismatch", "links": ["scoped_exception"], "reason": "exception only at grandma's",
      "clarification_needed": False}),
    ("Dana: I have a dog called Rex.", "Sam: You should get a cat, Dana!",
     {"same_attribute": False, "old_still_true": True, "action": "none", "conflict_status": "no_conflict",
      "conflict_type": "none", "links": [], "reason": "someone else's suggestion", "clarification_needed": False}),
    ("Dana: I live in Leeds.", "Dana: My sister lives in Manchester.",
     {"same_attribute": False, "old_still_true": True, "action": "none", "conflict_status": "no_conflict",
      "conflict_type": "none", "links": [], "reason": "different person", "clarification_needed": False}),
    ("Dana: I work at the bakery.", "Dana: The bakery is busy before Christmas.",
     {"same_attribute": True, "old_still_true": True, "action": "none", "conflict_status": "no_conflict",
      "conflict_type": "none", "links": [], "reason": "no change of state", "clarification_needed": False}),
]

_SYSTEM = """You audit a personal memory bank. Compare an OLD memory with a NEW memory and decide what the NEW memory does to the OLD one. Output one line of JSON, nothing else.

Fields, in order:
- same_attribute: both give a value for the same attribute of the same person (home, job, partner, a pet, a number, a hobby, a liked food).
- old_still_true: after the NEW memory, the OLD memory is still true.
- action: "supersede" (the old value is no longer true), "transition" (only when the text says the change is still under way, e.g. "halfway through", "in the middle of"), "coexist" (both stay true), "scoped_exception" (the new one holds only in a narrower situation), "none" (different attribute or person, a suggestion, or no change).
- links: ["supersedes"] for supersede, ["evolves_from"] for transition, ["coexists_with"] for coexist, ["scoped_exception"] for scoped_exception, [] for none.
A change counts even without words like "not".

Examples:
""" + "\n".join(
    json.dumps({"old_memory": o, "new_memory": n}, ensure_ascii=False) + "\n-> " + json.dumps(v, ensure_ascii=False)
    for o, n, v in _EXAMPLES
)


#: Longest memory text a Judge prompt carries (a memory is a line or two; a 1 MB paste is cut).
MAX_PROMPT_TEXT_CHARS = 1000


def _fmt(rec_text: str, speaker: str, time: str) -> str:
    who = f"{speaker[:80]}: " if speaker else ""
    when = f" (at {time})" if time else ""
    if len(rec_text) > MAX_PROMPT_TEXT_CHARS:
        rec_text = rec_text[:MAX_PROMPT_TEXT_CHARS] + " …"
    return f"{who}{rec_text}{when}"


def judge_messages(old: Record, new: Record, score: GateScore | None = None) -> list[Message]:
    """The Judge prompt for one pair. A pure function of its inputs."""
    payload: dict[str, Any] = {
        "old_memory": _fmt(old.text, old.speaker, old.time.isoformat(sep=" ", timespec="minutes") if old.time else ""),
        "new_memory": _fmt(new.text, new.speaker, new.time.isoformat(sep=" ", timespec="minutes") if new.time else ""),
    }
    if score is not None:
        payload["sentry"] = {"topic_agreement": round(score.a, 3)}
        if score.b is not None:
            payload["sentry"]["logic_compatibility"] = round(score.b, 3)
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]


def prompt_fingerprint() -> str:
    """All fixed text of the Judge prompt: its version and system text (the examples are part of
    it; the user message is only the pair as JSON). Run manifests hash it (eval.stream)."""
    return "\n".join([JUDGE_PROMPT_VERSION, _SYSTEM])


@dataclass(frozen=True)
class JudgeParse:
    verdict: Verdict | None
    status: str  # "ok" | "invalid_json" | "schema_error" | "empty" | "not_text" | "too_long" | "too_deep"
    error: str = ""


#: A model reply longer than this (after trimming surrounding whitespace) is rejected before any
#: regex or JSON parsing: a verdict is a few hundred characters, a controller reply under 2 KB.
MAX_REPLY_CHARS = 8192
#: Deepest ``[``/``{`` nesting accepted; deeper replies are rejected by a linear scan before ``json.loads``.
MAX_JSON_DEPTH = 20
#: How much of a rejected or accepted reply a trace keeps.
MAX_RAW_CHARS = 2000


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def strip_fence(text: Any) -> str:
    """The reply with a surrounding ```json fence removed (small models add one).

    Linear in the reply's length (no regex over whitespace runs); anything that is not a
    string reads as empty."""
    if not isinstance(text, str):
        return ""
    body = text.strip()
    if body.startswith("```"):
        body = body[3:]
        if body[:4].lower() == "json":
            body = body[4:]
        body = body.lstrip()
    if body.endswith("```"):
        body = body[:-3].rstrip()
    return body


def json_depth(body: str, limit: int = MAX_JSON_DEPTH) -> int:
    """Deepest bracket nesting of a JSON text outside strings, one linear pass; stops counting
    (returns ``limit + 1``) as soon as ``limit`` is exceeded."""
    depth = deepest = 0
    in_str = esc = False
    for ch in body:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def load_reply(text: Any) -> tuple[Any, str, str]:
    """Defensively decode a model's JSON reply: ``(data, status, error)``; ``status`` is ``ok``
    or why it was rejected (``not_text``, ``empty``, ``too_long``, ``too_deep``, ``invalid_json``).
    Bounded work whatever the reply: type check, length cap, linear depth scan, then ``json.loads``
    (non-finite numbers and oversized integers are rejected too). Never raises."""
    if not isinstance(text, str):
        return None, "not_text", f"reply is {type(text).__name__}, not text"
    body = text.strip()
    if len(body) > MAX_REPLY_CHARS:
        return None, "too_long", f"reply of {len(body)} characters exceeds {MAX_REPLY_CHARS}"
    body = strip_fence(body)
    if not body:
        return None, "empty", "empty reply"
    if json_depth(body) > MAX_JSON_DEPTH:
        return None, "too_deep", f"JSON nested deeper than {MAX_JSON_DEPTH}"
    try:
        return json.loads(body, parse_constant=_reject_constant), "ok", ""
    except json.JSONDecodeError as e:
        return None, "invalid_json", f"{e.msg} at char {e.pos}"
    except (ValueError, RecursionError, MemoryError) as e:  # int digits limit, NaN, surrogates
        return None, "invalid_json", _clip(f"{type(e).__name__}: {e}", 300)


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def validation_error(e: Exception, default_loc: str) -> str:
    """One short line for a pydantic (or other) validation failure."""
    try:
        first = e.errors()[0]  # type: ignore[attr-defined]
        loc = ".".join(str(p) for p in first["loc"]) or default_loc
        return _clip(f"{_clip(loc, 80)}: {first['msg']}", 300)
    except Exception:  # noqa: BLE001 - a message is only for the trace
        return _clip(f"{default_loc}: {type(e).__name__}", 300)


def parse_verdict(text: Any) -> JudgeParse:
    """Strictly parse a Judge reply (one JSON object; a ```json fence is tolerated). Never raises:
    any reply that is not text, too long, too deeply nested, not JSON or off-schema is rejected
    with its reason, and the caller uses :func:`fallback_verdict`."""
    data, status, error = load_reply(text)
    if status != "ok":
        return JudgeParse(None, status, error)
    if not isinstance(data, dict):
        return JudgeParse(None, "schema_error", "reply is not a JSON object")
    try:
        return JudgeParse(Verdict.model_validate(data), "ok")
    except ValidationError as e:
        return JudgeParse(None, "schema_error", validation_error(e, "verdict"))
    except Exception as e:  # noqa: BLE001 - hostile content must not reach the caller
        return JudgeParse(None, "schema_error", _clip(f"verdict: {type(e).__name__}", 300))


#: Change wording of the earlier rule; the anchored rule reads ``_ENDED`` below. The Judge's
#: training data (training.judge_data) still calls an update without these words implicit.
CHANGE_WORDS = re.compile(
    r"\b(now|moved|moving|relocated|switched|switching|changed|quit|left|new|started|starting|no longer|not anymore|"
    r"anymore|instead|these days|used to|got rid|broke up|split up|gave up|stopped|passed away|died|sold|adopted|"
    r"promoted|retired|divorced|married|engaged|lately|nowadays|since)\b",
    re.IGNORECASE,
)
NEGATION_WORDS = re.compile(r"\b(not|no|never|don't|doesn't|didn't|isn't|aren't|wasn't|can't|won't)\b", re.IGNORECASE)
#: Wording that says a state ended or was replaced (not just "new" or "no"): with a topical and
#: lexical anchor on the old record, enough for the rule to retire it.
_ENDED = re.compile(
    r"\b(no longer|not any ?more|any ?more(?=\s*(?:[.!,;:)\-–—]|$)|\s+(?:since|because|as|so|but|and|now|after|though|either|for|these)\b)|no more|instead(?: of)?|these days|nowadays|"
    r"(?:\b(?:i|we|i've|we've)\s+(?:\w+\s+)?)used to|switched|switching|"
    r"changed(?! (?:my|the|our|your) (?:\w+ )?(?:perspective|view|views|life|lives|game|way|outlook|mindset|approach))|moved|relocated|quit|gave up|given up|stopped|put (?:\w+ ){0,2}down|"
    r"dropped|replaced|swapped|traded|is history|(?:is|are|'s) (?:\w+ )?behind me|"
    r"(?:was|were) (?:\w+ ){0,4}for (?:ages|years|a while|a long time)|(?:was|were) (?:\w+ ){0,2}(?:my|our) (?:thing|go-to)|"
    r"how things change|left (?:my|the|that|our) (?:\w+ ){0,4}(?:job|gig|position|role|company|team|band|club|firm|school|course)|"
    r"broke up|split up|got rid|sold|passed away|retired|over now|not (?:\w+ ){0,2}(?:any )?longer|"
    r"turns out (?:i|i'm|my|that)|correction|i meant|scratch that|set the record straight|gone off|"
    r"mixed (?:that|it|them|things) up|got (?:that|it) wrong|(?:let me|i need to|i should) (?:fix|correct)|"
    r"i misspoke|i was wrong|my mistake|i should have said|what i meant|"
    r"(?:got|grew|getting|am|i'm) (?:\w+ )?tired of|sick of|shifted|moved on|in a box now|"
    r"still (?:like|love|enjoy|dabble|remember|play|do|watch|read|listen|go)\w*(?: \w+){0,8},? but|"
    r"handed in my notice|resigned|(?:was|got) laid off|(?:was|got) let go|ditched|dumped|"
    r"closed (?:down )?(?:my|the|our)|"
    r"(?:down|up) (?:to|from) (?:about |around |roughly |just |only )?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|zero)|"
    r"(?:it's|it has|it|that's|that has|has|have|i've|we've) (?:gone|jumped|dropped|changed|shifted|switched) from|"
    r"went from|drifting (?:away )?from|"
    r"increased|decreased|doubled|halved|cut out|cut (?:\w+ ){0,2}(?:completely|entirely)|"
    r"(?:i'm|i am|we're|we are) (?:so |totally |completely |officially )?over (?!the moon)|"
    # session 10, own wordings: a change made, said with other verbs
    r"handed in (?:my |the )?(?:badge|keys|notice|resignation|laptop|apron|uniform|lanyard|pass|key card)|packed up|renamed|"
    r"got (?:engaged|married|divorced|hitched|dumped|hired|fired|promoted|transferred|moved)|called off|"
    r"(?:upped|raised|lowered|bumped (?:up|down)|reduced|cut) (?:my|the|our) (?:\w+ )?(?:dose|dosage|rent|hours|"
    r"salary|pay|price|fee|limit|budget)|started (?:\w+ing) (?:\w+ ){0,2}again|turned \d+|"
    r"scrapped|cancell?ed|discontinued|axed|finished (?:my|the) (?:\w+ )?(?:degree|course|training|"
    r"contract|treatment)|"
    # session 11, own wordings: an end said as a fact about the old thing, a return, a new one
    r"(?:is|are|'s) (?:\w+ )?a thing of the past|(?:gone|went) back to \w+ing|"
    r"(?:i'm|we're|i am|we are|it's) back (?:up |down )?to (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"full[- ]time|part[- ]time)|(?:since|after) (?:the|my|our) (?:move|switch|promotion|raise|pay rise|divorce|"
    r"wedding|breakup|break-up|diagnosis|surgery|transfer|relocation|job change)|"
    r"(?:from|as of) this (?:week|month|year|term)|as of (?:today|now)|packed in|left (?:\w+ ){1,4}behind|"
    r"the old (?:\w+ )?(?:is|are) gone|fell off (?:my|the) (?:schedule|calendar|radar|list|rota)|converted to|since (?:i|we) (?:moved|switched|changed jobs|relocated)|"
    r"(?:was|is) my (?:final|last) (?:day|shift|week|class|session|game|match|lesson) (?:at|with|of|in|as)|"
    r"didn't stick|fell by the wayside|fizzled out|petered out|stepped down|let (?:my|our|the) (?:\w+ ){0,4}?"
    r"(?:lapse|expire|run out)|(?:i'm|i am|we're|we are) (?:now |officially |completely )?off (?:the )?(?:keto|paleo|"
    r"diet|meds|medication|pills?|caffeine|sugar|booze|alcohol|coffee|meat|dairy|gluten|carbs|cigarettes|nicotine|"
    r"social media|antidepressants|painkillers|steroids|insulin)|(?:i'm|i am|we're|we are) (?:now |finally |officially )?"
    r"off (?:the|my) (?:\w+ )?(?:list|register|payroll|rota|roster|books)|(?:is|are|'s) (?:all )?(?:done|over|finished) "
    r"for (?:me|us)|(?:gave|give|gone|quit|left|moved|stopped|put|packed|sold|retired|rest|closed|shut)(?: \w+){0,3} for good|(?:has |have |'s )?(?:taken|took) over (?:as|from me)|"
    r"replaced me|(?:i've|i have|we've|we have) outgrown|my new (?:\w+ ){0,2}(?:is|are|'s)|"
    r"kicked (?:the|my|that) (?:\w+ ){0,2}habit|(?:went|go|going) our separate ways|parted ways|called it quits|"
    r"broke it off)\b",
    re.IGNORECASE,
)
# "won't quit", "never moved", "don't want to change": a change word under a negation says no change.
_NEGATED_CHANGE = re.compile(r"\b(?:won't|wouldn't|don't|didn't|never|not|can't|couldn't|nothing(?:'s| has)?|"
                             r"hasn't|haven't)\s+(?:\w+\s+){0,2}$",
                             re.IGNORECASE)
# "anymore", "no longer": wording that carries its own negation ("I'm not a bartender anymore").
_SAYS_NOT = re.compile(r"(?:no longer|not any ?more|any ?more|no more|not (?:\w+ ){0,2}(?:any )?longer)$", re.IGNORECASE)
#: Weaker wording ("now", "lately", "actually", "left"): a change only with a stronger lexical anchor.
_ENDED_WEAK = re.compile(r"\b(now|lately|actually|left|these days|nowadays|"
                         r"since (?:i|we) (?:\w+ )?(?:joined|started|moved|got|began|switched|changed|left|took))\b",
                         re.IGNORECASE)
# "trying to cut back", "I want to quit": a change meant, not made.
_INTENDED = re.compile(r"\b(?:trying|try|want|wanna|going|gonna|plan|planning|hope|hoping|need|thinking about|"
                       r"thinking of|might|should|could|would|may)\s+(?:to\s+)?(?:\w+\s+)?$", re.IGNORECASE)
# "My friend switched to Italian", "she moved": change wording whose subject is someone else.
_OTHER_SUBJECT = re.compile(
    r"(?:^|[.!?,;:\-–—]\s*|\b(?:and|but|so|because|since|when|as|after|before|that|then|now|oh|well)\s+)"
    r"(?:he|she|they|(?:my|our|his|her|their) (?:\w+ )?(?:friend|sister|brother|mum|mom|dad|mother|father|aunt|uncle|"
    r"wife|husband|partner|boss|son|daughter|kids?|neighbou?r|cousin|colleague|roommate|flatmate|grandma|grandpa|"
    r"parents|dog|cat))(?:'s| has| have| is| are| was| were| just| finally| recently| now)*\s+$", re.IGNORECASE)
#: A sentence whose subject is someone else ("My sister is slowly going vegan").
_OTHERS_SENTENCE = re.compile(
    r"^\W*(?:(?:oh|and|so|well|but)[,]?\s+)?(?:he|she|they|(?:my|our|his|her|their) (?:\w+ )?(?:friend|sister|brother|"
    r"mum|mom|dad|mother|father|aunt|uncle|wife|husband|partner|boss|son|daughter|neighbou?r|cousin|colleague|"
    r"roommate|flatmate|parents|grandma|grandpa|girlfriend|boyfriend|neighbou?r's (?:\w+ )?\w+))\b", re.IGNORECASE)


def _own_clause(said: str, pattern: re.Pattern[str], self_negating: re.Pattern[str] | None = None) -> bool:
    """``pattern`` in ``said`` not said of someone else ("my friend is gradually ..."), not as an
    intention ("I want to gradually ...") and not under a negation ("won't quit") — unless the
    wording carries its own negation (``self_negating``: "not a bartender anymore")."""
    return _own_match(said, pattern.finditer(said), self_negating)


def _own_match(said: str, matches: Any, self_negating: re.Pattern[str] | None = None) -> bool:
    """One of ``matches`` (in ``said``) not said of someone else, not meant and not negated."""
    for m in matches:
        before = said[: m.start()]
        # someone else's change, unless it is done to the speaker's own ("They've lowered my dose")
        if (_OTHER_SUBJECT.search(before) and not _MY.search(m.group(0))) or _INTENDED.search(before):
            continue
        if (_NAMED_SUBJECT.search(before) and _ITS_OWN_OBJECT.match(said[m.end():])
                and not _MY.search(m.group(0))):
            continue  # "Zenit sold their best striker": the club's own change
        if (self_negating is not None and self_negating.match(m.group(0))) or not _NEGATED_CHANGE.search(before):
            return True
    return False


_MY = re.compile(r"\b(?:my|our)\b", re.IGNORECASE)
#: A named subject right before the change word ("Zenit sold", "Greenfield High is switching"), not
#: the speaker ("I", "My", "We" are not names here).
_NAMED_SUBJECT = re.compile(r"(?:^|[!?;]\s+|\.\s+(?=[A-Z]))\W*(?:[Tt]he\s+)?(?!(?:I|I'm|I've|My|Our|We|We've|We're|Me|It|This|That|These|Those|There|Here|What|Which|Who|"
                            r"Everyone|Everything|Nothing|Someone|Something|You|He|She|They|Yes|No|So|And|But|Then|Now|"
                            r"Also|Just|Still|Finally|Today|Yesterday)\b)"
                            r"[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,2}(?:'s|\s+has|\s+have|\s+is|\s+are|\s+was|\s+were|"
                            r"\s+just|\s+finally|\s+recently|\s+now)*\s+$")
#: ... acting on a thing of its own ("sold their best striker", "is switching to a four-day week"):
#: its change, not the speaker's. Ending with no object ("Dr. Reyes retired, so ...") or acting
#: on the speaker ("moved us to King's Cross") stays the speaker's news.
_ITS_OWN_OBJECT = re.compile(r"\s+(?:their|its|his|her|a|an|the|to|some|all)\b", re.IGNORECASE)


def _under_way(said: str) -> bool:
    """A change of the speaker's own still under way: a fixed phrase ("halfway through moving")
    or a change word with a sign it is not finished (:func:`atma.aspect.under_way`)."""
    return any((_own_clause(x, _IN_PROGRESS) or _own_match(x, under_way(x))) and not _OTHERS_SENTENCE.match(x)
               for x in _SENTENCE.split(said))


#: "moved my direct debits over", "moving the sofa": a thing moved, named after a determiner.
_MOVED_THING = re.compile(r"\b(?:moved|moving|move)\s+(?:(?:all|some|most|half)\s+(?:of\s+)?)?"
                          r"(?:my|our|the|his|her|their|a|an|those|these|this|that)\s+((?:[\w'-]+\s*){1,3})",
                          re.IGNORECASE)
#: ... unless the thing is a household: "moved the whole family to Denver", "moving all our stuff".
_MOVED_HOUSEHOLD = re.compile(r"\b(?:family|families|kids|children|stuff|things|belongings|boxes|life|lives|whole|"
                              r"everything|household|furniture|house|home|flat|apartment|office|business)\b",
                              re.IGNORECASE)


def _moved_thing(old_text: str, m: re.Match[str]) -> str:
    """The match blanked when it moves a thing that is neither a household nor the old value's own
    ("Moved my yoga class to Thursdays" after "Yoga is on Mondays" stays a change)."""
    thing = m.group(1)
    if _MOVED_HOUSEHOLD.search(thing) or _content(thing, set()) & _content(old_text, set()):
        return m.group(0)
    return " "


def _says_change(sentence: str) -> bool:
    """Strong change wording in ``sentence``, not under a negation ("won't quit") and not said of
    someone else ("my friend switched")."""
    return _own_clause(sentence, _ENDED, _SAYS_NOT)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_DIGITS = re.compile(r"\d")
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?|\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"fifteen|twenty|thirty|forty|fifty|sixty|hundred|dozen)\b", re.IGNORECASE)
# A name used to address someone ("Thanks, Mel!", "... you, Caroline.") is not what a statement is about.
_VOCATIVE = re.compile(r"(?:^|\b(?i:hey|hi|hello|thanks|thank you|yeah|yes|no|oh|wow|congrats|sorry|aw+)[,!]?\s+|,\s*)"
                       r"([A-Z][a-z]+)(?=\s*[!.?,]|$)")
_STOP = frozenset("""a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't could did didn't do does doesn't doing don't down during each few for from
further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how
how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off
on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some
such than that that's the their theirs them themselves then there there's these they they'd they'll they're they've
this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when
when's where where's which while who who's whom why why's with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves just really so also still now these days lately anymore longer used ago time times
lot lots thing things stuff way day days week weeks year years month months today yesterday tomorrow got get getting
gotten go going gone went make made making like liked love loved great good nice cool awesome amazing glad happy
thanks thank hey hi hello wow oh yeah yes haha lol btw anyway honestly actually totally pretty super much many
little bit kind sort feel felt think thought know knew want wanted need needed hope say said tell told fun really
new old change changed changes since instead no more quick update life small funny happens happen share shared
fact facts wondering just thought roughly around approximately nearly almost usually mostly often always every
each most least right""".split())


def statements(text: str) -> str:
    """``text`` without its questions ("Have you made any more art lately?" states nothing); a
    statement with a question tagged on keeps its statement ("My Friday nights are bachata
    nights now, who even am I?")."""
    parts = []
    for x in _SENTENCE.split(text.strip()):
        if x and x.rstrip().endswith("?"):
            x = tagged_statement(x)
        if x:
            parts.append(x)
    return " ".join(parts)


_TAG = re.compile(r"^(.*\S),\s+((?:\S+\s+){0,4}\S+\?)\s*$")
_ASKS = re.compile(r"^\W*(?:(?:so|oh|and|but|well|hey|hi|by the way|btw)\W+)*(?:what|who|whom|whose|where|when|why|how|"
                   r"which|do|does|did|is|are|was|were|can|could|would|will|have|has|had|should|shall|may|might|am|"
                   r"aren't|isn't|don't|didn't|won't|wouldn't|haven't|any|anything)\b", re.IGNORECASE)


def tagged_statement(sentence: str) -> str:
    """The statement before a short question tagged on at the end ("..., who even am I?",
    "..., right?", "..., can you believe it?"), or "" when ``sentence`` is a question.

    >>> tagged_statement("My Friday nights are bachata nights now, who even am I?")
    'My Friday nights are bachata nights now.'
    >>> tagged_statement("Hey Mel, how are you?")
    ''
    >>> tagged_statement("By the way, do you want to come along?")
    ''
    """
    m = _TAG.match(sentence.strip())
    if not m:
        return ""
    lead = m.group(1)
    if len(_WORDS.findall(lead)) < 4 or not _FIRST_PERSON.search(lead) or _ASKS.match(lead):
        return ""
    return lead + "."


def _content(text: str, drop: set[str]) -> set[str]:
    """Content words of ``text`` (lower case, naive singular), without stopwords and ``drop``."""
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.split("'")[0]
        if len(w) < 3 or w in _STOP or w in drop or w.isdigit():
            continue
        out.add(w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w)
    return out


_SENT_START = re.compile(r"(?:^|[.!?:;\-–—]\s+|\n)\W*([A-Z]\w*)")


def _proper(text: str, drop: set[str]) -> set[str]:
    """Capitalised words not opening a sentence (names of places, pets, languages, brands),
    lower-cased, without ``drop``."""
    starts = {m.start(1) for m in _SENT_START.finditer(text)}
    out = set()
    for m in re.finditer(r"\b[A-Z][a-z]{2,}\b", text):
        w = m.group(0).lower()
        if m.start() not in starts and w not in drop and w not in _STOP and w != "i":
            out.add(w)
    return out


#: Attributes people update about themselves, each with words that name it. Two statements
#: touching one family (and close in topic) are about one attribute even when they share no word
#: ("I rent a flat in Leeds" / "I moved to Bristol").
ATTRIBUTE_FAMILIES: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    "home": "live living lived rent renting rented flat apartment house home moved move moving relocated relocate "
            "neighbourhood neighborhood landlord lease mortgage condo studio dorm",
    "work": "work working worked job jobs employer company hired fired quit promoted promotion office boss career "
            "position role shift shifts employed unemployed retired retire colleague colleagues salary",
    "pet": "dog dogs cat cats pet pets puppy kitten rabbit hamster parrot goldfish tortoise fostering foster",
    "partner": "girlfriend boyfriend partner wife husband married dating engaged divorced fiance fiancee spouse single",
    "diet": "vegetarian vegan meat eat eating diet allergic allergy gluten dairy pescatarian",
    "study": "studying study studies class classes course degree university college school major learning",
    "vehicle": "car cars drive driving bike bicycle motorbike scooter commute commuting",
    "phone": "phone phones iphone android laptop computer screen",
    # session 10, for own wordings ("I renamed my account" / "My username is ..."; "joined a different
    # parish" / "I go to St. Mark's church"; "switched GPs" / "My doctor is ...")
    "account": "username usernames handle account accounts login email e-mail inbox password",
    "faith": "church churches parish congregation mosque synagogue temple chapel catholic protestant jewish "
             "judaism muslim islam christian buddhist buddhism hindu",
    "care": "doctor doctors gp gps dentist dentists therapist physician physio psychiatrist counsellor counselor",
}.items()}


def _vocab_hits(text: str, table: Mapping[str, frozenset[str]]) -> set[str]:
    """The names in ``table`` whose words ``text`` uses."""
    words = {w.split("'")[0] for w in _WORD.findall(text.lower())}
    return {name for name, vocab in table.items() if words & vocab}


def attribute_families(text: str) -> set[str]:
    """The attribute families whose words ``text`` uses."""
    return _vocab_hits(text, ATTRIBUTE_FAMILIES)


#: Things people count or measure (per day, week, month). Two numbers anchor a change only when
#: the statements do not count different things: "I cycle 20 km a week" is no old value of
#: "I run 45 km a week", though both give kilometres a week.
MEASURED_ACTIVITIES: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    "running": "run runs running ran jog jogs jogging jogged marathon",
    "cycling": "cycle cycles cycling cycled ride rides riding rode bike bikes biking biked",
    "swimming": "swim swims swimming swam laps",
    "walking": "walk walks walking walked steps hike hikes hiking hiked",
    "reading": "read reads reading books book pages novels",
    "sleep": "sleep sleeps sleeping slept nap naps bed",
    "waking": "wake wakes waking woke alarm",
    "screen": "screen phone",
    "coffee": "coffee coffees espresso espressos latte lattes",
    "tea": "tea teas",
    "gym": "gym workout workouts lifting",
    "rent": "rent",
    "commute": "commute commuting commutes",
    "volunteering": "volunteer volunteers volunteering volunteered",
    "plants": "plant plants houseplants houseplant",
    "groceries": "groceries grocery",
    "water": "water",
    "meditation": "meditate meditates meditating meditation",
}.items()}


def measured_activities(text: str) -> set[str]:
    """The counted activities (:data:`MEASURED_ACTIVITIES`) that ``text`` names."""
    return _vocab_hits(text, MEASURED_ACTIVITIES)


def counts_other_things(old_text: str, new_text: str) -> bool:
    """True when both statements name a counted activity and none in common ("I cycle 20 km a
    week" / "I run 45 km a week"): their numbers are values of different attributes.

    >>> counts_other_things("I cycle about 20 km a week.", "I run about 45 km a week right now.")
    True
    >>> counts_other_things("I cycle about 20 km a week.", "My rides add up to 110 km a week lately.")
    False
    >>> counts_other_things("My commute is 25 minutes.", "It's 50 minutes now.")
    False
    """
    old, new = measured_activities(old_text), measured_activities(new_text)
    return bool(old) and bool(new) and not old & new


def names_shared(old: Record, new_text: str) -> bool:
    """True when the new text names a place, pet, person or brand the old record names (not a
    speaker's name and not someone addressed).

    >>> names_shared(Record(id="r", namespace="u", text="Living in Nashville has perks.", speaker="Tim"),
    ...              "So I don't live in Nashville anymore, Tim.")
    True
    """
    return lexical_anchor(old.text, new_text, (old.speaker,))[3]


def lexical_anchor(old_text: str, new_text: str, names: Sequence[str] = ()) -> tuple[int, float, bool, bool]:
    """(content words shared by the two statements, their share of the shorter statement's
    content words, both state a number (of one counted thing, :func:`counts_other_things`),
    they share a name): how directly the new statement talks about
    what the old one said. Speakers' names and names used to address someone are not content.

    >>> lexical_anchor("My commute is about 25 minutes.", "With the road work my commute is 50 minutes now.")
    (2, 1.0, True, False)
    >>> lexical_anchor("Thanks, Mel! The event was great.", "Hey Mel! So proud of you!", ["Caroline"])
    (0, 0.0, False, False)
    >>> lexical_anchor("I look after Pepper, a chinchilla. Cutest guest ever.", "No more Pepper - owners took him.")[3]
    True
    """
    drop = {n.lower() for n in names if n}
    for t in (old_text, new_text):
        drop.update(m.group(1).lower() for m in _VOCATIVE.finditer(t))
    old_words, new_words = _content(old_text, drop), _content(new_text, drop)
    shared = old_words & new_words
    cover = len(shared) / min(len(old_words), len(new_words)) if old_words and new_words else 0.0
    named = bool(_proper(old_text, drop) & ({w.lower() for w in re.findall(r"\b[A-Z][a-z]{2,}\b", new_text)} - drop))
    numbers = bool(_NUMBER.search(old_text)) and bool(_NUMBER.search(new_text)) and not counts_other_things(old_text, new_text)
    return (len(shared), round(cover, 4), numbers, named)


_CONTRAST = r"\b(?:not|no more|instead of|rather than)\s+(?:(?:a|an|the|my|any|doing|playing|by)\s+)?"


def _change_sentences(said: str) -> str:
    """The sentences of ``said`` that use change wording (not under a negation), each with the
    sentence after it."""
    parts = [x for x in _SENTENCE.split(said) if x.strip()]
    keep: set[int] = set()
    for i, x in enumerate(parts):
        if _says_change(x) or _ENDED_WEAK.search(x) or _GRADUATED.search(x):
            keep.update((i, i + 1))
    return " ".join(parts[i] for i in sorted(keep) if i < len(parts))


def contrasts_old_value(old_text: str, new_text: str) -> bool:
    """True when the new statement sets a word of the old one against its new value ("it's
    birdwatching now, not foraging", "no more bachata for me", "switched from tea"): the old
    value, named as what is no longer so.

    >>> contrasts_old_value("Whenever it's nice I go foraging.", "My hobby shifted - it's birdwatching now, not foraging.")
    True
    >>> contrasts_old_value("I go foraging.", "Not sure about foraging spots, I moved.")
    False
    """
    low = new_text.lower()
    for w in _content(old_text, set()):
        if re.search(_CONTRAST + re.escape(w), low) and not re.search(r"(?:^|[.!?]\s+)not\s+(?:sure|certain)", low):
            return True
    return False


_MOVES_FROM = (r"\b(?:from|swapped|swapping|swap|traded|trading|replaced|replacing|exchanged) "
               r"(?:(?:a|an|the|my|about|around|roughly|just)\s+)?(?:[\w-]+\s+){{0,2}}?{w}(?:e?s)?\b[^.!?]{{0,40}}?"
               r"\b(?:to|towards|toward|into|for|with)\b")


def moves_from_old_value(old_text: str, new_text: str) -> bool:
    """True when the new statement names the old value as where a change starts: "going from 3 to
    5", "drifting from madrigals towards fado", "swapped morris dancing for paddling".

    >>> moves_from_old_value("I read 3 books a month.", "I'm gradually going from 3 to 5, a little each week.")
    True
    >>> moves_from_old_value("My favourite music is zydeco.", "Went from zydeco to baroque music in the winter.")
    True
    >>> moves_from_old_value("I read 3 books a month.", "I drove from Leeds to York.")
    False
    """
    low = new_text.lower()
    values = {re.escape(w) for w in _content(old_text, set()) - _ATTRIBUTE_WORDS} | {re.escape(n) for n in _numbers(old_text)}
    return any(re.search(_MOVES_FROM.format(w=w), low) for w in values)


#: Wording that names what ended or what a change starts from, followed by that thing:
#: "no more tap dance", "quit the choir", "instead of oat milk", "switched from Spotify",
#: "moved out of Leeds", "it's bachata now, not salsa".
_NAMES_ENDED = re.compile(
    r"(?:\bno (?:more|longer)|\bquit(?:ting)?|\bgave up|\bgiving up|\bditched|\bdropped|\bstopped|\binstead of|"
    r"\brather than|\bswitched (?:away )?from|\bswitching from|\bmoved (?:away )?from|\bmoved out of|\bswapped|"
    r"\btraded|\bleft|,\s*not)\s+((?:[\w'-]+\s*){1,6})", re.IGNORECASE)
_NAMED_LEAD = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their|doing|playing|being|going to|going|with|at|in|"
                         r"on|for|to|all|any|that|this|those|these|so|as|of)\s+)+", re.IGNORECASE)
_NAMED_END = re.compile(r"\s+(?:for|and|to|but|because|since|now|anymore|any|at|in|with|so|or|as|after|"
                        r"before|when|then|this|last|these|nowadays|altogether|completely|entirely|though|"
                        r"once|by|on|of|is|was|it|i|me|we)\b.*$", re.IGNORECASE)


_NAMED_TAIL = re.compile(r"\s+(?:last|this|next|yesterday|today|ago|now|anymore|since|for|because|but|and|so|"
                         r"after|before|when|though)\b.*$", re.IGNORECASE)
#: What follows "left", "stopped", "dropped" ... when it is no thing that ended ("left early",
#: "stopped by the shop", "dropped him a line").
_NAMED_NOT_A_THING = re.compile(r"^(?:by|early|late|home|behind|over|off|out|around|him|her|them|it|me|us|you|"
                                r"a (?:message|note|comment|line|review)|work early)\b", re.IGNORECASE)


def named_old_values(text: str) -> list[str]:
    """What a statement names as ended or left behind, at most two phrases, for a second search
    of the old record when the statement's other words (the new value) lead the first search
    elsewhere. Pure text; the Judge still decides the pair.

    >>> named_old_values("Update on my end: No more tap dance for me, I signed up for bachata classes.")
    ['tap dance']
    >>> named_old_values("Switched from Spotify to Tidal last week.")
    ['spotify']
    >>> named_old_values("I love my new flat, it's great.")
    []
    """
    out: list[str] = []
    for m in _NAMES_ENDED.finditer(statements(text)):
        whole = _NAMED_LEAD.sub("", m.group(1).strip().lower()).strip()
        if _NAMED_NOT_A_THING.match(whole):
            continue
        phrase = _NAMED_END.sub("", whole)
        if not _content(phrase, set()) - _ATTRIBUTE_WORDS:  # "my job at the bakery", "live in Bergen"
            phrase = _NAMED_TAIL.sub("", whole)
        phrase = re.sub(r"[^\w'\s-]", "", phrase).strip()
        if _content(phrase, set()) - _ATTRIBUTE_WORDS and phrase not in out:
            out.append(phrase)
    return out[:2]


def names_phrase(text: str, phrase: str) -> bool:
    """``text`` holds every word of ``phrase`` that names a value (not the attribute):
    "My Friday nights are tap dance nights now" holds "tap dance"."""
    want = _content(phrase, set()) - _ATTRIBUTE_WORDS
    return bool(want) and want <= _content(text, set())


#: Topic agreement at or above which the fallback treats a pair as the same attribute.
FALLBACK_SAME_TOPIC = 0.6
#: Topic agreement at which a pair without any shared content word still counts as one attribute.
FALLBACK_CLOSE_TOPIC = 0.8
#: Lowest topic agreement at which a pair that shares a content word, with strong change wording, counts.
FALLBACK_SHARED_TOPIC = 0.45
#: Lowest topic agreement at which a pair that shares a name (a place, a pet, a language) counts.
FALLBACK_ANCHORED_TOPIC = 0.3
#: Lowest topic agreement at which two statements about one attribute family (home, work, pet, ...) count.
FALLBACK_FAMILY_TOPIC = 0.4
#: Topic agreement at which an implicit update (:func:`atma.implicit.implied_change`) is read: none
#: needed — its frames name the state themselves ("shift as a locksmith" / "work as a pharmacist"),
#: and MiniLM scores such pairs low (0.06 for "Another long shift as an air traffic controller
#: today" / "Oluwaseun works as a speech therapist").
FALLBACK_IMPLIED_TOPIC = 0.0
#: Topic agreement at which weak wording ("now") restates the old statement closely enough to
#: change it on a number alone, or on one attribute family restated with most of its words.
FALLBACK_RESTATE_TOPIC = 0.75
#: Share of the shorter statement's content words the two must have in common to be about one thing.
FALLBACK_COVER = 0.2


_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|youre|you've|you'll|you'd|yours|ur)\b", re.IGNORECASE)
# "Noted:", "Got it -", "I'll remember that": how an assistant (or a friend) opens an acknowledgement.
_ACK_OPENER = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|alright|all right|sure|great|cool|nice|wow|oh|ah|aw+)[,!.]?\s+)?"
    r"(?:noted|got it|gotcha|understood|roger(?: that)?|will do|good to know|copy that|sounds good|"
    r"(?:i'll|i will|i'm going to|let me) (?:remember|keep in mind|note|make a note of|save|update)(?: (?:that|this|it))?|"
    r"(?:i've|i have) (?:noted|saved|updated|made a note)(?: (?:that|this|it))?|"
    r"thanks for (?:letting me know|telling me|sharing|the update)|saved|updated|ok(?:ay)?|so)\b[\s,:;.!\-–—]*",
    re.IGNORECASE)
# "You should try Leeds", "why don't you", "you'd love it": a suggestion or a guess, not their state.
_SUGGESTION = re.compile(
    r"\b(?:you (?:should|could|might|must|ought|may|can|need to|have to|want to|wanna|gotta)|why (?:don't you|not)|"
    r"have you (?:ever )?(?:thought|considered|tried)|what about|how about|maybe you|if you|you'd (?:love|like|enjoy)|"
    r"would you|do you|did you|are you|were you|will you|hope you|wish you)\b", re.IGNORECASE)


# "you live in", "you're a nurse", "your commute is": the form in which a state is said back.
_SAYS_STATE = re.compile(
    r"\b(?:you(?:'re| are)|you (?:still |now )?(?:live|work|have|own|drive|play|sleep|drink|run|commute|eat|study|"
    r"teach|keep|go|get|spend|take|earn|pay|rent|read|speak|use|wake|train|cycle|swim|walk)s?|"
    r"your (?:\w+ ){0,2}(?:is|are|takes|costs|was))\b", re.IGNORECASE)
_PRAISE = re.compile(r"\byou(?:'re| are) (?:so|such|really|very|truly|too|the best|amazing|awesome|incredible|"
                     r"lucky|brave|strong|doing|gonna|going to)\b|\byou (?:look|seem|sound|must|deserve|can|will)\b|"
                     r"\byou'll\b|\byou've got (?:this|it)\b|"
                     r"\b(?:is|are|'s) (?:so |really |just |truly )?(?:awesome|amazing|great|cool|wonderful|incredible|"
                     r"inspiring|beautiful|lovely|impressive|a priority)\b|\b(?:make sure|remember to|don't forget)\b",
                     re.IGNORECASE)


def addressed_statements(text: str, names: Sequence[str] = ()) -> str:
    """The sentences of ``text`` that tell the person addressed what their own state is — an
    acknowledgement or restatement by another speaker ("Noted: you live in Leeds now.", "So your
    commute is 25 minutes", "Got it - Mia's cat is called Miso" with ``names=["Mia"]``): in the
    second person or naming one of ``names``, or after an acknowledging opener; not a question, a
    suggestion ("you should try Leeds") or a sentence about the speaker themself ("I live in Leeds too").

    >>> addressed_statements("Noted: you live in Leeds. I hope the move went well!")
    'you live in Leeds.'
    >>> addressed_statements("You should move to Leeds. Do you like it?")
    ''
    """
    out = []
    for x in _SENTENCE.split(statements(text)):
        body = _ACK_OPENER.sub("", x.strip(), count=1)
        opened = body != x.strip()
        if not body or _SUGGESTION.search(body) or _FIRST_PERSON.search(body):
            continue
        # the person named as the subject ("Mia's cat is Miso", "Mia lives in Leeds"), not greeted ("Mia, great!")
        named = any(n and re.search(rf"\b{re.escape(n)}(?:'s\b|\s+(?:is|has|was|\w+s)\b)", body) for n in names)
        if _PRAISE.search(body):  # "you're so dedicated", "you look so happy": a reaction, not a value
            continue
        if _SAYS_STATE.search(body) or named or (opened and not _SECOND_PERSON.search(body)):
            out.append(body)
    return " ".join(out)


#: A change under way, not yet complete ("I'm halfway through moving to Porto", "gradually cutting
#: down from 6 to 3"): with an anchor on the old statement, a transition (the old state is where it
#: comes from; it stops being current).
_IN_PROGRESS = re.compile(
    r"\b(?:in the (?:middle|midst|process) of \w+ing|(?:halfway|half way|part ?way) (?:through|to|into) "
    r"(?:(?:a|my|the|our) )?(?:\w+ing|plan|process|switch|move|transition)|"
    r"gradually|bit by bit|little by little|step by step|slowly (?:\w+ing)\b|"
    r"phasing (?:\w+ )?(?:out|in)|weaning (?:myself |me )?off|tapering|transitioning (?:to|from|into|away|over)|"
    r"easing (?:myself )?(?:into|off|out of)|working my way (?:up|down|towards?))",
    re.IGNORECASE)
#: A restriction or a condition beside a default: the old value still holds, but not everywhere
#: ("only on weekends", "except in winter", "when it snows ... normally ...").
_RESTRICT = re.compile(
    r"\b(?:only (?:\w+ ){0,3}?(?:on|in|at|during|when|if|while)|except(?: for| on| in| when| at| during| over)?|apart from|"
    r"other than|unless|just (?:on|in|at|during|when)|(?:but|just|though) not (?:on|in|at|during|over|when|while)|"
    r"(?:just|only) a (?:weekend|weekday|summer|winter|holiday|sometimes) thing)\b", re.IGNORECASE)
_CONDITION = re.compile(
    r"\b(?:on (?:the )?(?:weekends?|weekdays?|workdays?|work days|school days|holidays?|vacation|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)|at (?:the )?weekends?|during (?:the week|term|the holidays|"
    r"the season|winter|summer)|in (?:the )?(?:winter|summer|spring|autumn|fall|off-season|holidays)|"
    r"when (?:it (?:rains|snows|is|'s)|i(?:'m| am)? (?:\w+ )?(?:travell?ing|away|on call|working|busy|on holiday|visiting|travel))|"
    r"while (?:travell?ing|on holiday|away|on call)|on (?:work )?trips?|on business|"
    r"every (?:winter|summer|spring|autumn|fall|weekend|weekday|holiday)|over the (?:holidays|summer|winter)|"
    r"during (?:the )?(?:\w+ )?(?:training|term|season|holidays|work ?week|busy weeks?|exams?)|"
    r"on (?:rainy|sunny|cold|busy|work|school) days|(?:for|at) (?:workouts|the gym|work) only)\b", re.IGNORECASE)
_DEFAULT = re.compile(r"\b(?:usually|normally|generally|typically|otherwise|the rest of the (?:time|week|year)|"
                      r"most of the time|most (?:days|weeks)|the other (?:days|months))\b", re.IGNORECASE)
#: One more value beside the old one ("Besides pottery I've taken up kite surfing", "we adopted a
#: degu, so Parsnip has company"): a second item of a multi-valued attribute; both stay current.
_ADDS = re.compile(
    r"\b(?:also|as well|besides|alongside|in addition(?: to)?|on top of|along with|next to|"
    r"a second|second (?:\w+ )?(?:hobby|job|gig|pet|dog|cat|language|instrument|car|love|favou?rite)|"
    r"add(?:ed|ing)? (?:\w+ ){0,4}to (?:the|my|our) (?:list|collection|family|household|rotation|crew)|"
    r"has company|have company|(?:joined|joins) (?:the family|the household|us))\b", re.IGNORECASE)


_STILL_BUT = re.compile(r"\bstill (?:\w+ ){0,9}?\w+,? but\b", re.IGNORECASE)


def _scoped(said: str) -> bool:
    """A restriction ("only on weekends"), a condition beside a default ("when it snows ...;
    normally ..."), or two conditions ("on workdays ...; at weekends ...")."""
    conditions = {m.group(0).lower() for m in _CONDITION.finditer(said)}
    negated = any(re.search(r"\bnot\s+$", said[: m.start()]) for m in _CONDITION.finditer(said))  # "just not at weekends"
    return (bool(_RESTRICT.search(said)) or negated or (bool(conditions) and bool(_DEFAULT.search(said)))
            or len(conditions) >= 2)


def _mentions_value(old_text: str, new_text: str, names: Sequence[str], close: bool = False) -> bool:
    """The new text names the old statement's value: a shared name, the same number (with a
    shared word, or on its own when the pair is ``close`` in topic), or a shared word that is not
    just the attribute's name ("pottery", not "hobby")."""
    shared, _cover, _both, named = lexical_anchor(old_text, new_text, names)
    same_number = bool(_numbers(old_text) & _numbers(new_text))
    values = _value_words(old_text, new_text, {n.lower() for n in names if n})
    return named or (same_number and (shared >= 1 or close)) or bool(values)


def _value_words(old_text: str, new_text: str, drop: set[str]) -> set[str]:
    """Content words the two statements share that are not just an attribute's name."""
    return (_content(old_text, drop) & _content(new_text, drop)) - _ATTRIBUTE_WORDS


#: Words that name an attribute rather than its value ("main hobby", "cups of coffee a day"): two
#: statements sharing only these do not name one value.
_ATTRIBUTE_WORDS = frozenset("""hobby hobbie favourite favorite main music song band job work career pet
live home drink eat food diet commute sleep read book cup night hour minute kilometre kilometer mile month
rent euro dollar pound play listen watch name named called take usually daily""".split())


def _names_old_value(old: Record, where: str, speaker: str) -> bool:
    """``where`` names the old statement's value itself: a shared name, the old value set against
    the new ("no more Saturdays"), or the same number with a shared word ("instead of 2 cups")."""
    shared, _cover, _both, named = lexical_anchor(old.text, where, (old.speaker, speaker))
    return (named or contrasts_old_value(old.text, where) or moves_from_old_value(old.text, where)
            or (shared >= 1 and bool(_numbers(old.text) & _numbers(where))))


# ------------------------------------------------------------ a state restated with a new value
# "I sleep 5 hours a night." after "I sleep 7 hours a night."; "Oh and I live in Duluth." after
# "Benedikt lives in Valparaiso.": the one statement frame, one value swapped, no change wording
# (the newest value wins). Only frames of single-valued states (where someone lives, works, how
# much they sleep or pay, what their favourite is): "I have a cat" / "I love hiking" add values.
_STATE_VERBS = frozenset("""live work am is sleep drink run read commute earn pay rent take drive study teach weigh
cycle swim walk wake go""".split())
_LEAD = re.compile(r"^(?:(?:oh|and|so|well|also|btw|by the way|for what it's worth|actually|honestly|realistically|"
                   r"currently|these days|nowadays|lately|at the moment|right now|fyi|quick update|update|anyway|"
                   r"to be (?:precise|exact|honest|clear)|as of (?:recently|late|now|this (?:week|month|year)|\w+)|"
                   r"since (?:last )?(?:january|february|march|april|may|june|july|august|september|october|november|"
                   r"december|spring|summer|autumn|fall|winter|week|month|year|christmas|easter)|"
                   r"(?:big|small|some|a) (?:change|news|update)(?: \w+){0,4}?|things (?:have )?changed(?: \w+){0,3}? and(?: now)?)"
                   r"[\s,:;!\-–—]+)+", re.IGNORECASE)
_TRAIL = re.compile(r"(?:[\s,;\-–—]+(?:by the way|at the moment|these days|now|currently|nowadays|lately|"
                    r"for now|right now|btw|(?:that|it) (?:started|began|changed) (?:in|on|at|last|this) \w+|"
                    r"since (?:last )?\w+))+\s*[.!;]*$", re.IGNORECASE)
_EVENT_WORDS = re.compile(r"\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|week|weekend)|"
                          r"last (?:night|week|weekend|month|year|time)|ago|just|earlier|will|going to|gonna|"
                          r"want|wish|hope|if|when|should|could|would|might|maybe|probably|not|never|no)\b",
                          re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|she|they|his|her|their|him|them|he's|she's|they're)\b", re.IGNORECASE)
_ELIDED = re.compile(r"\W*(?:gradually|slowly|halfway|half way|part ?way|bit by bit|little by little|step by step|"
                     r"in the (?:middle|midst|process) of|down to|up to|been|still|cutting|moving|switching|"
                     r"shifting|drifting|phasing|easing|weaning|tapering|handing|scaling|coming off)\b",
                     re.IGNORECASE)
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+|\s+[-–—]\s+")


def _frame_tokens(sentence: str, speaker: str) -> list[str]:
    """Lower-case words of a statement about its speaker in the first person: "Gideon drinks 7
    cups" -> i drink 7 cups; "Caspian's rent is" -> my rent is; "I'm" -> i am."""
    text = first_person(_TRAIL.sub("", _LEAD.sub("", sentence.strip())), speaker)
    text = re.sub(r"\b(i|you|we|they)'m\b", r"\1 am", text, flags=re.IGNORECASE)
    return _WORD.findall(text.lower().replace("’", "'"))


def _span_kind(words: list[str], original: str) -> str:
    if any(_NUMBER.fullmatch(w) for w in words):
        return "number"
    if any(re.search(rf"\b{re.escape(w.capitalize())}\b", original) for w in words if len(w) > 2):
        return "name"
    if words and words[0] in ("a", "an", "the", "my"):
        return "noun"
    return "other"


def restates_with_new_value(old_text: str, new_sentence: str, speaker: str, new_original: str = "") -> bool:
    """True when ``new_sentence`` says ``old_text``'s statement again with one value swapped
    (same words before and after, a number for a number, a name for a name, "a nurse" for
    "a welder"), about a single-valued state in the present tense.

    >>> restates_with_new_value("Gideon drinks 7 cups of coffee a day.", "I drink 2 cups of coffee a day.", "Gideon")
    True
    >>> restates_with_new_value("I live in Krakow.", "Oh and I live in Adelaide.", "Ana")
    True
    >>> restates_with_new_value("I am a nurse.", "I am so tired.", "Ana")
    False
    >>> restates_with_new_value("I love painting landscapes.", "I love painting portraits.", "Ana")
    False
    >>> restates_with_new_value("I went to Paris.", "I went to Rome.", "Ana")
    False
    """
    core = _TRAIL.sub("", _LEAD.sub("", new_sentence.strip()))
    if _EVENT_WORDS.search(core) or _EVENT_WORDS.search(old_text):
        return False
    o, n = _frame_tokens(old_text, speaker), _frame_tokens(new_sentence, speaker)
    if len(o) < 3 or len(n) < 3 or o == n:
        return False
    if not ((o[0] == "i" and o[1] in _STATE_VERBS) or (o[0] == "my" and {"is", "takes", "costs"} & set(o[1:4]))):
        return False
    pre = 0
    while pre < min(len(o), len(n)) and o[pre] == n[pre]:
        pre += 1
    suf = 0
    while suf < min(len(o), len(n)) - pre and o[-1 - suf] == n[-1 - suf]:
        suf += 1
    a_span, b_span = o[pre: len(o) - suf], n[pre: len(n) - suf]
    if pre < 2 or not a_span or not b_span or len(a_span) > 3 or len(b_span) > 4:
        return False
    if (pre + suf) / len(o) < 0.5:
        return False
    if (set(a_span) & set(b_span)) - {"a", "an", "the", "my"} or {"too", "also", "either"} & (set(o) | set(n)):
        return False  # "a fan too" / "a total movie fan": one value said twice, or an added one
    if o[pre - 1] in ("a", "an", "the", "my"):  # "i work as a | museum curator"
        a_span, b_span = o[pre - 1: len(o) - suf], n[pre - 1: len(n) - suf]
    ka = _span_kind(a_span, old_text)
    if ka == "other":  # a bare value ("zydeco") only in a frame that names its attribute ("my favourite music is")
        return (o[0] == "my" and bool(set(o[:pre]) & (_ATTRIBUTE_WORDS - {"favourite", "favorite", "main", "name"}))
                and len(a_span) <= 2 and len(b_span) <= 2 and _span_kind(b_span, new_original or new_sentence) == "other")
    return ka == _span_kind(b_span, new_original or new_sentence)


#: An episode, not a habit: the past, a single day, a plan ("I went", "yesterday", "tonight").
_EPISODE = re.compile(r"\b(?:was|were|went|did|had|got|made|took|saw|came|bought|found|met|tried|yesterday|today|"
                      r"tonight|this (?:morning|afternoon|evening|weekend)|last (?:night|week|weekend|month|year)|ago|"
                      r"earlier|will|going to|gonna|used to|back when)\b", re.IGNORECASE)
_UNIT = re.compile(r"(?:\d+(?:[.,]\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                   r"twenty|thirty|forty|fifty|sixty|hundred))[\s-]+([a-z]+)", re.IGNORECASE)
#: A situation may scope an old habit at this topic score when the two share a word, an
#: attribute family or both give a number (at FALLBACK_SHARED_TOPIC with none of these).
FALLBACK_SCOPE_TOPIC = 0.25
#: An exception word ("the one exception", "cheat days") may scope an old habit at this topic score.
FALLBACK_EXCEPTION_TOPIC = 0.1


_REFERS_BACK = re.compile(r"\b(?:it|it's|that|that's|this)\b|^\W*(?:\w+ ){0,3}(?:are|is) (?:for|my|when)\b", re.IGNORECASE)


def _units(text: str) -> set[str]:
    """What the numbers in ``text`` count ("20 km a week" -> km)."""
    return {m.group(1).lower() for m in _UNIT.finditer(text)} - {"a", "an", "the", "of", "and", "or", "to", "in"}


def _stems(text: str) -> set[str]:
    """Content words cut to a crude stem ("cycling", "cycle" -> cycl), attribute names left out."""
    return {_stem(w) for w in _content(text, set()) - _ATTRIBUTE_WORDS}


def _stem(word: str) -> str:
    """A crude stem: "cycling", "cycle" -> cycl; "smoker", "smoking" -> smok."""
    return re.sub(r"(?:ing|ed|es|er|s|e)$", "", word.lower())[:5]


def ends_old_word(old_text: str, new_text: str) -> bool:
    """The object of a verb that ends something is the old statement's word in another form:
    "I quit smoking" after "I'm a smoker", "retired from nursing" after "I'm a nurse" (by a crude
    stem; the one word right after the verb).

    >>> ends_old_word("I'm a smoker.", "I quit smoking in January.")
    True
    >>> ends_old_word("I'm a smoker.", "I quit my job in January.")
    False
    """
    olds = _stems(old_text)
    return any(_stem(m.group(1)) in olds for m in _ENDS_OBJECT.finditer(new_text))


_ENDS_OBJECT = re.compile(r"\b(?:quit|quitting|gave up|given up|giving up|stopped|dropped|retired from|ditched|sold)"
                          r"\s+(?:my |the |our |all )?([a-z]+)", re.IGNORECASE)


#: A change towards a value: "moved to Leeds", "switched over to Sony" (the name right after it).
_TOWARDS = re.compile(r"\b(?:move|moved|moving|switched|switching|relocated|relocating|changed|went|gone|transferred|"
                      r"transferring|changing|over|back) (?:back |over |right )?(?:to|into|onto|in) (?:the |a |an )?"
                      r"((?:[A-Z][\w'-]*\s?){1,3})")


def changes_to_old_value(old_text: str, new_text: str, speaker: str = "") -> bool:
    """The change wording of ``new_text`` goes *to* a name the old statement already gave, and
    no change goes from it: a restatement in change words, not a change of it ("I moved to Leeds
    last year" after "I live in Leeds"; "I switched to Sony from Nintendo" after "I work at Sony").

    >>> changes_to_old_value("I live in Leeds.", "Since we moved to Leeds my mum visits every weekend.")
    True
    >>> changes_to_old_value("I live in Leeds.", "We moved to York, Leeds was too loud.")
    False
    """
    drop = {speaker.lower()} - {""}
    olds = _proper(old_text, drop)
    if not olds or moves_from_old_value(old_text, new_text):
        return False
    return any(_proper(" x " + m.group(1), drop) & olds for m in _TOWARDS.finditer(new_text))


def ends_old_name(old_text: str, new_text: str, speaker: str = "") -> bool:
    """A name the old statement gave stands right beside the new text's ending wording, in one
    clause: "Tucson is officially behind me", "no more Rovers for me" — the ended thing is named,
    whatever the topic score of the two whole texts.

    >>> ends_old_name("Living in Tucson has its perks.", "We finished the move, so Tucson is officially behind me.")
    True
    >>> ends_old_name("Living in Tucson has its perks.", "No more late nights for me, Tucson or not.")
    False
    """
    drop = {speaker.lower()} - {""}
    olds = _proper(old_text, drop)
    if not olds:
        return False
    for clause in _CLAUSE.split(new_text):
        for part in re.split(r"[,;]\s+", clause):
            ms = [m for m in _ENDED.finditer(part) if _own_match(part, [m], _SAYS_NOT)]
            if any(_proper(" x " + part[max(0, m.start() - 25): m.end() + 25], drop) & olds for m in ms):
                return True
    return False


def fading(old_text: str, said: str, speaker: str = "") -> bool:
    """A change going on (:data:`atma.aspect.PROGRESS`) while the old value is kept only a
    little (:data:`atma.aspect.DIMINISHED`, in a clause that names the old value's word), said by
    the speaker: "The Kindle is slowly winning, a paperback only now and then" after "I read
    paperbacks". Progress alone ("I'm slowly getting better at the violin") is no change.

    >>> fading("I pay for everything in cash.", "I'm getting used to paying by card, only the market stalls still get cash.")
    True
    >>> fading("I play the violin.", "I'm slowly getting better at the violin.")
    False
    """
    if not any(PROGRESS.search(x) and not _OTHERS_SENTENCE.match(x) for x in _SENTENCE.split(said)):
        return False
    olds = _content(old_text, {speaker.lower()} - {""}) - _ATTRIBUTE_WORDS
    return any(DIMINISHED.search(c) and olds & _content(c, set()) and _own_clause(c, DIMINISHED)
               for c in re.split(r"[,;:.!?]\s+|\s+[-–—]\s+", said))


_WORKS_AT = re.compile(r"\b(?:i|we) (?:work|worked|am working|'m working) (?:at|for|in)\b|\b(?:my|our) (?:job|work) "
                       r"(?:is )?(?:at|for|with)\b", re.IGNORECASE)
_LEFT = re.compile(r"\b(?:left|leaving|quit|quitting) (?:the |my |our )?([a-z]+)", re.IGNORECASE)


def leaves_old_workplace(old_text: str, said: str) -> bool:
    """The speaker left the place the old statement said they work at: "Left the council in
    October" after "I work at the council as a planner" (the word after "left" is the old
    workplace's own; "I left the office at 6" after "I work at the office" is no change, so a
    time right after it rules it out).

    >>> leaves_old_workplace("I work at the council as a planner.", "Left the council in October, I'm freelance now.")
    True
    >>> leaves_old_workplace("I work at the office.", "I left the office at 6 today.")
    False
    """
    m_old = _WORKS_AT.search(old_text)
    if not m_old:
        return False
    place = _content(old_text[m_old.end():], set()) - _ATTRIBUTE_WORDS
    for m in _LEFT.finditer(said):
        after = said[m.end(): m.end() + 25].lower()
        if (m.group(1).lower() in place and not re.match(r"\W*(?:at|by|around|early|late|today|tonight|this|\d)", after)
                and _own_match(said, [m])):
            return True
    return False


_STUDENT = re.compile(r"\b(?:(?:i'm|i am|we're) (?:a |an )?(?:\w+ )?(?:student|undergrad|undergraduate|postgrad|"
                      r"phd candidate)|i (?:study|am studying)|i'm studying|i'm (?:doing|in) (?:a |an |my )?(?:\w+ ){0,2}"
                      r"(?:degree|phd|masters|master's|year at))\b", re.IGNORECASE)
_GRADUATED = re.compile(r"\b(?:graduated|graduating|finished (?:uni|university|college|school|my studies))\b", re.IGNORECASE)


def says_again(old_text: str, sentence: str) -> bool:
    """``sentence`` says the whole old statement again (every content word and number of it):
    a situation beside it adds detail ("In the mornings I drink coffee on the balcony" after "I
    drink coffee"), it names no other value there. Old statements of one content word are too
    short to tell.

    >>> says_again("I run 5 km.", "On Sundays I run 5 km along the river.")
    True
    >>> says_again("I run 5 km.", "On Sundays I do 10 km instead.")
    False
    """
    olds, numbers = _content(old_text, set()), _numbers(old_text)
    return len(olds) + len(numbers) >= 2 and olds <= _content(sentence, set()) and numbers <= _numbers(sentence)


def _scope_anchored(old_text: str, sentence: str, a: float) -> bool:
    """``sentence`` names an exception to, or a narrower situation of, the old habit
    (:func:`atma.aspect.scope_cue`), in a habitual statement of the speaker's own, on the old
    statement's topic: an exception word at a low topic score; a situation with a shared word,
    attribute family or number (or a closer topic)."""
    cue = scope_cue(sentence)
    if not cue or _OTHERS_SENTENCE.match(sentence) or _EPISODE.search(sentence) or _SECOND_PERSON.search(sentence):
        return False
    # the speaker's own habit, or the habit referred back to ("it drops to once a week"), not a thing
    # of the place ("The gym downtown is packed on Mondays, though")
    if cue == "exception":  # "The only exception is the odd fish taco": the word refers back itself
        return a >= FALLBACK_EXCEPTION_TOPIC
    if not (_FIRST_PERSON.search(sentence) or _REFERS_BACK.search(sentence)):
        return False
    if any(says_again(old_text, x) for x in re.split(r"[,;:]\s+|\s+[-–—]\s+", sentence) if SITUATION.search(x)):
        return False  # "On Sundays I run 5 km along the river": the old habit told again with detail
    if a >= FALLBACK_SHARED_TOPIC or (a >= FALLBACK_ANCHORED_TOPIC and ALTERNATIVE.search(sentence)):
        return True
    if not CONTRAST.search(sentence):  # a situation put first, with no contrast word: a closer topic only
        return False  # ("On Fridays we have cake at the office" scopes no "I take the train to the office")
    return a >= FALLBACK_SCOPE_TOPIC and bool(
        _stems(old_text) & _stems(sentence) or attribute_families(old_text) & attribute_families(sentence)
        # both give a number, of one counted thing ("I read 8 books a month, but not on rainy days"
        # scopes no "I sleep 6 hours a night")
        or (_NUMBER.search(old_text) and _NUMBER.search(sentence) and not counts_other_things(old_text, sentence)))


def _about_speaker(text: str, speaker: str) -> bool:
    """The text says something about its speaker: in the first person ("I", "my", "we"), or
    naming them ("Zofia works as a court interpreter.", as hosts that extract facts store it)."""
    return bool(_FIRST_PERSON.search(text)) or bool(
        speaker and re.search(rf"(?:^|[.!?]\s+){re.escape(speaker)}(?:'s)?\b", text))


def _numbers(text: str) -> set[str]:
    return {m.group(0).lower() for m in _NUMBER.finditer(text)}


_IDENT = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{3,}\b")


def _ident_numbers(text: str) -> set[str]:
    """Numbers that name one value by themselves: a clock time ("the 7:15"), three or more digits
    ("ends in 4471"; not "3 cups")."""
    return set(_IDENT.findall(text))


def acknowledges_value(old: Record, new: Record, a: float) -> bool:
    """True when ``new`` (another speaker's words) states the value of ``old`` (its speaker's own
    state) again, addressed to them: "Noted: you live in Leeds." after "I live in Leeds." Such a
    record belongs in the old value's slot, so the change that later retires the value retires
    it too (else it stays "current memory" beside the new value, and the reader picks it).
    Needs the value itself (a shared name, the same number, or most of the statement's words),
    no change wording of its own, and no statement of the new speaker's own value of that topic.
    """
    if a < FALLBACK_SHARED_TOPIC or not _FIRST_PERSON.search(statements(old.text)) or admission(old.text):
        return False
    said = addressed_statements(new.text, (old.speaker,))
    if not said or counts_other_things(old.text, said):
        return False
    if _says_change(said) and not _says_change(old.text):  # "so you left Leeds!" says a change, not the value
        return False
    on, sn = _numbers(old.text), _numbers(said)
    if on and sn and not on & sn:  # another number: another value
        return False
    shared, cover, _numbers_both, named = lexical_anchor(old.text, said, (old.speaker, new.speaker))
    drop = {old.speaker.lower(), new.speaker.lower()} - {""}
    values = _value_words(old.text, said, drop)
    # the value itself: a shared name, the same number, or most of the statement's words with a
    # value word among them ("you're a nurse at St Mary's"), not a reaction sharing a topic word
    # ("you look so happy when you dance")
    if not (named or (shared >= 1 and bool(on & sn)) or (values and (shared >= 2 or cover >= 0.5))):
        return False
    # the new speaker's own statement on that topic ("... I live in Leeds too") is their state, not an echo
    old_words = _content(old.text, drop)
    for x in _SENTENCE.split(statements(new.text)):
        body = _ACK_OPENER.sub("", x.strip(), count=1)
        if _FIRST_PERSON.search(body) and (_content(body, drop) & old_words
                                           or attribute_families(body) & attribute_families(old.text)):
            return False
    return True


def _ack_verdict(old: Record, a: float) -> Verdict:
    return Verdict(reason="fallback rule: another speaker restates this value", conflict_status="no_conflict",
                   conflict_type="none", action="none", links=[], same_value=True,
                   old_state=_clip(old.text, 300), confidence=round(min(0.99, 0.6 + 0.3 * a), 4))


def fallback_verdict(old: Record, new: Record, score: GateScore | None, *, why: str) -> Verdict:
    """Deterministic rule used when the Judge's output is invalid, late or failed, and the
    ``rule`` Judge.

    Conservative: supersede only when the same person (or an unattributed text) speaks about
    themself (first person) in wording that says a state ended or was replaced, about what the
    old record said: the pair is topically close (``score.a``) and the new text shares a
    content word with the old one or both state a number (very close pairs need no shared
    word), and the old text speaks about its speaker too. Otherwise none: chit-chat, reactions
    to the other person ("No doubts, you have such a caring heart!") and news about another
    topic change nothing.
    """
    same_person = not old.speaker or not new.speaker or old.speaker == new.speaker
    a = score.a if score is not None else 0.0
    none = Verdict(reason=f"fallback rule ({why}): no clear change", conflict_status="unclear",
                   conflict_type="none", action="none", links=[])
    if not same_person:
        # Another speaker's words. An acknowledgement of the old value ("Noted: you live in Leeds")
        # joins its slot (and is retired with the value, atma.judge.plan_commit); nothing else
        # crosses speakers: one person's news never changes another's state.
        if acknowledges_value(old, new, a):
            return _ack_verdict(old, a)
        return none
    about = _about_speaker(old.text, old.speaker)
    old_said = statements(old.text)
    echo = _ECHO.match(new.text)
    if echo and about:
        # "Bergen? Not anymore." - the old value asked back and denied
        asked = echo.group(1).split(",")[-1]  # "Here in Krakow, open-plan offices? Not anymore." asks back the offices
        if (_value_words(old.text, asked, {old.speaker.lower()} - {""}) or _numbers(old.text) & _numbers(asked)
                or lexical_anchor(old.text, asked, (old.speaker,))[3]):
            return Verdict(reason=f"fallback rule ({why}): the old value asked back and denied",
                           conflict_status="conflict", conflict_type="explicit_negation", action="supersede",
                           links=["supersedes"], confidence=round(min(0.95, 0.6 + 0.3 * a), 4))
    said = statements(new.text)
    # a change said in words of its own: "I graduated in June" after "I'm a student at Leiden"
    # "Moved my direct debits over": things moved, not the speaker nor the old value's own thing
    strong = ((_says_change(said) and _says_change(_MOVED_THING.sub(lambda m: _moved_thing(old.text, m), said)))
              or bool(_STUDENT.search(old.text) and _own_clause(said, _GRADUATED))
              or leaves_old_workplace(old.text, said))
    sentences = _SENTENCE.split(said)
    ways = [_under_way(x) for x in sentences]  # each sentence read once
    progress = any(ways) or fading(old.text, said, new.speaker)
    if progress and strong and not _own_clause(said, _IN_PROGRESS) and any(
            _says_change(x) and not w for x, w in zip(sentences, ways)):
        progress = False  # "I stopped practicing with Yusuf. Keiko and I ..." - a change made, said first
    names = (old.speaker, new.speaker)
    # an exception or a narrower situation in wording beyond the fixed phrases (atma.aspect)
    scope_said = about and not _EPISODE.search(old_said) and any(_scope_anchored(old.text, x, a) for x in sentences)
    scoped = _scoped(said) or scope_said
    adds = _own_clause(said, _ADDS)
    swapped = (a >= FALLBACK_IMPLIED_TOPIC and about
               and any(restates_with_new_value(p, y, new.speaker, new.text)
                       for o in _CLAUSE.split(old_said) for x in _CLAUSE.split(said)
                       for p in {o, o.split(",")[0]}
                       for y in {x, x.split(",")[0]}))  # "I live in Bergen, in the old harbour district."
    if swapped and not (progress or scoped or adds):
        confidence = round(min(0.95, 0.5 + 0.4 * a), 4)
        return Verdict(reason=f"fallback rule ({why}): the same statement with a new value",
                       conflict_status="conflict", conflict_type="temporal_update", action="supersede",
                       links=["supersedes"], confidence=confidence)
    implied = (a >= FALLBACK_IMPLIED_TOPIC and not (progress or scoped or adds)
               and about and implied_change(old_said, said, new.speaker))
    if implied:
        return Verdict(reason=f"fallback rule ({why}): the new statement presupposes another value ({implied})",
                       conflict_status="conflict", conflict_type="temporal_update", action="supersede",
                       links=["supersedes"], confidence=round(min(0.9, 0.5 + 0.3 * a), 4))
    if strong and scoped and not _says_change(_STILL_BUT.sub(" ", said)):
        strong = False  # "I still do shogi, but only when I'm on vacation": a scope, not an end
    if strong and scope_said and not _says_change(" ".join(x for x in _CLAUSE.split(said) if not scope_cue(x))):
        strong = False  # "When the roads are icy I take the tram instead": the change word is the scope's own
    if scope_said and not (strong or progress):
        return Verdict(reason=f"fallback rule ({why}): the old habit holds outside a named exception or situation",
                       conflict_status="no_conflict", conflict_type="scope_mismatch",
                       action="scoped_exception", links=["scoped_exception"],
                       confidence=round(min(0.9, 0.5 + 0.3 * a), 4))
    moved = (strong or progress) and (moves_from_old_value(old.text, said)
                                      or (strong and ends_old_name(old.text, said, new.speaker)))
    # a change that starts from the old value ("going from 3 to 5") names it: no topic score needed
    if (a < FALLBACK_ANCHORED_TOPIC and not moved) or not (
            strong or progress or scoped or adds or _ENDED_WEAK.search(said)):
        return none
    # The old text must say something about its speaker ("I", "my", "we"): a greeting, a question
    # or a remark about the other person ("Wow! What got you into running?") holds no state to end.
    if not about:
        return none
    if counts_other_things(old.text, said):  # "I cycle 20 km a week" / "I'm sleeping 6 hours lately"
        return none
    kept = [x for x in _SENTENCE.split(said) if (_scoped(x) or _own_clause(x, _ADDS))
            and (_FIRST_PERSON.search(x) or not _THIRD_PERSON.search(x))  # the speaker's, not someone else's
            and _mentions_value(old.text, x, names, a >= FALLBACK_SAME_TOPIC)]
    # (a scope that names the old value by a name or its number holds at a lower topic score: it
    # retires nothing; a shared common word is not enough there - "unless someday I get another dog")
    if kept and not (strong or progress) and (a >= FALLBACK_SHARED_TOPIC or any(
            _scoped(x) and (lexical_anchor(old.text, x, names)[3] or _numbers(old.text) & _numbers(x)) for x in kept)):
        # the old value named beside a scope or a second value: it still holds, no change (with
        # change wording too it ended: "I barely play volleyball anymore - squash on weekends now")
        if any(_scoped(x) for x in kept):
            return Verdict(reason=f"fallback rule ({why}): the old value holds within a scope",
                           conflict_status="no_conflict", conflict_type="scope_mismatch",
                           action="scoped_exception", links=["scoped_exception"],
                           confidence=round(min(0.95, 0.55 + 0.3 * a), 4))
        return Verdict(reason=f"fallback rule ({why}): one more value beside the old one",
                       conflict_status="no_conflict", conflict_type="none", action="coexist",
                       links=["coexists_with"], confidence=round(min(0.95, 0.55 + 0.3 * a), 4))
    if not (strong or progress or _ENDED_WEAK.search(said)):
        return none
    # said in the first person, or with its subject left out — a change under way ("Gradually
    # cutting down - from 10 a day to 4") or one that names the old value ("No more Saturdays at
    # the gym - it's Tuesdays now") — never someone else's
    if not (_FIRST_PERSON.search(said) or (progress and _ELIDED.match(_LEAD.sub("", said)))
            or (strong and not _THIRD_PERSON.search(said) and _names_old_value(old, _change_sentences(said), new.speaker))):
        return none
    # the anchor must be where the change is said: in a sentence with change wording, or the
    # one right after it ("Big news - I moved! I live in Cincinnati now.")
    where = _change_sentences(said) if not progress else said
    shared, cover, numbers, named = lexical_anchor(old.text, where, names)
    named = (named or contrasts_old_value(old.text, where) or moved or bool(_ident_numbers(old.text) & _ident_numbers(where))
             or ends_old_word(old.text, where))
    if strong or progress:  # the new text names what the old one said, or both give a number on one topic
        family = a >= FALLBACK_FAMILY_TOPIC and bool(attribute_families(old.text) & attribute_families(where))
        anchored = (named or (shared and cover >= FALLBACK_COVER and a >= FALLBACK_SHARED_TOPIC)
                    # a change under way naming two of the old statement's words ("weaning myself off the
                    # paper edition")
                    or (progress and shared >= 2 and cover >= 2 * FALLBACK_COVER and a >= FALLBACK_ANCHORED_TOPIC)
                    # a change under way from one number to another on a shared topic ("around 2" ->
                    # "nudging my bedtime earlier, currently at about 1 am")
                    or (progress and numbers and a >= FALLBACK_SHARED_TOPIC)
                    or (numbers and a >= FALLBACK_SAME_TOPIC) or family or a >= FALLBACK_CLOSE_TOPIC
                    # another amount of the one unit ("50 mg" -> "lowered my dose to 25 mg")
                    or (a >= FALLBACK_SHARED_TOPIC and bool(_units(old.text) & _units(where)))
                    # the old number named beside the change ("gradually going from 6 to 5", "it used
                    # to be 3 books a month, ...")
                    or (bool(_numbers(old.text) & _numbers(where)) and (progress or shared >= 1))
                    # a change under way on the one topic, or towards another amount of the same unit
                    # ("a pack a day" -> "down to five cigarettes a day, getting there"; "20 km a week" ->
                    # "currently at 8 km a week")
                    or (progress and (a >= FALLBACK_SAME_TOPIC
                                      or (a >= FALLBACK_ANCHORED_TOPIC and bool(_units(old.text) & _units(where))))))
    else:  # "now", "lately": only a direct restatement of the old statement with a new value
        digits = numbers and bool(_DIGITS.search(old.text)) and bool(_DIGITS.search(where))
        # ... or the same attribute family restated with most of its words ("Now I live in a small flat
        # in Bristol" after "I live in a small flat in Leeds")
        restated = (a >= FALLBACK_RESTATE_TOPIC and bool(_NOW.search(where))
                    and bool(attribute_families(old.text) & attribute_families(where))
                    and shared >= 2 and cover >= 2 * FALLBACK_COVER)
        anchored = a >= FALLBACK_SAME_TOPIC and ((digits and (shared >= 1 or a >= FALLBACK_RESTATE_TOPIC))
                                                 or named or restated)
    if not anchored or (not progress and changes_to_old_value(old.text, where, new.speaker)):
        return none
    confidence = round(min(0.99, 0.5 + 0.25 * min(cover, 1.0) + 0.1 * (numbers or named) + 0.15 * a), 4)
    if progress:
        return Verdict(reason=f"fallback rule ({why}): same topic, a change under way", conflict_status="conflict",
                       conflict_type="temporal_update", action="transition", links=["evolves_from"],
                       confidence=confidence)
    ctype = "explicit_negation" if NEGATION_WORDS.search(new.text) else "temporal_update"
    return Verdict(reason=f"fallback rule ({why}): same topic, change wording", conflict_status="conflict",
                   conflict_type=ctype, action="supersede", links=["supersedes"],
                   confidence=confidence)


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORDS = re.compile(r"\w+")
#: "Bergen? Not anymore." / "7 hours of sleep? Those days are gone.": a value asked back, then denied.
_ECHO = re.compile(r"^\W*([^.?!]{1,50})\?\s+(?:(?:nope|no|ha|haha|oh)[,.!]?\s+)?(?:not any ?more|no longer|"
                   r"not these days|not now|not since \w+|those days are (?:gone|over)|"
                   r"(?:that's|that is) (?:over|history|in the past|done))\b", re.IGNORECASE)
#: Events shorter than this (in words) are stored but never audited.
MIN_AUDIT_WORDS = 4


def admission(text: str) -> str | None:
    """Why an event cannot change a state, or None when it may (then it is audited).

    A deterministic pass before any model call: questions and very short reactions
    assert no fact, so they are stored without a Judge call.

    >>> admission("How did the interview go?") is None
    False
    >>> admission("That's great!")
    'too short to state a fact'
    >>> admission("I moved to Bristol. Have you been?") is None
    True
    >>> admission("My Friday nights are line dancing nights now, who even am I?") is None
    True
    """
    if len(_WORDS.findall(text)) < MIN_AUDIT_WORDS:
        return "too short to state a fact"
    sentences = [x for x in _SENTENCE.split(text.strip()) if x.strip()]
    if sentences and all(x.rstrip().endswith("?") and not tagged_statement(x) for x in sentences):
        return "a question states no fact"
    return None


def reported_earlier(old: Record, new: Record) -> bool:
    """True when the new record tells of a time that ended before the old record was said
    ("back in 2019 I lived in Leeds", said after "I live in York" in 2023): a memory about
    the past, which never supersedes a current state. Reads the write-time annotation
    ``new.meta["time"]`` (:func:`atma.timeexpr.annotations_json`)."""
    ann = new.meta.get("time") if isinstance(new.meta, Mapping) else None
    ev = ann.get("event") if isinstance(ann, Mapping) else None
    if not isinstance(ev, Mapping) or old.time is None or ev.get("relation", "") not in ("", "until", "before"):
        return False
    try:
        end = date.fromisoformat(str(ev["end"])[:10])
    except (KeyError, ValueError):
        return False
    return end < old.time.date()


def pair_prefilter(old: Record, new: Record) -> str | None:
    """Why a pair needs no Judge, or None. Statements by two different speakers describe
    two people's states, and one person's news never retires another's."""
    if old.speaker and new.speaker and old.speaker != new.speaker:
        return "different speakers"
    return None


def value_root(r: Record) -> str:
    """The record that first stated ``r``'s value (restatements and acknowledgements carry it
    in ``meta["value_of"]``); a record that restates nothing is its own root."""
    return str((r.meta or {}).get("value_of") or r.id)


#: The part of a statement that says what holds now ("I'm with Sam now", "it's just our kitten
#: Pickle now"): an old record that shares words with this part only talks about the new value.
_NOW_PART = re.compile(r"\b(?:now|these days|nowadays)\b", re.IGNORECASE)
_PARTS = re.compile(r"[,;:.!?]+\s+|\s+[-–—]+\s+")


_NOW_AND_THEN = re.compile(r"\bnow and (?:then|again)\b|\bevery now\b", re.IGNORECASE)


def _about_new_value(old_text: str, new_text: str) -> bool:
    """The old record shares names with the new statement only in the part that says what holds
    now: it is about the new value, not the ended one ("Daniel and I split up in spring; I'm with
    Sam now": "Introduced Sam to my parents" is, "My partner is Daniel" is not). Names only — a
    shared common word ("these days, not 4") says nothing about which side it is on."""
    old_low = old_text.lower()
    parts = [x.lower() for x in _PARTS.split(new_text) if x.strip()]
    shared = [re.compile(rf"\b{re.escape(n)}\b") for n in _proper(old_text, set()) | _proper(new_text, set())]
    shared = [n for n in shared if n.search(old_low) and any(n.search(x) for x in parts)]
    now = [x for x in parts if _NOW_PART.search(x) and not _NOW_AND_THEN.search(x)]
    rest = " ".join(x for x in parts if x not in now)
    if not shared or not now or not rest:
        return False
    return any(n.search(x) for n in shared for x in now) and not any(n.search(rest) for n in shared)


def keep_strongest_changes(decisions: Sequence[tuple[Record, Verdict]], limit: int | None,
                           new_text: str = "") -> list[tuple[Record, Verdict]]:
    """At most ``limit`` state changes among one write's verdicts: the most confident (ties: the
    stronger gate pair, which comes first) stay; the others become "none" with the reason. With
    ``new_text``, a change whose old record shares names only with the part of the statement
    that says what holds now yields to the others ("Daniel and I split up in spring; I'm with
    Sam now" ends "My partner is Daniel", not "Introduced Sam to my parents")."""
    changes = [i for i, (_, v) in enumerate(decisions) if v.action in ("supersede", "transition")]
    if limit is None or len(changes) <= limit:
        return list(decisions)
    later = {i: bool(new_text) and _about_new_value(decisions[i][0].text, new_text) for i in changes}
    ranked = sorted(changes, key=lambda i: (later[i], -(decisions[i][1].confidence or 0.0), i))
    drop = set(ranked[limit:])
    out = []
    for i, (old, v) in enumerate(decisions):
        if i in drop:
            v = v.model_copy(update={"action": "none", "links": [], "conflict_status": "unclear",
                                     "reason": f"{v.reason} [not committed: a stronger change in this write]"})
        out.append((old, v))
    return out


def plan_commit(new: Record, decisions: Sequence[tuple[Record, Verdict]], slot_members: Mapping[str, Sequence[Record]]) -> Commit:
    """Turn Judge verdicts into one :class:`Commit`.

    ``decisions`` pairs each audited old record with its verdict, strongest pair first.
    ``slot_members`` maps a slot to its records (the overlay reads them from the bank).
    The new record joins the slot of its first non-``none`` decision; every other active
    record left in that slot gets a ``coexists_with`` link, so the slot invariant holds
    (a second item of a multi-valued attribute stays live beside the new value).

    A ``none`` verdict with ``same_value`` (a restatement or an acknowledgement of the old
    record's value, by any speaker) joins the old record's slot with a ``coexists_with`` link
    and records the value's first statement in ``meta["value_of"]``; a later supersession
    or transition of any record of that value retires every live record of it, so no
    restated copy of an old value stays current beside its replacement.
    """
    changes: list[Change] = []
    seen: set[str] = set()
    slot = ""
    retiring: set[str] = set()
    value_of = ""
    for old, v in decisions:
        joins = v.action == "none" and bool(v.same_value)
        if (v.action == "none" and not joins) or old.id in seen or not old.is_live:
            continue
        seen.add(old.id)
        action = Action.COEXIST if joins else Action(v.action)
        if not slot:
            slot = old.slot or old.id
        if joins and not value_of:
            value_of = value_root(old)
        if action in (Action.SUPERSEDE, Action.TRANSITION):
            retiring.add(old.id)
        changes.append(Change(action=action, old_id=old.id, transition_type=v.conflict_type if action is Action.TRANSITION else "",
                              summary=v.transition_summary))
    if slot:
        roots = {value_root(old) for old, v in decisions if old.id in retiring}
        for member in slot_members.get(slot, ()):
            if member.id in seen or member.id == new.id or member.status is not Status.ACTIVE:
                continue
            if roots and value_root(member) in roots:  # a restated copy of a retiring value
                changes.append(Change(action=Action.SUPERSEDE, old_id=member.id))
                retiring.add(member.id)
            else:
                changes.append(Change(action=Action.COEXIST, old_id=member.id))
            seen.add(member.id)
    fields = _fields(new)
    if value_of:
        fields["meta"] = {**dict(new.meta or {}), "value_of": value_of}
    record = Record(**{**fields, "slot": slot})
    return Commit(record=record, changes=tuple(changes))


def _fields(r: Record) -> dict[str, Any]:
    return {f: getattr(r, f) for f in r.__dataclass_fields__}
