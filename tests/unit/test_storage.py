"""Bounded storage (issue 12 item 6): write traces reference records by id, model replies and prompt
texts are capped, and a trace retention setting keeps the newest N."""

from __future__ import annotations

import json

from atma import ATMAOverlay, OverlayConfig
from atma.judge import MAX_PROMPT_TEXT_CHARS, judge_messages
from atma.records import Record
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, InMemoryHost, ScriptedLLM

BIG = "x" * 1_000_000


def overlay(**cfg):
    emb = HashEmbedder()
    llm = ScriptedLLM(route={"audit a personal memory": lambda m: "{" + " " * 500_000,
                             "answer a question": lambda m: "Leeds " * 100_000,
                             "retrieve controller": lambda m: "y" * 1_000_000})
    from atma.controller import ControllerConfig

    return ATMAOverlay(InMemoryHost(embedder=emb), namespace="u", llm=llm, gate=CosineGate(emb, threshold=0.0),
                       config=OverlayConfig(controller=ControllerConfig(mode="shadow"), **cfg))


def test_write_traces_reference_records_by_id_and_replies_are_capped():
    ov = overlay()
    ov.add("I rent a flat in Leeds near the canal.", speaker="Dana")
    ov.add("I moved to Bristol from Leeds, the flat near the canal is gone.", speaker="Dana")
    ov.answer("Where do I live now?")
    body = ov.bank.traces("u", kind="write", limit=1)[0]["body"]
    assert "text" not in body and all("text" not in c for c in body["candidates"])
    assert body["candidates"][0]["id"] == "r1"
    for t in ov.bank.traces("u", limit=10):
        assert len(json.dumps(t["body"])) < 20_000  # a 1 MB controller reply, a 600 KB answer: capped


def test_judge_prompt_caps_a_huge_memory():
    old = Record(id="r1", namespace="u", text=BIG)
    new = Record(id="r2", namespace="u", text="I moved to Bristol.")
    msgs = judge_messages(old, new)
    assert len(msgs[1]["content"]) < MAX_PROMPT_TEXT_CHARS + 500


def test_trace_retention_keeps_the_newest_n():
    ov = overlay(trace_keep=3)
    for i in range(6):
        ov.add(f"My home is now town number {i} near the river.", speaker="Dana")
    got = ov.bank.traces("u", kind="write", limit=100)
    assert [t["body"]["record_id"] for t in got] == ["r6", "r5", "r4"]
    none = overlay(trace_keep=0)
    none.add("My home is now Leeds near the river.", speaker="Dana")
    assert none.bank.traces("u", limit=100) == []


def test_cli_write_trace_reads_texts_from_the_bank(tmp_path, capsys):
    from adapters.builtin import BuiltinHost
    from atma.cli import main

    emb = HashEmbedder()
    path = tmp_path / "m.db"
    ov = ATMAOverlay(BuiltinHost(str(path), embedder=emb), namespace="u", gate=CosineGate(emb, threshold=0.0),
                     config=OverlayConfig(use_judge=False))
    ov.add("I rent a flat in Leeds near the canal.", speaker="Dana")
    ov.add("I moved to Bristol from Leeds last weekend.", speaker="Dana")
    ov.host.close()
    assert main(["--db", str(path), "trace", "--ns", "u", "--kind", "write"]) == 0
    out = capsys.readouterr().out
    assert "record r2: I moved to Bristol" in out and "candidate r1 (host#1)" in out and "flat in Leeds" in out
