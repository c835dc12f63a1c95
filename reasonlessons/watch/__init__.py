"""`reasonlessons watch`: keep lesson staleness live and capture sessions as they end.

Takes a Project and the changes to the files its lessons and sessions live in; gives stale, fresh
and captured events to an `emit` callback, one daemon per repository (docs/watch.md).

plan.py      pure: lessons + locations -> what to watch, and the path filter `relevant`
watchset.py  the plan against the file system: missing targets, ignored subtrees, coalescing
debounce.py  quiet window + maximum wait between the observer thread and the main loop
observer.py  the one watchdog user (native events), or poller.py's stat() poller for --poll
lessons.py   the lessons being watched, their drift, and stale/fresh transitions
sessions.py  session log locations of this repo, idle/ended tracking
pidlock.py   one daemon per repository
daemon.py    the loop: takes a stop event and an `emit(event)` callback, never prints
integrations.py  the capture pipeline and the Reasonix export, as the daemon calls them
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["daemon", "integrations"]

if TYPE_CHECKING:
    from reasonlessons.watch import daemon, integrations


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.watch' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.watch.{name}")
