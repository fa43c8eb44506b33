"""The overlay on real components: SQLite file, packaged MiniLM, a real GGUF through llama.cpp.

SmolLM2-135M is too weak to be right about state; these tests check the real JSON-schema
path and every fallback path end to end, not answer quality.
"""

from __future__ import annotations

import json

from adapters.builtin import BuiltinHost
from atma import ATMAOverlay, OverlayConfig, StateBank
from atma.judge import Verdict
from atma.llm import load_llm
from atma.protocols import LLMError
from atma.records import LinkType, Status
from atma.sentry import CosineGate


def make(tmp_path, minilm, llm, judge_llm=None, ns="dana", **cfg):
    host = BuiltinHost(tmp_path / "mem.db", embedder=minilm, answerer=llm)
    # the LLM Judge path is what these tests exercise (the default Judge is the anchored rule)
    return ATMAOverlay(host, namespace=ns, llm=llm, judge_llm=judge_llm or llm, gate=CosineGate(minilm, threshold=0.3),
                       config=OverlayConfig(**cfg))


def test_json_schema_judge_path_is_valid_json(tmp_path, minilm, smollm):
    ov = make(tmp_path, minilm, smollm)
    ov.add("I rent a small flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    res = ov.add("I moved to Bristol last weekend, I don't live in Leeds anymore.", time="2024-06-02T10:00", speaker="Dana")
    assert res.trace.judge, "the Leeds/Bristol pair must reach the Judge"
    call = res.trace.judge[0]
    # grammar-constrained output always parses as JSON; it is either a valid verdict or a schema error
    json.loads(call.raw)
    assert call.status in ("ok", "schema_error")
    if call.status == "ok":
        Verdict.model_validate(call.verdict)
    assert ov.bank.check_invariants("dana") == []


class Unconstrained:
    """The same model without the JSON-schema constraint: a 135M model then rarely emits the schema."""

    def __init__(self, llm):
        self.llm, self.name = llm, llm.name

    def complete(self, messages, *, max_tokens, temperature=0.0, json_schema=None, timeout=None):
        return self.llm.complete(messages, max_tokens=40, temperature=temperature, timeout=timeout)


def test_invalid_output_falls_back_to_rule(tmp_path, minilm, smollm):
    ov = make(tmp_path, minilm, smollm, judge_llm=Unconstrained(smollm))
    ov.add("I live in a small flat in Leeds with my cat.", speaker="Dana")
    res = ov.add("Now I live in a small flat in Bristol with my cat.", speaker="Dana")
    call = res.trace.judge[0]
    assert call.status in ("invalid_json", "schema_error", "empty", "ok")
    if call.status != "ok":
        assert call.fallback and call.verdict["reason"].startswith("fallback rule")
        assert res.trace.changes == ({"action": "supersede", "old_id": "r1"},)  # close pair + "now": the rule supersedes


def test_timeout_falls_back(tmp_path, minilm, smollm):
    ov = make(tmp_path, minilm, smollm, judge_timeout_s=0.001)
    ov.add("I live in Leeds.", speaker="Dana")
    res = ov.add("I moved to Bristol now.", speaker="Dana")
    assert res.trace.judge[0].status == "timeout" and res.trace.judge[0].fallback


def test_unreachable_server_falls_back(tmp_path, minilm, smollm):
    dead = load_llm("openai:http://127.0.0.1:9/v1#judge", timeout=2)
    ov = make(tmp_path, minilm, smollm, judge_llm=dead)
    ov.add("I live in Leeds.", speaker="Dana")
    res = ov.add("I moved to Bristol now.", speaker="Dana")
    assert res.trace.judge[0].status == "error" and res.trace.judge[0].fallback


def test_answer_with_real_llm_persists_and_isolates(tmp_path, minilm, smollm):
    ov = make(tmp_path, minilm, smollm, use_judge=False)
    ov.add("I rent a flat in Leeds.", time="2024-01-10T10:00", speaker="Dana")
    ov.add("I moved to Bristol, I don't live in Leeds now.", time="2024-06-02T10:00", speaker="Dana")
    a = ov.answer("Where did Dana live before?")
    assert a.answer and a.trace.timings["qa_llm_s"] > 0
    assert set(a.trace.labels.values()) <= {"now", "past", "plain"}  # the host's rows, or a resolved packet's states
    # reopen the same file: bank state and traces survive; another namespace sees nothing
    bank = StateBank(tmp_path / "mem.db")
    assert len(bank.records("dana")) == 2 and bank.traces("dana", kind="query")
    other = ATMAOverlay(BuiltinHost(tmp_path / "mem.db", embedder=minilm, answerer=smollm), namespace="sam",
                        llm=smollm, gate=CosineGate(minilm), bank=bank)
    assert other.retrieve("Where does Dana live?")[0] == []


def test_cli_add_ask_trace_round_trip(tmp_path, capsys, smollm):
    from atma.cli import main

    db = str(tmp_path / "cli.db")
    assert main(["--db", db, "add", "--ns", "u1", "--llm", "smollm2-135m", "--time", "2024-01-10T10:00",
                 "--speaker", "Dana", "I rent a flat in Leeds."]) == 0
    assert main(["--db", db, "ask", "--ns", "u1", "--llm", "smollm2-135m", "Where does Dana live?"]) == 0
    out = capsys.readouterr().out
    assert "answer:" in out and "[plain" in out  # one record, no chain: shown as the host has it
    assert main(["--db", db, "trace", "--ns", "u1", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)[0]
    assert body["query"] == "Where does Dana live?" and body["labelled"][0]["text"] == "I rent a flat in Leeds."
    assert main(["--db", db, "ask", "--ns", "nobody", "--llm", "smollm2-135m", "Where?"]) == 2
