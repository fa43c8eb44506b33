from eval.ack_scenarios import aliases, build, main
from eval.stream_format import load_stream


def test_scenarios_are_valid_deterministic_and_carry_an_acknowledgement(tmp_path):
    out = tmp_path / "ack.jsonl"
    assert main(["--out", str(out), "--n", "12"]) == 0
    sc = load_stream(out)
    assert [s.model_dump() for s in sc] == [s.model_dump() for s in build(12)]
    for s in sc:
        user, other = s.meta["pair"]
        assert s.events[0].speaker == user and s.events[1].speaker == other  # the value, then its acknowledgement
        assert {p.id for p in s.probes} >= {"now", "before"}
        now = next(p for p in s.probes if p.id == "now")
        assert not set(now.gold) & set(now.alternates)


def test_aliases_and_bad_arguments(tmp_path, capsys):
    assert aliases("a cat named Miso") == ["a cat named Miso", "cat named Miso", "Miso"]
    assert aliases("Tuesdays") == ["Tuesdays", "Tuesday"] and aliases("2 cups") == ["2 cups", "2"]
    assert main(["--out", str(tmp_path / "x.jsonl"), "--n", "0"]) == 2
    assert "error" in capsys.readouterr().err and not (tmp_path / "x.jsonl").exists()
