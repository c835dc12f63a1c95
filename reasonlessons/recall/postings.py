"""Posting lists as the recall index stores them: one row per term, its postings as packed arrays.

A row holds the term's document frequency, its skyline (bm25.Skyline: what bounds its scores) and
three parallel arrays in document order: document ids, term frequencies, document lengths. A turn
reads a few rows, each as one blob copied into an `array`, and never builds a Python object per
posting it does not look at; a SQLite row per posting cost a microsecond each to hand to Python,
which is what made a word found in most lessons expensive.

Each row also holds its impact order: the positions of its postings, highest share of a score
first, as BM25 gives it with the average document length of the index when the row was written
(kept beside it). Reading a list in that order, the posting to read next bounds everything not yet
read, so a search can stop early however many lessons share the word (recall/relevance.py); the
bound still holds after the average moved (`rest_bound`).

A common word's row also holds its postings by document id (`Dense`): a byte per lesson for its tf
and one for a bound on its share of a score. A search that looks the word up for a few thousand
lessons reads two bytes each, in C (`bytes.__getitem__` through `map`), instead of copying and
bisecting the word's three arrays: those are read only when the word itself is read in impact order.

Arrays are in this machine's byte order (the index records it: a foreign image is rebuilt). An
update rewrites the rows of the terms whose lessons changed: removed lessons are filtered out and
new ones appended (a new lesson gets a higher id than any indexed one, so order is kept), and the
impact order and the dense bytes are computed again. A dense row is as long as the highest id when
it was written: a lesson added later has no byte in the rows of words it does not contain.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

from reasonlessons.recall import bm25

TYPECODE: Final = "I"  # unsigned 32-bit: a 256 KiB lesson has well under 2**32 words
BYTEORDER = sys.byteorder

DDL = """
CREATE TABLE terms (term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL, sky TEXT NOT NULL,
    docs BLOB NOT NULL, tfs BLOB NOT NULL, dls BLOB NOT NULL, impact BLOB NOT NULL, at REAL NOT NULL,
    dense BLOB, codes BLOB);
"""
# A term gets dense bytes when at least one lesson in DENSE_EVERY has it (then two bytes per lesson
# take less room than its twelve per posting) and it has DENSE_MIN postings.
DENSE_EVERY = 16
DENSE_MIN = 32
TF_CAP = 255  # a dense tf byte of TF_CAP means "TF_CAP or more": the exact tf is in the arrays
CODE_MAX = 255
# A share of a score, without the term's weight, is below K1 + 1: CODE_MAX codes span that range.
CODE_STEP = (bm25.K1 + 1.0) / CODE_MAX


class Lists(NamedTuple):
    """A term's postings as a turn reads them: parallel views in document order (no copy)."""

    ids: Sequence[int]
    tfs: Sequence[int]
    dls: Sequence[int]
    at: float  # the average document length the term's impact order was computed with


class Dense(NamedTuple):
    """A common term's postings by document id (index = id): 0 where a lesson lacks the term."""

    tfs: bytes  # min(tf, TF_CAP)
    codes: bytes  # share of a score at `at` (without the weight) < code * CODE_STEP
    at: float


class Row(NamedTuple):
    """What a turn's search reads of a term at first: dense bytes for a common one, else its arrays."""

    lists: Lists | None
    dense: Dense | None


def view(data: bytes) -> Sequence[int]:
    """The packed integers in `data`, read in place: copying a common word's list into an array
    costs more than the page faults of a fresh buffer, on every turn."""
    return memoryview(data).cast(TYPECODE)


def _arrays(*blobs: bytes) -> list[array[int]]:
    out = []
    for data in blobs:
        arr = array(TYPECODE)
        arr.frombytes(data)
        out.append(arr)
    return out


def shares(tfs: Sequence[int], dls: Sequence[int], avgdl: float) -> list[float]:
    """Each posting's share of a score without the term's weight (a weight scales all alike)."""
    top, base, per = bm25.K1 + 1.0, bm25.K1 * (1.0 - bm25.B), bm25.K1 * bm25.B / (avgdl or 1.0)
    return [top * tf / (tf + base + per * dl) for tf, dl in zip(tfs, dls, strict=True)]


def impact_order(tfs: Sequence[int], dls: Sequence[int], avgdl: float) -> array[int]:
    """Positions of the postings by their share of a score, highest first, equal shares in
    document order (a term's weight scales every share alike: the order does not depend on it)."""
    return _order(shares(tfs, dls, avgdl))


def _order(values: list[float]) -> array[int]:
    return array(TYPECODE, sorted(range(len(values)), key=values.__getitem__, reverse=True))


def dense(ids: Sequence[int], tfs: Sequence[int], values: Sequence[float], span: int) -> tuple[bytes, bytes]:
    """The dense bytes of a term (tf, share code) over document ids below `span`.

    A code is one more than the share's whole steps, so code * CODE_STEP is above the share (the
    search adds MARGIN for the rounding of the products it bounds with)."""
    tf_bytes, codes = bytearray(span), bytearray(span)
    scale = 1.0 / CODE_STEP
    for doc, tf, value in zip(ids, tfs, values, strict=True):
        tf_bytes[doc] = tf if tf < TF_CAP else TF_CAP
        code = int(value * scale) + 1
        codes[doc] = code if code < CODE_MAX else CODE_MAX
    return bytes(tf_bytes), bytes(codes)


def is_dense(df: int, span: int) -> bool:
    return df >= DENSE_MIN and df * DENSE_EVERY >= span


