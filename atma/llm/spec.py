"""Parsing user LLM specs into backends.

Accepted forms::

    qwen2.5-coder-1.5b             a packaged GGUF name (see atma.models), run in-process
    /path/model.gguf               a GGUF file, run in-process
    llamacpp:<name-or-path.gguf>   the same, explicitly
    openai:<base_url>#<model>      an OpenAI-compatible server, e.g. openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B-Instruct
    ollama:<model>[@host]          an Ollama server, e.g. ollama:qwen2.5:7b@127.0.0.1:11434

Parsing imports nothing heavy; the backend module imports its runtime on first use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from atma.protocols import LLM

__all__ = ["DEFAULT_LLM", "LLMSpec", "load_llm", "parse_spec"]

DEFAULT_LLM = "llamacpp:qwen2.5-coder-1.5b"

Backend = Literal["llamacpp", "openai", "ollama"]


@dataclass(frozen=True, kw_only=True)
class LLMSpec:
    """A parsed spec. ``target``: GGUF name/path (llamacpp), base URL (openai) or host
    (ollama, "" for the default). ``model``: served model name (openai, ollama)."""

    backend: Backend
    target: str
    model: str = ""


def _gguf_names() -> list[str]:
    from atma.models import known_models

    return known_models("gguf")


def parse_spec(spec: str) -> LLMSpec:
    """Parse ``spec`` (forms in the module docstring). Raises ValueError with the reason."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty LLM spec; try " + DEFAULT_LLM)
    spec = spec.strip()
    scheme, sep, rest = spec.partition(":")
    if sep and scheme == "llamacpp":
        if not rest:
            raise ValueError(f"bad LLM spec {spec!r}: llamacpp: needs a model name or .gguf path")
        return LLMSpec(backend="llamacpp", target=rest)
    if sep and scheme == "openai":
        base, hash_, model = rest.rpartition("#")
        if not hash_ or not base or not model:
            raise ValueError(f"bad LLM spec {spec!r}: expected openai:<base_url>#<model>")
        if not base.startswith(("http://", "https://")):
            raise ValueError(f"bad LLM spec {spec!r}: base_url must start with http:// or https://")
        return LLMSpec(backend="openai", target=base, model=model)
    if sep and scheme == "ollama":
        model, _, host = rest.partition("@")
        if not model:
            raise ValueError(f"bad LLM spec {spec!r}: expected ollama:<model>[@host]")
        if "@" in rest and not host:
            raise ValueError(f"bad LLM spec {spec!r}: empty host after @")
        return LLMSpec(backend="ollama", target=host, model=model)
    if spec in _gguf_names() or spec.lower().endswith(".gguf"):
        return LLMSpec(backend="llamacpp", target=spec)
    raise ValueError(
        f"bad LLM spec {spec!r}: expected a packaged model ({', '.join(_gguf_names())}), a .gguf path, "
        "llamacpp:<name-or-path>, openai:<base_url>#<model> or ollama:<model>[@host]"
    )


def load_llm(spec: str = DEFAULT_LLM, **options: Any) -> LLM:
    """Build the backend for ``spec``; ``options`` go to its constructor (e.g. ``n_ctx``
    for llamacpp, ``timeout``/``schema_mode`` for openai). The openai backend reads
    ``OPENAI_API_KEY`` when no ``api_key`` is given. Raises ValueError for bad specs."""
    parsed = parse_spec(spec)
    try:
        if parsed.backend == "llamacpp":
            from atma.llm.llamacpp import LlamaCppLLM

            return LlamaCppLLM(parsed.target, **options)
        if parsed.backend == "openai":
            from atma.llm.openai_compat import OpenAICompatLLM

            options.setdefault("api_key", os.environ.get("OPENAI_API_KEY"))
            return OpenAICompatLLM(parsed.target, parsed.model, **options)
        from atma.llm.ollama import OllamaLLM

        if parsed.target:
            options["host"] = parsed.target
        return OllamaLLM(parsed.model, **options)
    except TypeError as e:  # an option the backend does not take
        raise ValueError(f"bad options for {parsed.backend} backend: {e}") from e
