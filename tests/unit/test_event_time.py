"""Write-time time annotation (issue 15): each record's time expressions resolved against its own
timestamp, kept in the bank record's meta (never in its text or the host's copy); a change reported
late is dated by the event; a memory about the past never retires a current state."""

from __future__ import annotations

from atma import ATMAOverlay, OverlayConfig
from atma.records import Record, Status
from atma.judge import reported_earlier
from atma.serializer import change_date
from atma.sentry import CosineGate
from atma.testing import HashEmbedder, InMemoryHost


class RecordingHost(InMemoryHost):
    """Keeps the meta each add was given."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.metas = []

    def add(self, text, *, namespace, time=None, speaker="", meta=None):
        self.metas.append(dict(meta or {}))
        return super().add(text, namespace=namespace, time=time, speaker=speaker, meta=meta)


def _overlay():
    emb = HashEmbedder()
    host = RecordingHost(embedder=emb)
    return ATMAOverlay(host, namespace="u", gate=CosineGate(emb, threshold=0.0), config=OverlayConfig()), host


def test_add_annotates_the_bank_record_not_the_text_or_the_host():
    ov, host = _overlay()
    r = ov.add("I went to the climbing gym yesterday with Ana.", time="2023-05-08T13:56", speaker="Lee",
               meta={"source": "chat"}).record
    ann = r.meta["time"]
    assert ann["said_at"] == "2023-05-08" and ann["event"]["start"] == "2023-05-07"
    assert r.text == "I went to the climbing gym yesterday with Ana." and r.meta["source"] == "chat"
    assert host.metas[0] == {"source": "chat"}  # the host's copy: the caller's meta only
    plain = ov.add("I like oat milk in coffee.", time="2023-05-08T14:00", speaker="Lee").record
    assert "time" not in plain.meta  # nothing to resolve, nothing stored
    given = ov.add("Back from the trip last week.", time="2023-05-08T14:00", speaker="Lee",
                   meta={"time": {"mine": True}}).record
    assert given.meta["time"] == {"mine": True}  # a caller's own annotation is kept as given


def test_a_change_reported_late_is_dated_by_its_event():
    from datetime import datetime

    from atma.overlay import annotate_time

    when = datetime(2023, 6, 3, 10, 0)
    late = Record(id="r2", namespace="u", text="I moved to Leeds last month.", time=when,
                  meta=annotate_time("I moved to Leeds last month.", when, {}))
    assert change_date(late) == " in May 2023"
    now = Record(id="r3", namespace="u", text="I moved to Leeds.", time=when)
    assert change_date(now) == " on 3 June 2023"


def test_a_memory_about_the_past_never_retires_a_current_state():
    from datetime import datetime

    from atma.overlay import annotate_time

    old = Record(id="r1", namespace="u", text="I live in York these days.", time=datetime(2023, 3, 1), speaker="Lee")
    text = "Back in 2019 I used to live in Leeds, in a tiny flat."
    new = Record(id="r2", namespace="u", text=text, time=datetime(2023, 5, 1), speaker="Lee",
                 meta=annotate_time(text, datetime(2023, 5, 1), {}))
    assert reported_earlier(old, new)
    ov, _ = _overlay()
    ov.add(old.text, time="2023-03-01T10:00", speaker="Lee")
    res = ov.add(text, time="2023-05-01T10:00", speaker="Lee")
    assert all(r.status is Status.ACTIVE for r in ov.records()) and not res.trace.judge
