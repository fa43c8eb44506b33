"""Serve a packaged GGUF over loopback HTTP (an OpenAI-compatible ``/v1`` API), in-process.

Hosts whose libraries only talk to an OpenAI-style endpoint (Graphiti's
``OpenAIGenericClient``, A-Mem's OpenAI controller) get one from llama.cpp's own
server through ``xllamacpp`` (extra ``atma[llm]``): no extra package, no network
beyond 127.0.0.1. The server lives as long as the :class:`LocalLLMServer` object;
stop it with :meth:`LocalLLMServer.stop` or a ``with`` block.

Example::

    with LocalLLMServer("qwen2.5-coder-1.5b", n_threads=1) as srv:
        client = OpenAI(base_url=srv.base_url, api_key="x")
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

__all__ = ["LocalLLMServer"]

log = logging.getLogger(__name__)


class LocalLLMServer:
    """llama.cpp's HTTP server for one GGUF on ``127.0.0.1``.

    ``model``: a packaged name (sha256-verified through :mod:`atma.models`) or a
    ``.gguf`` path. ``port`` 0 takes any free port. ``n_parallel`` > 1 splits ``n_ctx``
    between slots. ``model_name`` is the name clients send (the server accepts any).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] = "qwen2.5-coder-1.5b",
        *,
        n_ctx: int = 8192,
        n_threads: int = 1,
        port: int = 0,
        n_parallel: int = 1,
        verbosity: int = -1,
    ) -> None:
        self.model = os.fspath(model)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.port = port
        self.n_parallel = n_parallel
        self.verbosity = verbosity
        self.model_name = os.path.basename(self.model).removesuffix(".gguf")
        self._server: Any = None
        self._lock = threading.Lock()
        self.base_url = ""
        self.load_s = 0.0

    def start(self) -> str:
        """Load the model and listen; returns the ``/v1`` base URL. Idempotent."""
        with self._lock:
            if self._server is not None:
                return self.base_url
            try:
                import xllamacpp
            except ImportError as e:
                raise ImportError("LocalLLMServer needs xllamacpp: pip install 'atma[llm]'") from e
            from atma.models import resolve_gguf

            params = xllamacpp.CommonParams()
            params.model.path = str(resolve_gguf(self.model))
            params.n_ctx = self.n_ctx
            params.n_parallel = self.n_parallel
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.warmup = False
            params.verbosity = self.verbosity
            params.hostnames = ["127.0.0.1"]
            params.port = self.port
            t0 = time.perf_counter()
            self._server = xllamacpp.Server(params)
            self.load_s = time.perf_counter() - t0
            self.base_url = self._server.listening_address.rstrip("/") + "/v1"
            log.info("serving %s at %s (loaded in %.1fs)", self.model_name, self.base_url, self.load_s)
            return self.base_url

    def stop(self) -> None:
        """Stop listening and free the model."""
        with self._lock:
            server, self._server = self._server, None
            self.base_url = ""
        if server is not None:
            del server  # xllamacpp stops the HTTP thread when the object is freed

    @property
    def running(self) -> bool:
        return self._server is not None

    def __enter__(self) -> "LocalLLMServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"LocalLLMServer({self.model_name!r}, base_url={self.base_url or None!r})"
