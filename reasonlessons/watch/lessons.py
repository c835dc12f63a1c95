"""The lessons the daemon keeps true: which are checked, their drift, and stale/fresh transitions.

The checked set is exactly what `reasonlessons stale` checks (project and global lessons that would
otherwise be active and are not shadowed), read through the same lesson meta cache. Drift comes
from the same `Checker`, one per batch (it memoizes for one run), and its stat-keyed fact cache is
saved after every batch: `stale`, `list` and `recall` read that cache and recompute any fact whose
file changed, so they can never disagree with the daemon, only find the cache already warm.

The daemon's view is also written to `<state>/watch.json` (kind `watch`) whenever it changes, for
tools that want the live state without re-checking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import (
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATE_SCHEMA_VERSION,
    STATUS_ACTIVE,
    STATUS_STALE,
)
from reasonlessons.fingerprint import Checker
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import scrub
from reasonlessons.stale import meta_cache
from reasonlessons.store.status import status_of, superseded_names
from reasonlessons.support import jsonio
from reasonlessons.support.atomic import write_atomic

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

STATE_FILE = "watch.json"
STATE_KIND = "watch"

Event = dict[str, Any]
# input -> (reason, was, now) of one drifted fingerprint entry.
DriftMap = dict[str, tuple[str, str | None, str | None]]


def key_of(lesson: Lesson) -> str:
    return f"{lesson.scope}:{lesson.name}"


@dataclass
class Changes:
    """What reading the lesson set again found."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    invalid: list[tuple[str, str]] = field(default_factory=list)  # newly broken files: (path, message)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


class LessonSet:
    """Checked lessons by key (`scope:name`) and the drift last seen for each."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.lessons: dict[str, Lesson] = {}
        self.drift: dict[str, DriftMap] = {}
        self._bad: dict[str, str] = {}
        self._saved: dict[str, Any] | None = None
        self._dirty = True  # the view differs from what watch.json holds

    def load(self) -> Changes:
        """Read the scopes again (cheap: the index re-parses only files whose stat changed)."""
        found, bad = meta_cache.scan(self.project.loc, (SCOPE_PROJECT, SCOPE_GLOBAL))
        superseded = superseded_names(found)
        project_names = {lesson.name for lesson in found if lesson.scope == SCOPE_PROJECT}
        now = self.project.now()
        fresh: dict[str, Lesson] = {}
        for lesson in found:
            if lesson.scope == SCOPE_GLOBAL and lesson.name in project_names:
                continue
            if status_of(lesson, now=now, superseded=superseded, drift=None) != STATUS_ACTIVE:
                continue
            fresh.setdefault(key_of(lesson), lesson)
        out = Changes(
            added=sorted(fresh.keys() - self.lessons.keys()),
            removed=sorted(self.lessons.keys() - fresh.keys()),
            changed=sorted(
                k for k in fresh.keys() & self.lessons.keys() if fresh[k].meta != self.lessons[k].meta
            ),
        )
        bad_now = {str(entry.path): entry.message for entry in bad}
        out.invalid = sorted((p, m) for p, m in bad_now.items() if self._bad.get(p) != m)
        self._dirty |= bool(out or out.invalid) or bad_now != self._bad
        self._bad = bad_now
        self.lessons = fresh
        for key in out.removed:
            self.drift.pop(key, None)
        return out

    def fingerprints(self) -> dict[str, list[str]]:
        return {key: lesson.fingerprint for key, lesson in self.lessons.items()}

    def check(self, keys: set[str] | None = None, *, announce: bool = True) -> list[Event]:
        """Re-check `keys` (all when None); return stale/fresh events for what changed since last time."""
        loc = self.project.loc
        targets = sorted(self.lessons if keys is None else keys & self.lessons.keys())
        events: list[Event] = []
        with Checker(loc.root, state_dir=loc.ensure_state_dir()) as checker:
            for key in targets:
                lesson = self.lessons[key]
                now: DriftMap = {d.input: (d.reason, d.was, d.now) for d in checker.drift(lesson)}
                old = self.drift.get(key)
                self.drift[key] = now
                self._dirty |= now != old
                old = old or {}
                if announce:
                    events.extend(_transitions(lesson, old, now))
        return events

    @property
    def stale(self) -> list[str]:
        return sorted(key for key, drift in self.drift.items() if drift)

    def save(self, extra: dict[str, Any]) -> None:
        """Write watch.json when the daemon's view changed."""
        same_extra = self._saved is not None and all(self._saved.get(k) == v for k, v in extra.items())
        if not self._dirty and same_extra:
            return
        doc = {
            **extra,
            "lessons": {
                key: {
                    "name": lesson.name,
                    "scope": lesson.scope,
                    "status": STATUS_STALE if self.drift.get(key) else STATUS_ACTIVE,
                    "drift": [
                        {"input": i, "reason": r, "was": w, "now": n}
                        for i, (r, w, n) in sorted(self.drift.get(key, {}).items())
                    ],
                }
                for key, lesson in sorted(self.lessons.items())
            },
            "invalid": sorted(self._bad),
        }
        if doc != self._saved:
            # The layout of state.save_state, without its fsync: under I/O load an fsync costs
            # hundreds of milliseconds on every batch, and this view is rebuilt on the next start.
            wrapped = {"kind": STATE_KIND, "version": STATE_SCHEMA_VERSION, "data": doc}
            path = Path(self.project.loc.state_dir) / STATE_FILE
            # Drift values are read from repo files: redacted like every state document (privacy.py).
            _, text = scrub(wrapped, lambda d: jsonio.dumps(d, indent=True).decode("utf-8"))
            write_atomic(path, text.encode("utf-8"), durable=False)
            self._saved = doc
        self._dirty = False


def _transitions(lesson: Lesson, old: DriftMap, now: DriftMap) -> list[Event]:
    status = STATUS_STALE if now else STATUS_ACTIVE
    base = {"name": lesson.name, "scope": lesson.scope}
    events: list[Event] = []
    for text, (reason, was, value) in now.items():
        before = old.get(text)
        if before is None or (before[0], before[2]) != (reason, value):
            events.append(
                {
                    "event": "stale",
                    **base,
                    "input": text,
                    "reason": reason,
                    "was": was,
                    "now": value,
                    "status": status,
                }
            )
    for text in old.keys() - now.keys():
        events.append({"event": "fresh", **base, "input": text, "status": status})
    return events


def lesson_events(changes: Changes, count: int) -> list[Event]:
    """`invalid` events for newly broken files, and one `lessons` event when the set changed."""
    events: list[Event] = [
        {"event": "invalid", "path": path, "message": message} for path, message in changes.invalid
    ]
    if changes:

        def named(keys: list[str]) -> list[dict[str, str]]:
            return [dict(zip(("scope", "name"), key.split(":", 1), strict=True)) for key in keys]

        events.append(
            {
                "event": "lessons",
                "added": named(changes.added),
                "removed": named(changes.removed),
                "changed": named(changes.changed),
                "count": count,
            }
        )
    return events
