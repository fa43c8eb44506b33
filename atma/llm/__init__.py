"""LLM backends behind :class:`atma.protocols.LLM`.

``load_llm(spec)`` turns a user spec into a backend (see :mod:`atma.llm.spec`).
Importing this package is cheap: no xllamacpp, httpx or torch until a backend is used.
"""

from __future__ import annotations

from atma.llm.llamacpp import LlamaCppLLM
from atma.llm.ollama import OllamaLLM
from atma.llm.openai_compat import OpenAICompatLLM
from atma.llm.spec import DEFAULT_LLM, LLMSpec, load_llm, parse_spec

__all__ = [
    "DEFAULT_LLM",
    "LLMSpec",
    "LlamaCppLLM",
    "OllamaLLM",
    "OpenAICompatLLM",
    "load_llm",
    "parse_spec",
]
