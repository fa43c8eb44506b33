"""InsideOutHost with scripted tree operations: parsing, chunking, versions, snapshots, erase."""

from __future__ import annotations

import json

import pytest

from adapters.insideout import (
    OPS_SCHEMA,
    InsideOutConfig,
    InsideOutHost,
    find_schema,
    leaf_paths,
    parse_ops,
    path_words,
)
from atma.protocols import LLMError
from atma.testing import HashEmbedder, ScriptedLLM

SCHEMA = {"Identity": {"Residence": "", "Occupation": ""}, "Family": {"Pets": ""}}
RES, JOB, PETS = "Identity.Residence", "Identity.Occupation", "Family.Pets"


def ops(*items: tuple[str, str, str]) -> str:
    return json.dumps({"operations": [{"op": o, "path": p, "value": v} for o, p, v in items]})


def make(replies, path=":memory:", **cfg) -> tuple[InsideOutHost, ScriptedLLM]:
    llm = ScriptedLLM(replies, default=ops(("NO_OP", "", "")))
    return InsideOutHost(path, llm=llm, embedder=HashEmbedder(), schema=SCHEMA, config=InsideOutConfig(**cfg)), llm


# ---------------------------------------------------------------- parsing


def test_parse_ops_is_strict_and_counts_what_it_skips() -> None:
    reply = json.dumps({"operations": [
        {"op": "ADD", "path": RES, "value": "Leeds"},
        {"op": "UPDATE", "path": JOB, "value": ""},          # missing value
        {"op": "ADD", "path": "Identity.Shoe_Size", "value": "9"},  # unknown path
        {"op": "RENAME", "path": RES, "value": "x"},          # bad op name
        "ADD Identity.Residence",                              # not an object
        {"op": "DELETE", "path": PETS, "value": "whatever"},  # DELETE ignores its value
        {"op": "NO_OP", "path": "", "value": ""},
    ]})
    got, stats = parse_ops(reply, set(leaf_paths(SCHEMA)))
    assert [(o.op, o.path, o.value) for o in got] == [("ADD", RES, "Leeds"), ("DELETE", PETS, "")]
    assert dict(stats) == {"ops_returned": 7, "missing_value": 1, "unknown_path": 1, "bad_op": 2, "no_op": 1}
    assert parse_ops("not json", {RES}) == (None, {"invalid_json": 1})
    assert parse_ops('{"ops": []}', {RES})[0] is None


def test_schema_file_and_paths() -> None:
    tree = json.loads(find_schema().read_text())
    paths = leaf_paths(tree)
    assert len(paths) == 305 and "4_Identity_Characteristics.Social_Identity.Legal_and_Civic_Status.Name" in paths
    assert path_words(paths[0]) == "Biological Characteristics / Physical Appearance / Body Build / Height"
    assert OPS_SCHEMA["properties"]["operations"]["items"]["properties"]["op"]["enum"] == ["ADD", "UPDATE", "DELETE", "NO_OP"]


def test_real_schema_host_starts_with_empty_leaves() -> None:
    host = InsideOutHost(llm=ScriptedLLM(), embedder=HashEmbedder())
    assert len(host.paths) == 305 and host.tree("u") == {}


# ---------------------------------------------------------------- chunking


def test_monologue_chunks_of_three_processed_when_a_fourth_exchange_starts() -> None:
    host, llm = make([ops(("ADD", RES, "Leeds")), ops(("UPDATE", RES, "Bristol"))])
    ids = [host.add(f"turn {i}", namespace="u", speaker="Dana") for i in range(4)]
    assert len(llm.calls) == 1 and host.pending("u") == [ids[3]]
    chunk_text = llm.calls[0].messages[-1]["content"].split("Dialogue chunk:")[1]
    assert "turn 0" in chunk_text and "turn 2" in chunk_text and "turn 3" not in chunk_text
    assert llm.calls[0].json_schema == OPS_SCHEMA and llm.calls[0].temperature == 0.0
    assert host.tree("u") == {RES: "Leeds"}
    assert host.flush("u") == 1 and host.pending("u") == [] and host.tree("u") == {RES: "Bristol"}


