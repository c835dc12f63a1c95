"""Recall's own counters in local state: hits, last seen, per-session injections.

`recall-counters.json`, in the state.py envelope (`{"kind", "version", "data"}`) so any state reader
understands it, written by recall (one small atomic write per turn that returned lessons):
`{"lessons": {"<scope>:<name>": {"hits": N, "last": ISO, "tokens": N}},
"sessions": {ID: {"at": ISO, "seen": [key...], "first": {key: ISO}}},
"recent": [{"at": ISO, "seen": [key...]}]}`. `recent` logs the turns recalled without a session id,
so the learning loop can still tie them to a captured session by time (reasonlessons/learning/link.py).
Outcomes live in a document of their own (reasonlessons/store/outcomes.py), so a recall racing the
learning loop can lose at most a hit count, never an outcome.

Recall uses the stdlib json module here, not reasonlessons.support.jsonio: importing orjson costs more than
the whole per-turn budget. A damaged document reads as empty and is rewritten whole: never fatal.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from reasonlessons.constants import STATE_SCHEMA_VERSION
from reasonlessons.support.atomic import write_atomic

COUNTERS_FILE = "recall-counters.json"
COUNTERS_KIND = "recall-counters"
# Sessions are only needed while an agent session lives; keep the document small.
MAX_SESSIONS = 200
SESSION_TTL = dt.timedelta(days=7)
MAX_SESSION_ID = 200
MAX_RECENT = 256


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
        or doc.get("version") != STATE_SCHEMA_VERSION
        or not isinstance(doc.get("data"), dict)
    ):
        return {}, True
    data: dict[str, Any] = doc["data"]
    return data, False


def _write(path: Path, kind: str, data: dict[str, Any], *, durable: bool = True) -> None:
    doc = {"kind": kind, "version": STATE_SCHEMA_VERSION, "data": data}
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
    write_atomic(path, raw, durable=durable)


class Counters:
    """The recall counters document, loaded once per recall and saved at most once."""

    def __init__(self, path: Path, data: dict[str, Any], *, damaged: bool = False) -> None:
        self.path = path
        self.damaged = damaged
        lessons = data.get("lessons")
        sessions = data.get("sessions")
        recent = data.get("recent")
        self.lessons: dict[str, Any] = lessons if isinstance(lessons, dict) else {}
        self.sessions: dict[str, Any] = sessions if isinstance(sessions, dict) else {}
        self.recent: list[Any] = recent if isinstance(recent, list) else []

    @classmethod
    def load(cls, state_dir: Path) -> Counters:
        path = state_dir / COUNTERS_FILE
        data, damaged = _read(path, COUNTERS_KIND)
        return cls(path, data, damaged=damaged)

    def seen(self, session: str | None) -> set[str]:
        """Lesson keys already injected in `session`."""
        if not session:
            return set()
        entry = self.sessions.get(session_key(session))
        seen = entry.get("seen") if isinstance(entry, dict) else None
        return {str(k) for k in seen} if isinstance(seen, list) else set()

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
        stamp = now.isoformat()
        for key in keys:
            entry: dict[str, Any] = {"hits": self.hits(key) + 1, "last": stamp}
            spent = self.tokens(key) + (tokens or {}).get(key, 0)
            if spent:
                entry["tokens"] = spent
            self.lessons[key] = entry
        if session:
            sid = session_key(session)
            seen = sorted(self.seen(session) | set(keys))
            old = self.sessions.get(sid)
            first = old.get("first") if isinstance(old, dict) else None
            first = dict(first) if isinstance(first, dict) else {}
            for key in keys:
                first.setdefault(key, stamp)
            self.sessions[sid] = {"at": stamp, "seen": seen, "first": first}
            self._prune_sessions(now)
        elif keys:
            cutoff = (now - SESSION_TTL).isoformat()
            recent = [e for e in self.recent if isinstance(e, dict) and str(e.get("at", "")) >= cutoff]
            recent.append({"at": stamp, "seen": sorted(set(keys))})
            self.recent = recent[-MAX_RECENT:]

    def _prune_sessions(self, now: dt.datetime) -> None:
        cutoff = (now - SESSION_TTL).isoformat()
        live = {
            sid: entry
            for sid, entry in self.sessions.items()
            if isinstance(entry, dict) and isinstance(entry.get("at"), str) and entry["at"] >= cutoff
        }
        if len(live) > MAX_SESSIONS:
            newest = sorted(live, key=lambda sid: live[sid]["at"], reverse=True)[:MAX_SESSIONS]
            live = {sid: live[sid] for sid in newest}
        self.sessions = live

    def save(self) -> None:
        """Write the document atomically (also rebuilds a damaged one)."""
        # Not fsynced: a crash may lose one turn's counts, never corrupt the file.
        doc = {"lessons": self.lessons, "sessions": self.sessions, "recent": self.recent}
        _write(self.path, COUNTERS_KIND, doc, durable=False)
        self.damaged = False
