"""The GPU-node recipe (scripts/gpu_node.sh) end to end against a local OpenAI-compatible server:
here `python -m atma.llm.serve` over the packaged SmolLM2 GGUF on loopback stands in for vLLM
(same API); the eval reaches it through the `openai:` backend and `--llm-endpoints`."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_answers_openai_chat_requests(smollm):
    import threading

    from atma.llm import load_llm
    from atma.llm.serve import make_server

    srv = make_server(smollm, "smol", port=0)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        client = load_llm(f"openai:http://127.0.0.1:{srv.server_address[1]}/v1#smol")
        comp = client.complete([{"role": "user", "content": "Say hi."}], max_tokens=8, temperature=0.0)
        assert isinstance(comp.text, str) and comp.text
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.timeout(900)
def test_gpu_node_recipe_runs_against_a_local_openai_server(tmp_path):
    env = {**os.environ, "SERVER": "atma", "READER": "smollm2-135m", "GPUS": "1", "HOSTS": "builtin",
           "LOCOMO": "0", "PROFILES": "0", "BASE_PORT": str(_free_port()), "OUT": str(tmp_path / "gpu"),
           "EVAL_ARGS": "--units 1 --max-events 25 --quiet", "PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_node.sh")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "gpu" / "ltp-builtin" / "results.json").read_text())
    assert set(res["rows"]) == {"host", "host+overlay"}
    assert all(row["n"] >= 1 for row in res["rows"].values())
    assert "openai:http://127.0.0.1" in json.dumps(res.get("manifest", res))
