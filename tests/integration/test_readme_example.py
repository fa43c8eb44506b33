"""The README example with the embedded default model (Qwen2.5-Coder-1.5B, greedy).

This is the issue's acceptance check: the default Judge (the anchored rule) retires the Leeds
record (superseded_by Bristol), the overlay answers "before" with Leeds and "now" with Bristol
(the host's answer, checked against that state), and a second namespace sees neither.
"""

from __future__ import annotations

import pytest

from adapters.builtin import BuiltinHost
from atma import ATMAOverlay
from atma.records import LinkType, Status


@pytest.fixture(scope="module")
def qwen():
    from atma.llm import load_llm

    llm = load_llm("qwen2.5-coder-1.5b")
    llm.load()
    return llm


def test_readme_example(tmp_path, minilm, qwen, monkeypatch):
    monkeypatch.delenv("ATMA_LLM", raising=False)
    host = BuiltinHost(path=tmp_path / "mem.db", embedder=minilm)
    overlay = ATMAOverlay(host, namespace="user-1")  # as the README writes it: the default model answers
    overlay.add("I rent a flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    res = overlay.add("Big news: I moved to Bristol last weekend.", time="2024-06-02T10:00", speaker="Dana")
    assert res.trace.changes == ({"action": "supersede", "old_id": "r1"},), res.trace.to_json()

    before = overlay.answer("Where did I live before?")
    assert "leeds" in before.answer.lower(), before.trace.render()
    assert overlay.llm.name == "llamacpp:qwen2.5-coder-1.5b"  # the packaged default (shares qwen's weights)
    chk = before.trace.check  # checked packets: the host's answer first, re-asked only when it is stale
    assert chk["first_pass"] == "host" and (not chk["reasked"] or before.trace.labels["r1"] == "past"), chk
    leeds = overlay.bank.get("user-1", "r1")
    assert leeds.status is Status.SUPERSEDED and leeds.linked(LinkType.SUPERSEDED_BY) == ["r2"]

    now = overlay.answer("Where do I live now?")
    assert "bristol" in now.answer.lower(), now.trace.render()

    other = ATMAOverlay(host, namespace="user-2", llm=qwen, bank=overlay.bank)
    assert other.retrieve("Where do I live?")[0] == []
