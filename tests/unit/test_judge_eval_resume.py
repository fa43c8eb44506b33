import json
from pathlib import Path

from training.judge_eval import main

TRAIN = Path(__file__).resolve().parents[2] / "checkpoints" / "judge" / "data" / "train.jsonl"


def test_judge_eval_resumes_from_its_partial_rows_unless_fresh(tmp_path):
    data = tmp_path / "items.jsonl"
    items = [json.loads(l) for l in TRAIN.read_text().splitlines()[:2]]
    data.write_text("".join(json.dumps(i) + "\n" for i in items))
    out = tmp_path / "eval"
    args = ["--judge", "rule:sentry", "--data", str(data), "--out", str(out)]
    first = main(args)
    assert [r["id"] for r in first["items"]] == [i["id"] for i in items]
    # a stale row (as an older rule wrote it) is kept on resume ...
    partial = out / "rule-sentry.partial.jsonl"
    rows = [json.loads(l) for l in partial.read_text().splitlines()]
    rows[0]["verdict"] = {**rows[0]["verdict"], "action": "coexist", "links": ["coexists_with"],
                          "conflict_status": "no_conflict", "conflict_type": "none"}
    partial.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(args)["items"][0]["pred"] == "coexist"
    # ... and judged again with --fresh
    assert main(args + ["--fresh"])["items"][0]["pred"] == first["items"][0]["pred"]
