"""Loading the official LoCoMo release (``locomo10.json``) into ordered turns and QA items.

The raw file (CC BY-NC 4.0, Maharana et al., ACL 2024) stays outside the repository:
by default it is read from ``../shared/data/locomo/locomo10.json`` beside the checkout,
or from the path in the environment variable ``ATMA_LOCOMO``.

Turns come in conversation order: ``session_<n>`` lists by ``n``, then list order
(conv-26 has more ``session_<n>_date_time`` keys than sessions, so date keys are never
iterated). Each turn carries its session's date. Image turns keep their text with the
BLIP caption appended, as ``text + " [shares a photo: <caption>]"``.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DATE_FORMAT",
    "ENV_VAR",
    "LocomoDataError",
    "QAItem",
    "Sample",
    "Turn",
    "default_locomo_path",
    "load_locomo",
    "with_caption",
]

ENV_VAR = "ATMA_LOCOMO"
DATE_FORMAT = "%I:%M %p on %d %B, %Y"
_SESSION_KEY = re.compile(r"session_(\d+)")


class LocomoDataError(ValueError):
    """The LoCoMo file is missing, unreadable or not shaped like the official release (one-line message)."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Turn(_Record):
    """One dialogue turn. ``text`` includes the photo caption; ``raw_text`` is as released."""

    sample_id: str
    session: int
    dia_id: str
    speaker: str
    text: str
    raw_text: str
    blip_caption: str | None = None
    time: datetime


class QAItem(_Record):
    """One question. ``answer`` is a string; for category 5 it is the ``adversarial_answer``
    (the trap option of the official two-option prompt) and ``source_answer`` keeps the
    ``answer`` field where the release also has one (2 items). ``evidence`` is kept raw:
    some ids are malformed ("D8:6; D9:17", "D") or point to missing turns."""

    sample_id: str
    index: int
    question: str
    answer: str
    category: int
    evidence: list[str] = Field(default_factory=list)
    adversarial_answer: str | None = None
    source_answer: str | None = None


class Sample(_Record):
    """One conversation with its turns in order and its QA items."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: list[Turn]
    qa: list[QAItem]


def default_locomo_path() -> Path:
    """``$ATMA_LOCOMO`` if set, else ``<repo root>/../shared/data/locomo/locomo10.json``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    repo_root = Path(__file__).resolve().parent.parent
    return repo_root.parent / "shared" / "data" / "locomo" / "locomo10.json"


def with_caption(text: str, caption: str | None) -> str:
    """Turn text with its shared photo described.

    >>> with_caption("Look at this!", "a photo of a dog")
    'Look at this! [shares a photo: a photo of a dog]'
    >>> with_caption("Hi", None)
    'Hi'
    """
    return f"{text} [shares a photo: {caption}]" if caption else text


def _turns(sample_id: str, conv: dict[str, Any]) -> list[Turn]:
    sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
    turns: list[Turn] = []
    for n, key in sessions:
        date_key = f"{key}_date_time"
        try:
            when = datetime.strptime(conv[date_key], DATE_FORMAT)
        except KeyError:
            raise LocomoDataError(f"{sample_id}: {key} has no {date_key}") from None
        except (TypeError, ValueError):
            raise LocomoDataError(f"{sample_id}: {date_key}: bad date {conv[date_key]!r}") from None
        for raw in conv[key]:
            caption = raw.get("blip_caption") or None
            turns.append(
                Turn(
                    sample_id=sample_id,
                    session=n,
                    dia_id=raw["dia_id"],
                    speaker=raw["speaker"],
                    text=with_caption(raw["text"], caption),
                    raw_text=raw["text"],
                    blip_caption=caption,
                    time=when,
                )
            )
    return turns


def _qa(sample_id: str, index: int, raw: dict[str, Any]) -> QAItem:
    category = int(raw["category"])
    adversarial = raw.get("adversarial_answer")
    source = raw.get("answer")
    if category == 5 and adversarial is not None:
        answer = adversarial
    elif source is not None:
        answer = source
    else:
        raise KeyError("answer")
    return QAItem(
        sample_id=sample_id,
        index=index,
        question=raw["question"],
        answer=str(answer),
        category=category,
        evidence=list(raw.get("evidence", [])),
        adversarial_answer=None if adversarial is None else str(adversarial),
        source_answer=None if source is None else str(source),
    )


def load_locomo(path: str | os.PathLike[str] | None = None) -> list[Sample]:
    """Read the release at ``path`` (default :func:`default_locomo_path`) into samples.

    Raises :class:`LocomoDataError` with a one-line message when the file is missing,
    unreadable, not JSON, or lacks a required field.
    """
    file = Path(path) if path is not None else default_locomo_path()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        hint = f" (set {ENV_VAR} or pass a path)" if path is None else ""
        raise LocomoDataError(f"{file}: cannot read LoCoMo data: {exc.strerror or exc}{hint}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LocomoDataError(f"{file}: not a JSON file: {exc}".splitlines()[0]) from None
    if not isinstance(data, list):
        raise LocomoDataError(f"{file}: expected a JSON list of samples, got {type(data).__name__}")
    samples: list[Sample] = []
    for i, raw in enumerate(data):
        where = f"{file}: sample [{i}]"
        try:
            sample_id = str(raw["sample_id"])
            where = f"{file}: {sample_id}"
            conv = raw["conversation"]
            samples.append(
                Sample(
                    sample_id=sample_id,
                    speaker_a=conv["speaker_a"],
                    speaker_b=conv["speaker_b"],
                    turns=_turns(sample_id, conv),
                    qa=[_qa(sample_id, j, q) for j, q in enumerate(raw["qa"])],
                )
            )
        except LocomoDataError as exc:
            raise LocomoDataError(f"{file}: {exc}") from None
        except KeyError as exc:
            raise LocomoDataError(f"{where}: missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise LocomoDataError(f"{where}: malformed sample: {' '.join(str(exc).split())[:200]}") from None
    return samples
