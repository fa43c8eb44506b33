"""Configuration for the Judge SFT and GRPO scripts, plus a tiny random checkpoint for smoke runs.

The dataclasses follow TRL's scripts: ``JudgeScriptArguments`` (data, merge), TRL's
``SFTConfig``/``GRPOConfig`` with the paper's defaults (App. A.8), and ``JudgeModelConfig``
(TRL ``ModelConfig`` with LoRA on by default). Every field carries help text; a run takes
``--config file.yaml`` and CLI overrides (``trl.TrlParser``).

``write_tiny_checkpoint(dir)`` saves a randomly initialised 2-layer Qwen2 with a small
byte-level BPE tokenizer trained in memory on the Judge prompt and data, and a Qwen-style
chat template: no download, no GGUF, a few seconds. Tests and ``gpu_judge_smoke`` use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from trl import GRPOConfig, ModelConfig, SFTConfig
except ImportError as e:  # pragma: no cover
    raise ImportError("training the Judge needs the [train] extra: pip install 'atma[train]' "
                      "(trl, peft, accelerate; torch==2.13.0 on CPU)") from e

__all__ = [
    "CHAT_TEMPLATE",
    "JudgeGRPOConfig",
    "JudgeModelConfig",
    "JudgeSFTConfig",
    "JudgeScriptArguments",
    "write_tiny_checkpoint",
]

DEFAULT_DATA = str(Path(__file__).resolve().parents[1] / "checkpoints" / "judge" / "data")


@dataclass
class JudgeScriptArguments:
    """What to train on and what to write besides the adapter."""

    data: str = field(default=DEFAULT_DATA, metadata={"help": "Directory written by `python -m training.judge_data` "
                                                              "(train.jsonl, heldout.jsonl)."})
    train_limit: int = field(default=0, metadata={"help": "Use only the first N training items (0: all)."})
    eval_limit: int = field(default=0, metadata={"help": "Use only the first N held-out items for eval loss "
                                                         "(0: all; -1: no eval set)."})
    merge: bool = field(default=True, metadata={"help": "After training, merge the LoRA adapter into the base "
                                                        "weights and save a full model under <output_dir>/merged."})
    quantize_when_cuda: bool = field(default=True, metadata={
        "help": "Load the base model in 4-bit NF4 (bitsandbytes) when CUDA is present and --load_in_4bit is set; "
                "on CPU the model always loads unquantized."})


@dataclass
class JudgeModelConfig(ModelConfig):
    """TRL ``ModelConfig`` with the SFT stage's QLoRA defaults (r 64, alpha 16, dropout 0.05, NF4)."""

    model_name_or_path: str | None = field(default="Qwen/Qwen2.5-3B-Instruct", metadata={
        "help": "Base causal LM: a hub id or a local HF folder (paper: Qwen/Qwen2.5-3B-Instruct)."})
    use_peft: bool = field(default=True, metadata={"help": "Train a LoRA adapter instead of all weights."})
    lora_r: int = field(default=64, metadata={"help": "LoRA rank (SFT 64, GRPO 16)."})
    lora_alpha: int = field(default=16, metadata={"help": "LoRA alpha (SFT 16, GRPO 32)."})
    lora_dropout: float = field(default=0.05, metadata={"help": "LoRA dropout."})
    lora_target_modules: list[str] | None = field(default_factory=lambda: [
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        metadata={"help": "Modules that get LoRA adapters (Qwen2 attention and MLP projections)."})
    load_in_4bit: bool = field(default=True, metadata={"help": "QLoRA: 4-bit base weights (CUDA + bitsandbytes only)."})
    bnb_4bit_quant_type: str = field(default="nf4", metadata={"help": "4-bit quantization type (nf4 or fp4)."})
    dtype: str | None = field(default="auto", metadata={
        "help": "Weights dtype: auto (bfloat16 on CUDA, float32 on CPU), bfloat16, float16 or float32."})


@dataclass
class JudgeSFTConfig(SFTConfig):
    """TRL ``SFTConfig`` with the paper's SFT defaults. ``max_length`` is 2048, not the paper's
    1024: the overlay's Judge prompt (judge-v2, ten in-prompt examples) is ~1,200 Qwen tokens
    and the CoT target ~200, so 1024 would cut off every target."""

    output_dir: str | None = field(default="runs/judge-sft", metadata={"help": "Where adapter, merged model and logs go."})
    per_device_train_batch_size: int = field(default=4, metadata={"help": "Batch size per device."})
    gradient_accumulation_steps: int = field(default=4, metadata={"help": "Gradient accumulation steps."})
    learning_rate: float = field(default=2e-4, metadata={"help": "Peak learning rate."})
    num_train_epochs: float = field(default=2.0, metadata={"help": "Epochs over the training items."})
    max_length: int | None = field(default=2048, metadata={"help": "Longest tokenized prompt+completion."})
    lr_scheduler_type: str = field(default="cosine", metadata={"help": "Learning-rate schedule."})
    warmup_ratio: float = field(default=0.03, metadata={"help": "Warm-up share of the steps."})
    logging_steps: float = field(default=5, metadata={"help": "Log every N steps."})
    save_strategy: str = field(default="no", metadata={"help": "Checkpointing during training (the end model is always saved)."})
    gradient_checkpointing: bool = field(default=True, metadata={"help": "Trade compute for memory."})
    bf16: bool | None = field(default=None, metadata={"help": "bfloat16 mixed precision (default: on when CUDA "
                                                              "supports it, off on CPU)."})

    def __post_init__(self) -> None:
        if self.bf16 is None:
            self.bf16 = _bf16_available()
        super().__post_init__()


@dataclass
class JudgeGRPOConfig(GRPOConfig):
    """TRL ``GRPOConfig`` with the paper's GRPO defaults (App. A.8)."""

    output_dir: str | None = field(default="runs/judge-grpo", metadata={"help": "Where adapter, merged model and logs go."})
    learning_rate: float = field(default=2e-5, metadata={"help": "Peak learning rate."})
    max_steps: int = field(default=200, metadata={"help": "Optimizer steps."})
    per_device_train_batch_size: int = field(default=1, metadata={"help": "Prompts per device per micro-batch."})
    gradient_accumulation_steps: int = field(default=4, metadata={"help": "Gradient accumulation steps."})
    num_generations: int | None = field(default=2, metadata={"help": "Completions sampled per prompt (the group)."})
    max_completion_length: int | None = field(default=400, metadata={"help": "Longest sampled completion, in tokens."})
    beta: float = field(default=0.04, metadata={"help": "KL coefficient against the reference (merged SFT) model."})
    temperature: float = field(default=0.9, metadata={"help": "Sampling temperature for the generations."})
    logging_steps: float = field(default=5, metadata={"help": "Log every N steps."})
    save_strategy: str = field(default="no", metadata={"help": "Checkpointing during training."})
    bf16: bool | None = field(default=None, metadata={"help": "bfloat16 mixed precision (default: on when CUDA "
                                                              "supports it, off on CPU)."})

    def __post_init__(self) -> None:
        if self.bf16 is None:
            self.bf16 = _bf16_available()
        super().__post_init__()


def _bf16_available() -> bool:
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def write_tiny_checkpoint(out_dir: str | Path, *, hidden_size: int = 64, num_layers: int = 2, vocab_size: int = 1024,
                          seed: int = 0, n_items: int = 200) -> Path:
    """A random tiny Qwen2 + a BPE tokenizer trained in memory on Judge prompts/targets."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    from training.judge_data import generate, item_messages

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = generate(3, n_train=n_items, n_heldout=0)["train"]
    corpus = [item_messages(items[0])[0]["content"]] + [
        t for i in items for t in (item_messages(i)[1]["content"], i["target"])]
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                        show_progress=False))
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                     bos_token=None, unk_token=None)
    hf_tok.chat_template = CHAT_TEMPLATE
    hf_tok.save_pretrained(out)
    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=len(hf_tok), hidden_size=hidden_size, intermediate_size=hidden_size * 2,
                      num_hidden_layers=num_layers, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=4096, tie_word_embeddings=True,
                      eos_token_id=hf_tok.eos_token_id, pad_token_id=hf_tok.pad_token_id, bos_token_id=None)
    Qwen2ForCausalLM(cfg).save_pretrained(out)
    return out
