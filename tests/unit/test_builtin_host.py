"""BuiltinHost with the shipped fakes: storage, hybrid retrieval, isolation, erase."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.builtin import BuiltinHost, fts_query, plain_qa_messages
from atma.protocols import Host, HostHit
from atma.testing import HashEmbedder, InMemoryHost, ScriptedLLM


class CountingEmbedder:
    """Wraps an embedder and records every batch it is asked to encode."""

    def __init__(self, inner: HashEmbedder | None = None) -> None:
        self.inner = inner or HashEmbedder()
        self.name = self.inner.name
        self.dim = self.inner.dim
        self.batches: list[list[str]] = []

    @property
    def texts(self) -> int:
        return sum(len(b) for b in self.batches)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return self.inner.encode(texts)


class SynonymEmbedder(HashEmbedder):
    """A hash embedder with what dense models add over BM25 (synonyms map together)
    and what they lack (rare words, like codes and made-up names, carry no signal)."""

    name = "hash-synonyms"
    _canon = {"automobile": "car", "vehicle": "car", "adapter": "charger", "faulty": "broken"}
    _unknown = {"flurbish"}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        mapped = [
            " ".join(self._canon.get(w, w) for w in t.lower().replace("?", "").split() if w not in self._unknown)
            for t in texts
        ]
        return super().encode(mapped)


@pytest.fixture
def host() -> BuiltinHost:
    with BuiltinHost(embedder=HashEmbedder()) as h:
        yield h


def ids(hits: list[HostHit]) -> list[str]:
    return [h.host_id for h in hits]


def fts_hits(host: BuiltinHost, namespace: str, term: str) -> int:
    table = host._fts_table(namespace, create=False)
    return host.conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (term,)).fetchone()[0]


# ---------------------------------------------------------------- round trip


def test_add_search_get_round_trip(host: BuiltinHost) -> None:
    t = datetime(2023, 5, 8, 13, 56)
    hid = host.add("I adopted a greyhound called Pip", namespace="u1", time=t, speaker="Mel", meta={"turn": 3})
    host.add("The weather was grey all week", namespace="u1")
    hits = host.search("greyhound Pip", namespace="u1", k=5)
    assert hits[0] == HostHit(host_id=hid, text="I adopted a greyhound called Pip", score=hits[0].score, time=t, speaker="Mel")
    assert hits[0].score > 0
    assert host.get(hid, namespace="u1") == HostHit(host_id=hid, text=hits[0].text, time=t, speaker="Mel")
    assert host.meta(hid, namespace="u1") == {"turn": 3}
    assert host.count("u1") == 2 and host.namespaces() == ["u1"]
    assert host.get("h999", namespace="u1") is None and host.get("nonsense", namespace="u1") is None


def test_implements_host_protocol(host: BuiltinHost) -> None:
    assert isinstance(host, Host)
    assert host.name == "builtin"


def test_time_accepts_iso_strings_and_keeps_timezones(host: BuiltinHost) -> None:
    a = host.add("x one", namespace="u", time="2024-01-02T03:04:05+01:00")
    b = host.add("x two", namespace="u")
    assert host.get(a, namespace="u").time == datetime.fromisoformat("2024-01-02T03:04:05+01:00")
    assert host.get(b, namespace="u").time is None


def test_empty_cases(host: BuiltinHost) -> None:
    assert host.search("anything", namespace="nobody") == []
    host.add("something", namespace="u")
    assert host.search("something", namespace="u", k=0) == []
    assert host.add_many([], namespace="u") == []
    host.erase([], namespace="u")
    with pytest.raises(ValueError):
        host.add("x", namespace="")
    with pytest.raises(ValueError, match="unknown keys"):
        host.add_many([{"text": "x", "id": "e1"}], namespace="u")


def test_speaker_is_embedded_but_not_lexically_indexed(host: BuiltinHost) -> None:
    host.add_many(
        [
            {"text": "I moved to Bristol last spring", "speaker": "Caroline"},
            {"text": "I moved to Paris last spring", "speaker": "Melanie"},
        ]
        + [{"text": f"We talked about film number {i}", "speaker": "Melanie"} for i in range(10)],
        namespace="u",
    )
    hits = host.search("Where did Caroline move?", namespace="u", k=1)
    assert hits[0].text == "I moved to Bristol last spring" and hits[0].speaker == "Caroline"
    # A name matching every row its speaker said would only add noise to BM25.
    assert fts_hits(host, "u", "melanie") == 0


# ---------------------------------------------------------------- hybrid retrieval


def test_bm25_catches_rare_word_that_dense_misses() -> None:
    emb = SynonymEmbedder()
    query = "Is the flurbish charger broken?"
    target = "the flurbish needs a new fuse"
    near_meaning = [f"my adapter is faulty since day {i}" for i in range(10)]  # dense-near, no shared words
    dense_only = InMemoryHost(embedder=emb)
    with BuiltinHost(embedder=emb) as host:
        for text in [*near_meaning, target]:
            host.add(text, namespace="u")
            dense_only.add(text, namespace="u")
        assert target not in [h.text for h in dense_only.search(query, namespace="u", k=5)]
        assert host.search(query, namespace="u", k=5)[0].text == target


def test_dense_catches_synonym_that_bm25_misses() -> None:
    with BuiltinHost(embedder=SynonymEmbedder()) as host:
        car = host.add("I finally bought a car", namespace="u")
        for i in range(10):
            host.add(f"I finally cooked dinner number {i}", namespace="u")
        assert fts_query("automobile") == '"automobile"'
        hits = host.search("automobile", namespace="u", k=3)
        assert hits[0].host_id == car


def test_rrf_scores_and_stable_tie_order() -> None:
    with BuiltinHost(embedder=HashEmbedder(), rrf_k=10) as host:
        first = host.add("the kettle is blue", namespace="u")
        twins = [host.add("the kettle is blue", namespace="u") for _ in range(3)]
        host.add("unrelated words here", namespace="u")
        hits = host.search("kettle blue", namespace="u", k=4)
        # Identical rows tie in both lists; ties go by insertion order, every time.
        assert ids(hits) == [first, *twins]
        assert hits[0].score == pytest.approx(2 / (10 + 1))
        assert hits[3].score == pytest.approx(2 / (10 + 4))
        assert all(ids(host.search("kettle blue", namespace="u", k=4)) == ids(hits) for _ in range(5))


def test_ties_beyond_the_fusion_depth_keep_insertion_order(host: BuiltinHost) -> None:
    same = host.add_many(["the same sentence"] * 120, namespace="u")  # more rows than either list's depth
    assert ids(host.search("same sentence", namespace="u", k=3)) == same[:3]


def test_stopword_only_query_uses_dense_only(host: BuiltinHost) -> None:
    host.add("where is it", namespace="u")
    assert fts_query("Where is it?") == ""
    hits = host.search("Where is it?", namespace="u")
    assert len(hits) == 1 and hits[0].score == pytest.approx(1 / 61)


@pytest.mark.parametrize(
    "query",
    ['"', 'a "quoted" phrase', "e-mail", "AND", "OR NOT", "NEAR(a b)", "***", "?!.,;:", "", "col:on", "^start",
     "Caroline's", "café naïve", "foo_bar", "(", "a AND OR b", "- - -", "\x00", "🙂 emoji"],
)
def test_fts_query_escaping_never_breaks_search(host: BuiltinHost, query: str) -> None:
    host.add("I wrote an e-mail to Caroline's café about foo_bar and NEAR things", namespace="u")
    host.search(query, namespace="u")  # must not raise


def test_escaped_tokens_still_match(host: BuiltinHost) -> None:
    target = host.add("my e-mail address changed", namespace="u")
    for i in range(10):
        host.add(f"filler sentence {i}", namespace="u")
    assert fts_query('"e-mail" AND') == '"e" OR "mail"'
    assert host.search('"e-mail"?', namespace="u", k=1)[0].host_id == target


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_any_text_query_is_safe(query: str) -> None:
    with BuiltinHost(embedder=HashEmbedder(dim=32)) as host:
        host.add("some text AND more", namespace="u")
        assert len(host.search(query, namespace="u")) == 1


# ---------------------------------------------------------------- namespaces


def test_namespace_isolation_with_identical_texts(host: BuiltinHost) -> None:
    a = host.add("I live in Leeds", namespace="alice")
    b = host.add("I live in Leeds", namespace="bob")
    host.add("I work at the bakery", namespace="bob")
    assert ids(host.search("Leeds", namespace="alice", k=10)) == [a]
    assert set(ids(host.search("Leeds bakery", namespace="bob", k=10))) == {b, ids(host.search("bakery", namespace="bob", k=1))[0]}
    assert a not in ids(host.search("I live in Leeds", namespace="bob", k=10))
    assert host.get(a, namespace="bob") is None and host.meta(a, namespace="bob") is None
    host.erase([a], namespace="bob")  # another namespace's id: ignored
    assert host.get(a, namespace="alice") is not None
    assert host.count("alice") == 1 and host.count("bob") == 2
    assert host.namespaces() == ["alice", "bob"]


def test_scores_do_not_depend_on_other_namespaces(host: BuiltinHost) -> None:
    host.add_many(["Caroline went to the support group", "I painted a lake", "Caroline said hi"], namespace="a")
    before = host.search("What did Caroline paint?", namespace="a", k=3)
    # Another tenant's rows would change a shared index's IDF; each namespace has its own.
    host.add_many([f"a painted fence number {i}" for i in range(40)], namespace="b")
    assert host.search("What did Caroline paint?", namespace="a", k=3) == before


def test_failed_add_leaves_no_trace(host: BuiltinHost, monkeypatch: pytest.MonkeyPatch) -> None:
    import adapters.builtin as builtin

    real = builtin.normalise_item
    monkeypatch.setattr(builtin, "normalise_item", lambda it: (None, None, "", "{}") if it == "boom" else real(it))
    monkeypatch.setattr(builtin, "_embedded_text", lambda text, speaker: str(text))
    with pytest.raises(sqlite3.IntegrityError):  # fails on the second row, inside the transaction
        host.add_many(["fine", "boom"], namespace="new")
    assert host.namespaces() == [] and host.search("fine", namespace="new") == []
    tables = [r[0] for r in host.conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'host_fts%'")]
    assert tables == []
    hid = host.add("fine again", namespace="new")  # the namespace's table is made afresh
    assert ids(host.search("fine", namespace="new")) == [hid]


# ---------------------------------------------------------------- persistence


def test_reopen_gives_same_results_without_reencoding(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    texts = [f"note {i} about {w}" for i, w in enumerate(["tea", "coffee", "trains", "tea time", "bikes"] * 4)]
    with BuiltinHost(path, embedder=CountingEmbedder()) as host:
        host.add_many(texts, namespace="u")
        before = host.search("tea and trains", namespace="u", k=6)
    emb = CountingEmbedder()
    with BuiltinHost(path, embedder=emb) as host:
        after = host.search("tea and trains", namespace="u", k=6)
        assert emb.batches == [["tea and trains"]]
        assert after == before
        host.search("bikes", namespace="u")
        assert emb.texts == 2  # the matrix was loaded once, never re-encoded


def test_file_is_wal_and_keeps_other_tables(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE bank_records (id TEXT PRIMARY KEY, text TEXT)")
    other.execute("INSERT INTO bank_records VALUES ('r1', 'kept')")
    other.commit()
    with BuiltinHost(path, embedder=HashEmbedder()) as host:
        hid = host.add("kept too", namespace="u")
        host.erase([hid], namespace="u")
        assert host.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = [r[0] for r in host.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")]
    assert all(n.startswith(("host_", "bank_", "sqlite_")) for n in names)
    assert other.execute("SELECT text FROM bank_records").fetchall() == [("kept",)]
    other.close()


def test_two_instances_on_one_file_stay_consistent(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    with BuiltinHost(path, embedder=HashEmbedder()) as a, BuiltinHost(path, embedder=HashEmbedder()) as b:
        x = a.add("the red bicycle", namespace="u")
        assert ids(b.search("red bicycle", namespace="u", k=1)) == [x]  # b loads its matrix
        y = a.add("the green bicycle", namespace="u")
        assert ids(b.search("green bicycle", namespace="u", k=1)) == [y]  # b catches up
        a.erase([y], namespace="u")
        assert ids(b.search("green bicycle", namespace="u", k=5)) == [x]
        z = b.add("a blue bicycle", namespace="u")
        assert z not in (x, y)


def test_embedder_mismatch_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    BuiltinHost(path, embedder=HashEmbedder(dim=64)).close()
    with pytest.raises(ValueError, match="built with embedder 'hash' \\(dim 64\\)") as err:
        BuiltinHost(path, embedder=HashEmbedder(dim=32))
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="hash-synonyms"):
        BuiltinHost(path, embedder=SynonymEmbedder(dim=64))
    BuiltinHost(path, embedder=HashEmbedder(dim=64)).close()  # the right one still opens


# ---------------------------------------------------------------- erase


def test_erase_removes_from_search_and_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    secret = "zanzibarquuxword"
    with BuiltinHost(path, embedder=HashEmbedder()) as host:
        keep = host.add("a harmless note", namespace="u")
        gone = host.add(f"my password hint is {secret}", namespace="u")
        host.add_many([f"filler {i}" for i in range(50)], namespace="u")
        assert gone in ids(host.search(secret, namespace="u", k=3))
        host.erase([gone], namespace="u")
        assert gone not in ids(host.search(secret, namespace="u", k=100))
        assert host.get(gone, namespace="u") is None and host.count("u") == 51
        assert fts_hits(host, "u", secret) == 0
        assert host.get(keep, namespace="u") is not None
        new = host.add("after erase", namespace="u")
        assert new != gone  # ids are never reused
    for f in tmp_path.iterdir():
        assert secret.encode() not in f.read_bytes(), f.name


# ---------------------------------------------------------------- add_many


def test_add_many_equals_repeated_add() -> None:
    items = [
        {"text": f"event {i}: I {'moved to' if i % 3 else 'work at'} place {i % 5}", "speaker": "Dana" if i % 2 else "Sam",
         "time": datetime(2024, 1, 1 + i), "meta": {"i": i}}
        for i in range(20)
    ]
    batch_emb = CountingEmbedder()
    with BuiltinHost(embedder=CountingEmbedder()) as one, BuiltinHost(embedder=batch_emb) as many:
        singles = [one.add(it["text"], namespace="u", time=it["time"], speaker=it["speaker"], meta=it["meta"]) for it in items]
        batched = many.add_many(items, namespace="u")
        assert len(batch_emb.batches) == 1 and len(batch_emb.batches[0]) == 20
        assert singles == batched
        for q in ["Where does Dana work?", "place 3", "moved"]:
            assert one.search(q, namespace="u", k=8) == many.search(q, namespace="u", k=8)
        assert [one.get(h, namespace="u") for h in singles] == [many.get(h, namespace="u") for h in batched]


def test_add_after_search_appends_to_the_matrix() -> None:
    emb = CountingEmbedder()
    with BuiltinHost(embedder=emb) as host:
        host.add("first thing", namespace="u")
        host.search("first", namespace="u")
        new = [host.add(f"later thing {i}", namespace="u") for i in range(100)]  # grows past capacity
        assert host.search("later thing 99", namespace="u", k=1)[0].host_id == new[-1]
        assert emb.texts == 1 + 1 + 100 + 1


# ---------------------------------------------------------------- answering


def test_plain_qa_messages_dated_oldest_first_without_labels() -> None:
    ev = [
        HostHit(host_id="h2", text="I moved to Bristol", time=datetime(2024, 3, 1), speaker="Dana"),
        HostHit(host_id="h9", text="No date on this one"),
        HostHit(host_id="h1", text="I live in Leeds", time=datetime(2023, 6, 1, 9, 30), speaker="Dana"),
    ]
    msgs = plain_qa_messages("Where does Dana live now?", ev)
    assert msgs == plain_qa_messages("Where does Dana live now?", ev)  # pure
    assert [m["role"] for m in msgs] == ["system", "user"]
    user = msgs[1]["content"]
    assert user.index("(said 1 June 2023) Dana: I live in Leeds") < user.index("(said 1 March 2024) Dana: I moved to Bristol")
    assert "2023-06-01" not in user and "2024-03-01" not in user  # dates as people write them
    assert user.index("I moved to Bristol") < user.index("(undated) No date on this one")
    assert "Question: Where does Dana live now?" in user
    assert "current memory" not in user and "historical" not in user
    assert "(no memories found)" in plain_qa_messages("q", [])[1]["content"]


def test_plain_qa_messages_resolve_relative_times_inline() -> None:
    ev = [HostHit(host_id="h1", text="I went to a support group yesterday.", time=datetime(2023, 5, 8, 13, 56),
                  speaker="Caroline"),
          HostHit(host_id="h2", text="I painted that lake sunrise last year!", time=datetime(2023, 5, 8, 14, 0),
                  speaker="Melanie"),
          HostHit(host_id="h3", text="See you yesterday", speaker="Sam")]
    user = plain_qa_messages("When did Caroline go to the support group?", ev)[1]["content"]
    assert "(said 8 May 2023) Caroline: I went to a support group yesterday (7 May 2023)." in user
    assert "Melanie: I painted that lake sunrise last year (2022)!" in user
    assert "(undated) Sam: See you yesterday\n" in user + "\n"  # nothing to resolve against


def test_answer_uses_the_answer_model_greedily() -> None:
    llm = ScriptedLLM(["  Bristol \n"])
    with BuiltinHost(embedder=HashEmbedder(), answerer=llm) as host:
        host.add("I moved to Bristol", namespace="u", speaker="Dana")
        ev = host.search("Where does Dana live?", namespace="u")
        assert host.answer("Where does Dana live?", ev, namespace="u") == "Bristol"
    call = llm.calls[0]
    assert call.temperature == 0.0 and call.max_tokens == 64 and call.json_schema is None
    assert list(call.messages) == plain_qa_messages("Where does Dana live?", ev)


def test_answer_without_answerer_is_a_clear_error(host: BuiltinHost) -> None:
    with pytest.raises(RuntimeError, match="answerer="):
        host.answer("q", [], namespace="u")


def test_closed_host_refuses_calls() -> None:
    host = BuiltinHost(embedder=HashEmbedder())
    host.close()
    host.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        host.count("u")


def test_queries_use_encode_queries_when_the_embedder_has_it() -> None:
    class Asymmetric(CountingEmbedder):
        def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
            self.queries = list(texts)
            return self.inner.encode(texts)

    emb = Asymmetric()
    with BuiltinHost(embedder=emb) as host:
        host.add("stored text", namespace="u")
        host.search("the query", namespace="u")
    assert emb.batches == [["stored text"]] and emb.queries == ["the query"]


# ---------------------------------------------------------------- cost at size


def vm_steps(conn: sqlite3.Connection, fn) -> int:
    """SQLite virtual-machine steps ``fn`` makes on ``conn`` (rows read grow them)."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(tick, 1)
    try:
        fn()
    finally:
        conn.set_progress_handler(None, 1)
    return steps[0]


