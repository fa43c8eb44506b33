"""Ollama backend (native ``/api/chat``).

Uses the ``ollama`` client (extra ``atma[ollama]``) when installed, otherwise a plain
httpx POST to ``{host}/api/chat``; ``client="ollama"`` or ``"http"`` forces one. A JSON
schema goes in ``format``; ``max_tokens``/``temperature``/``seed`` go in ``options`` as
``num_predict``/``temperature``/``seed``. For Ollama's OpenAI-compatible ``/v1`` use
:class:`atma.llm.openai_compat.OpenAICompatLLM` instead.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from atma.llm.openai_compat import error_text, import_httpx
from atma.protocols import Completion, LLMError, Message

__all__ = ["DEFAULT_HOST", "OllamaConfig", "OllamaLLM"]

logger = logging.getLogger(__name__)

DEFAULT_HOST = "http://127.0.0.1:11434"
ClientKind = Literal["auto", "ollama", "http"]


@dataclass(frozen=True, kw_only=True)
class OllamaConfig:
    """``host``: server URL. ``timeout``: seconds, used when a call gives none.
    ``client``: "auto" (ollama client if installed, else http), "ollama" or "http"."""

    model: str
    host: str = DEFAULT_HOST
    timeout: float = 120.0
    seed: int | None = 0
    client: ClientKind = "auto"


class OllamaLLM:
    """:class:`atma.protocols.LLM` on an Ollama server."""

    def __init__(
        self,
        model: str,
        host: str = DEFAULT_HOST,
        *,
        timeout: float = 120.0,
        seed: int | None = 0,
        client: ClientKind = "auto",
    ) -> None:
        if client not in ("auto", "ollama", "http"):
            raise ValueError(f"client must be 'auto', 'ollama' or 'http', got {client!r}")
        host = host.rstrip("/")
        if "://" not in host:
            host = "http://" + host
        self.config = OllamaConfig(model=model, host=host, timeout=timeout, seed=seed, client=client)
        self.name = f"ollama:{model}@{host}"
        self._http: Any = None
        self._ollama: Any = None  # the imported ollama module, once looked up
        self._clients: dict[float, Any] = {}  # ollama.Client per timeout (fixed at construction)

    def _use_client(self) -> bool:
        if self.config.client == "http":
            return False
        if self._ollama is None:
            try:
                import ollama
            except ImportError as e:
                if self.config.client == "ollama":
                    raise LLMError("Ollama client backend needs the ollama package: pip install 'atma[ollama]'") from e
                self._ollama = False
            else:
                self._ollama = ollama
        return bool(self._ollama)

    def close(self) -> None:
        """Close open HTTP connections."""
        if self._http is not None:
            self._http.close()
            self._http = None
        self._clients.clear()

    def __enter__(self) -> OllamaLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def manifest(self) -> dict[str, str | None]:
        """``{"name", "path", "sha256"}`` for result manifests (weights are the server's)."""
        return {"name": self.config.model, "path": self.config.host, "sha256": None}

    def options(self, max_tokens: int, temperature: float) -> dict[str, Any]:
        """The ``options`` object sent with each request."""
        opts: dict[str, Any] = {"num_predict": int(max_tokens), "temperature": float(temperature)}
        if self.config.seed is not None:
            opts["seed"] = self.config.seed
        return opts

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
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        opts = self.options(max_tokens, temperature)
        fmt = dict(json_schema) if json_schema is not None else None
        limit = self.config.timeout if timeout is None else timeout
        t0 = time.perf_counter()
        if self._use_client():
            data = self._via_client(msgs, opts, fmt, limit)
        else:
            data = self._via_http(msgs, opts, fmt, limit)
        latency = time.perf_counter() - t0
        try:
            text = (data["message"] or {}).get("content") or ""
        except (KeyError, TypeError, AttributeError) as e:
            raise LLMError(f"{self.name}: malformed reply (no message)") from e
        return Completion(
            text=text,
            prompt_tokens=int(data.get("prompt_eval_count") or 0),
            completion_tokens=int(data.get("eval_count") or 0),
            latency_s=latency,
            model=str(data.get("model") or self.config.model),
            finish_reason=str(data.get("done_reason") or ""),
        )

    def _via_http(self, msgs: list[dict[str, str]], opts: dict[str, Any], fmt: Any, limit: float) -> dict[str, Any]:
        httpx = import_httpx()
        if self._http is None:
            self._http = httpx.Client()
        body: dict[str, Any] = {"model": self.config.model, "messages": msgs, "stream": False, "options": opts}
        if fmt is not None:
            body["format"] = fmt
        try:
            resp = self._http.post(self.config.host + "/api/chat", json=body, timeout=limit)
        except httpx.TimeoutException:
            raise LLMError(f"{self.name}: timed out after {limit:g}s", kind="timeout") from None
        except httpx.HTTPError as e:
            raise LLMError(f"{self.name}: {type(e).__name__}: {e}") from e
        if resp.status_code >= 400:
            raise LLMError(f"{self.name}: HTTP {resp.status_code}: {error_text(resp.text)}")
        try:
            data = resp.json()
        except ValueError as e:
            raise LLMError(f"{self.name}: malformed reply: {error_text(resp.text)}") from e
        if not isinstance(data, dict):
            raise LLMError(f"{self.name}: malformed reply: {error_text(resp.text)}")
        return data

    def _via_client(self, msgs: list[dict[str, str]], opts: dict[str, Any], fmt: Any, limit: float) -> dict[str, Any]:
        ollama = self._ollama
        client = self._clients.get(limit)
        if client is None:
            client = self._clients[limit] = ollama.Client(host=self.config.host, timeout=limit)
        try:
            resp = client.chat(model=self.config.model, messages=msgs, format=fmt, options=opts, stream=False)
        except ollama.ResponseError as e:
            raise LLMError(f"{self.name}: HTTP {getattr(e, 'status_code', '?')}: {error_text(str(e.error))}") from e
        except Exception as e:  # httpx errors surface unwrapped through the client
            if "timeout" in type(e).__name__.lower():
                raise LLMError(f"{self.name}: timed out after {limit:g}s", kind="timeout") from None
            raise LLMError(f"{self.name}: {type(e).__name__}: {e}") from e
        data = resp.model_dump() if hasattr(resp, "model_dump") else dict(resp)
        return data
