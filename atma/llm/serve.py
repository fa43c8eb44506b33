"""A minimal OpenAI-compatible chat server over any atma LLM spec (stdlib HTTP, one request at
a time): ``POST /v1/chat/completions`` and ``GET /v1/models``. For machines without vLLM (a CPU
node, the tests) and as the local stand-in for the GPU-node recipe (``scripts/gpu_node.sh``),
whose endpoints vLLM serves with the same API.

    python -m atma.llm.serve --llm smollm2-135m --port 8011          # loopback only by default
    atma eval ltp ... --llm openai:http://127.0.0.1:8011/v1#smollm2-135m
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Sequence

__all__ = ["main", "make_server"]

MAX_BODY = 8 * 1024 * 1024


def make_server(llm: Any, model: str, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server answering OpenAI chat requests with ``llm`` (requests run one at a time)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the caller logs
            return

        def _send(self, code: int, obj: Any) -> None:
            body = json.dumps(obj).encode("utf-8")
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, code: int, message: str) -> None:
            self._send(code, {"error": {"message": message, "type": "invalid_request_error" if code < 500 else
                                        "server_error"}})

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "atma"}]})
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route {self.path}")
                return
            n = int(self.headers.get("Content-Length") or 0)
            if n <= 0 or n > MAX_BODY:
                self._error(400, "a JSON body of at most 8 MiB is required")
                return
            try:
                req = json.loads(self.rfile.read(n))
                messages = [{"role": str(m["role"]), "content": str(m["content"])} for m in req["messages"]]
            except (ValueError, KeyError, TypeError) as e:
                self._error(400, f"bad request: {type(e).__name__}")
                return
            fmt = req.get("response_format") or {}
            schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else \
                fmt.get("schema")
            try:
                with lock:
                    comp = llm.complete(messages, max_tokens=int(req.get("max_tokens") or 256),
                                        temperature=float(req.get("temperature") or 0.0), json_schema=schema)
            except Exception as e:  # noqa: BLE001 - one request's failure is that request's 500
                msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
                self._error(400 if "context" in msg else 500, msg)
                return
            self._send(200, {
                "id": f"chatcmpl-{int(time.time() * 1000)}", "object": "chat.completion", "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": comp.text or ""},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": int(getattr(comp, "prompt_tokens", 0) or 0),
                          "completion_tokens": int(getattr(comp, "completion_tokens", 0) or 0)},
            })

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m atma.llm.serve", description=__doc__.split("\n")[0])
    ap.add_argument("--llm", default="qwen2.5-coder-1.5b", help="atma LLM spec to serve (default: %(default)s)")
    ap.add_argument("--model", default=None, help="model id clients name (default: the --llm spec)")
    ap.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback only)")
    ap.add_argument("--port", type=int, default=8011)
    args = ap.parse_args(argv)
    from atma.llm import load_llm

    try:
        llm = load_llm(args.llm)
        if hasattr(llm, "load"):
            llm.load()
    except Exception as e:  # noqa: BLE001 - one line, non-zero exit
        print(f"error: cannot load {args.llm!r}: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
              file=sys.stderr)
        return 2
    try:
        srv = make_server(llm, args.model or args.llm, args.host, args.port)
    except OSError as e:
        print(f"error: cannot listen on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"serving {args.llm} as {args.model or args.llm} on http://{args.host}:{srv.server_address[1]}/v1",
          file=sys.stderr, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
