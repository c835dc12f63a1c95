"""Recall's own counters in local state: hits, last seen, per-session injections.

Two files in the state directory, so that a turn's cost is one append, not the whole document:

* `recall-counters.json`, in the state.py envelope (`{"kind", "version", "data"}`), the counters as
  of its last write: `{"lessons": {"<scope>:<name>": {"hits": N, "last": ISO, "tokens": N}},
  "sessions": {ID: {"at": ISO, "seen": [key...], "first": {key: ISO}}},
  "recent": [{"at": ISO, "seen": [key...]}], "journal": {"id": ID, "records": N}}`. `recent` logs
  the turns recalled without a session id, so the learning loop can still tie them to a captured
  session by time (reasonlessons/learning/link.py). `journal` says which records of the journal
  it already holds.
* `recall-counters.log`, the journal: a header line `{"journal": ID}`, then one JSON line per turn
  recalled (`{"at", "keys", "tokens", "session"}`), each appended with one `write` in O_APPEND mode
  and preceded by a newline, so a line torn by a crash never swallows the next one (it is skipped).

The counters are the document plus the journal's records after the first `records` (all of them
when the journal's id is not the document's). A turn only appends (`flush`), and reads the files
only when it needs a session's lessons; once the journal passes JOURNAL_BYTES the turn folds it into
the document, written atomically first, and then starts a new journal (a new id). Killed between the
two, the document's `journal` mark keeps its records from being counted twice. A turn appended by
another process while one folds (between its read and its new journal) is lost: the same as two
concurrent rewrites of the whole document lost one of them before the journal. Version 1 documents
(no journal) are read as they are. Outcomes live in a document of their own
(reasonlessons/store/outcomes.py), so a recall racing the learning loop can lose at most a hit
count, never an outcome.

Recall uses the stdlib json module here, not reasonlessons.support.jsonio: importing orjson costs more than
the whole per-turn budget. A damaged document reads as empty and is rewritten whole: never fatal.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from reasonlessons.support.atomic import write_atomic

COUNTERS_FILE = "recall-counters.json"
JOURNAL_FILE = "recall-counters.log"
COUNTERS_KIND = "recall-counters"
COUNTERS_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1: no journal
# Sessions are only needed while an agent session lives; keep the document small.
MAX_SESSIONS = 200
SESSION_TTL = dt.timedelta(days=7)
MAX_SESSION_ID = 200
MAX_RECENT = 256
# The journal is folded into the document past this size (about a hundred turns): a turn with a
# session id reads it whole.
JOURNAL_BYTES = 16 * 1024


def lesson_key(scope: str, name: str) -> str:
    return f"{scope}:{name}"


def session_key(session: str) -> str:
    """Session ids come from agents; keep them bounded and printable."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in session.strip())
    return cleaned[:MAX_SESSION_ID]


