"""The in-process llama.cpp backend with the packaged SmolLM2-135M (fast, weak model)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("xllamacpp", reason="needs atma[llm]")

from atma.llm import LlamaCppLLM, load_llm  # noqa: E402
from atma.llm.llamacpp import loaded_models  # noqa: E402
from atma.protocols import LLM, LLMError  # noqa: E402

pytestmark = pytest.mark.integration

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "years": {"type": "integer"}},
    "required": ["city", "years"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def llm() -> LlamaCppLLM:
    model = load_llm("smollm2-135m", n_ctx=1024)
    assert isinstance(model, LlamaCppLLM)
    model.load()
    yield model
    model.close()


def test_plain_completion(llm: LlamaCppLLM) -> None:
    assert isinstance(llm, LLM)
    c = llm.complete([{"role": "user", "content": "Say hello."}], max_tokens=12)
    assert c.text.strip()
    assert c.prompt_tokens > 0 and 0 < c.completion_tokens <= 12
    assert c.latency_s > 0 and c.finish_reason in {"stop", "length"}
    assert c.model == "llamacpp:smollm2-135m"
    assert llm.manifest()["sha256"] == "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def test_seeded_greedy_is_repeatable(llm: LlamaCppLLM) -> None:
    msgs = [{"role": "user", "content": "Name a colour."}]
    assert llm.complete(msgs, max_tokens=8).text == llm.complete(msgs, max_tokens=8).text


def test_json_schema_output_parses(llm: LlamaCppLLM) -> None:
    msgs = [
        {"role": "system", "content": "Reply with JSON only."},
        {"role": "user", "content": "I have lived in Porto for 3 years. Give city and years."},
    ]
    c = llm.complete(msgs, max_tokens=60, json_schema=SCHEMA)
    data = json.loads(c.text)
    assert set(data) == {"city", "years"}
    assert isinstance(data["city"], str) and isinstance(data["years"], int)


def test_timeout_raises_and_model_stays_usable(llm: LlamaCppLLM) -> None:
    long_task = [{"role": "user", "content": "Write a long essay on the history of Rome, many paragraphs."}]
    with pytest.raises(LLMError, match="timed out"):
        llm.complete(long_task, max_tokens=1500, timeout=0.2)
    assert llm.complete([{"role": "user", "content": "Hi"}], max_tokens=4).completion_tokens > 0


def test_context_overflow_is_llm_error(llm: LlamaCppLLM) -> None:
    with pytest.raises(LLMError, match="context"):
        llm.complete([{"role": "user", "content": "word " * 3000}], max_tokens=4)


def test_shared_load_and_close(llm: LlamaCppLLM) -> None:
    other = LlamaCppLLM("smollm2-135m", n_ctx=1024)
    other.load()
    assert other._server is llm._server and other.load_s < 0.5
    other.close()
    assert llm._key in loaded_models()  # still held by the fixture


def test_bad_model_is_llm_error(tmp_path) -> None:
    with pytest.raises(LLMError, match="does not exist"):
        LlamaCppLLM(str(tmp_path / "nope.gguf")).complete([{"role": "user", "content": "x"}], max_tokens=2)
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf")
    with pytest.raises(LLMError, match="could not load"):
        LlamaCppLLM(str(junk), n_ctx=256).load()


def test_openai_compat_against_real_llamacpp_server() -> None:
    """OpenAICompatLLM against llama.cpp's own HTTP server (xllamacpp with a port)."""
    import xllamacpp

    from atma.llm import OpenAICompatLLM
    from atma.models import resolve_gguf

    params = xllamacpp.CommonParams()
    params.model.path = str(resolve_gguf("smollm2-135m"))
    params.n_ctx, params.n_parallel, params.warmup, params.verbosity = 1024, 1, False, -1
    params.cpuparams.n_threads = 1
    params.port = 0  # any free port; the server reports the one it took
    server = xllamacpp.Server(params)
    try:
        base = server.listening_address.rstrip("/") + "/v1"
        for mode in ("json_schema", "json_object"):
            with OpenAICompatLLM(base, "smollm2", schema_mode=mode, timeout=60) as llm:
                c = llm.complete([{"role": "user", "content": "I live in Porto for 3 years. JSON please."}], max_tokens=60, json_schema=SCHEMA)
            data = json.loads(c.text)
            assert set(data) == {"city", "years"} and c.completion_tokens > 0
    finally:
        del server
