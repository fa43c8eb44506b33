"""LoCoMo runner with fakes on a tiny file in the official layout; report rendering; the CLI front."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.builtin import BuiltinHost
from atma import OverlayConfig
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, ScriptedLLM
from eval import cli as eval_cli
from eval import locomo
from eval.report import ltp_table, render_locomo
from eval.runner import Components


def tiny_locomo(path: Path) -> Path:
    conv = {"speaker_a": "Caroline", "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "I went hiking in the Alps."},
                          {"speaker": "Melanie", "dia_id": "D1:2", "text": "Look at my painting!",
                           "blip_caption": "a painting of a sunset"}],
            "session_2_date_time": "2:00 pm on 9 June, 2023",
            "session_2": [{"speaker": "Caroline", "dia_id": "D2:1", "text": "I adopted a dog named Rex."}]}
    qa = [{"question": "Where did Caroline go hiking?", "answer": "the Alps", "evidence": ["D1:1"], "category": 4},
          {"question": "What did Melanie paint?", "answer": "a sunset", "evidence": ["D1:2"], "category": 1},
          {"question": "What is the name of Melanie's cat?", "adversarial_answer": "Rex", "evidence": ["D2:1"],
           "category": 5}]
    path.write_text(json.dumps([{"sample_id": "conv-1", "conversation": conv, "qa": qa}]))
    return path


def comps(answer):
    emb = HashEmbedder()
    llm = ScriptedLLM(route={"answer a question about people": answer, "past conversations": answer,
                             "audit a personal memory": lambda m: "{}"})
    return Components(llm=llm, embedder=emb, make_host=lambda p, e, a: BuiltinHost(p, embedder=e, answerer=a),
                      gate=CosineGate(emb, threshold=0.99), overlay_config=OverlayConfig(k=2)), llm


def test_locomo_rows_scores_by_category_name(tmp_path, capsys):
    def answer(messages):
        q = re.search(r"Question: (.*)", messages[-1]["content"]).group(1)
        return "Not mentioned in the conversation" if "Select the correct answer" in q else "the Alps"

    c, llm = comps(answer)
    out = tmp_path / "run"
    rc = locomo.main(["--locomo", str(tiny_locomo(tmp_path / "l.json")), "--out", str(out), "--quiet",
                      "--overlay", "both"], comps=c)
    assert rc == 0
    res = json.loads((out / "results.json").read_text())
    for row in res["rows"].values():
        sc = row["scores"]
        assert sc["single-hop"]["f1"] == 1.0 and sc["adversarial"]["f1"] == 1.0 and sc["multi-hop"]["f1"] == 0.0
        assert sc["overall"]["n"] == 3
    # Category 5 got the two-option framing, in the question both rows passed on.
    asked = [m[-1]["content"] for call in llm.calls for m in [call.messages] if "cat" in m[-1]["content"]]
    assert len(asked) == 2 and all("(a)" in a and "Not mentioned in the conversation" in a for a in asked)
    md = (out / "report.md").read_text()
    assert "adversarial F1" in md and "BLEU-1 (A-Mem/Mem0 convention" in md and "| 5 |" not in md
    assert (out / "report.png").exists()
    # The caption reached the store with its turn.
    probe = next(p for p in res["rows"]["host"]["probes"] if p["category"] == "multi-hop")
    assert probe["evidence"] == ["D1:2"]


def test_locomo_sample_and_category_selection(tmp_path):
    c, _ = comps(lambda m: "x")
    out = tmp_path / "run"
    rc = locomo.main(["--locomo", str(tiny_locomo(tmp_path / "l.json")), "--out", str(out), "--quiet", "--overlay",
                      "off", "--samples", "0", "--categories", "single-hop,5"], comps=c)
    assert rc == 0
    res = json.loads((out / "results.json").read_text())
    assert set(res["scores"]) == {"single-hop", "adversarial", "overall"}


@pytest.mark.parametrize("flag, value, msg", [("--samples", "conv-99", "unknown LoCoMo sample"),
                                              ("--categories", "funny", "unknown LoCoMo category")])
def test_locomo_bad_selection(tmp_path, capsys, flag, value, msg):
    c, _ = comps(lambda m: "x")
    out = tmp_path / "run"
    rc = locomo.main(["--locomo", str(tiny_locomo(tmp_path / "l.json")), "--out", str(out), flag, value], comps=c)
    assert rc == 2 and msg in capsys.readouterr().err and not out.exists()


def test_locomo_missing_file(tmp_path, capsys):
    assert locomo.main(["--locomo", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")], comps=comps(str)[0]) == 2
    assert "cannot read LoCoMo data" in capsys.readouterr().err


def test_adversarial_option_order_is_seeded():
    a = locomo.adversarial_question("Q?", "Rex", seed=0, key="k1")
    assert a == locomo.adversarial_question("Q?", "Rex", seed=0, key="k1")
    orders = {locomo.adversarial_question("Q?", "Rex", seed=0, key=f"k{i}").index("Rex") for i in range(20)}
    assert len(orders) == 2  # both orders occur


def test_ltp_table_columns_and_judge_column():
    row = {"n": 80, "bank": {"coexist": 1.0, "role": 0.5}, "evidence_support": 0.9, "qa_acc": 0.8, "conflict_acc": 0.85,
           "fact_acc": 0.75, "drift_rate": 0.1, "judge": {"score": None}, "writes": {"judge_calls_per_100_events": 12.5}}
    md = ltp_table({"host": {**row, "bank": {"coexist": 1.0, "role": 0.0}}, "host+overlay": row})
    head = md.splitlines()[0]
    assert head.split(" | ")[1:4] == ["N", "Bank coexist", "Bank role"] and "Judge |" not in head
    assert "| host + overlay | 80 | 1.000 | 0.500 | 0.900 | 0.800 | 0.850 | 0.750 | 0.100 | 12.5 |" in md
    md = ltp_table({"host+overlay": {**row, "judge": {"score": 0.7}}})
    assert "| Judge |" in md and "0.700" in md


def test_render_locomo_marks_partial(tmp_path):
    res = {"partial": True, "manifest": {"config": {"max_probes": 5}}, "source": {"samples": ["conv-26"]},
           "rows": {"host": {"scores": {"temporal": {"n": 2, "f1": 0.5, "bleu1": 0.25},
                                        "overall": {"n": 2, "f1": 0.5, "bleu1": 0.25}}, "judge_acc": None}}}
    md = render_locomo(res, tmp_path)
    assert "PARTIAL RUN" in md and "--max-probes 5" in md and "temporal F1" in md
    assert (tmp_path / "report.png").stat().st_size > 1000


def test_eval_cli_dispatch_and_errors(capsys, tmp_path):
    assert eval_cli.main(["nosuch"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err
    assert eval_cli.main(["ltp", "--out", str(tmp_path / "o"), "--profiles", "42"]) == 2
    assert "unknown profile index 42" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    assert eval_cli.main(["stream"]) == 2  # argparse: missing FILE and --out
