"""The packaged MiniLM embedder, for real (sentence-transformers on CPU)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="needs atma[embed]")

from atma.embed import SentenceTransformerEmbedder  # noqa: E402
from atma.protocols import Embedder  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def emb() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder("minilm")


def test_shape_dtype_norm(emb: SentenceTransformerEmbedder) -> None:
    assert isinstance(emb, Embedder)
    assert emb.dim == 384 and emb.name == "minilm"
    rows = emb.encode(["I moved to Lisbon in May.", "The cat sleeps.", "x"])
    assert rows.shape == (3, 384) and rows.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert emb.encode([]).shape == (0, 384)
    with pytest.raises(TypeError):
        emb.encode("one string")  # type: ignore[arg-type]


def test_similar_closer_than_unrelated(emb: SentenceTransformerEmbedder) -> None:
    a, b, c = emb.encode(["I drive a Toyota Prius now.", "My current car is a Prius.", "The soup needs more salt."])
    assert float(a @ b) > float(a @ c) + 0.3


def test_deterministic_and_cached(emb: SentenceTransformerEmbedder) -> None:
    again = SentenceTransformerEmbedder("minilm")
    assert again._st is emb._st  # one load per process
    texts = ["same text", "another one"]
    np.testing.assert_array_equal(emb.encode(texts), again.encode(texts))
    one_by_one = np.vstack([emb.encode([t]) for t in texts])
    np.testing.assert_allclose(one_by_one, emb.encode(texts), atol=1e-5)


def test_manifest_and_prefix(emb: SentenceTransformerEmbedder) -> None:
    man = emb.manifest()
    assert man["sha256"] == "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    assert emb.prefix == "" and emb.query_prefix == ""
    pre = SentenceTransformerEmbedder("minilm", prefix="search_document: ", query_prefix="search_query: ")
    assert pre._st is emb._st
    assert not np.allclose(pre.encode(["hello"]), emb.encode(["hello"]))
    np.testing.assert_allclose(pre.encode_queries(["hello"]), emb.encode(["search_query: hello"]), atol=1e-6)


def test_local_folder_path(emb: SentenceTransformerEmbedder) -> None:
    local = SentenceTransformerEmbedder(emb.source)
    assert local.dim == 384 and local.sha256 == emb.sha256


def test_rejects_gguf_registry_name() -> None:
    with pytest.raises(ValueError, match="not an embedder"):
        SentenceTransformerEmbedder("smollm2-135m")


def test_nomic_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """nomic ids get trust_remote_code and their task prefixes (no hub: the loader is faked)."""
    import atma.embed as embed

    seen: dict[str, object] = {}

    class FakeST:
        def __init__(self, source: str, device: str, trust_remote_code: bool) -> None:
            seen.update(source=source, trust_remote_code=trust_remote_code)

        def get_embedding_dimension(self) -> int:
            return 768

        def encode(self, texts, **kw):  # noqa: ANN001, ANN003
            seen["texts"] = list(texts)
            return np.ones((len(texts), 768), dtype=np.float64) / np.sqrt(768)

    import sentence_transformers

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", FakeST)
    monkeypatch.setattr(embed, "_models", {})
    e = embed.SentenceTransformerEmbedder("nomic-ai/nomic-embed-text-v1.5")
    assert seen["trust_remote_code"] is True and e.dim == 768 and e.sha256 is None
    assert e.encode(["a"]).dtype == np.float32 and seen["texts"] == ["search_document: a"]
    e.encode_queries(["q"])
    assert seen["texts"] == ["search_query: q"]
    embed.SentenceTransformerEmbedder("some/other-model")
    assert seen["trust_remote_code"] is False