def test_an_exchange_is_an_opening_turn_and_the_replies_to_it() -> None:
    host, llm = make([])
    # (Dana, Sam) (Dana, Sam, Sam) (Dana, Sam), then Dana opens a fourth exchange
    for who in ["Dana", "Sam", "Dana", "Sam", "Sam", "Dana", "Sam", "Dana"]:
        host.add(f"{who} speaks", namespace="u", speaker=who)
    assert len(llm.calls) == 1 and len(host.pending("u")) == 1
    assert llm.calls[0].messages[-1]["content"].count("Sam: Sam speaks") == 4


def test_search_does_not_flush_by_default_but_answer_does() -> None:
    host, llm = make([ops(("ADD", RES, "Leeds"))])
    hid = host.add("I live in Leeds", namespace="u", speaker="Dana")
    hits = host.search("Leeds", namespace="u", k=5)
    assert [h.host_id for h in hits] == [hid] and llm.calls == []  # the raw event is searchable at once
    host.answerer = ScriptedLLM(default="Leeds")
    assert host.answer("Where?", namespace="u") == "Leeds"
    assert host.tree("u") == {RES: "Leeds"}
    assert "Residence: Leeds" in host.answerer.calls[0].messages[-1]["content"]


def test_flush_on_search_option() -> None:
    host, llm = make([ops(("ADD", RES, "Leeds"))], flush_on_search=True)
    host.add("I live in Leeds", namespace="u")
    hits = host.search("Leeds residence", namespace="u", k=5)
    assert len(llm.calls) == 1 and any(h.host_id == f"leaf:{RES}#1" for h in hits)


# ---------------------------------------------------------------- versions and history


def story(host: InsideOutHost) -> list[str]:
    ids = []
    for text in ["I rent a flat in Leeds", "I am a pastry chef", "My cat is Biscuit"]:
        ids.append(host.add(text, namespace="u", speaker="Dana"))
    host.flush("u")
    for text in ["I moved to Bristol", "Biscuit ran away"]:
        ids.append(host.add(text, namespace="u", speaker="Dana"))
    host.flush("u")
    return ids


STORY_OPS = [ops(("ADD", RES, "Leeds"), ("ADD", JOB, "pastry chef"), ("ADD", PETS, "cat Biscuit")),
             ops(("UPDATE", RES, "Bristol"), ("DELETE", PETS, ""), ("DELETE", JOB, ""), ("ADD", JOB, "pastry chef"))]


def test_update_overwrites_delete_blanks_and_old_values_stay_as_snapshots() -> None:
    host, _ = make(STORY_OPS)
    ids = story(host)
    assert host.tree("u") == {RES: "Bristol", JOB: "pastry chef"}
    snaps = {(s.path, s.value): s for s in host.snapshots("u")}
    assert set(snaps) == {(RES, "Leeds"), (PETS, "cat Biscuit"), (JOB, "pastry chef")}
    leeds = snaps[(RES, "Leeds")]
    assert leeds.new_value == "Bristol" and leeds.new_op == "UPDATE" and leeds.host_id == f"leaf:{RES}#1"
    assert leeds.written_by == tuple(ids[:3]) and leeds.overwritten_by == tuple(ids[3:])
    assert snaps[(PETS, "cat Biscuit")].new_value == "" and snaps[(PETS, "cat Biscuit")].new_op == "DELETE"
    st = host.stats("u")
    assert st["chunks"] == 2 and st["added"] == 4 and st["updated"] == 1 and st["deleted"] == 2 and st["overwritten"] == 3


def test_native_state_of_leaves_and_events() -> None:
    host, _ = make(STORY_OPS)
    ids = story(host)
    old = host.native_state(f"leaf:{RES}#1", namespace="u")
    assert old["status"] == "superseded" and old["value"] == "Leeds" and old["superseded_by"] == ids[3:]
    assert host.native_state(f"leaf:{RES}#2", namespace="u")["status"] == "active"
    assert host.native_state(f"leaf:{PETS}#2", namespace="u")["status"] == "deleted"
    ev = host.native_state(ids[0], namespace="u")
    assert ev["kind"] == "event" and ev["chunk"] == 1 and ev["status"] == "superseded"  # all it wrote was replaced
    assert host.native_state(ids[3], namespace="u")["status"] == "active"
    assert host.native_state("h999", namespace="u") == {} and host.native_state(ids[0], namespace="other") == {}
    pending = host.add("one more", namespace="u")
    assert host.native_state(pending, namespace="u")["status"] == "pending"


