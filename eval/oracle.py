"""The oracle-state arm: the overlay's own store with every state decision replaced by the
gold one (a diagnostic upper bound for the bank, never a method).

After the arm adopts a copy of the overlay row's finished replay, :func:`relabel` resets
every record of the task to ``active`` in a slot of its own with no links, then, for each
gold state pair read off the probes (an update cue and the cue it replaced), marks the old
cue ``superseded`` by the new one with reciprocal links in one slot. Retrieval and the
answer prompt are the overlay's; only the states are gold. It writes to the adopted copy
only, straight through SQLite, because no state change of the real write path may ever
overwrite a decision this way.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable

__all__ = ["gold_pairs", "relabel"]


def gold_pairs(asks: Iterable[Any]) -> list[tuple[str, str]]:
    """(old event id, new event id) per state unit, from probes that name their cues: a
    current probe's target is the new cue, a historical probe's target the old one."""
    pairs: dict[tuple[str, str], None] = {}
    for a in asks:
        p = getattr(a, "data", None)
        meta = getattr(p, "meta", None) or {}
        target, other = meta.get("target_cue_id"), meta.get("other_cue_id")
        if not target or not other:
            continue
        view = getattr(p, "view", "")
        if view == "current":
            pairs[(str(other), str(target))] = None
        elif view == "historical":
            pairs[(str(target), str(other))] = None
    return list(pairs)


def relabel(db: Path, namespace: str, pairs: Iterable[tuple[str, str]]) -> int:
    """Rewrite the task's states in the adopted store to the gold ones; returns the pairs applied."""
    con = sqlite3.connect(str(db))
    try:
        rows = con.execute("SELECT id, meta FROM bank_records WHERE namespace = ?", (namespace,)).fetchall()
        by_event = {}
        for rid, meta in rows:
            ev = json.loads(meta or "{}").get("event_id")
            if ev is not None:
                by_event[str(ev)] = rid
        applied = 0
        with con:
            con.execute("UPDATE bank_records SET status = 'active', slot = id, transition = NULL WHERE namespace = ?",
                        (namespace,))
            con.execute("DELETE FROM bank_links WHERE namespace = ?", (namespace,))
            for old_ev, new_ev in pairs:
                old, new = by_event.get(old_ev), by_event.get(new_ev)
                if old is None or new is None:
                    continue
                con.execute("UPDATE bank_records SET status = 'superseded', slot = ? WHERE namespace = ? AND id = ?",
                            (old, namespace, old))
                con.execute("UPDATE bank_records SET slot = ? WHERE namespace = ? AND id = ?", (old, namespace, new))
                con.executemany("INSERT OR IGNORE INTO bank_links(namespace, src, type, dst) VALUES (?, ?, ?, ?)",
                                [(namespace, new, "supersedes", old), (namespace, old, "superseded_by", new)])
                applied += 1
        return applied
    finally:
        con.close()
