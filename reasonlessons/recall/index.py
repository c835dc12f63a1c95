"""The recall index as a turn reads it: validated cheaply, refreshed when lesson files change.

Validation, cheapest first:
1. Every turn: one stat per lessons directory (project, global). Adding, removing or renaming a
   lesson file, and every write reasonlessons or git makes (they replace files), changes it.
2. Every lesson a turn returns: its file's stamp (support/stamp.py) against the indexed one, so an
   edited lesson is never shown with its old text.
3. A sweep (stat of every lesson file, re-parsing only those whose stamp changed) when a directory
   changed, on every turn while there are at most ALWAYS_SWEEP_MAX files, and otherwise at most
   SWEEP_INTERVAL_NS apart, so in-place edits of lessons a turn did not return are also picked up.
The image is opened read-only and immutable: writers replace the file, they never modify it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons.constants import SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.errors import ReasonLessonsError
from reasonlessons.lessons.locations import Locations
from reasonlessons.recall import bm25, postings
from reasonlessons.recall import indexbuild as build
from reasonlessons.recall.bm25 import Posting
from reasonlessons.recall.postings import Dense, Lists, Row
from reasonlessons.support.atomic import write_atomic

INDEX_FILE = "recall-index.sqlite"
_TRIGGER_TABLES = {"keywords": ("kw", "needle"), "files": ("globs", "glob"), "commands": ("cmds", "pattern")}
ALWAYS_SWEEP_MAX = 500
SWEEP_INTERVAL_NS = 60 * 1_000_000_000
# Dense rows (postings.Dense) kept while an image stays open: the common words of one library
# recur turn after turn (50,000 lessons: two 50 KB blobs a word, a few hundred microseconds to read).
DENSE_KEPT = 64
# Every lesson's bound by one term (relevance.TextSearch._lane: 2 bytes a lesson), kept the same way.
LANES_KEPT = 64
# Keyword needles by token and lessons' DocInfo rows kept while an image stays open (at most).
ROWS_KEPT = 4096
# Lessons' texts (the ones a turn returned) kept the same way: a text may be long.
TEXTS_KEPT = 256
# Postings searches read in impact order, with their shares (ReadOrder), kept the same way: at
# most this many in all (about 100 bytes each: 13 MB).
READ_KEPT = 1 << 17
# A level of those bounds: a 4096th of the largest share a word of one lesson can make.
LEVELS_PER_SHARE = 4096


class DocInfo(NamedTuple):
    """What selection needs to know about one indexed lesson (the text is fetched separately)."""

    id: int
    name: str
    scope: str
    path: str
    recency: str
    task_types: list[str]
    expires: float | None
    inactive: bool
    flags: str = ""  # trust flag codes, comma-separated; '' for an unflagged lesson
    content: str = ""  # the content hash trust is keyed by (flagged lessons only)
    prior: float = 0.7  # the confidence its file states (store/confidence.py)
    agents: tuple[str, ...] = ()  # the agents it is for; empty: every agent


class ReadOrder:
    """A term's postings in impact order as far as searches on one image read them: lesson ids,
    their shares of a score (relevance.TextSearch computes them), lengths, and the bound of what
    is left after each place a search stopped at. Lists, not arrays: a warm turn iterates them,
    and boxing every item again would cost what keeping them saves."""

    __slots__ = ("docs", "dls", "rests", "shares")

    def __init__(self) -> None:
        self.docs: list[int] = []
        self.shares: list[float] = []
        self.dls: list[int] = []
        self.rests: dict[int, float] = {}


class DocText(NamedTuple):
    description: str
    body: str
    meta: dict[str, Any]
    sig: str


class LessonIndex:
    """All project and global lessons of one repository, as a queryable cache."""

    def __init__(self, loc: Locations, *, create_state: bool = True) -> None:
        self.loc = loc
        # The `recall` command never creates the state directory; without it the index lives in memory.
        self.create_state = create_state
        self.path = loc.state_dir / INDEX_FILE
        self.conn: sqlite3.Connection | None = None
        self.info: dict[str, str] = {}
        self.warnings: list[str] = []
        self.empty = False
        self._file_id: tuple[int, int] | None = None
        self._in_memory = False
        self._dense: dict[str, Dense] = {}  # of the open image only: close() forgets them
        self.lanes: dict[str, int] = {}  # the same
        self._orders: dict[str, ReadOrder] = {}  # the same
        # Rows of the open image a turn asks for again and again (immutable while it stays open).
        self._needles: dict[str, tuple[str, ...]] = {}  # keyword token -> needles starting with it
        self._infos: dict[int, DocInfo] = {}
        self._lengths: dict[int, int] = {}
        self._stats: dict[str, tuple[int, str] | None] = {}  # None: not indexed
        self._texts: dict[int, tuple[str, str, str, str] | None] = {}  # meta still JSON
        self._superseded: dict[str, bool] = {}
        self._project_names: dict[str, bool] = {}

    @property
    def scoped_dirs(self) -> list[tuple[str, Path]]:
        return [(SCOPE_PROJECT, self.loc.project_dir), (SCOPE_GLOBAL, self.loc.global_dir)]

    @property
    def n_docs(self) -> int:
        return int(self.info.get("n_docs", "0"))

    @property
    def avgdl(self) -> float:
        return float(self.info.get("avgdl", "0"))

    @property
    def level_unit(self) -> float:
        """The unit of the per-lesson bounds of this image (the same for every turn on it)."""
        return bm25.idf(self.n_docs, 1) * (bm25.K1 + 1.0) / LEVELS_PER_SHARE or 1.0

    def keep_lane(self, term: str, lane: int) -> int:
        """Keep a term's lane of bounds for later turns on this image (LANES_KEPT at most)."""
        if len(self.lanes) >= LANES_KEPT:
            del self.lanes[next(iter(self.lanes))]  # the oldest
        self.lanes[term] = lane
        return lane

    def read_order(self, term: str) -> ReadOrder:
        """The term's postings in impact order as far as earlier searches on this image read them
        (past READ_KEPT postings or ROWS_KEPT terms in all, checked as a term is added, they are
        all forgotten)."""
        kept = self._orders.get(term)
        if kept is None:
            if len(self._orders) >= ROWS_KEPT or sum(len(o.docs) for o in self._orders.values()) > READ_KEPT:
                self._orders.clear()
            kept = self._orders[term] = ReadOrder()
        return kept

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn, self.info, self._file_id, self._in_memory = None, {}, None, False
        self._dense, self.lanes, self._needles, self._infos = {}, {}, {}, {}
        self._orders, self._lengths, self._stats, self._texts = {}, {}, {}, {}
        self._superseded, self._project_names = {}, {}

    def ensure(self, *, sweep: bool = False) -> None:
        """Make the index reflect the lesson files now (see the module docstring for how cheaply)."""
        now_ns = time.time_ns()
        dirs = build.dir_states([d for _, d in self.scoped_dirs], now_ns)
        if all(state == build.ABSENT for state in dirs):
            self.close()
            self.empty = True
            return
        self.empty = False
        try:
            st: os.stat_result | None = os.stat(self.path)
        except OSError:
            st = None
        if st is not None and (self._in_memory or self._file_id != (st.st_ino, st.st_size)):
            self.close()
            self._open(st)
        current = (
            self.conn is not None
            and self.info.get("schema") == build.SCHEMA
            and self.info.get("byteorder") == postings.BYTEORDER
            and self.info.get("dirs") == json.dumps(dirs)
        )
        if current and not sweep:
            due = (
                int(self.info.get("files", "0")) <= ALWAYS_SWEEP_MAX
                or st is None
                or now_ns - st.st_mtime_ns > SWEEP_INTERVAL_NS
            )
            if not due:
                return
        self._sweep(dirs, now_ns, trust=current)

    def reset(self) -> None:
        """Throw the cache away and rebuild it from the lesson files (after a damaged read)."""
        self.close()
        with contextlib.suppress(OSError):
            self.path.unlink()
        self.ensure()

    def _open(self, st: os.stat_result) -> None:
        try:
            conn = sqlite3.connect(self.path.as_uri() + "?immutable=1", uri=True)
            info = build.get_info(conn)
        except sqlite3.Error:
            return  # damaged or foreign: the sweep rebuilds it
        self.conn, self.info, self._file_id = conn, info, (st.st_ino, st.st_size)

    def _sweep(self, dirs: list[str], now_ns: int, *, trust: bool) -> None:
        listing = build.list_files(self.scoped_dirs, now_ns)
        if trust and self.conn is not None:
            try:
                unchanged = build.stored_files(self.conn) == listing
            except sqlite3.Error:
                unchanged = False
            if unchanged:
                with contextlib.suppress(OSError):
                    os.utime(self.path)  # the file's mtime records the last full sweep
                return
        previous: bytes | None = None
        try:
            if self._in_memory and self.conn is not None:
                previous = self.conn.serialize()
            elif self.conn is not None:
                previous = self.path.read_bytes()
        except (OSError, sqlite3.Error):
            previous = None
        image = build.new_image(previous)
        build.apply(image, listing)
        build.finish(image, dirs=dirs, files=len(listing))
        self.close()
        if not self.create_state and self.loc.existing_state_dir() is None:
            self.conn, self.info, self._in_memory = image, build.get_info(image), True
            return
        try:
            self.loc.ensure_state_dir()
            write_atomic(self.path, image.serialize(), durable=False)  # a cache: rebuilt if lost
            st = os.stat(self.path)
        except (ReasonLessonsError, OSError) as exc:
            # A read-only checkout still gets recall; it just pays for the scan every turn.
            self.warnings.append(f"recall index not saved ({exc}); recall works but stays slow")
            self.conn, self.info, self._in_memory = image, build.get_info(image), True
            return
        image.close()
        self._open(st)

    # -- queries ----------------------------------------------------------------------------------

    def _rows(self, sql: str, values: Iterable[Any]) -> list[Any]:
        assert self.conn is not None
        return self.conn.execute(sql, (json.dumps(list(values)),)).fetchall()

    def keyword_needles(self, tokens: Iterable[str]) -> list[str]:
        """Distinct keyword needles whose first token is among `tokens` (each is checked once)."""
        kept = self._needles
        tokens = list(tokens)
        _make_room(kept, len(tokens))
        todo = [t for t in tokens if t not in kept]
        if todo:
            sql = "SELECT DISTINCT token, needle FROM kw WHERE token IN (SELECT value FROM json_each(?))"
            found: dict[str, list[str]] = {t: [] for t in todo}
            for token, needle in self._rows(sql, todo):
                found[token].append(needle)
            kept.update((t, tuple(n)) for t, n in found.items())
        return list(dict.fromkeys(n for t in tokens for n in kept.get(t, ())))

    def keyword_docs(self, matched: Iterable[str]) -> list[tuple[int, str]]:
        """(doc, needle) of every lesson with one of the `matched` needles."""
        sql = "SELECT DISTINCT doc, needle FROM kw WHERE needle IN (SELECT value FROM json_each(?))"
        return self._rows(sql, matched)

    def glob_candidates(self, keys: Iterable[str]) -> list[str]:
        """Distinct file-trigger globs filed under any of `keys` (each is evaluated once)."""
        sql = "SELECT DISTINCT glob FROM globs WHERE key IN (SELECT value FROM json_each(?))"
        return [row[0] for row in self._rows(sql, keys)]

    def glob_docs(self, matched: Iterable[str]) -> list[tuple[int, str]]:
        """(doc, glob) of every lesson with one of the `matched` globs."""
        sql = "SELECT DISTINCT doc, glob FROM globs WHERE glob IN (SELECT value FROM json_each(?))"
        return self._rows(sql, matched)

    def command_rows(self, cmd: str) -> list[tuple[int, str, str | None]]:
        """(doc, pattern, required literal) of every command pattern whose literal may occur in
        `cmd`, in the order they were filed: a pattern is filed under its literal's first
        characters, so a command reads only the patterns it could match, however many there are."""
        keys = {cmd[i : i + build.CMD_KEY_CHARS] for i in range(len(cmd) - build.CMD_KEY_CHARS + 1)}
        keys.add(build.CMD_GENERAL)
        sql = (
            "SELECT doc, pattern, lit FROM cmds WHERE key IN (SELECT value FROM json_each(?)) ORDER BY rowid"
        )
        return self._rows(sql, keys)

    def fanout(self, kind: str, triggers: Iterable[str], *, now: float) -> dict[str, int]:
        """How many active lessons reference each trigger (a trigger shared by many says less)."""
        table, column = _TRIGGER_TABLES[kind]
        sql = (
            f"SELECT t.{column}, COUNT(DISTINCT t.doc) FROM {table} t JOIN docs d ON d.id = t.doc "
            f"WHERE t.{column} IN (SELECT value FROM json_each(?)) AND d.inactive = 0 "
            "AND (d.expires IS NULL OR d.expires > ?) "
            "AND d.name NOT IN (SELECT name FROM supersedes) "
            "AND NOT (d.scope = 'global' AND d.name IN (SELECT name FROM docs WHERE scope = 'project')) "
            f"GROUP BY t.{column}"
        )
        assert self.conn is not None
        return dict(self.conn.execute(sql, (json.dumps(list(triggers)), now)).fetchall())

    def postings(self, terms: Iterable[str]) -> dict[str, list[Posting]]:
        """Every posting of `terms` as tuples (whole lists: for tests and tools, not for a turn)."""
        return {
            term: list(zip(lists.ids, lists.tfs, lists.dls, strict=True))
            for term, lists in self.term_lists(terms).items()
        }

    def term_stats(self, terms: Iterable[str]) -> dict[str, tuple[int, str]]:
        """term -> (document frequency, skyline text) for the indexed ones among `terms`."""
        assert self.conn is not None
        kept, terms = self._stats, list(terms)
        _make_room(kept, len(terms))
        todo = [t for t in terms if t not in kept]
        if todo:
            found = postings.stats(self.conn, todo)
            kept.update((t, found.get(t)) for t in todo)
        return {t: stat for t in terms if (stat := kept[t]) is not None}

    def term_lists(self, terms: Iterable[str]) -> dict[str, Lists]:
        """term -> its postings (doc ids, tfs, dls) for the indexed ones among `terms`."""
        assert self.conn is not None
        return postings.read(self.conn, terms)

    def term_rows(self, terms: Iterable[str]) -> dict[str, Row]:
        """term -> what a search reads of it first (postings.search_rows); a common term's dense
        bytes come from memory when an earlier turn on this image read them."""
        assert self.conn is not None
        kept, terms = self._dense, list(terms)
        out = {t: Row(None, kept[t]) for t in terms if t in kept}
        rows = postings.search_rows(self.conn, [t for t in terms if t not in out])
        for term, row in rows.items():
            if row.dense is not None:
                if len(kept) >= DENSE_KEPT:
                    del kept[next(iter(kept))]  # the oldest
                kept[term] = row.dense
        return {**out, **rows}

    def lengths(self, ids: Iterable[int]) -> dict[int, int]:
        """doc -> its length in terms, for the indexed ones among `ids`."""
        kept, ids = self._lengths, list(ids)
        _make_room(kept, len(ids))
        todo = [i for i in ids if i not in kept]
        if todo:
            sql = "SELECT id, dl FROM docs WHERE id IN (SELECT value FROM json_each(?))"
            kept.update(self._rows(sql, todo))
        return {i: kept[i] for i in ids if i in kept}

    def term_impact(self, term: str) -> Sequence[int]:
        """The positions of an indexed term's postings, highest share of a score first."""
        assert self.conn is not None
        return postings.read_impact(self.conn, term)

    def docs(self, ids: Iterable[int]) -> dict[int, DocInfo]:
        kept = self._infos
        ids = list(ids)
        _make_room(kept, len(ids))
        todo = [i for i in ids if i not in kept]
        if todo:
            kept.update(self._read_docs(todo))
        return {i: kept[i] for i in ids if i in kept}

    def _read_docs(self, ids: Iterable[int]) -> dict[int, DocInfo]:
        sql = (
            "SELECT id, name, scope, path, recency, task_types, expires, inactive, flags, content, prior,"
            " agents FROM docs WHERE id IN (SELECT value FROM json_each(?))"
        )
        return {
            row[0]: DocInfo(
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                json.loads(row[5]),
                row[6],
                bool(row[7]),
                row[8],
                row[9],
                row[10],
                tuple(json.loads(row[11])),
            )  # fmt: skip
            for row in self._rows(sql, ids)
        }

    def superseded(self, names: Iterable[str]) -> set[str]:
        sql = "SELECT DISTINCT name FROM supersedes WHERE name IN (SELECT value FROM json_each(?))"
        return self._which(self._superseded, sql, names)

    def project_names(self, names: Iterable[str]) -> set[str]:
        sql = (
            "SELECT DISTINCT name FROM docs WHERE scope = 'project' "
            "AND name IN (SELECT value FROM json_each(?))"
        )
        return self._which(self._project_names, sql, names)

    def _which(self, kept: dict[str, bool], sql: str, names: Iterable[str]) -> set[str]:
        """The `names` the query lists, each asked of the image once while it stays open."""
        names = set(names)
        _make_room(kept, len(names))
        todo = [n for n in names if n not in kept]
        if todo:
            found = {row[0] for row in self._rows(sql, todo)}
            kept.update((n, n in found) for n in todo)
        return {n for n in names if kept[n]}

    def text(self, doc: int) -> DocText | None:
        assert self.conn is not None
        kept = self._texts
        if doc not in kept:
            _make_room(kept, 1, TEXTS_KEPT)
            sql = "SELECT description, body, meta, sig FROM docs WHERE id = ?"
            kept[doc] = self.conn.execute(sql, (doc,)).fetchone()
        row = kept[doc]
        # The meta is decoded for each caller: a dict it may change is its own.
        return None if row is None else DocText(row[0], row[1], json.loads(row[2]), row[3])


def _make_room(kept: dict[Any, Any], wanted: int, most: int = ROWS_KEPT) -> None:
    """Forget every kept row when `wanted` more could pass `most` (before a caller looks up what
    is kept: a row it found there must stay until it has read it)."""
    if len(kept) + wanted > most:
        kept.clear()


def file_changed(path: str, indexed_sig: str) -> bool:
    """True when the lesson file is no longer the version the index read.

    A stamp recorded as racy stops matching once it is old enough to trust, so such a file is
    read again then, exactly as the sweep does."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return True
    return build.stamp(info, time.time_ns()) != indexed_sig
