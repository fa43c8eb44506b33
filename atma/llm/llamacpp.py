"""In-process llama.cpp backend through ``xllamacpp`` (extra ``atma[llm]``).

One loaded model is shared per (path, n_ctx, n_threads) in the process; each
:class:`LlamaCppLLM` holds a reference and :meth:`LlamaCppLLM.close` drops it (the model
is freed when the last holder closes).

Timeouts: requests are streamed into a callback in a worker thread. When ``timeout``
passes, :meth:`LlamaCppLLM.complete` raises :class:`LLMError` at once and the callback
tells llama.cpp to stop at the next token, which frees the slot. Prompt processing
(prefill) cannot be interrupted: a call made while an abandoned prefill is still
running waits for it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from atma.protocols import Completion, LLMError, Message

__all__ = ["LlamaCppConfig", "LlamaCppLLM", "loaded_models"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class LlamaCppConfig:
    """Load settings. ``model``: registry name or ``.gguf`` path. ``n_threads`` None: half
    the CPUs this process may use, 1 to 8 (see ``_default_threads``). ``seed``: sampling
    seed sent with every request."""

    model: str = "qwen2.5-coder-1.5b"
    n_ctx: int = 4096
    n_threads: int | None = None
    seed: int = 0


class _Shared:
    """A loaded xllamacpp server and how many LLM objects hold it."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.refs = 0


_lock = threading.Lock()
_loaded: dict[tuple[str, int, int], _Shared] = {}


def loaded_models() -> list[tuple[str, int, int]]:
    """Keys (path, n_ctx, n_threads) of the models loaded in this process."""
    with _lock:
        return list(_loaded)


