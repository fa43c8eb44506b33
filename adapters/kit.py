"""The shared kit of the hosts: SQLite write units, input checks, dates and lexical helpers.

Every host in ``adapters/`` (builtin, A-Mem, Graphiti, InsideOut) stores its own rows in
a SQLite file that the overlay's state bank may share, takes the same ``add_many``
items, and dates its rows the same way; this module holds those pieces once, under
public names, so that no host reaches into another's privates.

- :class:`transaction`: one ``BEGIN IMMEDIATE`` write unit (a savepoint inside an open one).
- :func:`check_namespace`, :func:`normalise_item`, :func:`parse_time`: the ``add`` contract.
- :func:`date_label`, :func:`sort_time`: how rows are dated in prompts and ordered by time.
- :data:`STOPWORDS`, :func:`fts_query`, :func:`bm25_rank`: lexical retrieval. Large stores
  rank through SQLite FTS5 (:func:`fts_query` builds the ``MATCH`` expression); short
  in-memory lists that no FTS table holds (a profile's leaves, a schema's field names)
  rank with :func:`bm25_rank`.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

__all__ = [
    "ITEM_KEYS",
    "STOPWORDS",
    "bm25_rank",
    "check_namespace",
    "chunks",
    "content_words",
    "date_label",
    "fts_query",
    "query_terms",
    "normalise_item",
    "parse_time",
    "sort_time",
    "transaction",
]

# Words that carry no lexical signal in questions. Without them a question such as
# "Where does Caroline live now?" becomes `"caroline" OR "live"`; with them nearly
# every row would match and the BM25 list would add noise to the fusion.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing done down
    during each few for from further had has have having he her here hers herself
    him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same
    she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when
    where which while who whom whose why will with would you your yours yourself
    yourselves s t d ll m re ve don didn doesn isn wasn weren
    """.split()
)
_QUERY_TOKEN = re.compile(r"\w+", re.UNICODE)
_WORD = re.compile(r"[a-z0-9]+")

#: The keys an ``add_many`` item may have.
ITEM_KEYS = frozenset({"text", "time", "speaker", "meta"})


# ---------------------------------------------------------------------- SQLite


class transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on an autocommit connection; rollback on error. Inside a
    transaction already open on the connection (an overlay write unit sharing it), a savepoint.

    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> with transaction(conn):
    ...     _ = conn.execute("CREATE TABLE t(x)")
    """

    _n = 0

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.savepoint = ""

    def __enter__(self) -> None:
        if self.conn.in_transaction:
            transaction._n += 1
            self.savepoint = f"host_sp{transaction._n}"
            self.conn.execute(f"SAVEPOINT {self.savepoint}")
        else:
            self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        if self.savepoint:
            if exc_type is not None:
                self.conn.execute(f"ROLLBACK TO {self.savepoint}")
            self.conn.execute(f"RELEASE {self.savepoint}")
        else:
            self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")


def chunks(xs: Sequence[Any], n: int) -> Iterable[Sequence[Any]]:
    """``xs`` in slices of at most ``n`` (SQLite limits the ``?`` marks of one statement)."""
    for i in range(0, len(xs), n):
        yield xs[i : i + n]


# ---------------------------------------------------------------------- the add contract


def check_namespace(namespace: str) -> None:
    """Refuse a namespace that is not a non-empty string."""
    if not isinstance(namespace, str) or not namespace:
        raise ValueError("namespace must be a non-empty string")


def parse_time(value: datetime | str | None) -> datetime | None:
    """A datetime from a datetime, an ISO string or None."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, str):
        return datetime.fromisoformat(value)
    raise TypeError(f"time must be a datetime, an ISO string or None, not {type(value).__name__}")


