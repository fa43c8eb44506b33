"""Train and evaluate the verdict model (:mod:`atma.verdict`) on CPU.

``python -m training.judge_verdict train [--data checkpoints/verdict/data] [--out atma/assets/verdict]``
    1. builds the data if missing (:mod:`training.verdict_data`);
    2. runs the frozen lower layers of the packaged MiniLM once over every distinct text and
       keeps the rows (fp16) — the expensive part is done once;
    3. trains the top ``tuned_layers`` layers + heads (AdamW, cross-entropy on the action and
       the conflict type) with one torch thread, a fixed wall budget;
    4. on the *validation* split of the training data (whole profiles held back): picks the
       epoch, fits the softmax temperature (NLL grid) and the confidence threshold below which
       a supersede/transition becomes "none" (the highest threshold whose validation accuracy
       is within 0.005 of the best);
    5. writes ``verdict.pt`` (fp16) and ``train_log.json``.

``python -m training.judge_verdict eval [--data DIR_OR_JSONL] [--split heldout]``
    the judge-table row (same metrics as :mod:`training.judge_eval`, which also accepts
    ``--judge verdict``).
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import math
import random
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "checkpoints" / "verdict" / "data"
OUT = REPO / "atma" / "assets" / "verdict"


def _items(path: Path) -> list[dict[str, Any]]:
    from training import verdict_data as vd

    if not (path / "train.jsonl").is_file():
        vd.main(["--out", str(path)])
    return vd.load(path)


def _encode_all(lower, texts: Sequence[str], batch: int = 64) -> dict[str, Any]:
    import torch

    uniq = sorted(set(texts), key=len)
    out: dict[str, Any] = {}
    t0 = time.time()
    for k in range(0, len(uniq), batch):
        chunk = uniq[k: k + batch]
        for t, h in zip(chunk, lower.run(chunk)):
            out[t] = h.to(torch.float16)
        if (k // batch) % 50 == 0:
            log.info("lower layers: %d/%d texts, %.0f s", k + len(chunk), len(uniq), time.time() - t0)
    return out


def _batch(rows: Sequence[Mapping[str, Any]], cache: Mapping[str, Any], cfg):
    import torch

    from atma.verdict import pad, pair_features, text_of

    oh, om = pad([cache[text_of(r["old_text"], r["old_speaker"])] for r in rows])
    nh, nm = pad([cache[text_of(r["new_text"], r["new_speaker"])] for r in rows])
    f = torch.tensor([pair_features(r["old_speaker"], r["new_speaker"], r["new_text"]) for r in rows],
                     dtype=torch.float32)
    ya = torch.tensor([cfg.actions.index(r["label"]) for r in rows])
    yc = torch.tensor([cfg.conflicts.index(r["conflict_type"]) for r in rows])
    return oh, om, nh, nm, f, ya, yc


def _logits(top, rows, cache, cfg, bs: int = 128):
    import torch

    top.eval()
    outa, outc = [], []
    with torch.inference_mode():
        for k in range(0, len(rows), bs):
            oh, om, nh, nm, f, _, _ = _batch(rows[k: k + bs], cache, cfg)
            a, c = top(oh, om, nh, nm, f)
            outa.append(a.numpy())
            outc.append(c.numpy())
    return np.concatenate(outa), np.concatenate(outc)


def _softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def _decide(pa: np.ndarray, labels: Sequence[str], th: float) -> list[str]:
    out = []
    for p in pa:
        k = int(p.argmax())
        lab = labels[k]
        act = "none" if lab == "restate" else lab
        if lab in ("supersede", "transition") and p[k] < th:
            act = "none"
        out.append(act)
    return out


def _acc(pred: Sequence[str], gold: Sequence[str]) -> float:
    return sum(p == g for p, g in zip(pred, gold)) / max(len(gold), 1)


def train(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    from atma.sentry_encoder import MINILM, MINILM_SHA256, load_backbone
    from atma.verdict import LowerEncoder, VerdictConfig, build_top, save_checkpoint, text_of

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    t_start = time.time()
    items = _items(Path(args.data))
    tr = [i for i in items if i["split"] == "train"]
    va = [i for i in items if i["split"] == "val"]
    if args.limit:
        tr, va = tr[: args.limit], va[: max(8, args.limit // 4)]
    st = load_backbone(None)
    bert = st[0].auto_model
    n_layers = len(bert.encoder.layer)
    cfg = VerdictConfig(backbone=MINILM, backbone_digest=MINILM_SHA256, lower_layers=n_layers - args.tuned_layers,
                        tuned_layers=args.tuned_layers, hidden=args.hidden, max_tokens=args.max_tokens)
    lower = LowerEncoder(st, cfg.lower_layers, cfg.max_tokens)
    texts = [text_of(r["old_text"], r["old_speaker"]) for r in tr + va] + \
            [text_of(r["new_text"], r["new_speaker"]) for r in tr + va]
    cache = _encode_all(lower, texts)
    t_cache = time.time() - t_start
    log.info("cached %d texts in %.0f s", len(cache), t_cache)
    top = build_top(cfg, [copy.deepcopy(bert.encoder.layer[i]) for i in range(cfg.lower_layers, n_layers)])
    layer_params = [p for n, p in top.named_parameters() if n.startswith("layers.")]
    head_params = [p for n, p in top.named_parameters() if not n.startswith("layers.")]
    opt = torch.optim.AdamW([{"params": layer_params, "lr": args.lr}, {"params": head_params, "lr": args.head_lr}],
                            weight_decay=0.01)
    # class weights: inverse sqrt frequency (keeps rare actions from being swamped)
    counts = np.bincount([cfg.actions.index(r["label"]) for r in tr], minlength=len(cfg.actions)).astype(float)
    wa = torch.tensor((counts.sum() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    wa = wa / wa.mean()
    steps_per_epoch = math.ceil(len(tr) / args.batch)
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, total // 20)) * max(0.0, 1 - s / max(total, 1)))
    best: dict[str, Any] = {"acc": -1.0}
    history = []
    rng = random.Random(args.seed)
    gold_va = ["none" if r["label"] == "restate" else r["label"] for r in va]
    step = 0
    stopped = ""
    for epoch in range(args.epochs):
        top.train()
        # length-bucketed batches: sort by length within shuffled blocks
        order = tr[:]
        rng.shuffle(order)
        blocks = [sorted(order[k: k + args.batch * 20], key=lambda r: len(r["old_text"]) + len(r["new_text"]))
                  for k in range(0, len(order), args.batch * 20)]
        batches = [b[k: k + args.batch] for b in blocks for k in range(0, len(b), args.batch)]
        rng.shuffle(batches)
        t_ep = time.time()
        loss_sum = 0.0
        for bi, rows in enumerate(batches):
            oh, om, nh, nm, f, ya, yc = _batch(rows, cache, cfg)
            a, c = top(oh, om, nh, nm, f)
            loss = torch.nn.functional.cross_entropy(a, ya, weight=wa, label_smoothing=0.05) + \
                0.5 * torch.nn.functional.cross_entropy(c, yc)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(top.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            loss_sum += float(loss)
            if bi % 50 == 0:
                log.info("epoch %d batch %d/%d loss %.4f (%.0f s)", epoch, bi, len(batches), loss_sum / (bi + 1),
                         time.time() - t_ep)
            if time.time() - t_start > args.max_minutes * 60:
                stopped = f"wall budget {args.max_minutes} min reached in epoch {epoch} at batch {bi}"
                break
        la, _ = _logits(top, va, cache, cfg)
        acc = _acc(_decide(_softmax(la), cfg.actions, 0.0), gold_va)
        lab_acc = float(np.mean(la.argmax(-1) == np.array([cfg.actions.index(r["label"]) for r in va])))
        history.append({"epoch": epoch, "train_loss": round(loss_sum / max(1, bi + 1), 4), "val_action_acc": round(acc, 4),
                        "val_label_acc": round(lab_acc, 4), "epoch_s": round(time.time() - t_ep, 1)})
        log.info("epoch %d: %s", epoch, history[-1])
        if acc > best["acc"]:
            best = {"acc": acc, "epoch": epoch, "state": copy.deepcopy(top.state_dict())}
        if stopped:
            break
    top.load_state_dict(best["state"])
    la, _ = _logits(top, va, cache, cfg)
    ya = np.array([cfg.actions.index(r["label"]) for r in va])
    # temperature: NLL grid on validation
    temps = [0.5 + 0.05 * k for k in range(71)]
    nll = [float(-np.log(_softmax(la / t)[np.arange(len(ya)), ya] + 1e-12).mean()) for t in temps]
    temp = temps[int(np.argmin(nll))]
    pa = _softmax(la / temp)
    ths = [round(0.3 + 0.025 * k, 3) for k in range(27)]
    accs = [_acc(_decide(pa, cfg.actions, th), gold_va) for th in ths]
    best_acc = max(accs)
    threshold = max(th for th, a in zip(ths, accs) if a >= best_acc - 0.005)
    train_s = time.time() - t_start
    meta = {"data_manifest": json.loads((Path(args.data) / "manifest.json").read_text()).get("sha256")
            if (Path(args.data) / "manifest.json").is_file() else None,
            "train_items": len(tr), "val_items": len(va), "epochs_run": len(history), "best_epoch": best["epoch"],
            "threads": args.threads, "seed": args.seed, "train_wall_s": round(train_s, 1),
            "cache_s": round(t_cache, 1), "history": history, "stopped": stopped,
            "val_nll_at_T": round(min(nll), 4), "val_nll_T1": round(nll[temps.index(1.0)], 4),
            "val_acc_at_threshold": round(accs[ths.index(threshold)], 4), "threshold_curve": dict(zip(ths, map(lambda a: round(a, 4), accs)))}
    cfg = VerdictConfig(**{**cfg.__dict__, "temperature": round(temp, 3), "threshold": threshold, "meta": meta})
    out = Path(args.out)
    digest = save_checkpoint(out / "verdict.pt", cfg, top)
    meta["weights_sha256"] = digest
    (Path(args.log) if args.log else out / "train_log.json").write_text(json.dumps(meta, indent=1) + "\n")
    log.info("saved %s (T=%.2f, threshold=%.3f, val acc %.4f, %.0f s)", out / "verdict.pt", temp, threshold,
             accs[ths.index(threshold)], train_s)
    return meta


# --------------------------------------------------------------------------- eval
def verdict_judge_fn(path: str | None = None, *, threshold: float | None = None):
    """A :mod:`training.judge_eval` judge function backed by the verdict model."""
    from atma.verdict import shared_verdict_model, to_verdict
    from training.judge_data import item_record_pair
    from training.judge_eval import JudgeResult

    model = shared_verdict_model(path)

    def run(item: Mapping[str, Any]) -> JudgeResult:
        old, new, _ = item_record_pair(item)
        t0 = time.perf_counter()
        pred = model.predict([(old.text, old.speaker, new.text, new.speaker)], threshold=threshold)[0]
        v = to_verdict(pred, old, new)
        return JudgeResult(v, "ok", time.perf_counter() - t0, json.dumps({"label": pred.label, "p": round(pred.confidence, 4)}))

    return run


def evaluate_cmd(args: argparse.Namespace) -> dict[str, Any]:
    from training import judge_eval

    argv = ["--judge", "verdict" if not args.checkpoint else f"verdict:{args.checkpoint}", "--data", args.data,
            "--split", args.split, "--out", args.out]
    if args.name:
        argv += ["--name", args.name]
    return judge_eval.main(argv)


def cascade_cmd(args: argparse.Namespace) -> dict[str, Any]:
    """The cascade's row from two finished judge_eval result files over the same items: the
    verdict model's answer where its calibrated top probability is >= band, the LLM Judge's
    recorded answer (same prompt, same item) elsewhere."""
    from atma.judge import Verdict
    from training import judge_eval
    from training.judge_data import load_items

    items = load_items(args.data, args.split)
    vrows = {r["id"]: r for r in json.loads(Path(args.verdict_json).read_text())["items"]}
    lres = json.loads(Path(args.llm_json).read_text())
    lrows = {r["id"]: r for r in lres["items"]}
    results, sent = [], 0
    for it in items:
        v = vrows[it["id"]]
        p = json.loads(v["raw"]).get("p", 0.0)
        if p >= args.band:
            results.append(judge_eval.JudgeResult(Verdict.model_validate(v["verdict"]), "ok", v["latency_s"]))
        else:
            sent += 1
            r = lrows[it["id"]]
            results.append(judge_eval.JudgeResult(Verdict.model_validate(r["verdict"]), r["status"],
                                                  v["latency_s"] + r["latency_s"]))
    m = judge_eval.metrics(items, results)
    m["sent_to_llm"] = sent
    name = f"cascade: verdict model, {lres['judge']} below p={args.band} ({sent}/{len(items)} items)"
    result = {"judge": name, "spec": f"cascade:{lres['spec']}@{args.band}", "split": args.split, "data": args.data,
              "metrics": m, "items": []}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name or 'cascade'}.json").write_text(json.dumps(result, indent=1) + "\n")
    every = [json.loads(q.read_text()) for q in sorted(out.glob("*.json"))]
    (out / "results.md").write_text(judge_eval.results_table(every))
    print(judge_eval.results_table([result]))
    return result


def main(argv: Sequence[str] | None = None) -> Any:
    ap = argparse.ArgumentParser(prog="python -m training.judge_verdict", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("--data", default=str(DATA))
    t.add_argument("--out", default=str(OUT))
    t.add_argument("--log", default="", help="where train_log.json goes (default: next to the weights)")
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--head-lr", type=float, default=1e-3)
    t.add_argument("--tuned-layers", type=int, default=2)
    t.add_argument("--hidden", type=int, default=256)
    t.add_argument("--max-tokens", type=int, default=64)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--limit", type=int, default=0, help="first N training items only (smoke test)")
    t.add_argument("--max-minutes", type=float, default=28.0, help="wall budget; training stops there")
    e = sub.add_parser("eval")
    e.add_argument("--data", default=str(REPO / "checkpoints" / "judge" / "data"))
    e.add_argument("--split", default="heldout")
    e.add_argument("--checkpoint", default="")
    e.add_argument("--out", default=str(REPO / "checkpoints" / "judge" / "eval"))
    e.add_argument("--name", default="")
    c = sub.add_parser("cascade", help="the cascade's row from a verdict-model and an LLM result file")
    c.add_argument("--verdict-json", required=True)
    c.add_argument("--llm-json", required=True)
    c.add_argument("--band", type=float, default=0.9)
    c.add_argument("--data", default=str(REPO / "checkpoints" / "judge" / "data"))
    c.add_argument("--split", default="heldout")
    c.add_argument("--out", default=str(REPO / "checkpoints" / "judge" / "eval"))
    c.add_argument("--name", default="")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    return {"train": train, "eval": evaluate_cmd, "cascade": cascade_cmd}[args.cmd](args)


if __name__ == "__main__":
    main()
