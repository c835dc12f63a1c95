"""Which lessons were recalled into a captured session, and since when.

Recall records its injections in `recall-counters.json` (reasonlessons/recall/counters.py):

1. By session id (exact). `recall --session ID` (and the Claude Code hook, which passes Claude's
   `session_id`, the same id its transcript carries) files injections under that id. A captured
   session whose id, or whose id without a `#segment` suffix (Reasonix v1 names sessions
   `<name>#<segment>`), equals a recorded id gets exactly those lessons.
2. By time window. Recalls made without a session id are logged with their time; when no id
   matches, those that fall inside the session's first-to-last event time (give or take
   WINDOW_SLACK) are taken. The counters live in this repository's state directory, so the repo
   matches by construction. A session without timestamps (SWE-agent, Aider) can only link by id.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonlessons.lessons.model import as_datetime
from reasonlessons.recall.counters import Counters, session_key

WINDOW_SLACK = dt.timedelta(minutes=2)
BY_ID = "session-id"
BY_TIME = "time-window"


@dataclass(frozen=True)
class Link:
    """Lesson keys recalled into a session with their first injection time, and how we know."""

    keys: dict[str, dt.datetime | None]
    how: str | None = None


def _ids(session_id: str) -> list[str]:
    ids = [session_key(session_id)]
    if "#" in session_id:
        ids.append(session_key(session_id.rsplit("#", 1)[0]))
    return ids


def recalled_into(
    state_dir: Path,
    session_id: str,
    started: dt.datetime | None,
    ended: dt.datetime | None,
    *,
    counters: Counters | None = None,
) -> Link:
    """The lessons recall injected into this session (empty Link when none can be tied to it)."""
    counters = counters or Counters.load(state_dir)
    for sid in _ids(session_id):
        entry = counters.sessions.get(sid)
        if not isinstance(entry, dict):
            continue
        seen = entry.get("seen")
        first: dict[str, Any] = entry["first"] if isinstance(entry.get("first"), dict) else {}
        keys = {str(k): as_datetime(first.get(k)) for k in seen} if isinstance(seen, list) else {}
        if keys:
            return Link(keys, BY_ID)
    if started is None or ended is None:
        return Link({})
    low, high = started - WINDOW_SLACK, ended + WINDOW_SLACK
    found: dict[str, dt.datetime | None] = {}
    for entry in counters.recent:
        at = as_datetime(entry.get("at")) if isinstance(entry, dict) else None
        seen = entry.get("seen") if isinstance(entry, dict) else None
        if at is None or not isinstance(seen, list) or not low <= at <= high:
            continue
        for key in map(str, seen):
            old = found.get(key)
            found[key] = at if old is None else min(old, at)
    return Link(found, BY_TIME if found else None)