def test_large_namespaces_keep_the_rarest_query_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    import adapters.builtin as builtin

    monkeypatch.setattr(builtin, "_FTS_DF_CAP", 50)
    monkeypatch.setattr(builtin, "_FTS_MAX_TERMS", 2)
    with BuiltinHost(embedder=HashEmbedder()) as h:
        h.add_many([f"coffee with friend{i % 40} and cousin{i % 7}" for i in range(200)], namespace="u")
        fts = h._fts_table("u", create=False)
        # coffee: 200 rows (dropped), cousin3: ~29, friend5: 5, zebra: 0 (nothing to match)
        assert h._informative_terms(fts, ["coffee", "cousin3", "zebra", "friend5"]) == ["cousin3", "friend5"]
        assert h._informative_terms(fts, ["coffee"]) == []
        top = h.search("coffee with friend5?", namespace="u", k=5)
        assert all("friend5 " in hit.text for hit in top)
        # A term found common is not counted again, until an erase makes it rare again.
        erased = h.add_many([f"zebra number {i}" for i in range(60)], namespace="u")
        assert h._informative_terms(fts, ["zebra"]) == []
        h.erase(erased[:30], namespace="u")
        assert h._informative_terms(fts, ["zebra"]) == ["zebra"]


def test_search_cost_in_sqlite_is_flat_in_namespace_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word in every row used to make FTS5 score every row, and each search counted the
    namespace's rows; both grew with its size."""
    import adapters.builtin as builtin

    monkeypatch.setattr(builtin, "_FTS_DF_CAP", 100)
    with BuiltinHost(embedder=HashEmbedder()) as h:
        steps = []
        for size in (400, 1600):
            h.add_many([f"coffee with friend{i} today" for i in range(h.count("u"), size)], namespace="u")
            h.search("coffee with friend7 today", namespace="u", k=5)  # loads the matrix
            steps.append(vm_steps(h.conn, lambda: h.search("coffee with friend7 today", namespace="u", k=5)))
    assert steps[1] - steps[0] < 0.1 * (1600 - 400), steps  # reading each added row once would be 1200+
