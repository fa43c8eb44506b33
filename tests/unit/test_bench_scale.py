"""python -m eval.bench scale at toy sizes: every column is measured, the ANN takes over at its threshold."""

from __future__ import annotations

import json

from eval import bench


def test_scale_reports_each_size_and_the_ann_above_its_threshold(tmp_path):
    out = tmp_path / "scale.json"
    assert bench.main(["scale", "--sizes", "60,150", "--queries", "5", "--ann-threshold", "100",
                       "--tmp", str(tmp_path), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    small, large = res["sizes"]
    assert (small["size"], small["dense_search"], small["recall_at_10"]) == (60, "exact", None)
    assert (large["size"], large["dense_search"]) == (150, "ann") and 0.5 <= large["recall_at_10"] <= 1.0
    assert all(r["writes_per_s"] > 0 and r["p95_ms"] >= r["p50_ms"] > 0 and r["bytes_per_record"] > 0
               for r in res["sizes"])
    assert isinstance(res["growth_exponent_p50"], float) and res["ann_file_bytes_per_record_at_largest"] > 0