def normalise_item(item: Mapping[str, Any] | str) -> tuple[str, datetime | None, str, str]:
    """One ``add_many`` item as ``(text, time, speaker, meta_json)``.

    An item is a string or a mapping with ``text`` and optionally ``time``, ``speaker``
    and ``meta`` (:data:`ITEM_KEYS`); other keys are refused.

    >>> normalise_item({"text": "hi", "speaker": "Ann"})
    ('hi', None, 'Ann', '{}')
    """
    if isinstance(item, str):
        return item, None, "", "{}"
    unknown = set(item) - ITEM_KEYS
    if unknown:
        raise ValueError(f"add_many item has unknown keys {sorted(unknown)}; allowed: {sorted(ITEM_KEYS)}")
    text = item["text"]
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    speaker = item.get("speaker") or ""
    meta = json.dumps(dict(item.get("meta") or {}), sort_keys=True, ensure_ascii=False)
    return text, parse_time(item.get("time")), str(speaker), meta


# ---------------------------------------------------------------------- dates


def date_label(t: datetime | None) -> str:
    """``2023-05-08``, ``2023-05-08 14:30`` when the time of day is set, or ``undated``."""
    if t is None:
        return "undated"
    if (t.hour, t.minute, t.second) == (0, 0, 0):
        return t.strftime("%Y-%m-%d")
    return t.strftime("%Y-%m-%d %H:%M")


def sort_time(t: datetime | None) -> float:
    """A sort key for a possibly naive datetime (naive read as UTC); 0.0 for None or out of range."""
    if t is None:
        return 0.0
    # Naive and aware datetimes do not compare; order naive ones as UTC.
    try:
        return t.timestamp() if t.tzinfo else t.replace(tzinfo=timezone.utc).timestamp()
    except (OverflowError, OSError, ValueError):
        return 0.0


# ---------------------------------------------------------------------- lexical


def fts_query(query: str) -> str:
    """An FTS5 MATCH expression for free text: content words, each quoted, OR-ed.

    Quoting makes every token a plain string, so FTS5 syntax in user text (``AND``,
    ``NEAR``, ``-``, ``*``, ``"``) is inert. Returns ``""`` when no content word is
    left (a stopword-only or punctuation-only query); callers then skip BM25.

    >>> fts_query('Where does Caroline live? "AND" e-mail')
    '"caroline" OR "live" OR "e" OR "mail"'
    """
    return " OR ".join(f'"{t}"' for t in query_terms(query))


def query_terms(query: str) -> list[str]:
    """The content words of free text, lower-cased, each once, in order (what :func:`fts_query` ORs).

    >>> query_terms("Where does Caroline live, Caroline?")
    ['caroline', 'live']
    """
    seen: dict[str, None] = {}
    for tok in _QUERY_TOKEN.findall(query.lower()):
        tok = tok.strip("_")
        if tok and tok not in STOPWORDS:
            seen.setdefault(tok, None)
    return list(seen)


def content_words(text: str) -> list[str]:
    """Lower-case ASCII words of ``text`` without :data:`STOPWORDS` (``_`` splits words).

    >>> content_words("Where is Migration_and_Mobility?")
    ['migration', 'mobility']
    """
    return [w for w in _WORD.findall(text.lower().replace("_", " ")) if w not in STOPWORDS]


def bm25_rank(query: str, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[int]:
    """Indices of ``docs`` that share a content word with ``query``, best BM25 first.

    For short lists held in memory (it tokenises every doc per call); equal scores keep
    list order.

    >>> bm25_rank("where do I live", ["job: nurse", "residence: live in Leeds", "live"])
    [2, 1]
    """
    q = set(content_words(query))
    if not q or not docs:
        return []
    toks = [content_words(d) for d in docs]
    avg = sum(map(len, toks)) / len(toks) or 1.0
    df = Counter(w for t in toks for w in set(t) if w in q)
    n = len(docs)
    scores = []
    for i, t in enumerate(toks):
        tf = Counter(w for w in t if w in q)
        s = sum(
            math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) * c * (k1 + 1) / (c + k1 * (1 - b + b * len(t) / avg))
            for w, c in tf.items()
        )
        if s > 0:
            scores.append((-s, i))
    return [i for _, i in sorted(scores)]