def _default_threads() -> int:
    """``$ATMA_LLM_THREADS`` when set, else half the usable CPUs, 1 to 8. llama.cpp's
    threads meet at a barrier every layer; when they outnumber the free cores it collapses
    (measured: 40 tokens in 15-69 s with 2 threads vs 1.2-1.4 s with 1 thread, SmolLM2 on a
    busy 2-core machine); on a quiet machine all cores are ~1.4x faster (cached-prefix Judge
    call 3.9 s with 2 threads vs 5.5 s with 1)."""
    env = os.environ.get("ATMA_LLM_THREADS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise ValueError(f"ATMA_LLM_THREADS must be a positive integer, got {env!r}")
        return int(env)
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n // 2))


def _load_server(path: Path, n_ctx: int, n_threads: int) -> Any:
    try:
        import xllamacpp
    except ImportError as e:
        raise LLMError("llama.cpp backend needs xllamacpp: pip install 'atma[llm]'") from e
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.warmup = False
    params.verbosity = -1  # default 3 prints ~25 lines per load and per request to stderr
    t0 = time.perf_counter()
    try:
        server = xllamacpp.Server(params)
    except Exception as e:  # xllamacpp raises plain RuntimeError/ValueError
        raise LLMError(f"llama.cpp could not load {path}: {e}") from e
    logger.info("loaded %s (n_ctx=%d, threads=%d) in %.2fs", path.name, n_ctx, n_threads, time.perf_counter() - t0)
    return server


class LlamaCppLLM:
    """:class:`atma.protocols.LLM` running a GGUF model in this process.

    The model loads on first use (or :meth:`load`); a registry name is resolved and
    sha256-verified through :mod:`atma.models` first.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] = "qwen2.5-coder-1.5b",
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
    ) -> None:
        self.config = LlamaCppConfig(model=os.fspath(model), n_ctx=n_ctx, n_threads=n_threads, seed=seed)
        self.name = f"llamacpp:{self.config.model}"
        self._key: tuple[str, int, int] | None = None
        self._server: Any = None
        self.load_s = 0.0

    # --- lifecycle ---------------------------------------------------------------------

    def load(self) -> None:
        """Resolve and load the model (shared with other instances). Raises LLMError."""
        if self._server is not None:
            return
        from atma.models import ModelError, resolve_gguf

        t0 = time.perf_counter()
        try:
            path = resolve_gguf(self.config.model)
        except ModelError as e:
            raise LLMError(str(e)) from e
        key = (str(path), self.config.n_ctx, self.config.n_threads or _default_threads())
        with _lock:
            if self._server is not None:  # another thread loaded this instance meanwhile
                return
            shared = _loaded.get(key)
            if shared is None:
                shared = _loaded[key] = _Shared(_load_server(path, key[1], key[2]))
            shared.refs += 1
        self._key, self._server = key, shared.server
        self.load_s = time.perf_counter() - t0

    def close(self) -> None:
        """Drop this instance's hold; the model is freed when no instance holds it."""
        if self._key is None:
            return
        with _lock:
            shared = _loaded.get(self._key)
            if shared is not None:
                shared.refs -= 1
                if shared.refs <= 0:
                    del _loaded[self._key]
                    logger.info("freed %s", Path(self._key[0]).name)
        self._key = self._server = None

    def __enter__(self) -> LlamaCppLLM:
        self.load()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def manifest(self) -> dict[str, str]:
        """``{"name", "path", "sha256"}`` of the weights, for result manifests."""
        from atma.models import ModelError, model_manifest

        try:
            return model_manifest(self.config.model)
        except ModelError as e:
            raise LLMError(str(e)) from e

    # --- completion --------------------------------------------------------------------

    def _request(
        self,
        messages: Sequence[Message],
        max_tokens: int,
        temperature: float,
        json_schema: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        req: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "max_tokens": int(max_tokens),
            "temperature": float(temperature),
            "seed": self.config.seed,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if json_schema is not None:
            schema = dict(json_schema)
            title = schema.get("title")
            name = title if isinstance(title, str) and title else "reply"
            req["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        return req

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Completion:
        """One chat completion; see :class:`atma.protocols.LLM`. Raises LLMError."""
        if timeout is not None and timeout <= 0:
            raise LLMError(f"{self.name}: timeout must be positive, got {timeout}")
        self.load()
        server = self._server
        req = self._request(messages, max_tokens, temperature, json_schema)
        fut: Future[list[dict[str, Any]]] = Future()
        cancel = threading.Event()

        def work() -> None:
            chunks: list[dict[str, Any]] = []

            def on_chunk(chunk: dict[str, Any]) -> bool:
                chunks.append(chunk)
                return cancel.is_set()  # True asks llama.cpp to stop generating

            try:
                server.handle_chat_completions(req, on_chunk)
                fut.set_result(chunks)
            except BaseException as e:  # handed to the caller
                fut.set_exception(e)

        t0 = time.perf_counter()
        # Daemon thread: an abandoned prefill must not keep the interpreter from exiting.
        threading.Thread(target=work, name="atma-llamacpp", daemon=True).start()
        try:
            chunks = fut.result(timeout=timeout)
        except TimeoutError:
            cancel.set()
            raise LLMError(f"{self.name}: timed out after {timeout:g}s", kind="timeout") from None
        except Exception as e:
            raise LLMError(f"{self.name}: request failed: {e}") from e
        except BaseException:  # e.g. KeyboardInterrupt: stop the generation too
            cancel.set()
            raise
        return self._assemble(chunks, time.perf_counter() - t0)

    def _assemble(self, chunks: list[dict[str, Any]], latency: float) -> Completion:
        """One Completion from the streamed chunks."""
        parts: list[str] = []
        finish = ""
        usage: Mapping[str, Any] = {}
        for chunk in chunks:
            if not isinstance(chunk, dict):
                raise LLMError(f"{self.name}: unexpected chunk type {type(chunk).__name__}")
            if "error" in chunk:
                err = chunk["error"]
                msg = err.get("message", err) if isinstance(err, dict) else err
                raise LLMError(f"{self.name}: {msg}")
            usage = chunk.get("usage") or usage
            if "timings" in chunk:
                tm = chunk["timings"]
                logger.debug(
                    "%s: prefill %s tok at %.1f tok/s, decode %s tok at %.1f tok/s",
                    self.name, tm.get("prompt_n"), tm.get("prompt_per_second", 0.0),
                    tm.get("predicted_n"), tm.get("predicted_per_second", 0.0),
                )
            for choice in chunk.get("choices") or ():
                parts.append((choice.get("delta") or {}).get("content") or "")
                finish = choice.get("finish_reason") or finish
        if not finish:
            raise LLMError(f"{self.name}: reply ended without a finish reason")
        return Completion(
            text="".join(parts),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_s=latency,
            model=self.name,
            finish_reason=finish,
        )
