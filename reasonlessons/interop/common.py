"""What every importer and exporter shares: reports, the write path into the store, target folders."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.errors import LessonExistsError, ReasonLessonsError, UnsafeTextError, UsageError
from reasonlessons.lessons.model import Lesson, check_name, schema_problems
from reasonlessons.recall.match import for_agent
from reasonlessons.safety.redact import SecretFoundError, assert_clean, redact, redact_value
from reasonlessons.store.project import Entry, Project
from reasonlessons.store.trust import withheld
from reasonlessons.support.atomic import write_atomic

MAX_INPUT_BYTES = 16 * 1024 * 1024


class InteropError(ReasonLessonsError):
    """Input in another format that cannot be imported as it is, or a target that cannot be written."""


@dataclass(frozen=True)
class Imported:
    """One lesson read from another format, ready for the store."""

    name: str
    description: str
    body: str
    fingerprint: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # the file it came from, for messages


@dataclass(frozen=True)
class Item:
    name: str
    path: str = ""
    reason: str = ""

    def to_json(self) -> dict[str, str]:
        out = {"name": self.name, "path": self.path}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class Report:
    """What an import or export did; `notes` are facts worth telling (ignored counts, stale lessons)."""

    written: list[Item] = field(default_factory=list)
    unchanged: list[Item] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)
    skipped: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "written": [i.to_json() for i in self.written],
            "unchanged": [i.to_json() for i in self.unchanged],
            "removed": [i.to_json() for i in self.removed],
            "skipped": [i.to_json() for i in self.skipped],
            "notes": list(self.notes),
        }


def read_input(path: Path, what: str) -> str:
    """A bounded UTF-8 read of one input file, with errors that say what to fix."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InteropError(
            f"{path}: cannot read it ({exc.strerror or exc}); pass an existing {what}"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InteropError(f"{path}: not a file; pass a {what}")
    if info.st_size > MAX_INPUT_BYTES:
        raise InteropError(f"{path}: {info.st_size} bytes is too large for a {what}")
    try:
        return path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InteropError(f"{path}: not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None
    except OSError as exc:
        raise InteropError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def check_import_scope(scope: str) -> str:
    if scope not in (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE):
        raise UsageError(f"--scope {scope!r}: use candidate, project or global")
    return scope


def store_lessons(project: Project, lessons: list[Imported], *, scope: str, replace: bool) -> Report:
    """Write imported lessons into a scope: new ones added, identical ones left, others skipped."""
    report = Report()
    store = project.store
    for item in lessons:
        try:
            clean = _clean(item)
            path = store.path_for(clean.name, scope)
            existing = _existing(project, clean.name, scope)
            if existing is not None and _same(existing, clean):
                report.unchanged.append(Item(clean.name, str(path)))
                continue
            if existing is not None and not replace:
                reason = f"a different {scope} lesson {clean.name!r} exists; use --replace to overwrite it"
                report.skipped.append(Item(clean.name, str(path), reason))
                continue
            lesson = store.add(
                clean.name,
                description=clean.description,
                fingerprint=clean.fingerprint,
                body=clean.body,
                scope=scope,
                extra=clean.extra,
                replace=replace,
            )
            report.written.append(Item(lesson.name, str(lesson.path)))
        except (SecretFoundError, UnsafeTextError, LessonExistsError, UsageError) as exc:
            report.skipped.append(Item(item.name, item.source, str(exc)))
    return report


def _clean(item: Imported) -> Imported:
    """Redacted, then checked again (fail closed): imported text is written into the repository."""
    description = redact(" ".join(item.description.split())).text
    body = redact(item.body).text
    extra: Any = redact_value(item.extra)[0]
    for text in (item.name, description, body, repr(extra), *item.fingerprint):
        assert_clean(text)
    check_name(item.name)
    errors, _ = schema_problems(
        {"name": item.name, "description": description, "fingerprint": item.fingerprint,
         "captured-at": "2000-01-01", **extra},
        stem=item.name,
    )  # fmt: skip
    if errors:
        raise UsageError(f"{item.source or item.name}: {'; '.join(errors)}")
    return Imported(item.name, description, body, list(item.fingerprint), extra, item.source)


def _existing(project: Project, name: str, scope: str) -> Lesson | None:
    path = project.store.path_for(name, scope)
    if not (path.exists() or path.is_symlink()):
        return None
    return project.store.find(name, (scope,))


def _same(lesson: Lesson, item: Imported) -> bool:
    skip = {"name", "description", "fingerprint", "captured-at", "fingerprint-recorded"}
    mine = {k: v for k, v in lesson.meta.items() if k not in skip}
    theirs = {k: v for k, v in item.extra.items() if k not in skip}
    return (
        lesson.description == item.description
        and lesson.body.strip() == item.body.strip()
        and lesson.fingerprint == item.fingerprint
        and _plain(mine) == _plain(theirs)
    )


def _plain(value: object) -> object:
    """Dates and strings compare equal when they spell the same day (YAML reads dates as dates)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


# -- exporting -----------------------------------------------------------------------------------

EXPORT_SCOPES = {"project": (SCOPE_PROJECT,), "global": (SCOPE_GLOBAL,), "all": (SCOPE_PROJECT, SCOPE_GLOBAL)}


def export_entries(
    project: Project, scope: str, *, live_only: bool, report: Report, agent: str | None = None
) -> list[Entry]:
    """Promoted lessons of `scope` to export (project wins over global); with `live_only`, active only;
    with `agent`, those for that agent (or every agent) only. Lessons flagged as hostile and not
    trusted are skipped (reasonlessons/store/trust.py)."""
    if scope not in EXPORT_SCOPES:
        raise UsageError(f"--scope {scope!r}: use project, global or all")
    entries, bad = project.entries("all")
    for broken in bad:
        report.skipped.append(Item(broken.path.stem, str(broken.path), broken.message))
    out = []
    for entry in entries:
        if entry.lesson.scope not in EXPORT_SCOPES[scope] or entry.shadowed:
            continue
        if live_only and entry.status != STATUS_ACTIVE:
            reason = f"{entry.status}: only active lessons are exported in this format"
            report.skipped.append(Item(entry.lesson.name, str(entry.lesson.path or ""), reason))
            continue
        if agent is not None and not for_agent(entry.lesson.agents, agent):
            reason = f"for {', '.join(entry.lesson.agents)} only, not {agent}"
            report.skipped.append(Item(entry.lesson.name, str(entry.lesson.path or ""), reason))
            continue
        notice = withheld(project.loc, entry.lesson)  # other agents load these files: see trust.py
        if notice is not None:
            report.skipped.append(Item(entry.lesson.name, str(entry.lesson.path or ""), notice.strip("[]")))
            continue
        out.append(entry)
    return out


def target_dir(path: Path) -> Path:
    """An export folder: created when missing; an existing file there is an error, never replaced."""
    if path.is_symlink() and not path.exists():
        raise InteropError(f"{path}: a dangling symlink; remove it or pass another --out folder")
    if path.exists() and not path.is_dir():
        raise InteropError(f"{path}: is a file, not a folder; pass a folder with --out (or move the file)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InteropError(f"{path}: cannot create the folder ({exc.strerror or exc})") from None
    return path


def write_file(path: Path, data: bytes) -> bool:
    """Write `data` unless the file already holds exactly it; refuses text that still looks secret."""
    assert_clean(data.decode("utf-8"))
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    if path.is_dir():
        raise InteropError(f"{path}: is a folder; move it out of the way")
    write_atomic(path, data)
    return True


def remove_file(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InteropError(f"cannot remove {path}: {exc.strerror or exc}") from None
