from datetime import datetime

from atma.records import Link, LinkType, Record, Status, TransitionInfo
from atma.serializer import label_for, qa_messages, serialize


def r(**kw):
    return Record(id="r1", namespace="u", text="t", **kw)


def test_label_priority():
    tr = TransitionInfo(source="a", target="b", type="t")
    assert label_for(r(status=Status.TRANSITION)) == "transition memory"
    assert label_for(r(status=Status.SUPERSEDED, transition=tr)) == "transition memory"
    assert label_for(r(status=Status.SUPERSEDED, links=(Link(LinkType.EVOLVES_TO, "r2"),))) == "transition linked memory"
    assert label_for(r(status=Status.SUPERSEDED, links=(Link(LinkType.SUPERSEDED_BY, "r2"),))) == "historical memory"
    assert label_for(r(status=Status.ACTIVE, links=(Link(LinkType.SUPERSEDES, "r0"),))) == "current memory"
    assert label_for(r(status=Status.ACTIVE)) == "current memory"
    assert label_for(r(status=Status.UNKNOWN)) == "retrieved memory"


def test_prompt_rows_carry_labels_time_and_view():
    rows = serialize([r(status=Status.SUPERSEDED, time=datetime(2024, 1, 10), speaker="Dana")])
    msgs = qa_messages("Where did Dana live before?", "historical", rows)
    assert "1. [historical memory | 2024-01-10] Dana: t" in msgs[1]["content"]
    assert "past state" in msgs[1]["content"]
    assert "Use only the memories" in msgs[0]["content"]
    no_time = serialize([r(time=datetime(2024, 1, 10))], with_time=False)
    assert no_time[0].time is None
    assert "(no memories retrieved)" in qa_messages("q", "current", [])[1]["content"]
