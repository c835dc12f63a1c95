"""Sessions: agent session logs in, normalized events out (docs/log-formats.md).

Takes log files (named, or found where each agent keeps them); gives `Event`s of one shape for
every agent, which capture and watch read, and what a shell command or a failure says.

    adapters/      one reader per log format, a registry, and format detection
    events.py      the normalized Event, Session and ReadStats
    jsonl.py       streaming JSONL with byte offsets, damage counting and bounded memory
    normalize.py   tool names, shell arguments, timestamps, JSON arguments
    errorsig.py    error signatures, and the shell-result headers the agents write
    errors.py      errors raised while reading logs
    discovery.py   a repository's sessions in each agent's standard location, and where each came from
    workspaces.py  the other spellings of the repository's path agents were started with (symlinks, case)
    otherfiles.py  files beside the logs that hold no events, named so capture can say why
    shell.py       shell command lines as invocations: tool, runner, purpose
    commands.py    what a command does for a session (setup, fixing, git) and its form in a lesson
    edits.py       the file changes a tool call makes
    signals.py     what a failure says: an invocation problem, a stated rule, an error code
    toolrules.py   refusals of an agent's own tool layer that teach a rule of that agent
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use: a capture given its logs never looks for others (discovery) or
# explains a file it skipped (otherfiles), and one whose logs did not change reads none (jsonl); the
# hook after a tool call signs an error (errorsig) only when the tool layer refused the call.
__all__ = ["discovery", "errorsig", "jsonl", "otherfiles"]

if TYPE_CHECKING:
    from reasonlessons.sessions import discovery, errorsig, jsonl, otherfiles


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.sessions' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.sessions.{name}")
