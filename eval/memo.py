"""One answer per prompt within a run: a paired comparison that measures the overlay, not
llama.cpp's numerics.

llama.cpp reuses the KV cache of the previous request's common prefix; where that prefix
ends moves the batch boundaries, and the logits are not bit-identical across batch sizes,
so one prompt can get two greedy answers depending on what was asked before it. Measured
in session 6 with a throwaway script (12 stored QA prompts of an LTP dev run, each asked
after 3 different others, packaged 1.5B): with the cache 1 of 12 prompts changed its
answer; with ``cache_prompt`` off 0 of 12, but 2.6x slower. In an eval
that compares two rows, the host row and the overlay's host-first pass send the *same*
prompt, so such flips read as overlay effects (LoCoMo conv-26, session 5: 8 of 199
answers differed between rows although the overlay re-asked none).

:class:`MemoLLM` wraps the run's LLM: a greedy request (temperature 0) whose exact
messages, token limit and schema were answered before in this run folder gets that answer
back; everything else goes to the model. The memo is a SQLite file in the run folder
(:data:`MEMO_FILE`, WAL, shared by Ray workers on one machine), so a resumed run and the
second row reuse the first row's answers. ``--no-answer-memo`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from atma.protocols import Completion, Message

__all__ = ["MEMO_FILE", "MemoLLM", "memo_key"]

#: The memo's file name inside a run folder (``--out``).
MEMO_FILE = "llm_memo.db"


def memo_key(model: str, messages: Sequence[Message], max_tokens: int, json_schema: Mapping[str, Any] | None) -> str:
    """sha256 of everything that decides a greedy reply."""
    body = json.dumps({"model": model, "messages": [[m["role"], m["content"]] for m in messages],
                       "max_tokens": int(max_tokens), "schema": json_schema}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


class MemoLLM:
    """An LLM that answers a repeated greedy prompt from ``path`` (see the module doc).
    Attributes other than :meth:`complete` are the wrapped model's."""

    def __init__(self, llm: Any, path: str | Path) -> None:
        from atma.bank import connect_wal

        self.llm = llm
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = connect_wal(self.path)
        self._db.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, reply TEXT NOT NULL) WITHOUT ROWID")
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def __getattr__(self, name: str) -> Any:  # name, config, manifest, load, close, context_tokens ...
        return getattr(self.__dict__["llm"], name)

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0.0,
                 json_schema: Mapping[str, Any] | None = None, timeout: float | None = None) -> Completion:
        if temperature != 0.0:
            return self.llm.complete(messages, max_tokens=max_tokens, temperature=temperature,
                                     json_schema=json_schema, timeout=timeout)
        key = memo_key(str(getattr(self.llm, "name", type(self.llm).__name__)), messages, max_tokens, json_schema)
        with self._lock:
            row = self._db.execute("SELECT reply FROM memo WHERE key=?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            d = json.loads(row[0])
            return Completion(text=d["text"], prompt_tokens=d.get("prompt_tokens", 0),
                              completion_tokens=d.get("completion_tokens", 0), latency_s=0.0,
                              model=d.get("model", ""), finish_reason=d.get("finish_reason", ""))
        out = self.llm.complete(messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema,
                                timeout=timeout)  # an error is raised, never remembered
        self.misses += 1
        reply = json.dumps({"text": out.text, "prompt_tokens": out.prompt_tokens,
                            "completion_tokens": out.completion_tokens, "model": out.model,
                            "finish_reason": out.finish_reason})
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO memo(key, reply) VALUES (?, ?)", (key, reply))
            self._db.commit()
        return out
