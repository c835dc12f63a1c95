"""The lesson store: reading the scopes, and every mutation (add, promote, reject, remove) under a lock."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import (
    ARCHIVE_DIR,
    CANDIDATES_DIR,
    CONFIG_FILE,
    LESSON_SUFFIX,
    NAME_RE,
    SCOPE_CANDIDATE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
)
from reasonlessons.errors import (
    LessonExistsError,
    LessonFileError,
    LessonNotFoundError,
    StoreWriteError,
    UsageError,
)
from reasonlessons.fingerprint import applies
from reasonlessons.lessons.file import read_lesson, render_lesson, write_lesson
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson, check_name, schema_problems
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked, write_atomic
from reasonlessons.support.hashing import text_key

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

# The frontmatter keys recording a lesson's entries for its scope (hashes, or a global lesson's
# conditions); supplied by the fingerprint layer.
Recorder = Callable[[Path, Sequence[str], str], dict[str, Any]]

_REJECTIONS = "rejections.json"


@dataclass(frozen=True)
class BadEntry:
    """A file or folder in a lessons directory that is not a loadable lesson."""

    path: Path
    scope: str
    message: str


@dataclass
class Scan:
    """What a read of one or more scopes found: good lessons in name order, and the bad entries."""

    lessons: list[Lesson] = field(default_factory=list)
    bad: list[BadEntry] = field(default_factory=list)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class LessonStore:
    """All lesson files of one repository plus the user's global scope."""

    def __init__(
        self,
        locations: Locations,
        *,
        now: Callable[[], dt.datetime] = _utcnow,
        recorder: Recorder | None = None,
    ) -> None:
        self.loc = locations
        self.now = now
        self._recorder = recorder

    # -- reading -----------------------------------------------------------------------------

    def scan(self, scopes: Iterable[str] = (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE)) -> Scan:
        """Load every lesson of the given scopes; unreadable entries are reported, not raised."""
        result = Scan()
        for scope in scopes:
            for path, problem in self._entries(scope):
                if problem is not None:
                    result.bad.append(BadEntry(path, scope, problem))
                    continue
                try:
                    result.lessons.append(read_lesson(path, scope=scope))
                except LessonFileError as exc:
                    result.bad.append(BadEntry(path, scope, f"{exc.problem}; {exc.fix}"))
        return result

    def _entries(self, scope: str) -> list[tuple[Path, str | None]]:
        """Sorted entries of a scope directory, with a problem for anything that is not a lesson file."""
        directory = self.loc.scope_dir(scope)
        try:
            children = sorted(os.scandir(directory), key=lambda e: e.name)
        except FileNotFoundError:
            return []
        except OSError as exc:
            return [(directory, f"cannot list directory ({exc.strerror}); check permissions")]
        out: list[tuple[Path, str | None]] = []
        for entry in children:
            path = Path(entry.path)
            if entry.name.startswith("."):
                continue  # our temp files, .gitkeep, editors' swap files
            if scope == SCOPE_PROJECT and entry.name == CANDIDATES_DIR:
                continue
            if scope != SCOPE_CANDIDATE and entry.name == CONFIG_FILE:
                continue  # the scope's settings (store/config.py)
            if scope != SCOPE_CANDIDATE and entry.name == ARCHIVE_DIR:
                continue  # what `prune` retired (reasonlessons/curation/prune.py)
            if not entry.name.endswith(LESSON_SUFFIX):
                out.append((path, "not a lesson file (expected <name>.md); move it elsewhere"))
            elif not NAME_RE.match(entry.name[: -len(LESSON_SUFFIX)]):
                out.append((path, "file name is not a valid lesson name; rename it"))
            elif entry.is_dir(follow_symlinks=False):
                out.append((path, "is a directory, not a lesson file; move it elsewhere"))
            else:
                out.append((path, None))
        return out

    def path_for(self, name: str, scope: str) -> Path:
        return self.loc.scope_dir(scope) / f"{check_name(name)}{LESSON_SUFFIX}"

    def find(self, name: str, scopes: Sequence[str] = (SCOPE_PROJECT, SCOPE_GLOBAL)) -> Lesson:
        """The lesson called `name` in the first scope that has it (project wins over global)."""
        check_name(name)
        for scope in scopes:
            path = self.path_for(name, scope)
            if path.exists() or path.is_symlink():
                return read_lesson(path, scope=scope)
        where = " or ".join(scopes)
        raise LessonNotFoundError(
            f"no lesson named {name!r} in the {where} scope; see `reasonlessons list --scope all`"
        )

    # -- writing -----------------------------------------------------------------------------

    def add(
        self,
        name: str,
        *,
        description: str,
        fingerprint: Sequence[str] = (),
        body: str = "",
        scope: str = SCOPE_PROJECT,
        extra: dict[str, Any] | None = None,
        replace: bool = False,
    ) -> Lesson:
        """Write a new lesson, recording its fingerprint hashes now."""
        check_name(name)
        if not description.strip() or "\n" in description.strip():
            raise UsageError("--description must be one non-empty line")
        meta: dict[str, Any] = {
            "name": name,
            "description": description.strip(),
            "fingerprint": list(fingerprint),
            "captured-at": self.now().date(),
        }
        meta.update(extra or {})
        errors, _ = schema_problems(meta, stem=name)
        if errors:
            raise UsageError(f"lesson {name!r}: {'; '.join(errors)}")
        if self._recorder is not None:
            meta.update(self._recorder(self.loc.root, list(fingerprint), scope))
        lesson = Lesson(meta=meta, body=body, scope=scope)
        path = self.path_for(name, scope)
        self.loc.guard_writes()
        with locked(self.loc.lock_path(scope)):
            if not replace and (path.exists() or path.is_symlink()):
                raise LessonExistsError(
                    f"{path} already exists; pick another name, or `reasonlessons rm {name}` first"
                )
            self._prepare_dir(scope)
            write_lesson(path, lesson)
        lesson.path = path
        return lesson

    def save(self, lesson: Lesson) -> bool:
        """Rewrite an already-loaded lesson in place; return False when the bytes were unchanged."""
        if lesson.path is None or lesson.scope is None:
            raise ValueError("save() needs a lesson read from the store")
        data = render_lesson(lesson)
        self.loc.guard_writes()
        with locked(self.loc.lock_path(lesson.scope)):
            try:
                if lesson.path.read_bytes() == data:
                    return False
            except OSError:
                pass
            write_lesson(lesson.path, lesson)
        return True

    def promote(self, name: str, *, to_global: bool = False) -> Lesson:
        """Move a candidate into the project scope, or the global scope with `to_global`."""
        source = self.path_for(name, SCOPE_CANDIDATE)
        target_scope = SCOPE_GLOBAL if to_global else SCOPE_PROJECT
        target = self.path_for(name, target_scope)
        self.loc.guard_writes()
        with locked(self.loc.lock_path(SCOPE_PROJECT)), self._maybe_global_lock(to_global):
            if not (source.exists() or source.is_symlink()):
                raise LessonNotFoundError(
                    f"no candidate named {name!r}; see `reasonlessons list --scope candidates`"
                )
            lesson = read_lesson(source, scope=SCOPE_CANDIDATE)
            if to_global:  # its entries become conditions on a repository (fingerprint/applies.py)
                lesson.meta = applies.as_global(lesson.meta)
            data = render_lesson(lesson)
            if target.exists():
                # A promote killed between write and unlink leaves an identical copy: finish it.
                if target.read_bytes() != data:
                    raise LessonExistsError(
                        f"{target} already exists with different content; "
                        f"`reasonlessons rm {name}{' --global' if to_global else ''}` it first, "
                        "or reject the candidate"
                    )
            else:
                self._prepare_dir(target_scope)
                write_atomic(target, data)  # the rendering just made: rendering again costs a scan
            self._unlink(source)
        lesson.path, lesson.scope = target, target_scope
        return lesson

    def promote_auto(self, after: dt.timedelta) -> list[Lesson]:
        """Promote every candidate captured more than `after` ago (rejected ones are already gone)."""
        cutoff = self.now() - after
        rejections = self.rejections()
        promoted = []
        for lesson in self.scan([SCOPE_CANDIDATE]).lessons:
            captured = lesson.captured_at
            if (
                captured is not None
                and captured <= cutoff
                and not self.is_rejected(lesson, rejections=rejections)
            ):
                promoted.append(self.promote(lesson.name))
        return promoted

    def reject(self, name: str) -> Path:
        """Delete a candidate and remember it so capture does not propose it again."""
        path = self.path_for(name, SCOPE_CANDIDATE)
        self.loc.guard_writes()
        with locked(self.loc.lock_path(SCOPE_CANDIDATE)):
            if not (path.exists() or path.is_symlink()):
                raise LessonNotFoundError(
                    f"no candidate named {name!r}; see `reasonlessons list --scope candidates`"
                )
            key: str | None
            try:
                key = content_key(read_lesson(path))
            except LessonFileError:
                key = None  # a broken candidate is still rejected by name
            rejections_path = self.loc.ensure_state_dir() / _REJECTIONS
            rejections = load_state(rejections_path, kind="rejections")
            rejections[name] = {"key": key, "at": self.now().isoformat()}
            save_state(rejections_path, rejections, kind="rejections")
            self._unlink(path)
        return path

    def rejections(self) -> dict[str, Any]:
        """The rejected candidates, by name: `{"key": content key, "at": when}`."""
        return load_state(self.loc.state_dir / _REJECTIONS, kind="rejections")

    def is_rejected(self, lesson: Lesson, *, rejections: dict[str, Any] | None = None) -> bool:
        """True when a candidate with this name or this content was rejected before (`rejections`:
        the document, when the caller asks about many candidates)."""
        if rejections is None:
            rejections = self.rejections()
        if lesson.name in rejections:
            return True
        key = content_key(lesson)
        return any(isinstance(v, dict) and v.get("key") == key for v in rejections.values())

    def remove(self, name: str, *, scope: str = SCOPE_PROJECT) -> Path:
        """Delete a promoted lesson from the project (or global) scope."""
        path = self.path_for(name, scope)
        self.loc.guard_writes()
        with locked(self.loc.lock_path(scope)):
            if not (path.exists() or path.is_symlink()):
                hint = "reject it" if self.path_for(name, SCOPE_CANDIDATE).exists() else "check the name"
                raise LessonNotFoundError(f"no {scope} lesson named {name!r}; {hint}")
            self._unlink(path)
        return path

    def archive(self, name: str, *, scope: str = SCOPE_PROJECT) -> Path:
        """Move a promoted lesson into its scope's `_archive/` folder, bytes unchanged; return where.

        An archived lesson is read by nothing; moving the file back restores it as it was."""
        source = self.path_for(name, scope)
        folder = self.loc.scope_dir(scope) / ARCHIVE_DIR
        with locked(self.loc.lock_path(scope)):
            if not (source.exists() or source.is_symlink()):
                raise LessonNotFoundError(f"no {scope} lesson named {name!r}; see `reasonlessons list`")
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / source.name
            n = 1
            while target.exists() or target.is_symlink():
                n += 1  # an earlier lesson of the same name was archived: keep both
                target = folder / f"{name}.{n}{LESSON_SUFFIX}"
            try:
                os.replace(source, target)
            except OSError as exc:
                raise StoreWriteError(f"cannot move {source} to {target}: {exc.strerror}") from exc
        return target

    # -- helpers -----------------------------------------------------------------------------

    def _maybe_global_lock(self, enabled: bool) -> AbstractContextManager[None]:
        import contextlib

        return locked(self.loc.lock_path(SCOPE_GLOBAL)) if enabled else contextlib.nullcontext()

    def _prepare_dir(self, scope: str) -> None:
        if scope != SCOPE_GLOBAL:
            self.loc.ensure_state_dir()

    @staticmethod
    def _unlink(path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreWriteError(f"cannot delete {path}: {exc.strerror}; check permissions") from exc


def content_key(lesson: Lesson) -> str:
    """Identity of what a lesson says, so a reworded-by-whitespace duplicate is recognised."""
    return text_key(f"{lesson.description}\n{lesson.body}")
