"""A lesson's status: deprecated, superseded, expired, stale or active, in that precedence.

A lesson the learning loop archived (its confidence fell below the archive floor,
reasonlessons/learning/lifecycle.py) is `deprecated` too: the counts live in local state, the file
is untouched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Any

from reasonlessons.constants import (
    SCOPE_CANDIDATE,
    STATUS_ACTIVE,
    STATUS_DEPRECATED,
    STATUS_EXPIRED,
    STATUS_STALE,
    STATUS_SUPERSEDED,
)
from reasonlessons.lessons.model import Lesson

# Returns the drift list of a lesson (empty when fresh); supplied by the fingerprint layer.
DriftCheck = Callable[[Lesson], list[Any]]


def superseded_names(lessons: Iterable[Lesson]) -> set[str]:
    """Names that a promoted, non-deprecated lesson declares it supersedes."""
    names: set[str] = set()
    for lesson in lessons:
        if lesson.scope != SCOPE_CANDIDATE and lesson.declared_status != STATUS_DEPRECATED:
            names.update(n for n in lesson.supersedes if n != lesson.name)
    return names


def status_of(
    lesson: Lesson,
    *,
    now: dt.datetime,
    superseded: set[str],
    drift: DriftCheck | None,
    archived: bool = False,
) -> str:
    """The status one lesson has now; `drift` is only consulted when nothing cheaper decides.

    `archived`: the learning loop archived it (store/confidence.py).
    """
    declared = lesson.declared_status
    if declared == STATUS_DEPRECATED or archived:
        return STATUS_DEPRECATED
    if declared == STATUS_SUPERSEDED or lesson.name in superseded:
        return STATUS_SUPERSEDED
    expires = lesson.expires_at
    if expires is not None and expires <= now:
        return STATUS_EXPIRED
    if drift is not None and drift(lesson):
        return STATUS_STALE
    return STATUS_ACTIVE