def rest_bound(weight: float, lists: Lists, impact: Sequence[int], read: int, avgdl: float) -> float:
    """The largest share of a score any posting after the first `read` in impact order can make.

    The next posting's share, at the average the order was computed with, bounds the rest's there;
    a share grows with the average by at most the ratio of the averages (a document length counts
    in its denominator divided by it), and shrinks when it falls."""
    if read >= len(impact):
        return 0.0
    i = impact[read]
    share = bm25.contribution(weight, lists.tfs[i], lists.dls[i], lists.at or 1.0)
    return share * max(1.0, avgdl / (lists.at or 1.0))


class Changes:
    """The postings one index update adds and removes, written per term by `write`.

    A term's df is exact (recall's idf uses it). Its skyline gains the points of added postings;
    after a removal it may promise more than any remaining posting gives, which is still a bound."""

    def __init__(self) -> None:
        self.added: dict[str, tuple[array[int], array[int], array[int]]] = {}
        self.removed: dict[str, set[int]] = {}

    def add(self, doc: int, terms: dict[str, int], dl: int) -> None:
        added = self.added
        for term, tf in terms.items():
            lists = added.get(term)
            if lists is None:
                lists = added[term] = (array(TYPECODE), array(TYPECODE), array(TYPECODE))
            lists[0].append(doc)
            lists[1].append(tf)
            lists[2].append(dl)

    def remove(self, doc: int, terms: Iterable[str]) -> None:
        for term in terms:
            self.removed.setdefault(term, set()).add(doc)

    def write(self, conn: sqlite3.Connection) -> None:
        """Rewrite the touched terms' rows; call it once the documents' rows are in place (the
        impact order uses their average length)."""
        touched = list(self.added.keys() | self.removed.keys())
        sql = "SELECT term, sky, docs, tfs, dls FROM terms WHERE term IN (SELECT value FROM json_each(?))"
        old = {row[0]: row[1:] for row in conn.execute(sql, (json.dumps(touched),))}
        avgdl, last = conn.execute("SELECT COALESCE(AVG(dl), 0.0), COALESCE(MAX(id), 0) FROM docs").fetchone()
        gone: list[tuple[str]] = []
        rows: list[tuple[str, int, str, bytes, bytes, bytes, bytes, float, bytes | None, bytes | None]] = []
        for term in touched:
            sky, docs, tfs, dls = old.get(term, ("", b"", b"", b""))
            ids, tf_arr, dl_arr = _arrays(docs, tfs, dls)
            removed = self.removed.get(term)
            if removed:
                keep = [i for i, doc in enumerate(ids) if doc not in removed]
                kept = (array(TYPECODE, (arr[i] for i in keep)) for arr in (ids, tf_arr, dl_arr))
                ids, tf_arr, dl_arr = kept
            new = self.added.get(term)
            points = bm25.parse_skyline(sky)
            if new is not None:
                if ids and new[0][0] <= ids[-1]:
                    # New ids are above every indexed one (SQLite's max rowid + 1); keep order anyway.
                    merged = sorted([*zip(ids, tf_arr, dl_arr, strict=True), *zip(*new, strict=True)])
                    ids, tf_arr, dl_arr = (array(TYPECODE, col) for col in zip(*merged, strict=True))
                else:
                    for arr, more in zip((ids, tf_arr, dl_arr), new, strict=True):
                        arr.extend(more)
                points = bm25.add_to_skyline(points, zip(new[1], new[2], strict=True))
            if not ids:
                gone.append((term,))
                continue
            values = shares(tf_arr, dl_arr, avgdl)
            impact = _order(values)
            blobs = (ids.tobytes(), tf_arr.tobytes(), dl_arr.tobytes(), impact.tobytes())
            by_id = dense(ids, tf_arr, values, last + 1) if is_dense(len(ids), last + 1) else (None, None)
            rows.append((term, len(ids), bm25.skyline_text(points), *blobs, avgdl, *by_id))
        conn.executemany("DELETE FROM terms WHERE term = ?", gone)
        conn.executemany(
            "INSERT OR REPLACE INTO terms (term, df, sky, docs, tfs, dls, impact, at, dense, codes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


def stats(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, tuple[int, str]]:
    """term -> (document frequency, skyline text), for the indexed ones among `terms`."""
    sql = "SELECT term, df, sky FROM terms WHERE term IN (SELECT value FROM json_each(?))"
    return {term: (df, sky) for term, df, sky in conn.execute(sql, (json.dumps(list(terms)),))}


def read(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, Lists]:
    """term -> its posting lists, for the indexed ones among `terms` (not their impact order)."""
    sql = "SELECT term, docs, tfs, dls, at FROM terms WHERE term IN (SELECT value FROM json_each(?))"
    return {
        term: Lists(view(docs), view(tfs), view(dls), at)
        for term, docs, tfs, dls, at in conn.execute(sql, (json.dumps(list(terms)),))
    }


def search_rows(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, Row]:
    """term -> what a search reads first: the dense bytes of a common term (its arrays are read
    only if the search reads the term itself: `read`), the arrays of any other."""
    sql = (
        "SELECT term, at, dense, codes, CASE WHEN dense IS NULL THEN docs END,"
        " CASE WHEN dense IS NULL THEN tfs END, CASE WHEN dense IS NULL THEN dls END"
        " FROM terms WHERE term IN (SELECT value FROM json_each(?))"
    )
    out = {}
    for term, at, tfs_by_id, codes, docs, tfs, dls in conn.execute(sql, (json.dumps(list(terms)),)):
        if tfs_by_id is None:
            out[term] = Row(Lists(view(docs), view(tfs), view(dls), at), None)
        else:
            out[term] = Row(None, Dense(tfs_by_id, codes, at))
    return out


def read_impact(conn: sqlite3.Connection, term: str) -> Sequence[int]:
    """The impact order of an indexed term (fetched only for the terms a search reads that way)."""
    row = conn.execute("SELECT impact FROM terms WHERE term = ?", (term,)).fetchone()
    return view(row[0] if row else b"")
