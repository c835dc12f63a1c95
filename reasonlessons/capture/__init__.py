"""Capture: session logs in, candidate lessons out (docs/capture.md).

Takes the logs `sessions` reads and a Project; gives candidate files in `_candidates/` (or more
evidence on a lesson that already says it) and a CaptureReport, reading only what is new.

    pipeline.py    the library entry: capture(project, paths, ...) -> CaptureReport
    sources.py     which logs a run reads: the paths given (files or folders), or the discovered ones
    reading.py     the read phase of one log: its new events -> reduced sessions
    pool.py        the read phase of several logs at once in worker processes (--jobs)
    checkpoint.py  per-log checkpoints in local state: a re-run reads only new bytes
    reduce/        one session's events -> observations
    extract/       observations -> candidate drafts (heuristic, or an LLM)
    apply.py       one ended session: extract, gate, write, and hand it to the learning loop
    gates.py       the write gates, all applied before anything is written
    dedupe.py      near-duplicates of an existing lesson or an earlier draft
    writer.py      a new candidate file, or more evidence on the lesson a draft duplicates
    report.py      what a run reports: written, updated, skipped and why, progress
    notices.py     candidates written from `/lesson` writs, until the agent is told (the hook)
    writs.py       a `/lesson` writ in a prompt, recorded as a candidate the moment it is submitted
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: a capture whose logs did not change loads no log adapter (`adapters` is
# reasonlessons.sessions.adapters, which the sessions package cannot offer: the adapters build on it),
# and reads, gates and applies nothing, and starts no pool: none of the reading and extracting code
# is imported.
__all__ = ["adapters", "apply", "gates", "notices", "pool", "reading", "writs"]

if TYPE_CHECKING:
    from reasonlessons.capture import apply, gates, notices, pool, reading, writs
    from reasonlessons.sessions import adapters


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture' has no attribute {name!r}")
    if name == "adapters":
        return importlib.import_module("reasonlessons.sessions.adapters")
    return importlib.import_module(f"reasonlessons.capture.{name}")
