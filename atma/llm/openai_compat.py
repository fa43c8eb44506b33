"""OpenAI-compatible HTTP backend (vLLM, llama.cpp server, Ollama ``/v1``; extra ``atma[http]``).

POSTs ``{base_url}/chat/completions`` with ``stream: false``. JSON output is requested per
``schema_mode``: ``"json_schema"`` sends ``response_format={"type": "json_schema",
"json_schema": {"name", "schema", "strict"}}`` (vLLM, llama.cpp server, OpenAI);
``"json_object"`` sends ``{"type": "json_object", "schema": S}`` (llama-cpp-python's server);
``"none"`` sends nothing and relies on the prompt. No retries: the caller decides.
``timeout`` bounds each network phase (connect, write, read); a non-streamed reply
arrives in one piece, so the read limit is in effect the generation limit.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from atma.protocols import Completion, LLMError, Message

__all__ = ["OpenAICompatConfig", "OpenAICompatLLM", "SchemaMode", "error_text", "import_httpx"]

logger = logging.getLogger(__name__)

SchemaMode = Literal["json_schema", "json_object", "none"]
_SCHEMA_MODES = ("json_schema", "json_object", "none")


@dataclass(frozen=True, kw_only=True)
class OpenAICompatConfig:
    """Endpoint settings. ``base_url`` ends before ``/chat/completions`` (e.g.
    ``http://127.0.0.1:8000/v1``). ``timeout``: seconds, used when a call gives none."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0
    schema_mode: SchemaMode = "json_schema"
    seed: int | None = 0


def import_httpx() -> Any:
    """``httpx``, or its API-compatible successor ``httpx2`` (what huggingface_hub 2.x
    installs). Raises LLMError naming the extra when neither is installed."""
    try:
        import httpx
    except ImportError:
        try:
            import httpx2 as httpx
        except ImportError as e:
            raise LLMError("HTTP backends need httpx: pip install 'atma[http]'") from e
    return httpx


class OpenAICompatLLM:
    """:class:`atma.protocols.LLM` over an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        schema_mode: SchemaMode = "json_schema",
        seed: int | None = 0,
    ) -> None:
        if schema_mode not in _SCHEMA_MODES:
            raise ValueError(f"schema_mode must be one of {_SCHEMA_MODES}, got {schema_mode!r}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        self.config = OpenAICompatConfig(
            base_url=base_url.rstrip("/"), model=model, api_key=api_key, timeout=timeout, schema_mode=schema_mode, seed=seed
        )
        self.name = f"openai:{self.config.base_url}#{model}"
        self._client: Any = None

    @property
    def url(self) -> str:
        return self.config.base_url + "/chat/completions"

    def _http(self) -> Any:
        if self._client is None:
            httpx = import_httpx()
            headers = {"Content-Type": "application/json"}
            if self.config.api_key:
                headers["Authorization"] = f"Bearer {self.config.api_key}"
            self._client = httpx.Client(headers=headers)
        return self._client

    def close(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> OpenAICompatLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def manifest(self) -> dict[str, str | None]:
        """``{"name", "path", "sha256"}`` for result manifests (weights are the server's)."""
        return {"name": self.config.model, "path": self.config.base_url, "sha256": None}

    def body(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The JSON request body (exposed for inspection and tests)."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "max_tokens": int(max_tokens),
            "temperature": float(temperature),
            "stream": False,
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if json_schema is not None and self.config.schema_mode == "json_schema":
            title = json_schema.get("title")
            name = title if isinstance(title, str) and title else "reply"
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": dict(json_schema)},
            }
        elif json_schema is not None and self.config.schema_mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": dict(json_schema)}
        return body

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
        client = self._http()
        httpx = import_httpx()
        body = self.body(messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema)
        limit = self.config.timeout if timeout is None else timeout
        t0 = time.perf_counter()
        try:
            resp = client.post(self.url, json=body, timeout=limit)
        except httpx.TimeoutException:
            raise LLMError(f"{self.name}: timed out after {limit:g}s", kind="timeout") from None
        except httpx.HTTPError as e:
            raise LLMError(f"{self.name}: {type(e).__name__}: {e}") from e
        latency = time.perf_counter() - t0
        if resp.status_code >= 400:
            raise LLMError(f"{self.name}: HTTP {resp.status_code}: {error_text(resp.text)}")
        try:
            data = resp.json()
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
            finish = choice.get("finish_reason") or ""
            usage = data.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or 0)
            completion_tokens = int(usage.get("completion_tokens") or 0)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            raise LLMError(f"{self.name}: malformed reply: {error_text(resp.text)}") from e
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=latency,
            model=str(data.get("model") or self.config.model),
            finish_reason=finish,
        )


def error_text(raw: str, limit: int = 200) -> str:
    """One readable line from an error body: ``error.message`` when it is JSON."""
    try:
        data = json.loads(raw)
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
        raw = msg if isinstance(msg, str) else json.dumps(msg)
    except ValueError:
        pass
    line = " ".join(raw.split())
    return (line[:limit] + "…") if len(line) > limit else (line or "<empty body>")
