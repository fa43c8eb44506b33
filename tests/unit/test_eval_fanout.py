"""eval.fanout without a cluster: endpoint specs, flags, and the idempotent merge of part logs."""

from __future__ import annotations

import argparse
import json

import pytest

from eval.fanout import _PartLog, endpoint_spec, fanout_from_args, merge_parts
from eval.runner import ProbeLog


def test_endpoint_specs():
    qwen = "openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-3B-Instruct"
    assert endpoint_spec("http://10.0.0.7:8000/v1/", qwen) == "openai:http://10.0.0.7:8000/v1#Qwen/Qwen2.5-3B-Instruct"
    assert endpoint_spec("ollama:qwen2.5:3b@10.0.0.8", qwen) == "ollama:qwen2.5:3b@10.0.0.8"
    with pytest.raises(ValueError, match="bare URL"):
        endpoint_spec("http://10.0.0.7:8000/v1", "llamacpp:qwen2.5-coder-1.5b")
    with pytest.raises(ValueError):
        endpoint_spec("nonsense", qwen)


def test_one_worker_is_the_serial_runner_and_cluster_flags_need_more():
    args = argparse.Namespace(workers=1, ray_address=None, llm_endpoints=None, llm="x")
    assert fanout_from_args(args, None, lambda c: None) is None
    args.llm_endpoints = "http://a/v1"
    with pytest.raises(ValueError, match="--workers above 1"):
        fanout_from_args(args, None, lambda c: None)


def test_part_logs_merge_once_by_key(tmp_path):
    row = tmp_path / "host"
    plog = ProbeLog(row / "probes.jsonl")
    plog.append({"key": "a/1", "answer": "x"})
    part = _PartLog(row / "parts" / "a.jsonl", frozenset({"a/1"}))
    part.append({"key": "a/1", "answer": "again"})  # already in the row's log: not written
    part.append({"key": "a/2", "answer": "y"})
    assert "a/1" in part and "a/2" in part and "a/3" not in part
    assert merge_parts(row, plog) == 1
    assert merge_parts(row, plog) == 0 and not list((row / "parts").iterdir())
    lines = [json.loads(line) for line in (row / "probes.jsonl").read_text().splitlines()]
    assert [(r["key"], r["answer"]) for r in lines] == [("a/1", "x"), ("a/2", "y")]
