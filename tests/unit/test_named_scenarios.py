import json

from atma.judge import named_old_values, names_phrase
from eval.named_scenarios import build, main


def test_scenarios_are_consistent_and_replayable_by_the_write_loop(tmp_path):
    assert main(["--out", str(tmp_path)]) == 0
    scenarios = [json.loads(l) for l in (tmp_path / "scenarios.jsonl").read_text().splitlines()]
    units = [json.loads(l) for l in (tmp_path / "units.jsonl").read_text().splitlines()]
    assert (scenarios, units) == tuple(map(list, build()))
    for sc in scenarios:
        order = {e["id"]: i for i, e in enumerate(sc["events"])}
        assert len(order) == len(sc["events"])  # ids unique
        times = [e["time"] for e in sc["events"]]
        assert times == sorted(times)
        mine = [u for u in units if u["profile_id"] == sc["id"].removeprefix("ltp-")]
        assert len(mine) == 6
        for u in mine:
            old, new = u["cue_ids"]
            assert order[old] < order[new]
            assert sc["events"][order[new]]["text"] == u["cue_texts"][1]
    # most updates name the ended value in words the second search reads, some do not
    named = [u for u in units if any(names_phrase(u["cue_texts"][0], p) for p in named_old_values(u["cue_texts"][1]))]
    assert 10 <= len(named) < len(units)


def test_unwritable_out_is_one_error_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["--out", str(blocker / "sub")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot write")