def test_search_returns_current_leaves_and_events_and_history_on_request() -> None:
    host, _ = make(STORY_OPS)
    story(host)
    hits = host.search("Residence Leeds Bristol", namespace="u", k=10)
    leaf_hits = [h for h in hits if h.host_id.startswith("leaf:")]
    assert f"leaf:{RES}#2" in [h.host_id for h in leaf_hits] and f"leaf:{RES}#1" not in [h.host_id for h in hits]
    assert any(h.text == f"{RES}: Bristol" for h in leaf_hits)
    assert any(h.host_id.startswith("h") for h in hits)  # raw events for the overlay to map
    host.config = InsideOutConfig(search_history=True)
    old = [h for h in host.search("Leeds", namespace="u", k=10) if h.host_id == f"leaf:{RES}#1"]
    assert old and old[0].native["status"] == "superseded"


def test_failures_are_counted_and_do_not_block_the_stream() -> None:
    host, _ = make(["garbage", LLMError("timed out"), ops(("ADD", "No.Such", "x"))], chunk_exchanges=1)
    for i in range(4):
        host.add(f"turn {i}", namespace="u")
    host.flush("u")
    st = host.stats("u")
    assert st["chunks"] == 4 and st["invalid_json"] == 1 and st["llm_error"] == 1 and st["unknown_path"] == 1
    assert host.pending("u") == [] and host.tree("u") == {}


def test_prompt_hints_cover_filled_leaves(tmp_path) -> None:
    host, llm = make([ops(("ADD", PETS, "cat"))], path_hints=1, chunk_exchanges=1)
    host.add("I have a cat", namespace="u")
    host.add("I moved to Leeds", namespace="u")
    host.flush("u")
    last = llm.calls[-1].messages[-1]["content"]
    fields = last.split("Fields you may use:\n")[1].split("\n\n")[0].splitlines()
    assert PETS in fields and len(fields) == 2  # one hint plus every non-empty leaf


# ---------------------------------------------------------------- persistence, isolation, erase


def test_tree_and_buffer_persist_across_reopen(tmp_path) -> None:
    path = str(tmp_path / "io.db")
    host, _ = make(STORY_OPS, path)
    story(host)
    waiting = host.add("still buffered", namespace="u")
    host.close()
    again, llm = make([], path)
    assert again.tree("u") == {RES: "Bristol", JOB: "pastry chef"} and again.pending("u") == [waiting]
    assert len(again.snapshots("u")) == 3
    again.close()


def test_namespaces_have_their_own_trees() -> None:
    host, _ = make([ops(("ADD", RES, "Leeds")), ops(("ADD", RES, "Oslo"))], chunk_exchanges=1)
    host.add("Leeds", namespace="a")
    host.add("Oslo", namespace="b")
    host.flush("a")
    host.flush("b")
    assert host.tree("a") == {RES: "Leeds"} and host.tree("b") == {RES: "Oslo"}
    assert all("Oslo" not in h.text for h in host.search("Oslo Leeds", namespace="a", k=10))


def test_erase_event_removes_what_its_chunk_wrote() -> None:
    host, _ = make(STORY_OPS)
    ids = story(host)
    host.erase([ids[3]], namespace="u")  # the Bristol chunk goes, with its writes
    assert host.tree("u") == {RES: "Leeds", JOB: "pastry chef", PETS: "cat Biscuit"}
    assert host.get(ids[3], namespace="u") is None
    assert "Bristol" not in " ".join(h.text for h in host.search("Bristol", namespace="u", k=10))
    host.erase([f"leaf:{RES}#1"], namespace="u")
    assert RES not in host.tree("u")


def test_needs_a_schema_with_leaves() -> None:
    with pytest.raises(ValueError, match="no leaves"):
        InsideOutHost(llm=ScriptedLLM(), embedder=HashEmbedder(), schema={})