def _read(path: Path, kind: str) -> tuple[dict[str, Any], bool]:
    """(data, damaged): a missing file is empty and fine; a corrupt one is empty and damaged."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, False
    except OSError:
        return {}, True
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return {}, True
    if (
        not isinstance(doc, dict)
        or doc.get("kind") != kind
        or doc.get("version") not in READABLE_VERSIONS
        or not isinstance(doc.get("data"), dict)
    ):
        return {}, True
    data: dict[str, Any] = doc["data"]
    return data, False


def _write(path: Path, kind: str, data: dict[str, Any], *, durable: bool = True) -> None:
    doc = {"kind": kind, "version": COUNTERS_VERSION, "data": data}
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
    write_atomic(path, raw, durable=durable)


def _journal(raw: bytes) -> tuple[str | None, list[bytes]]:
    """(the journal's id, its record lines): a torn or foreign line is a record that folds to nothing."""
    lines = [line for line in raw.split(b"\n") if line.strip()]
    if not lines:
        return None, []
    try:
        head = json.loads(lines[0])
    except (ValueError, RecursionError):
        head = None
    if isinstance(head, dict) and isinstance(head.get("journal"), str):
        return head["journal"], lines[1:]
    return None, lines


def _mark_of(data: dict[str, Any]) -> dict[str, Any]:
    """The document's mark of the journal records it holds (`{"id", "records"}`; {} for none)."""
    mark = data.get("journal")
    return mark if isinstance(mark, dict) else {}


def _unheld(mark: dict[str, Any], journal: str | None, lines: list[bytes]) -> list[bytes]:
    """The journal's record lines that a document marked `mark` does not hold yet."""
    held = mark.get("records") if journal is not None and mark.get("id") == journal else 0
    return lines[held:] if isinstance(held, int) and held > 0 else lines


def _header() -> bytes:
    return json.dumps({"journal": os.urandom(8).hex()}).encode("utf-8")


class Counters:
    """The recall counters, loaded on first use (a turn without a session never reads them) and
    saved at most once: `flush` appends what `record` noted, `save` rewrites the document."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal_path = path.with_name(JOURNAL_FILE)
        self._damaged = False
        self._loaded = False
        self._pending: list[dict[str, Any]] = []  # recorded, not yet in the journal
        self._mark: dict[str, Any] = {}  # the journal records the state holds: {"id", "records"}
        self._lessons: dict[str, Any] = {}
        self._sessions: dict[str, Any] = {}
        self._recent: list[Any] = []

    @classmethod
    def load(cls, state_dir: Path) -> Counters:
        """The counters of `state_dir`; the files are read when something is first asked."""
        return cls(state_dir / COUNTERS_FILE)

    @property
    def lessons(self) -> dict[str, Any]:
        self._load()
        return self._lessons

    @property
    def sessions(self) -> dict[str, Any]:
        self._load()
        return self._sessions

    @property
    def recent(self) -> list[Any]:
        self._load()
        return self._recent

    @property
    def damaged(self) -> bool:
        self._load()
        return self._damaged

    def _load(self) -> None:
        """The document, then the journal's records it does not hold yet, then what was recorded here."""
        if self._loaded:
            return
        self._loaded = True
        data, self._damaged = _read(self.path, COUNTERS_KIND)
        lessons, sessions, recent = data.get("lessons"), data.get("sessions"), data.get("recent")
        self._lessons = lessons if isinstance(lessons, dict) else {}
        self._sessions = sessions if isinstance(sessions, dict) else {}
        self._recent = recent if isinstance(recent, list) else []
        journal, lines = self._read_journal()
        latest = ""
        for line in _unheld(_mark_of(data), journal, lines):
            latest = max(latest, self._fold(line))
        if latest:  # once, not per record: a fold of a hundred turns stays linear
            self._prune_sessions(dt.datetime.fromisoformat(latest))
        self._mark = {"id": journal, "records": len(lines)}
        for entry in self._pending:
            self._apply(entry)

    def _read_journal(self) -> tuple[str | None, list[bytes]]:
        try:
            raw = self.journal_path.read_bytes()
        except OSError:
            return None, []
        return _journal(raw)

    def _fold(self, line: bytes) -> str:
        """Apply one journal record; its time ('' when the line is not a record)."""
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            return ""  # torn by a crash: that turn's counts are lost, as an unfinished write lost them
        if not isinstance(entry, dict) or not isinstance(entry.get("keys"), list):
            return ""
        at = entry.get("at")
        try:
            dt.datetime.fromisoformat(at if isinstance(at, str) else "")
        except ValueError:
            return ""
        self._apply(entry, prune=False)
        return str(at)

    def seen(self, session: str | None) -> set[str]:
        """Lesson keys already injected in `session`.

        Before anything else was read, only that session's records are: the document, and the
        journal lines that name the session (the others are not decoded)."""
        if not session:
            return set()
        sid = session_key(session)
        if not self._loaded:
            unread = self._seen_unread(sid)
            if unread is not None:
                return unread
            self._load()  # a damaged document: read everything (the turn's flush rebuilds it and says so)
        entry = self._sessions.get(sid)
        seen = entry.get("seen") if isinstance(entry, dict) else None
        return {str(k) for k in seen} if isinstance(seen, list) else set()

    def _seen_unread(self, sid: str) -> set[str] | None:
        """`seen` from the document and the journal lines naming `sid`; None when the document is damaged."""
        data, damaged = _read(self.path, COUNTERS_KIND)
        if damaged:
            return None
        sessions = data.get("sessions")
        entry = sessions.get(sid) if isinstance(sessions, dict) else None
        before = entry.get("seen") if isinstance(entry, dict) else None
        out = {str(k) for k in before} if isinstance(before, list) else set()
        journal, lines = self._read_journal()
        needle = b'"session":' + json.dumps(sid).encode("utf-8")
        for line in _unheld(_mark_of(data), journal, lines):
            if needle not in line:
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if (
                isinstance(record, dict)
                and record.get("session") == sid
                and isinstance(record.get("keys"), list)
            ):
                out.update(str(k) for k in record["keys"])
        for record in self._pending:
            if record.get("session") == sid:
                out.update(record["keys"])
        return out

    def hits(self, key: str) -> int:
        entry = self.lessons.get(key)
        value = entry.get("hits") if isinstance(entry, dict) else None
        return value if isinstance(value, int) and value >= 0 else 0

    def tokens(self, key: str) -> int:
        """Tokens of lesson text injected so far (lesson text only, as recall estimated it)."""
        entry = self.lessons.get(key)
        value = entry.get("tokens") if isinstance(entry, dict) else None
        return value if isinstance(value, int) and value >= 0 else 0

    def last_seen(self, key: str) -> str | None:
        entry = self.lessons.get(key)
        value = entry.get("last") if isinstance(entry, dict) else None
        return value if isinstance(value, str) else None

    def record(
        self,
        keys: list[str],
        *,
        now: dt.datetime,
        session: str | None,
        tokens: dict[str, int] | None = None,
    ) -> None:
        """Count one injection of each lesson, and remember them for the session."""
        entry: dict[str, Any] = {"at": now.isoformat(), "keys": list(keys)}
        spent = {k: n for k, n in (tokens or {}).items() if k in keys and isinstance(n, int) and n}
        if spent:
            entry["tokens"] = spent
        if session:
            entry["session"] = session_key(session)
        self._pending.append(entry)
        if self._loaded:
            self._apply(entry)

    def _apply(self, entry: dict[str, Any], *, prune: bool = True) -> None:
        """One recorded turn's effect on the counters (a turn just recorded, or one read back)."""
        stamp, keys = str(entry["at"]), [str(k) for k in entry["keys"]]
        spent = entry.get("tokens")
        spent = spent if isinstance(spent, dict) else {}
        for key in keys:
            counted: dict[str, Any] = {"hits": self.hits(key) + 1, "last": stamp}
            more = spent.get(key, 0)
            total = self.tokens(key) + (more if isinstance(more, int) else 0)
            if total:
                counted["tokens"] = total
            self._lessons[key] = counted
        sid = entry.get("session")
        when = dt.datetime.fromisoformat(stamp)
        if isinstance(sid, str) and sid:
            old = self._sessions.get(sid)
            before = old.get("seen") if isinstance(old, dict) else None
            prior = {str(k) for k in before} if isinstance(before, list) else set()
            seen = sorted(prior | set(keys))
            first = old.get("first") if isinstance(old, dict) else None
            first = dict(first) if isinstance(first, dict) else {}
            for key in keys:
                first.setdefault(key, stamp)
            self._sessions[sid] = {"at": stamp, "seen": seen, "first": first}
            if prune:
                self._prune_sessions(when)
        elif keys:
            cutoff = (when - SESSION_TTL).isoformat()
            recent = [e for e in self._recent if isinstance(e, dict) and str(e.get("at", "")) >= cutoff]
            recent.append({"at": stamp, "seen": sorted(set(keys))})
            self._recent = recent[-MAX_RECENT:]

    def _prune_sessions(self, now: dt.datetime) -> None:
        cutoff = (now - SESSION_TTL).isoformat()
        live = {
            sid: entry
            for sid, entry in self._sessions.items()
            if isinstance(entry, dict) and isinstance(entry.get("at"), str) and entry["at"] >= cutoff
        }
        if len(live) > MAX_SESSIONS:
            newest = sorted(live, key=lambda sid: live[sid]["at"], reverse=True)[:MAX_SESSIONS]
            live = {sid: live[sid] for sid in newest}
        self._sessions = live

    def flush(self) -> bool:
        """Append what was recorded to the journal (one write); fold the journal into the document
        when it has grown past JOURNAL_BYTES or the document was found damaged. True when a damaged
        document was rebuilt (its earlier counts are lost)."""
        if self._loaded and self._damaged:
            self.save()
            return True
        if not self._pending:
            return False
        lines = b"".join(b"\n" + json.dumps(e, separators=(",", ":")).encode("utf-8") for e in self._pending)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.journal_path, flags, 0o644)
        try:
            size = os.fstat(fd).st_size
            os.write(fd, (_header() if size == 0 else b"") + lines)
        finally:
            os.close(fd)
        self._pending.clear()
        # What was read no longer says which journal records it holds: read again if asked.
        self._loaded = False
        if size + len(lines) <= JOURNAL_BYTES:
            return False
        # Fold: read everything again (the journal now has this turn, and maybe others'), write
        # the document with all of it, then start a new journal.
        self._load()
        damaged = self._damaged
        self.save()
        write_atomic(self.journal_path, _header() + b"\n", durable=False)
        return damaged

    def save(self) -> None:
        """Write the document atomically with what was read and recorded (a damaged one is
        rebuilt); records appended by others since the read stay in the journal, after its mark."""
        self._load()
        # Not fsynced: a crash may lose one turn's counts, never corrupt the file.
        doc = {
            "lessons": self._lessons,
            "sessions": self._sessions,
            "recent": self._recent,
            "journal": self._mark,
        }
        _write(self.path, COUNTERS_KIND, doc, durable=False)
        self._pending.clear()
        self._damaged = False
