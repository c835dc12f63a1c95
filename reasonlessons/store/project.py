"""One repository's lessons as a whole: the store plus each lesson's status (the front door)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonlessons import fingerprint
from reasonlessons.constants import (
    SCOPE_CANDIDATE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATUS_DEPRECATED,
)
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson
from reasonlessons.store import confidence, config, outcomes
from reasonlessons.store.config import Config
from reasonlessons.store.outcomes import Record
from reasonlessons.store.scopes import BadEntry, LessonStore
from reasonlessons.store.status import DriftCheck, status_of, superseded_names

Tick = Callable[[int, int], None]  # progress: (done, total)

SCOPE_CHOICES = {
    "project": (SCOPE_PROJECT,),
    "global": (SCOPE_GLOBAL,),
    "candidates": (SCOPE_CANDIDATE,),
    "candidate": (SCOPE_CANDIDATE,),
    "all": (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE),
}


@dataclass
class Entry:
    """A lesson with its current status and confidence, as `list` and `show` report it."""

    lesson: Lesson
    status: str
    shadowed: bool = False
    reason: str | None = None  # why a lesson is deprecated when the file does not say so
    record: Record = Record()  # outcomes observed here (store/outcomes.py)
    confidence: float = confidence.DEFAULT_PRIOR
    archived: bool = False  # its confidence fell below the archive floor
    # A global lesson's conditions this repository does not meet (fingerprint/applies.py).
    not_applying: list[Any] | None = None

    @property
    def applies(self) -> bool:
        return not self.not_applying

    def to_json(self) -> dict[str, Any]:
        lesson = self.lesson
        out: dict[str, Any] = {
            "name": lesson.name,
            "scope": lesson.scope,
            "status": self.status,
            "description": lesson.description,
            "path": str(lesson.path) if lesson.path else None,
            "fingerprint": lesson.fingerprint,
            "captured-at": lesson.meta.get("captured-at"),
        }
        if self.shadowed:
            out["shadowed"] = True
        if self.reason:
            out["reason"] = self.reason
        out["confidence"] = self.confidence
        out["outcomes"] = {
            "confirmed": self.record.confirmed,
            "contradicted": self.record.contradicted,
            "soft": self.record.soft,
            "direct": self.record.direct,
            "last-confirmed": self.record.last_confirmed,
        }
        if self.archived:
            out["archived"] = True
        agents = self.lesson.agents
        if agents:
            out["agents"] = agents
        if lesson.scope == SCOPE_GLOBAL and self.not_applying is not None:
            out["applies"] = self.applies
            if self.not_applying:
                out["does_not_apply"] = [item.to_json() for item in self.not_applying]
        return out


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Project:
    """Locations, store and staleness of one repository, built once per command."""

    def __init__(self, locations: Locations, *, now: Callable[[], dt.datetime] = _utcnow) -> None:
        self.loc = locations
        self.now = now
        self.store = LessonStore(locations, now=now, recorder=self._record)
        self._checker: fingerprint.Checker | None = None
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        """The settings (store/config.py), read once; a bad config.toml raises ConfigError."""
        if self._config is None:
            self._config = config.load(self.loc)
        return self._config

    def _record(self, root: Path, entries: Sequence[str], scope: str) -> dict[str, Any]:
        recorded: dict[str, Any] = fingerprint.record_for(root, scope, entries)
        return recorded

    @property
    def checker(self) -> fingerprint.Checker:
        """The facts of the repository for this command (its cache is used, not created)."""
        if self._checker is None:
            self._checker = fingerprint.Checker(self.loc.root, state_dir=self.loc.existing_state_dir())
        return self._checker

    @property
    def drift(self) -> DriftCheck:
        """Drift of one lesson against the repository now (empty list when fresh)."""
        return self.checker.drift

    def not_applying(self, lesson: Lesson) -> list[Any]:
        """A global lesson's conditions this repository does not meet (empty: it applies)."""
        return self.checker.applies(lesson)

    def entries(
        self, scope: str = "all", *, check_drift: bool = True, progress: Tick | None = None
    ) -> tuple[list[Entry], list[BadEntry]]:
        """Every lesson of a scope choice with its status, plus the entries that could not be read;
        `progress(done, total)` after each lesson (checking a large repository cold takes a while)."""
        scopes = SCOPE_CHOICES[scope]
        scan = self.store.scan(scopes)
        # Promoted lessons declare supersession, so read them even for `--scope candidates`.
        deciders = scan.lessons
        if not {SCOPE_PROJECT, SCOPE_GLOBAL} <= set(scopes):
            deciders = self.store.scan((SCOPE_PROJECT, SCOPE_GLOBAL)).lessons
        superseded = superseded_names(deciders)
        now = self.now()
        project_names = {lesson.name for lesson in scan.lessons if lesson.scope == SCOPE_PROJECT}
        records = outcomes.load(self.loc.state_dir)
        out = []
        for done, lesson in enumerate(scan.lessons, 1):
            shadowed = lesson.scope == SCOPE_GLOBAL and lesson.name in project_names
            entry = self._entry(lesson, now, superseded, records, check_drift=check_drift, shadowed=shadowed)
            if check_drift and lesson.scope == SCOPE_GLOBAL:
                entry.not_applying = self.not_applying(lesson)
            out.append(entry)
            if progress is not None:
                progress(done, len(scan.lessons))
        return out, scan.bad

    def _entry(
        self,
        lesson: Lesson,
        now: dt.datetime,
        superseded: set[str],
        records: dict[str, Record],
        *,
        check_drift: bool,
        shadowed: bool = False,
    ) -> Entry:
        key = f"{lesson.scope}:{lesson.name}"
        record = records.get(key) or Record()
        value = record.confidence_of(lesson.meta)
        floor = self.config.archive_floor
        archived = confidence.archived(value, floor)
        status = status_of(
            lesson,
            now=now,
            superseded=superseded,
            drift=self.drift if check_drift else None,
            archived=archived,
        )
        reason = None
        if archived and status == STATUS_DEPRECATED and lesson.declared_status is None:
            reason = (
                f"archived: confidence {value:g} is below the floor {floor:g} "
                f"(contradicted in {record.contradicted} session(s), confirmed in {record.confirmed}); "
                "`reasonlessons revive NAME` restores it"
            )
        return Entry(lesson, status, shadowed, reason, record, value, archived)

    def history(self, lesson: Lesson) -> outcomes.History:
        """Which sessions decided what about this lesson (store/outcomes.py), for `show`."""
        return (
            outcomes.histories(self.loc.state_dir).get(f"{lesson.scope}:{lesson.name}") or outcomes.History()
        )

    def entry(self, name: str, *, scopes: Sequence[str] | None = None) -> Entry:
        """One lesson by name (project wins over global, then candidates), with its status."""
        lesson = self.store.find(name, scopes or (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE))
        superseded = superseded_names(self.store.scan((SCOPE_PROJECT, SCOPE_GLOBAL)).lessons)
        records = outcomes.load(self.loc.state_dir)
        entry = self._entry(lesson, self.now(), superseded, records, check_drift=True)
        if lesson.scope == SCOPE_GLOBAL:
            entry.not_applying = self.not_applying(lesson)
        return entry


def open_project(
    repo: Path | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now: Callable[[], dt.datetime] | None = None,
) -> Project:
    """Resolve the repository (docs/concepts.md#scopes) and return its Project."""
    env = os.environ if env is None else env
    locations = Locations.discover(repo, cwd=cwd, env=env, home=home)
    return Project(locations, now=now or _utcnow)
