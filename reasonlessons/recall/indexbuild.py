"""Building the recall index: list the lesson files, parse only what changed, write one SQLite image.

The index is a cache of every project and global lesson (parsed frontmatter, body, BM25 terms,
triggers filed for lookup), so a warm recall never imports yaml/frontmatter or reads 10,000 files.
Updates are incremental: the previous image is loaded into memory, rows of changed, new and removed
files are replaced, and the new image is written with reasonlessons.support.atomic (readers keep the old
inode open, so they never see a half-written index).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons import lessons, safety, store
from reasonlessons.constants import (
    CANDIDATES_DIR,
    LESSON_SUFFIX,
    NAME_RE,
    SCOPE_PROJECT,
)
from reasonlessons.errors import LessonFileError
from reasonlessons.recall import globs, postings
from reasonlessons.recall.bm25 import document_terms
from reasonlessons.safety import linear_re
from reasonlessons.support import stamp as stamps
from reasonlessons.support.tokens import tokenize

# 6: packed posting lists with df and skyline, commands by literal; 7: each lesson's prior
# confidence and agents; 8: each posting list's impact order.
SCHEMA = "reasonlessons-recall-index/9"
# matches once the file is old enough to trust, so the file is read again then.
RACY = "racy"
ABSENT = "absent"

DDL = """
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (path TEXT PRIMARY KEY, scope TEXT NOT NULL, sig TEXT NOT NULL, doc INTEGER);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, scope TEXT NOT NULL, path TEXT NOT NULL, sig TEXT NOT NULL,
    meta TEXT NOT NULL, description TEXT NOT NULL, body TEXT NOT NULL, terms TEXT NOT NULL,
    recency TEXT NOT NULL, task_types TEXT NOT NULL, expires REAL, inactive INTEGER NOT NULL,
    dl INTEGER NOT NULL, flags TEXT NOT NULL, content TEXT NOT NULL, prior REAL NOT NULL,
    agents TEXT NOT NULL);
