"""``make_host(name, ...)``: one host from its ``--host`` name (for the eval runner and CLI).

    builtin     BuiltinHost: hybrid BM25 + dense on SQLite (no LLM at write time)
    insideout   InsideOutHost: PersonaTree maintained by ``llm`` (needs ``llm``)
    amem        AMemHost: A-Mem notes, LLM via the in-process shim (needs ``llm``)
                or ``base_url`` (extra ``atma[amem]``)
    graphiti    GraphitiHost: Graphiti on embedded Kuzu, LLM over loopback HTTP (serves
                the packaged GGUF unless ``base_url`` is given; extra ``atma[graphiti]``)

Every host gets ``path`` (its SQLite file; the overlay's bank may share it), the
``embedder`` and ``llm`` (also its plain answerer). Other keywords go to the host's
constructor unchanged. Heavy libraries are imported only for the host asked for.
"""

from __future__ import annotations

import os
from typing import Any

from atma.protocols import LLM, Embedder, Host

__all__ = ["HOSTS", "make_host"]

HOSTS = ("builtin", "insideout", "amem", "graphiti")


def make_host(
    name: str,
    *,
    path: str | os.PathLike[str] = ":memory:",
    embedder: Embedder | None = None,
    llm: LLM | None = None,
    **options: Any,
) -> Host:
    """Build the host called ``name`` (one of :data:`HOSTS`). Raises ValueError for an
    unknown name or a missing LLM, ImportError (naming the extra) for a missing library."""
    key = name.strip().lower()
    if key == "builtin":
        from adapters.builtin import BuiltinHost

        return BuiltinHost(path, embedder=embedder, answerer=llm, **options)
    if key == "insideout":
        if llm is None:
            raise ValueError("the insideout host needs llm=<an atma LLM> to maintain its PersonaTree")
        from adapters.insideout import InsideOutHost

        return InsideOutHost(path, llm=llm, embedder=embedder, **options)
    if key == "amem":
        if llm is None and "base_url" not in options and "system_factory" not in options:
            raise ValueError("the amem host needs llm=<an atma LLM> or base_url=<OpenAI-compatible /v1 URL>")
        from adapters.amem import AMemHost

        options.setdefault("answerer", llm)
        return AMemHost(path, llm=llm, embedder=embedder, **options)
    if key == "graphiti":
        from adapters.graphiti import GraphitiHost

        options.setdefault("answerer", llm)
        return GraphitiHost(path, embedder=embedder, **options)
    raise ValueError(f"unknown host {name!r}; choose one of: {', '.join(HOSTS)}")
