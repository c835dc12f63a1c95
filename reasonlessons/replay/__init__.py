"""Replay: what the lessons would have saved, shown on a repository's own history.

Takes a repository's session logs (all agents); gives, session by session, the lessons recall and
the loop hook would have injected, and whether each addressed what went wrong next (docs/replay.md).
Everything is learned into a scratch store; the repository's `.reasonix/` is never written.

    api.py        replay(): order the sessions, replay each, then learn from it
    timeline.py   every session of every log, oldest first, and how to read one again
    scratch.py    the temporary store (lessons, state, global scope) replay learns into
    learn.py      learning one session as capture would; what each lesson was learned from
    simulate.py   one session replayed: fires, hits, noise, misses
    marks.py      what failures and calls are about, as comparable marks
    report.py     totals overall, per agent and per lesson kind, and the JSON form
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["api", "report"]

if TYPE_CHECKING:
    from reasonlessons.replay import api, report


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.replay' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.replay.{name}")