CREATE INDEX docs_name ON docs(name);
CREATE TABLE supersedes (name TEXT NOT NULL, doc INTEGER NOT NULL);
CREATE INDEX supersedes_name ON supersedes(name);
CREATE INDEX supersedes_doc ON supersedes(doc);
CREATE TABLE kw (token TEXT NOT NULL, doc INTEGER NOT NULL, needle TEXT NOT NULL);
CREATE INDEX kw_token ON kw(token, needle);
CREATE INDEX kw_needle ON kw(needle);
CREATE INDEX kw_doc ON kw(doc);
CREATE TABLE globs (key TEXT NOT NULL, doc INTEGER NOT NULL, glob TEXT NOT NULL);
CREATE INDEX globs_key ON globs(key);
CREATE INDEX globs_glob ON globs(glob);
CREATE INDEX globs_doc ON globs(doc);
CREATE TABLE cmds (doc INTEGER NOT NULL, pattern TEXT NOT NULL, lit TEXT, key TEXT NOT NULL);
CREATE INDEX cmds_pattern ON cmds(pattern);
CREATE INDEX cmds_doc ON cmds(doc);
CREATE INDEX cmds_key ON cmds(key);
"""
# A command pattern is filed under the first characters of its required literal (a command that does
# not contain them cannot match it), or under CMD_GENERAL when it has no literal that long.
CMD_KEY_CHARS = 3
CMD_GENERAL = ""

# path -> (scope, signature)
Listing = dict[str, tuple[str, str]]
# A first build of a big library reads its files in worker processes, POOL_CHUNK files a task.
POOL_MIN = 2000
POOL_CHUNK = 250
MAX_WORKERS = 4
MEMO_MAX = 4096
# Rows are inserted every FLUSH_EVERY files, so that a pooled build inserts while workers still read.
FLUSH_EVERY = 2000
# What every worker needs, imported once by the fork server rather than by each worker.
_PRELOAD = [
    __name__,
    "reasonlessons.lessons.file",
    "reasonlessons.store.trust",
    "reasonlessons.safety.redact",
    "frontmatter",
    "yaml",
]


def stamp(info: os.stat_result, now_ns: int) -> str:
    """The signature of a file version as stored in the index: its stamp as text."""
    found = stamps.of(info)
    sig = stamps.text(found)
    return f"{RACY}:{sig}" if stamps.racy(found, now_ns) else sig


def dir_states(dirs: Iterable[Path], now_ns: int) -> list[str]:
    """One cheap stamp per lessons directory: adding, removing or renaming a file changes it."""
    out = []
    for directory in dirs:
        try:
            info = os.stat(directory)
        except OSError:
            out.append(ABSENT)
            continue
        out.append(stamp(info, now_ns))
    return out


def list_files(scoped_dirs: Iterable[tuple[str, Path]], now_ns: int) -> Listing:
    """Every lesson-named regular file of the scopes, as the store lists them, with its stamp."""
    out: Listing = {}
    for scope, directory in scoped_dirs:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(LESSON_SUFFIX):
                continue
            if scope == SCOPE_PROJECT and name == CANDIDATES_DIR:
                continue
            if not NAME_RE.match(name[: -len(LESSON_SUFFIX)]):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out[entry.path] = (scope, stamp(info, now_ns))
    return out


def new_image(data: bytes | None) -> sqlite3.Connection:
    """An in-memory copy of the previous image, or an empty one when there is none (or it is bad)."""
    conn = sqlite3.connect(":memory:")
    if data:
        try:
            conn.deserialize(data)
            info = get_info(conn)
            if info.get("schema") == SCHEMA and info.get("byteorder") == postings.BYTEORDER:
                return conn
        except sqlite3.Error:
            pass
        conn.close()
        conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + postings.DDL)
    return conn


def get_info(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM info").fetchall())


def stored_files(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    return {path: (scope, sig) for path, scope, sig in conn.execute("SELECT path, scope, sig FROM files")}


def apply(conn: sqlite3.Connection, listing: Listing, *, workers: int | None = None) -> int:
    """Bring the image in line with `listing`; return how many files were (re)parsed or dropped.

    Changed files are read into entries (in worker processes when there are many: see
    `iter_entries`) and filed as they come, in listing order with ids counted up from the highest
    kept one, as SQLite would give them: the image is the same whichever way the entries were read."""
    stored = stored_files(conn)
    changes = postings.Changes()
    gone = stored.keys() - listing.keys()
    todo = [(path, scope, sig) for path, (scope, sig) in listing.items() if stored.get(path) != (scope, sig)]
    for path in [*gone, *(path for path, _, _ in todo)]:
        _drop(conn, path, changes)
    entries = iter_entries([(path, scope) for path, scope, _ in todo], workers=workers)
    (last,) = conn.execute("SELECT COALESCE(MAX(id), 0) FROM docs").fetchone()
    rows: dict[str, list[tuple[Any, ...]]] = {
        t: [] for t in ("files", "docs", "supersedes", "kw", "globs", "cmds")
    }
    for n, ((path, scope, sig), entry) in enumerate(zip(todo, entries, strict=True), 1):
        doc = None
        if entry is not None:
            last += 1
            doc = last
            _file(rows, doc, path, scope, sig, entry)
            changes.add(doc, entry.terms, entry.dl)
        rows["files"].append((path, scope, sig, doc))
        if n % FLUSH_EVERY == 0:  # while the workers read on; each table's rows keep their order
            _insert(conn, rows)
    _insert(conn, rows)
    changes.write(conn)
    return len(gone) + len(todo)


def _insert(conn: sqlite3.Connection, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """Insert the batched rows, table by table, and empty the batch."""
    for table, values in rows.items():
        if values:
            marks = ", ".join("?" * len(values[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
            values.clear()


def finish(conn: sqlite3.Connection, *, dirs: list[str], files: int) -> None:
    n_docs, total = conn.execute("SELECT COUNT(*), COALESCE(SUM(dl), 0) FROM docs").fetchone()
    info = {
        "schema": SCHEMA,
        "byteorder": postings.BYTEORDER,
        "dirs": json.dumps(dirs),
        "files": str(files),
        "n_docs": str(n_docs),
        "avgdl": repr(total / n_docs if n_docs else 0.0),
    }
    conn.executemany("INSERT OR REPLACE INTO info VALUES (?, ?)", info.items())
    conn.commit()


def _drop(conn: sqlite3.Connection, path: str, changes: postings.Changes) -> None:
    row = conn.execute("SELECT doc FROM files WHERE path = ?", (path,)).fetchone()
    conn.execute("DELETE FROM files WHERE path = ?", (path,))
    if row is None or row[0] is None:
        return
    doc = row[0]
    terms_row = conn.execute("SELECT terms FROM docs WHERE id = ?", (doc,)).fetchone()
    if terms_row is not None:
        changes.remove(doc, json.loads(terms_row[0]))
    for table in ("kw", "globs", "cmds", "supersedes"):
        conn.execute(f"DELETE FROM {table} WHERE doc = ?", (doc,))
    conn.execute("DELETE FROM docs WHERE id = ?", (doc,))


class Entry(NamedTuple):
    """What the index keeps of one lesson file, read without the index (a worker process may)."""

    name: str
    meta: str  # JSON
    description: str  # redacted, as recall shows it
    body: str
    terms: dict[str, int]
    recency: str
    task_types: str  # JSON
    expires: float | None
    inactive: int
    dl: int
    flags: str
    content: str
    prior: float
    agents: str  # JSON
    supersedes: list[str]
    keywords: list[tuple[str, str]]  # (first token, needle)
    globs: list[tuple[str, str]]  # (bucket key, glob)
    commands: list[tuple[str, str | None, str]]  # (pattern, required literal, key)


def read_entry(path: str, scope: str) -> Entry | None:
    """Parse one lesson file into its entry; None when it cannot be read (validate reports it)."""
    try:
        lesson = lessons.file.read_lesson(Path(path), scope=scope)
    except LessonFileError:
        return None
    # What recall shows is redacted, and trust flags are judged, once per file version: never per turn.
    flags = ",".join(flag.code for flag in store.trust.scan(lesson))
    content = store.trust.lesson_hash(lesson) if flags else ""
    description, body = lesson.description, lesson.body
    if safety.redact.find_secrets(f"{description}\n\x00\n{body}"):  # one scan for the usual clean lesson
        description, body = safety.redact.redact(description).text, safety.redact.redact(body).text
    terms = document_terms(lesson.name, description, body)
    expires = lesson.expires_at
    dates = [d for d in (lesson.captured_at, lessons.model.as_datetime(lesson.meta.get("refreshed-at"))) if d]
    supersedes: list[str] = []
    if lesson.declared_status != "deprecated":
        supersedes = sorted({n for n in lesson.supersedes if n != lesson.name})
    keywords, file_globs, commands = _triggers(lesson.triggers)
    return Entry(
        lesson.name,
        json.dumps(lesson.meta, default=_jsonable, sort_keys=True),
        description,
        body,
        terms,
        max(dates).isoformat() if dates else "",
        json.dumps(lesson.task_types),
        expires.timestamp() if expires else None,
        1 if lesson.declared_status else 0,
        sum(terms.values()),
        flags,
        content,
        store.confidence.prior_of(lesson.meta),
        json.dumps(lesson.agents),
        supersedes,
        keywords,
        file_globs,
        commands,
    )


def read_entries(files: list[tuple[str, str]], *, workers: int | None = None) -> list[Entry | None]:
    """The entries of (path, scope) pairs, in order (see `iter_entries`)."""
    return list(iter_entries(files, workers=workers))


def iter_entries(files: list[tuple[str, str]], *, workers: int | None = None) -> Iterator[Entry | None]:
    """The entries of (path, scope) pairs, in order: in worker processes when there are at least
    POOL_MIN files and more than one CPU (a first build of 50,000 lessons is parse-bound), else here.
    `workers` overrides the count (0 or 1: here). Yielded as the workers finish them, so that the
    caller files the first ones while the rest are read, rather than after the last."""
    count = _cpus() if workers is None else workers
    count = min(count, MAX_WORKERS, len(files))
    if count < 2 or (workers is None and len(files) < POOL_MIN):
        yield from (read_entry(path, scope) for path, scope in files)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    methods = multiprocessing.get_all_start_methods()
    # forkserver: workers never copy this process (an open index, a caller's threads or locks).
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload(_PRELOAD)
    size = min(POOL_CHUNK, -(-len(files) // count))
    chunks = [files[i : i + size] for i in range(0, len(files), size)]
    done = 0
    try:
        with ProcessPoolExecutor(count, mp_context=context) as pool:
            for chunk in pool.map(_read_chunk, chunks):
                for entry in chunk:
                    yield entry
                    done += 1
    except (BrokenProcessPool, OSError, RuntimeError):
        # No pool here (or it broke): what the workers did not hand over is read in-process.
        yield from (read_entry(path, scope) for path, scope in files[done:])


def _read_chunk(files: list[tuple[str, str]]) -> list[Entry | None]:
    return [read_entry(path, scope) for path, scope in files]


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return os.cpu_count() or 1


def _file(
    rows: dict[str, list[tuple[Any, ...]]], doc: int, path: str, scope: str, sig: str, e: Entry
) -> None:
    """The rows of one entry, added to the batch `apply` inserts."""
    rows["docs"].append(
        (
            doc,
            e.name,
            scope,
            path,
            sig,
            e.meta,
            e.description,
            e.body,
            json.dumps(e.terms, sort_keys=True),
            e.recency,
            e.task_types,
            e.expires,
            e.inactive,
            e.dl,
            e.flags,
            e.content,
            e.prior,
            e.agents,
        )  # fmt: skip
    )
    rows["supersedes"].extend((name, doc) for name in e.supersedes)
    rows["kw"].extend((token, doc, needle) for token, needle in e.keywords)
    rows["globs"].extend((key, doc, glob) for key, glob in e.globs)
    rows["cmds"].extend((doc, pattern, lit, key) for pattern, lit, key in e.commands)


def _triggers(
    triggers: dict[str, list[str]],
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, str | None, str]]]:
    """A lesson's triggers as filed for lookup; unusable globs and patterns are left out."""
    keywords = []
    for keyword in dict.fromkeys(triggers.get("keywords", [])):
        needle = tokenize(keyword)
        if needle:
            keywords.append((needle[0], " ".join(needle)))
    file_globs = [
        (key, glob) for glob in dict.fromkeys(triggers.get("files", [])) for key in _glob_keys(glob)
    ]
    commands = [
        filed for pattern in dict.fromkeys(triggers.get("commands", [])) if (filed := _command(pattern))
    ]
    return keywords, file_globs, commands


# Many lessons share a glob or a command pattern: each is checked and filed once per process.
_GLOB_KEYS: dict[str, list[str]] = {}
_COMMANDS: dict[str, tuple[str, str | None, str] | None] = {}


def _glob_keys(glob: str) -> list[str]:
    keys = _GLOB_KEYS.get(glob)
    if keys is None:
        keys = globs.bucket_keys(glob) if globs.check(glob) is None else []
        if len(_GLOB_KEYS) >= MEMO_MAX:
            _GLOB_KEYS.clear()
        _GLOB_KEYS[glob] = keys
    return keys


def _command(pattern: str) -> tuple[str, str | None, str] | None:
    if pattern in _COMMANDS:
        return _COMMANDS[pattern]
    filed = None
    if linear_re.problem(pattern) is None:
        lit = linear_re.required_literal(pattern)
        key = lit[:CMD_KEY_CHARS] if lit is not None and len(lit) >= CMD_KEY_CHARS else CMD_GENERAL
        filed = (pattern, lit, key)
    if len(_COMMANDS) >= MEMO_MAX:
        _COMMANDS.clear()
    _COMMANDS[pattern] = filed
    return filed


def _jsonable(value: object) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)
