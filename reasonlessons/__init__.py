"""reasonlessons: learn a repository from coding-agent sessions, and forget what is no longer true.

The public API is re-exported here lazily, so that `import reasonlessons` stays cheap on the
per-turn path (recall, hooks) and heavy modules load only when used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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
