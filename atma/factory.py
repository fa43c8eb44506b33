"""Default components, built in one place: the answer model, the embedder, the pair gate, the Judge.

``ATMAOverlay`` calls these (lazily, on first use) for what it was not given; the CLI, the
demo and the eval runners call them with the names from their command lines. Building an
object here loads nothing: the answer model loads on its first call (or ``load=True``),
the Sentry and the verdict model when their factory is called.

    from atma import factory
    llm = factory.default_llm()                 # $ATMA_LLM or atma.llm.DEFAULT_LLM
    embedder = factory.default_embedder()       # the packaged MiniLM
    gate = factory.default_gate(embedder)       # the shipped Sentry; cosine over embedder without torch
    judge = factory.default_judge()             # the deterministic anchored rule
"""

from __future__ import annotations

import logging
import os
from typing import Any

from .protocols import LLM, Embedder, LLMError, PairGate

__all__ = ["default_embedder", "default_gate", "default_judge", "default_llm", "llm_spec"]

log = logging.getLogger(__name__)


def llm_spec(spec: str | None = None) -> str:
    """``spec``, else ``$ATMA_LLM``, else :data:`atma.llm.DEFAULT_LLM` (the packaged GGUF)."""
    from .llm.spec import DEFAULT_LLM

    return spec or os.environ.get("ATMA_LLM") or DEFAULT_LLM


def default_llm(spec: str | None = None, *, load: bool = False, **options: Any) -> LLM:
    """The answer model named by :func:`llm_spec` (``options`` go to its backend).

    Built, not loaded: a local GGUF loads on its first call. With ``load``, it loads now, and a
    model that cannot be loaded (not downloaded, no ``llama-cpp-python``) raises one
    :class:`LLMError` line that names the spec and how to pass another model.
    """
    from .llm import load_llm

    name = llm_spec(spec)
    llm = load_llm(name, **options)
    if load and hasattr(llm, "load"):
        try:
            llm.load()
        except (LLMError, ImportError, OSError) as e:
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise LLMError(f"no answer model: {name} could not be loaded ({reason}); give another one "
                           "(llm=... in Python, --llm on the command line, or $ATMA_LLM)") from e
    return llm


def default_embedder(spec: str = "minilm") -> Embedder:
    """A sentence-transformers embedder (``minilm``: the packaged MiniLM; needs ``atma[embed]``)."""
    from .embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(spec)


def default_gate(embedder: Embedder | None = None, spec: str | None = None) -> PairGate:
    """The pair gate. ``spec`` None: the shipped Sentry checkpoint (one per process; needs torch
    and the packaged MiniLM, ``atma[embed]``), or, where those are missing, cosine similarity
    over ``embedder`` (a warning says so); with no embedder either, the ImportError /
    FileNotFoundError is raised. A ``spec`` (``sentry``, ``cosine``, a checkpoint folder) is
    built exactly as named (:func:`atma.sentry_encoder.gate_from_spec`), without a fallback."""
    from .sentry import CosineGate
    from .sentry_encoder import gate_from_spec

    if spec is not None:
        return gate_from_spec(spec, embedder)
    try:
        return gate_from_spec("sentry")
    except (ImportError, FileNotFoundError, OSError) as exc:
        if embedder is None:
            raise
        log.warning("Sentry gate unavailable (%s); using cosine similarity over %s",
                    str(exc).splitlines()[0], getattr(embedder, "name", type(embedder).__name__))
        return CosineGate(embedder)


def default_judge(spec: str | None = None, *, llm: LLM | None = None) -> Any:
    """The audit Judge. ``spec`` None: the deterministic anchored rule
    (:func:`atma.judging.default_judge`); otherwise :func:`atma.judging.judge_from_spec`
    (``rule``, ``verdict``, ``agree``, ``llm``, ``cascade`` or a verdict checkpoint)."""
    from .judging import default_judge as rule_judge, judge_from_spec

    return rule_judge() if spec is None else judge_from_spec(spec, llm=llm)
