"""Shared real components for integration tests: the packaged MiniLM and SmolLM2 GGUF."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def minilm():
    from atma.embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("minilm")


@pytest.fixture(scope="session")
def smollm():
    from atma.llm import load_llm

    llm = load_llm("smollm2-135m")
    llm.load()
    yield llm
