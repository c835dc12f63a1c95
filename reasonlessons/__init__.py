"""reasonlessons: learn a repository from coding-agent sessions, and forget what is no longer true.

Takes agent session logs and the repository; gives lessons, checked against the repo facts they
depend on, and the few fresh ones that fit an agent's next turn. The packages, in pipeline order
(docs/architecture.md):

    support/       infrastructure: atomic writes, JSON, hashing, YAML, git, tokenizers
    safety/        secret redaction, the secret scanner, linear-time patterns
    lessons/       the lesson model, its file on disk, where the scopes live
    sessions/      agent logs -> normalized events
    capture/       events -> observations -> drafts -> gated candidate files
    store/         the scopes as a whole: mutations, status, local state, trust
    fingerprint/   the repo facts a lesson depends on, and their drift
    stale/         which lessons drifted, answered from caches when nothing changed
    recall/        the fresh, relevant lessons for one agent turn
    curation/      lint codes for the library; search, prune, merge and the other curation commands
    learning/      verdicts on recalled lessons, their counts, supersession, stats
    integrations/  Claude Code hooks, the Reasonix export, the MCP server
    interop/       lessons in and out of AIP-11, agentsmesh, Claude Code and Cursor rules
    watch/         the daemon that keeps staleness live and captures ended sessions
    replay/        the repository's sessions replayed: what the lessons would have caught
    cli/           the command line; cli/fast/ the per-turn paths without Typer
    constants.py   names, locations, versions and exit codes; errors.py the exception root
    __main__.py    the console script: per-turn commands to cli/fast/, the rest to cli/

The public API is re-exported here lazily, so that `import reasonlessons` stays cheap on the
per-turn path (recall, hooks) and heavy modules load only when used.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Lesson": "reasonlessons.lessons.model",
    "check_name": "reasonlessons.lessons.model",
    "Locations": "reasonlessons.lessons.locations",
    "LessonStore": "reasonlessons.store.scopes",
    "Scan": "reasonlessons.store.scopes",
    "BadEntry": "reasonlessons.store.scopes",
    "read_lesson": "reasonlessons.lessons.file",
    "render_lesson": "reasonlessons.lessons.file",
    "validate": "reasonlessons.store.validate",
    "ReasonLessonsError": "reasonlessons.errors",
    "UsageError": "reasonlessons.errors",
    "LessonFileError": "reasonlessons.errors",
    "LessonNotFoundError": "reasonlessons.errors",
    "LessonExistsError": "reasonlessons.errors",
    "StoreWriteError": "reasonlessons.errors",
    "Recaller": "reasonlessons.recall.api",
    "RecallResult": "reasonlessons.recall.api",
    "import_lessons": "reasonlessons.interop.api",
    "export_lessons": "reasonlessons.interop.api",
}

__all__ = [
    "BadEntry",
    "LessonExistsError",
    "LessonFileError",
    "LessonNotFoundError",
    "LessonStore",
    "Lesson",
    "Locations",
    "RecallResult",
    "Recaller",
    "ReasonLessonsError",
    "Scan",
    "StoreWriteError",
    "UsageError",
    "__version__",
    "check_name",
    "export_lessons",
    "import_lessons",
    "read_lesson",
    "render_lesson",
    "validate",
]

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from reasonlessons.errors import (
        LessonExistsError,
        LessonFileError,
        LessonNotFoundError,
        ReasonLessonsError,
        StoreWriteError,
        UsageError,
    )
    from reasonlessons.interop.api import export_lessons, import_lessons
    from reasonlessons.lessons.file import read_lesson, render_lesson
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.lessons.model import Lesson, check_name
    from reasonlessons.recall.api import Recaller, RecallResult
    from reasonlessons.store.scopes import BadEntry, LessonStore, Scan
    from reasonlessons.store.validate import validate


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reasonlessons' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
