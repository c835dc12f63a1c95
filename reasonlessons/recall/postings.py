"""Posting lists as the recall index stores them: one row per term, its postings as packed arrays.

A row holds the term's document frequency, its skyline (bm25.Skyline: what bounds its scores) and
three parallel arrays in document order: document ids, term frequencies, document lengths. A turn
reads a few rows, each as one blob copied into an `array`, and never builds a Python object per
posting it does not look at; a SQLite row per posting cost a microsecond each to hand to Python,
which is what made a word found in most lessons expensive.

Arrays are in this machine's byte order (the index records it: a foreign image is rebuilt). An
update rewrites the rows of the terms whose lessons changed: removed lessons are filtered out and
new ones appended (a new lesson gets a higher id than any indexed one, so order is kept).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from collections.abc import Iterable
from typing import TypeAlias

from reasonlessons.recall import bm25

TYPECODE = "I"  # unsigned 32-bit: a 256 KiB lesson has well under 2**32 words
BYTEORDER = sys.byteorder

DDL = """
CREATE TABLE terms (term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL, sky TEXT NOT NULL,
    docs BLOB NOT NULL, tfs BLOB NOT NULL, dls BLOB NOT NULL);
"""

# (document ids, term frequencies, document lengths), parallel and in document order.
Lists: TypeAlias = tuple["array[int]", "array[int]", "array[int]"]


def empty() -> Lists:
    return array(TYPECODE), array(TYPECODE), array(TYPECODE)


def decode(docs: bytes, tfs: bytes, dls: bytes) -> Lists:
    out = empty()
    for arr, data in zip(out, (docs, tfs, dls), strict=True):
        arr.frombytes(data)
    return out


class Changes:
    """The postings one index update adds and removes, written per term by `write`.

    A term's df is exact (recall's idf uses it). Its skyline gains the points of added postings;
    after a removal it may promise more than any remaining posting gives, which is still a bound."""

    def __init__(self) -> None:
        self.added: dict[str, Lists] = {}
        self.removed: dict[str, set[int]] = {}

    def add(self, doc: int, terms: dict[str, int], dl: int) -> None:
        added = self.added
        for term, tf in terms.items():
            lists = added.get(term)
            if lists is None:
                lists = added[term] = empty()
            lists[0].append(doc)
            lists[1].append(tf)
            lists[2].append(dl)

    def remove(self, doc: int, terms: Iterable[str]) -> None:
        for term in terms:
            self.removed.setdefault(term, set()).add(doc)

    def write(self, conn: sqlite3.Connection) -> None:
        touched = list(self.added.keys() | self.removed.keys())
        sql = "SELECT term, sky, docs, tfs, dls FROM terms WHERE term IN (SELECT value FROM json_each(?))"
        old = {row[0]: row[1:] for row in conn.execute(sql, (json.dumps(touched),))}
        gone: list[tuple[str]] = []
        rows: list[tuple[str, int, str, bytes, bytes, bytes]] = []
        for term in touched:
            sky, docs, tfs, dls = old.get(term, ("", b"", b"", b""))
            lists = decode(docs, tfs, dls)
            removed = self.removed.get(term)
            if removed:
                keep = [i for i, doc in enumerate(lists[0]) if doc not in removed]
                lists = tuple(array(TYPECODE, (arr[i] for i in keep)) for arr in lists)  # type: ignore[assignment]
            new = self.added.get(term)
            points = bm25.parse_skyline(sky)
            if new is not None:
                if lists[0] and new[0][0] <= lists[0][-1]:
                    # New ids are above every indexed one (SQLite's max rowid + 1); keep order anyway.
                    rows_ = sorted([*zip(*lists, strict=True), *zip(*new, strict=True)])
                    lists = tuple(array(TYPECODE, col) for col in zip(*rows_, strict=True))  # type: ignore[assignment]
                else:
                    for arr, more in zip(lists, new, strict=True):
                        arr.extend(more)
                points = bm25.add_to_skyline(points, zip(new[1], new[2], strict=True))
            if not lists[0]:
                gone.append((term,))
                continue
            blobs = [arr.tobytes() for arr in lists]
            rows.append((term, len(lists[0]), bm25.skyline_text(points), *blobs))  # type: ignore[arg-type]
        conn.executemany("DELETE FROM terms WHERE term = ?", gone)
        conn.executemany(
            "INSERT OR REPLACE INTO terms (term, df, sky, docs, tfs, dls) VALUES (?, ?, ?, ?, ?, ?)", rows
        )


def stats(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, tuple[int, str]]:
    """term -> (document frequency, skyline text), for the indexed ones among `terms`."""
    sql = "SELECT term, df, sky FROM terms WHERE term IN (SELECT value FROM json_each(?))"
    return {term: (df, sky) for term, df, sky in conn.execute(sql, (json.dumps(list(terms)),))}


def read(conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, Lists]:
    """term -> its posting lists, for the indexed ones among `terms`."""
    sql = "SELECT term, docs, tfs, dls FROM terms WHERE term IN (SELECT value FROM json_each(?))"
    return {row[0]: decode(*row[1:]) for row in conn.execute(sql, (json.dumps(list(terms)),))}
