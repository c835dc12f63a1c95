"""This repository's session logs while the daemon runs: where they live, which went idle or ended.

A log is tracked from its first change. It is captured as soon as its adapter says the session
reached a terminal state, or once it has been quiet for `idle_seconds`; a log that changes again
later is tracked again (capture resumes from its checkpoint, so nothing is proposed twice). Which
logs belong to this repository is decided by `capture.discovery`; a path it did not place is asked
about again only after `RETRY_SECONDS`, so other repositories' busy logs cost little.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reasonlessons.sessions import workspaces
from reasonlessons.sessions.adapters import detect
from reasonlessons.sessions.discovery import (
    aider_histories,
    claude_slug,
    reasonix_project_dirs,
    reasonix_slug,
    reasonix_state_roots,
)
from reasonlessons.sessions.events import SessionRef
from reasonlessons.watch.plan import SessionRoot

RETRY_SECONDS = 30.0
MAX_UNPLACED = 10_000

Find = Callable[[], Sequence[SessionRef]]
Ended = Callable[[SessionRef], bool]
Clock = Callable[[], float]


def _env_path(env: Mapping[str, str], key: str, home: Path) -> Path | None:
    value = env.get(key)
    if not value:
        return None
    return home / value[2:] if value.startswith("~/") else Path(value)


def session_roots(repo_root: Path, *, env: Mapping[str, str], home: Path) -> list[SessionRoot]:
    """The directories where agents write this repository's logs (docs/log-formats.md, each agent's files)."""
    spellings = workspaces.spellings(repo_root, env=env)
    out: list[SessionRoot] = []

    def add(path: Path, recursive: bool, floor: Path) -> None:
        out.append(SessionRoot(str(path), recursive, str(floor)))

    add(home / ".reasonix" / "sessions", False, home / ".reasonix")
    for _, state in reasonix_state_roots(env, home):
        # A session started in a subdirectory gets its own `<slug>-<sub>` folder: watch `projects/`.
        add(state / "projects", False, state)
        own = {state / "projects" / reasonix_slug(root) for root in spellings}
        for project in sorted(own.union(reasonix_project_dirs(state, spellings))):
            add(project / "sessions-v4", True, state)
    claude = _env_path(env, "CLAUDE_CONFIG_DIR", home) or home / ".claude"
    projects = claude / "projects"
    # Sessions started in a subdirectory get their own `<slug>-<sub>` folder: watch the parent too.
    add(projects, False, claude)
    slugs = {claude_slug(root) for root in spellings}
    try:
        names = sorted(entry.name for entry in os.scandir(projects) if entry.is_dir())
    except OSError:
        names = []
    for slug in sorted(slugs):
        matching = [n for n in names if n == slug or n.startswith(slug + "-")] or [slug]
        for name in matching:
            add(projects / name, True, claude)
    codex = _env_path(env, "CODEX_HOME", home) or home / ".codex"
    add(codex / "sessions", True, codex)
    # Aider writes one file: its directory is watched, and only that file counts as a log.
    for history in aider_histories(repo_root, env=env, home=home):
        add(history, False, history.parent)
    return sorted(set(out))


def is_ended(ref: SessionRef) -> bool:
    """Whether the adapter sees a terminal state now (idleness is the tracker's business)."""
    adapter = detect(ref.path)
    if adapter is None:
        return False
    try:
        session = adapter.describe(ref.path, now=dt.datetime.now(dt.UTC), idle_seconds=float("inf"))
    except Exception:  # noqa: BLE001 (a half-written or truncated log is simply not ended yet)
        return False
    return session.complete


class SessionTracker:
    """Logs seen changing, until they are handed to capture."""

    def __init__(
        self,
        *,
        idle_seconds: float,
        find: Find,
        ended: Ended = is_ended,
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
    ) -> None:
        self.idle_seconds = idle_seconds
        self._find = find
        self._ended = ended
        self._clock = clock
        self._wall = wall
        self._by_path: dict[str, SessionRef] = {}
        self._active: dict[SessionRef, float] = {}
        self._unplaced: dict[str, float] = {}

    def start(self) -> None:
        """Learn this repository's logs; those written within the idle window are tracked already."""
        self._refresh()
        wall, now = self._wall(), self._clock()
        for ref in set(self._by_path.values()):
            newest = max((_mtime(p) for p in (ref.path, *ref.related)), default=0.0)
            age = wall - newest
            if 0 <= age < self.idle_seconds:
                self._active[ref] = now - age

    def _refresh(self) -> None:
        self._by_path = {}
        for ref in self._find():
            for path in (ref.path, *ref.related):
                self._by_path[str(path)] = ref

    def _lookup(self, path: str) -> SessionRef | None:
        # A sessions-v4 session is a directory: its files stand for it.
        return self._by_path.get(path) or self._by_path.get(os.path.dirname(path))

    def touched(self, paths: Sequence[str]) -> list[SessionRef]:
        """Note changed log files; returns the sessions that just ended (to capture now)."""
        now = self._clock()
        refs = {ref for ref in map(self._lookup, paths) if ref is not None}
        unknown = [
            p
            for p in paths
            if self._lookup(p) is None and now - self._unplaced.get(p, -RETRY_SECONDS) >= RETRY_SECONDS
        ]
        if unknown:
            if len(self._unplaced) > MAX_UNPLACED:  # other repositories' logs pile up over weeks
                self._unplaced.clear()
            self._refresh()  # a new log, or one whose first records were not written yet
            for path in unknown:
                ref = self._lookup(path)
                if ref is None:
                    self._unplaced[path] = now
                else:
                    self._unplaced.pop(path, None)
                    refs.add(ref)
        ended = []
        for ref in sorted(refs, key=lambda r: str(r.path)):
            self._active[ref] = now
            if self._ended(ref):
                del self._active[ref]
                ended.append(ref)
        return ended

    def due(self) -> list[SessionRef]:
        """Sessions quiet for `idle_seconds`, no longer tracked from now on."""
        now = self._clock()
        idle = [ref for ref, last in self._active.items() if now - last >= self.idle_seconds]
        for ref in idle:
            del self._active[ref]
        return sorted(idle, key=lambda r: str(r.path))

    def next_deadline(self) -> float | None:
        """Clock time at which the next tracked session goes idle."""
        if not self._active:
            return None
        return min(self._active.values()) + self.idle_seconds

    @property
    def active(self) -> list[SessionRef]:
        # list() first: read from other threads (tests) while the loop may update it.
        return sorted(list(self._active), key=lambda r: str(r.path))  # noqa: C414


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
