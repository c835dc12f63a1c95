"""Reduce: one session's events in, its observations out (docs/capture.md#observations).

Takes the normalized events of one session, one at a time; gives SessionObservations: fixes,
repeated failures, verifications, created files, writs and corrections, in bounded memory.

    reducer.py       the reducer: deterministic, offline, bounded
    observations.py  what it noticed, small and ready for the extractor
    pairing.py       when a later call fixes an earlier failure
    commits.py       commit gates: what must run before `git commit` is accepted
    retries.py       loops (the same failure again and again) and fixes an error message named
    setup.py         setup steps: what had to run after a change before the tests passed
    gitfacts.py      git workflow facts: ignored-but-tracked files, the default branch
    toolrules.py     refusals by an agent's own tools that teach a rule for that agent
    messages.py      lessons stated in words: `/lesson` writs and user corrections
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use, when a session is read (reasonlessons/capture/reading.py).
__all__ = ["reducer"]

if TYPE_CHECKING:
    from reasonlessons.capture.reduce import reducer


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture.reduce' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.capture.reduce.{name}")
