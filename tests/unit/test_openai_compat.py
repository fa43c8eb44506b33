"""HTTP backends (OpenAI-compatible and Ollama) against a tiny local stub server."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from atma.llm import OllamaLLM, OpenAICompatLLM
from atma.protocols import LLMError

SCHEMA = {"title": "Verdict", "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
MSGS = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


class _Stub(BaseHTTPRequestHandler):
    """Behaviour picked by the requested model name."""

    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Stub.requests.append((self.path, body, dict(self.headers)))
        model = body.get("model", "")
        if model == "err500":
            return self._send(500, json.dumps({"error": {"message": "model crashed\nbadly", "type": "server_error"}}).encode())
        if model == "missing":
            return self._send(404, json.dumps({"error": "model 'missing' not found"}).encode())
        if model == "slow":
            time.sleep(1.5)
        if model == "garbage":
            return self._send(200, b"<html>not json</html>", "text/html")
        if model == "nochoices":
            return self._send(200, b'{"choices": []}')
        if self.path == "/v1/chat/completions":
            reply = {
                "model": model,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '{"ok": true}'}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
            }
        elif self.path == "/api/chat":
            reply = {
                "model": model,
                "message": {"role": "assistant", "content": '{"ok": false}'},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 7,
                "eval_count": 4,
            }
        else:
            return self._send(404, b'{"error": "no route"}')
        self._send(200, json.dumps(reply).encode())


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    srv.daemon_threads = True
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.fixture(autouse=True)
def _clear() -> None:
    _Stub.requests.clear()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- OpenAI-compatible ---------------------------------------------------------------


def test_plain_completion(server: str) -> None:
    with OpenAICompatLLM(server + "/v1/", "ok", api_key="sk-x") as llm:
        c = llm.complete(MSGS, max_tokens=32, temperature=0.2)
    assert c.text == '{"ok": true}' and c.prompt_tokens == 11 and c.completion_tokens == 5
    assert c.finish_reason == "stop" and c.model == "ok" and c.latency_s > 0
    path, body, headers = _Stub.requests[0]
    assert path == "/v1/chat/completions"
    assert body["messages"] == MSGS and body["max_tokens"] == 32 and body["temperature"] == 0.2
    assert body["stream"] is False and "response_format" not in body
    assert headers["Authorization"] == "Bearer sk-x"


@pytest.mark.parametrize(
    ("mode", "want"),
    [
        ("json_schema", {"type": "json_schema", "json_schema": {"name": "Verdict", "schema": SCHEMA}}),
        ("json_object", {"type": "json_object", "schema": SCHEMA}),
        ("none", None),
    ],
)
def test_schema_modes(server: str, mode: str, want: Any) -> None:
    llm = OpenAICompatLLM(server + "/v1", "ok", schema_mode=mode)  # type: ignore[arg-type]
    assert json.loads(llm.complete(MSGS, max_tokens=8, json_schema=SCHEMA).text) == {"ok": True}
    assert _Stub.requests[0][1].get("response_format") == want
    assert "Authorization" not in _Stub.requests[0][2]


def test_http_500_is_one_line_llm_error(server: str) -> None:
    with pytest.raises(LLMError, match="HTTP 500: model crashed badly") as ei:
        OpenAICompatLLM(server + "/v1", "err500").complete(MSGS, max_tokens=8)
    assert "\n" not in str(ei.value)


def test_timeout(server: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match="timed out after 0.3s"):
        OpenAICompatLLM(server + "/v1", "slow").complete(MSGS, max_tokens=8, timeout=0.3)
    assert time.perf_counter() - t0 < 1.2


def test_config_timeout_is_the_default(server: str) -> None:
    with pytest.raises(LLMError, match="timed out after 0.2s"):
        OpenAICompatLLM(server + "/v1", "slow", timeout=0.2).complete(MSGS, max_tokens=8)


@pytest.mark.parametrize("model", ["garbage", "nochoices"])
def test_malformed_body(server: str, model: str) -> None:
    with pytest.raises(LLMError, match="malformed reply"):
        OpenAICompatLLM(server + "/v1", model).complete(MSGS, max_tokens=8)


def test_connection_refused() -> None:
    with pytest.raises(LLMError, match="ConnectError"):
        OpenAICompatLLM(f"http://127.0.0.1:{_free_port()}/v1", "ok").complete(MSGS, max_tokens=8, timeout=2)


def test_bad_config() -> None:
    with pytest.raises(ValueError, match="schema_mode"):
        OpenAICompatLLM("http://h/v1", "m", schema_mode="grammar")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="http://"):
        OpenAICompatLLM("h/v1", "m")


# --- Ollama --------------------------------------------------------------------------


def test_ollama_http(server: str) -> None:
    llm = OllamaLLM("ok", server.removeprefix("http://"), client="http")
    c = llm.complete(MSGS, max_tokens=16, temperature=0.5, json_schema=SCHEMA)
    assert json.loads(c.text) == {"ok": False}
    assert (c.prompt_tokens, c.completion_tokens, c.finish_reason) == (7, 4, "stop")
    path, body, _ = _Stub.requests[0]
    assert path == "/api/chat" and body["format"] == SCHEMA and body["stream"] is False
    assert body["options"] == {"num_predict": 16, "temperature": 0.5, "seed": 0}
    llm.close()


def test_ollama_http_errors(server: str) -> None:
    with pytest.raises(LLMError, match="HTTP 404: model 'missing' not found"):
        OllamaLLM("missing", server, client="http").complete(MSGS, max_tokens=8)
    with pytest.raises(LLMError, match="timed out"):
        OllamaLLM("slow", server, client="http").complete(MSGS, max_tokens=8, timeout=0.3)
    with pytest.raises(LLMError, match="malformed"):
        OllamaLLM("garbage", server, client="http").complete(MSGS, max_tokens=8)


def test_ollama_auto_falls_back_to_http(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ollama", None)  # import ollama -> ImportError
    assert json.loads(OllamaLLM("ok", server).complete(MSGS, max_tokens=8).text) == {"ok": False}
    with pytest.raises(LLMError, match=r"atma\[ollama\]"):
        OllamaLLM("ok", server, client="ollama").complete(MSGS, max_tokens=8)


def test_ollama_client_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ollama-client path, with a hand-written fake of the client module."""
    calls: list[dict[str, Any]] = []

    class ResponseError(Exception):
        def __init__(self, error: str, status_code: int) -> None:
            super().__init__(error)
            self.error, self.status_code = error, status_code

    class Client:
        def __init__(self, host: str, timeout: float) -> None:
            self.host, self.timeout = host, timeout

        def chat(self, **kw: Any) -> dict[str, Any]:
            calls.append({"host": self.host, "timeout": self.timeout, **kw})
            if kw["model"] == "missing":
                raise ResponseError("model not found", 404)
            return {"model": kw["model"], "message": {"role": "assistant", "content": "hey"}, "eval_count": 2, "prompt_eval_count": 3, "done_reason": "stop"}

    fake = types.SimpleNamespace(Client=Client, ResponseError=ResponseError)
    monkeypatch.setitem(sys.modules, "ollama", fake)
    c = OllamaLLM("m", "http://h:1", client="ollama").complete(MSGS, max_tokens=5, json_schema=SCHEMA, timeout=3)
    assert (c.text, c.prompt_tokens, c.completion_tokens) == ("hey", 3, 2)
    assert calls[0]["host"] == "http://h:1" and calls[0]["timeout"] == 3 and calls[0]["format"] == SCHEMA
    assert calls[0]["options"]["num_predict"] == 5
    with pytest.raises(LLMError, match="HTTP 404: model not found"):
        OllamaLLM("missing", "http://h:1").complete(MSGS, max_tokens=5)
