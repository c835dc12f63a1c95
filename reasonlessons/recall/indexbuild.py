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
from collections.abc import Iterable
from pathlib import Path

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
# confidence and agents.
SCHEMA = "reasonlessons-recall-index/7"
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
CREATE INDEX kw_token ON kw(token);
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


def apply(conn: sqlite3.Connection, listing: Listing) -> int:
    """Bring the image in line with `listing`; return how many files were (re)parsed or dropped."""
    stored = stored_files(conn)
    changes = postings.Changes()
    changed = 0
    for path in stored.keys() - listing.keys():
        _drop(conn, path, changes)
        changed += 1
    for path, (scope, sig) in listing.items():
        if stored.get(path) == (scope, sig):
            continue
        _drop(conn, path, changes)
        doc = _insert(conn, Path(path), scope, sig, changes)
        conn.execute("INSERT INTO files VALUES (?, ?, ?, ?)", (path, scope, sig, doc))
        changed += 1
    changes.write(conn)
    return changed


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


def _insert(
    conn: sqlite3.Connection, path: Path, scope: str, sig: str, changes: postings.Changes
) -> int | None:
    """Parse one lesson file and file it; None when it cannot be read (validate reports it)."""
    try:
        lesson = lessons.file.read_lesson(path, scope=scope)
    except LessonFileError:
        return None
    # What recall shows is redacted, and trust flags are judged, once per file version: never per turn.
    flags = ",".join(flag.code for flag in store.trust.scan(lesson))
    content = store.trust.lesson_hash(lesson) if flags else ""
    description, body = lesson.description, lesson.body
    if safety.redact.find_secrets(f"{description}\n\x00\n{body}"):  # one scan for the usual clean lesson
        description, body = safety.redact.redact(description).text, safety.redact.redact(body).text
    terms = document_terms(lesson.name, description, body)
    dl = sum(terms.values())
    expires = lesson.expires_at
    dates = [d for d in (lesson.captured_at, lessons.model.as_datetime(lesson.meta.get("refreshed-at"))) if d]
    cur = conn.execute(
        "INSERT INTO docs (name, scope, path, sig, meta, description, body, terms, recency, task_types,"
        " expires, inactive, dl, flags, content, prior, agents)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            lesson.name,
            scope,
            str(path),
            sig,
            json.dumps(lesson.meta, default=_jsonable, sort_keys=True),
            description,
            body,
            json.dumps(terms, sort_keys=True),
            max(dates).isoformat() if dates else "",
            json.dumps(lesson.task_types),
            expires.timestamp() if expires else None,
            1 if lesson.declared_status else 0,
            dl,
            flags,
            content,
            store.confidence.prior_of(lesson.meta),
            json.dumps(lesson.agents),
        ),
    )
    doc = cur.lastrowid
    assert doc is not None
    changes.add(doc, terms, dl)
    if lesson.declared_status != "deprecated":
        names = {n for n in lesson.supersedes if n != lesson.name}
        conn.executemany("INSERT INTO supersedes VALUES (?, ?)", ((n, doc) for n in sorted(names)))
    _insert_triggers(conn, doc, lesson.triggers)
    return doc


def _insert_triggers(conn: sqlite3.Connection, doc: int, triggers: dict[str, list[str]]) -> None:
    for keyword in dict.fromkeys(triggers.get("keywords", [])):
        needle = tokenize(keyword)
        if needle:
            conn.execute("INSERT INTO kw VALUES (?, ?, ?)", (needle[0], doc, " ".join(needle)))
    for glob in dict.fromkeys(triggers.get("files", [])):
        if globs.check(glob) is None:
            conn.executemany(
                "INSERT INTO globs VALUES (?, ?, ?)", ((key, doc, glob) for key in globs.bucket_keys(glob))
            )
    for pattern in dict.fromkeys(triggers.get("commands", [])):
        if linear_re.problem(pattern) is None:
            lit = linear_re.required_literal(pattern)
            key = lit[:CMD_KEY_CHARS] if lit is not None and len(lit) >= CMD_KEY_CHARS else CMD_GENERAL
            conn.execute("INSERT INTO cmds VALUES (?, ?, ?, ?)", (doc, pattern, lit, key))


def _jsonable(value: object) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)
