"""In-process fakes for unit tests: a scripted LLM, a hash embedder and an in-memory host.

They ship in the package so users can test their own code against atma without
models or services. None of them does I/O.
"""

from __future__ import annotations

import hashlib
import re
import time as _time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .protocols import Completion, HostHit, LLMError, Message

__all__ = ["HashEmbedder", "InMemoryHost", "ScriptedLLM", "Call"]

_WORD = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class HashEmbedder:
    """Bag of hashed words (and word bigrams), L2-normalised.

    Texts sharing words get a positive cosine, unrelated texts about zero: enough
    structure for retrieval and gating tests, fully deterministic.
    """

    name = "hash"

    def __init__(self, dim: int = 256, *, stopwords: Sequence[str] = ()) -> None:
        self.dim = dim
        self._stop = set(stopwords) | {"i", "a", "an", "the", "to", "of", "and", "my", "is", "in", "it", "do", "did", "does"}

    def _row(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        words = [w for w in _tokens(text) if w not in self._stop]
        for w in words:
            h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:
            v[0] = 1.0
            return v
        return v / n

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._row(t) for t in texts])


@dataclass(frozen=True)
class Call:
    """One recorded call to :class:`ScriptedLLM`."""

    messages: tuple[Message, ...]
    max_tokens: int
    temperature: float
    json_schema: Mapping[str, Any] | None


Reply = str | Exception | Callable[[Sequence[Message]], "str | Exception"]


class ScriptedLLM:
    """Replies from a script. ``replies`` is consumed in order; each item is a string,
    an exception to raise, or a function of the messages. With ``default`` set, calls
    after the script ends get it; otherwise they raise :class:`LLMError`.

    ``route`` maps a marker (a substring of the system prompt) to its own reply
    function, so one fake can serve Judge, controller and QA calls at once.
    """

    name = "scripted"

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        *,
        default: Reply | None = None,
        route: Mapping[str, Callable[[Sequence[Message]], str | Exception]] | None = None,
        latency_s: float = 0.0,
    ) -> None:
        self._replies = list(replies)
        self._default = default
        self._route = dict(route or {})
        self._latency = latency_s
        self.calls: list[Call] = []

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Completion:
        self.calls.append(Call(tuple(messages), max_tokens, temperature, json_schema))
        if self._latency and timeout is not None and self._latency > timeout:
            raise LLMError(f"scripted LLM timed out after {timeout}s", kind="timeout")
        if self._latency:
            _time.sleep(self._latency)
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        reply: Reply | None = None
        for marker, fn in self._route.items():
            if marker in system:
                reply = fn
                break
        if reply is None:
            if self._replies:
                reply = self._replies.pop(0)
            elif self._default is not None:
                reply = self._default
            else:
                raise LLMError("scripted LLM has no reply left")
        if callable(reply) and not isinstance(reply, Exception):
            reply = reply(messages)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, prompt_tokens=sum(len(m["content"]) // 4 for m in messages),
                          completion_tokens=len(reply) // 4, latency_s=self._latency, model=self.name)


@dataclass
class _Item:
    host_id: str
    text: str
    time: datetime | None
    speaker: str
    vec: np.ndarray


@dataclass
class InMemoryHost:
    """A dense-retrieval host kept in a dict, per namespace. Optional plain answerer."""

    embedder: Any = field(default_factory=HashEmbedder)
    answerer: Any = None  # an LLM; when set, ``answer`` asks it with unlabelled rows
    name: str = "memory"
    _items: dict[str, list[_Item]] = field(default_factory=dict)
    _seq: int = 0

    def add(self, text: str, *, namespace: str, time: datetime | None = None, speaker: str = "",
            meta: Mapping[str, Any] | None = None) -> str:
        self._seq += 1
        host_id = f"m{self._seq}"
        vec = self.embedder.encode([text])[0]
        self._items.setdefault(namespace, []).append(_Item(host_id, text, time, speaker, vec))
        return host_id

    def search(self, query: str, *, namespace: str, k: int = 10) -> list[HostHit]:
        items = self._items.get(namespace, [])
        if not items or k <= 0:
            return []
        q = self.embedder.encode([query])[0]
        scores = np.stack([it.vec for it in items]) @ q
        order = sorted(range(len(items)), key=lambda i: (-float(scores[i]), i))[:k]
        return [HostHit(host_id=items[i].host_id, text=items[i].text, score=float(scores[i]),
                        time=items[i].time, speaker=items[i].speaker) for i in order]

    def answer(self, query: str, evidence: Sequence[HostHit], *, namespace: str) -> str:
        if self.answerer is None:
            return evidence[0].text if evidence else ""
        rows = "\n".join(f"- {h.text}" for h in evidence)
        msgs = [{"role": "system", "content": "Answer the question from the memories."},
                {"role": "user", "content": f"Memories:\n{rows}\n\nQuestion: {query}"}]
        return self.answerer.complete(msgs, max_tokens=64).text.strip()

    def erase(self, host_ids: Sequence[str], *, namespace: str) -> None:
        drop = set(host_ids)
        self._items[namespace] = [it for it in self._items.get(namespace, []) if it.host_id not in drop]
