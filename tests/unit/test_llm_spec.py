"""atma.llm.spec: parsing user specs, building backends, keeping imports light."""

from __future__ import annotations

import subprocess
import sys

import pytest

from atma.llm import DEFAULT_LLM, LlamaCppLLM, OllamaLLM, OpenAICompatLLM, load_llm, parse_spec
from atma.llm.spec import LLMSpec
from atma.protocols import LLM


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        ("qwen2.5-coder-1.5b", LLMSpec(backend="llamacpp", target="qwen2.5-coder-1.5b")),
        ("smollm2-135m", LLMSpec(backend="llamacpp", target="smollm2-135m")),
        ("  smollm2-135m ", LLMSpec(backend="llamacpp", target="smollm2-135m")),
        ("/models/my model.GGUF", LLMSpec(backend="llamacpp", target="/models/my model.GGUF")),
        ("llamacpp:qwen2.5-coder-0.5b", LLMSpec(backend="llamacpp", target="qwen2.5-coder-0.5b")),
        ("llamacpp:/m/x.gguf", LLMSpec(backend="llamacpp", target="/m/x.gguf")),
        (
            "openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B-Instruct",
            LLMSpec(backend="openai", target="http://127.0.0.1:8000/v1", model="Qwen/Qwen2.5-7B-Instruct"),
        ),
        ("openai:https://h/v1#a#b", LLMSpec(backend="openai", target="https://h/v1#a", model="b")),
        ("ollama:qwen2.5:7b", LLMSpec(backend="ollama", target="", model="qwen2.5:7b")),
        ("ollama:qwen2.5:7b@10.0.0.2:11434", LLMSpec(backend="ollama", target="10.0.0.2:11434", model="qwen2.5:7b")),
    ],
)
def test_parse(spec: str, want: LLMSpec) -> None:
    assert parse_spec(spec) == want


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("", "empty"),
        ("gpt-4", "bad LLM spec 'gpt-4'.*qwen2.5-coder-1.5b"),
        ("minilm", "bad LLM spec"),  # a registry name, but not a GGUF
        ("llamacpp:", "needs a model"),
        ("openai:http://h/v1", "openai:<base_url>#<model>"),
        ("openai:http://h/v1#", "openai:<base_url>#<model>"),
        ("openai:h:8000/v1#m", "http:// or https://"),
        ("ollama:", "ollama:<model>"),
        ("ollama:m@", "empty host"),
        ("vllm:foo", "bad LLM spec"),
    ],
)
def test_parse_rejects(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_spec(spec)


def test_default_spec() -> None:
    assert DEFAULT_LLM == "llamacpp:qwen2.5-coder-1.5b"
    assert parse_spec(DEFAULT_LLM) == LLMSpec(backend="llamacpp", target="qwen2.5-coder-1.5b")


def test_load_builds_backends_without_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    llama = load_llm("smollm2-135m", n_ctx=512)
    assert isinstance(llama, LlamaCppLLM) and isinstance(llama, LLM)
    assert llama.config.n_ctx == 512 and llama.name == "llamacpp:smollm2-135m"
    oa = load_llm("openai:http://127.0.0.1:9/v1#m", schema_mode="json_object")
    assert isinstance(oa, OpenAICompatLLM) and isinstance(oa, LLM)
    assert oa.config.api_key == "sk-test" and oa.config.schema_mode == "json_object"
    ol = load_llm("ollama:qwen2.5:7b@10.0.0.2:11434")
    assert isinstance(ol, OllamaLLM) and isinstance(ol, LLM)
    assert ol.config.host == "http://10.0.0.2:11434" and ol.config.model == "qwen2.5:7b"
    assert load_llm("ollama:m").config.host == "http://127.0.0.1:11434"
    assert oa.manifest() == {"name": "m", "path": "http://127.0.0.1:9/v1", "sha256": None}
    assert ol.manifest()["path"] == "http://10.0.0.2:11434"
    with pytest.raises(ValueError, match="bad options"):
        load_llm("smollm2-135m", no_such_option=1)


def test_import_is_light() -> None:
    code = (
        "import sys, atma.llm, atma.models; "
        "heavy = [m for m in ('xllamacpp', 'httpx', 'httpx2', 'torch', 'sentence_transformers') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_thread_default_env_override(monkeypatch: pytest.MonkeyPatch) -> None:
    from atma.llm import llamacpp

    monkeypatch.delenv("ATMA_LLM_THREADS", raising=False)
    assert 1 <= llamacpp._default_threads() <= 8
    monkeypatch.setenv("ATMA_LLM_THREADS", "3")
    assert llamacpp._default_threads() == 3
    monkeypatch.setenv("ATMA_LLM_THREADS", "zero")
    with pytest.raises(ValueError, match="ATMA_LLM_THREADS"):
        llamacpp._default_threads()
