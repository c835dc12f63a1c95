"""The learning loop: lessons improve with evidence (docs/learning.md).

Takes each captured session's trace and the lessons recalled into it; gives decisions judged by
what each lesson claims, with the session and event behind each, counts and confidence in local
state (caution, archiving), supersession on promote, and `stats`.

captured session ──trace──▶ which lessons were recalled into it (link.py)
                 ──outcomes.py──▶ confirmed | contradicted (direct, soft) | nothing, per lesson
                 ──lifecycle.py──▶ decisions in local state; confidence; archiving (revivable)
                 ──summaries.py──▶ per-session tokens for `reasonlessons stats`
promote ──supersede.py──▶ a newer candidate for the same fact supersedes the stale lesson

    loop.py        the learning step run for each captured session: link, judge, count, summarize
    trace.py       a bounded summary of one session's events
    advice.py      what a lesson tells the agent to do, in terms a session can be checked against
    stats.py       `stats`: hits, injected tokens, outcomes, and cold vs warm sessions
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["loop", "stats", "supersede"]

if TYPE_CHECKING:
    from reasonlessons.learning import loop, stats, supersede


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.learning' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.learning.{name}")
