"""Every session a repository has, of every agent, oldest first, and how to read each one again.

Logs are read once to list their sessions: where each can be read from again (the adapter's resume
point when its first event came out), when it started, and its place in its file. Sessions are
ordered by start time; within one file, file order wins (an Aider history merged or hand-edited
may hold a launch earlier than the one before it), and a session without a time takes its
predecessor's (the first of a file, the oldest possible time). Only one session's events are held
in memory at a time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons.capture.reading import READ_ERRORS
from reasonlessons.sessions.events import Event, ReadStats

if TYPE_CHECKING:
    from reasonlessons.sessions.adapters import Adapter

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Spot:
    """One session: its log, where to read it from again, and when it started."""

    agent: str
    session_id: str
    log: Path
    adapter: Adapter
    offset: int
    seq: int
    line: int
    started: dt.datetime | None  # as the log says
    at: dt.datetime  # for ordering: never before the session before it in the same file
    index: tuple[int, int]  # (file, position in the file)


def spots(logs: list[tuple[Path, Adapter]], skip: list[tuple[str, str]]) -> list[Spot]:
    """The sessions of `logs`, oldest first; a log that cannot be read goes to `skip` (path, why)."""
    found: list[Spot] = []
    for number, (path, adapter) in enumerate(logs):
        try:
            found.extend(_spots_of(number, path, adapter))
        except READ_ERRORS as exc:
            skip.append((str(path), f"cannot read: {exc}"))
    return sorted(found, key=lambda s: (s.at, s.index))


def _spots_of(number: int, path: Path, adapter: Adapter) -> Iterator[Spot]:
    stats = ReadStats()
    current: str | None = None
    opened: tuple[int, int, int] = (0, 0, 1)
    started: dt.datetime | None = None
    floor: dt.datetime | None = None
    position = 0
    for event in adapter.read_session(path, stats=stats):
        if event.session_id != current:
            if current is not None:
                floor = _at(started, floor)
                yield Spot(adapter.name, current, path, adapter, *opened, started, floor, (number, position))
                position += 1
            current, started = event.session_id, None
            opened = (stats.resume_offset, stats.resume_seq, stats.resume_line)
        if started is None and event.ts is not None:
            started = event.ts
    if current is not None:
        floor = _at(started, floor)
        yield Spot(adapter.name, current, path, adapter, *opened, started, floor, (number, position))


def _at(started: dt.datetime | None, floor: dt.datetime | None) -> dt.datetime:
    """When a session counts as started: its own time, never before the one before it in its file;
    without a time, its predecessor's, or the oldest possible for the first (a log cut at the top)."""
    when = started or floor or _EPOCH
    return max(when, floor) if floor is not None else when


def events(spot: Spot) -> list[Event]:
    """The events of one session, read again from its resume point (other sessions' passed over)."""
    out: list[Event] = []
    stats = ReadStats()
    read = spot.adapter.read_session(
        spot.log, stats=stats, start_offset=spot.offset, start_seq=spot.seq, start_line=spot.line
    )
    for event in read:
        if event.session_id == spot.session_id:
            out.append(event)
        elif out:
            break  # the next session has started
    return out
