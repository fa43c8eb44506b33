"""An :class:`atma.protocols.LLM` backend for an HF folder plus an optional LoRA adapter.

What: ``HFJudge(folder, adapter=None)`` loads a causal LM with transformers (and the adapter
with PEFT), formats messages with the tokenizer's chat template, decodes greedily and returns
the reply with any ``<think>`` block removed, so :func:`atma.judge.parse_verdict` reads the
JSON verdict of a CoT-trained Judge. ``json_schema`` is accepted and ignored (no constrained
decoding here); callers validate the text, as the overlay does.

Why: a trained Judge can be evaluated (``training.judge_eval --judge hf:<folder>[+<adapter>]``)
and served to the overlay (``Overlay(..., judge_llm=HFJudge(...))``) before any GGUF export.

Needs the [train] extra (torch, transformers; peft for adapters).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from atma.protocols import Completion, LLMError, Message
from training.judge_data import split_think

__all__ = ["HFJudge"]

log = logging.getLogger(__name__)


class HFJudge:
    """Greedy chat completion from a local HF model folder (+ LoRA adapter folder)."""

    def __init__(self, folder: str | Path, adapter: str | Path | None = None, *, device: str | None = None,
                 dtype: str = "auto", keep_think: bool = False) -> None:
        self.folder, self.adapter = str(folder), str(adapter) if adapter else None
        self.name = f"hf:{self.folder}" + (f"+{self.adapter}" if self.adapter else "")
        self.device, self.dtype, self.keep_think = device, dtype, keep_think
        self.last_think: str | None = None
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        if self._model is not None:
            return
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:  # pragma: no cover
            raise LLMError("HFJudge needs the [train] extra (torch, transformers)") from e
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = (torch.bfloat16 if device.startswith("cuda") else torch.float32) if self.dtype == "auto" \
            else getattr(torch, self.dtype)
        try:
            tok = AutoTokenizer.from_pretrained(self.adapter or self.folder)
        except (OSError, ValueError):
            tok = AutoTokenizer.from_pretrained(self.folder)
        try:
            model = AutoModelForCausalLM.from_pretrained(self.folder, dtype=dtype)
            if self.adapter:
                from peft import PeftModel

                model = PeftModel.from_pretrained(model, self.adapter)
        except (OSError, ValueError) as e:
            raise LLMError(f"cannot load {self.name}: {e}") from e
        self._model, self._tok, self.device = model.to(device).eval(), tok, device

    def complete(self, messages: Sequence[Message], *, max_tokens: int, temperature: float = 0.0,
                 json_schema: Mapping[str, Any] | None = None, timeout: float | None = None) -> Completion:
        """Greedy decode (``temperature`` is ignored: a judge should be deterministic).
        ``timeout`` is checked after generation (no mid-generation interrupt)."""
        import torch

        self.load()
        t0 = time.perf_counter()
        with self._lock:
            enc = self._tok.apply_chat_template([dict(m) for m in messages], add_generation_prompt=True,
                                                return_tensors="pt", return_dict=True)
            enc = {k: v.to(self.device) for k, v in enc.items()}
            n_in = enc["input_ids"].shape[1]
            with torch.no_grad():
                out = self._model.generate(**enc, max_new_tokens=max_tokens, do_sample=False,
                                           pad_token_id=self._tok.pad_token_id or self._tok.eos_token_id)
        new = out[0, n_in:]
        raw = self._tok.decode(new, skip_special_tokens=True)
        latency = time.perf_counter() - t0
        if timeout is not None and latency > timeout:
            raise LLMError(f"{self.name}: {latency:.1f}s exceeds timeout {timeout}s")
        think, rest = split_think(raw)
        self.last_think = think
        finish = "length" if len(new) >= max_tokens else "stop"
        return Completion(text=raw if self.keep_think else rest, prompt_tokens=n_in, completion_tokens=int(len(new)),
                          latency_s=latency, model=self.name, finish_reason=finish)
