"""The watch loop: file-system changes in, stale/fresh/captured events out (`emit`), never printing.

watchdog's thread filters each change through the current plan (`plan.relevant`) and hands the
reasons to the debouncer; this loop waits for a batch, then, outside any lock: reads the lesson set
again when a lesson file changed, re-plans the watches when the lessons' fingerprints or the watched
directories changed, re-checks only the lessons the batch can affect, and captures sessions that
ended or went idle. A failed batch is logged and reported as an `error` event; the loop carries on.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.sessions.discovery import discover
from reasonlessons.sessions.events import SessionRef
from reasonlessons.watch.debounce import Debouncer
from reasonlessons.watch.lessons import Event, LessonSet, lesson_events
from reasonlessons.watch.observer import Observer
from reasonlessons.watch.pidlock import daemon_lock
from reasonlessons.watch.plan import (
    LESSON,
    LESSONS,
    REPLAN,
    SESSION,
    Reason,
    WatchPlan,
    build_plan,
    follows_content,
    relevant,
)
from reasonlessons.watch.sessions import SessionTracker, session_roots
from reasonlessons.watch.watchset import RealFs, resolve

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

log = logging.getLogger(__name__)

RESCAN = "rescan"  # the kernel dropped events: check everything
# A stop event set without `request_stop()` is still noticed within this many seconds.
MAX_SLEEP = 1.0

Emit = Callable[[Event], None]
# Captures the given sessions; returns the new candidates as {"name", "path", "session"} dicts.
CaptureFn = Callable[[Sequence[SessionRef]], list[dict[str, Any]]]
FindSessions = Callable[[], Sequence[SessionRef]]
# Runs after a batch that changed which lessons are fresh (e.g. a re-export); an event or None.
Resync = Callable[[], Event | None]


@dataclass(frozen=True)
class WatchOptions:
    poll: bool = False
    poll_interval: float = 1.0
    debounce: float = 0.2  # quiet window, seconds
    max_wait: float = 2.0  # a batch is released at the latest this long after its first change
    idle_seconds: float = 60.0  # a session log quiet this long is captured


class Daemon:
    """One repository's watch daemon; `run` blocks until the stop event is set."""

    def __init__(
        self,
        project: Project,
        *,
        options: WatchOptions | None = None,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
        capture: CaptureFn | None = None,
        find_sessions: FindSessions | None = None,
        resync: Resync | None = None,
    ) -> None:
        options = options or WatchOptions()
        self.project = project
        self.options = options
        self.env = dict(os.environ if env is None else env)
        self.home = home or Path.home()
        self.capture = capture
        self.resync = resync
        self.lessons = LessonSet(project)
        self.debouncer: Debouncer[Reason] = Debouncer(options.debounce, options.max_wait)
        self.plan: WatchPlan | None = None
        self.stop = threading.Event()
        self.sessions = SessionTracker(
            idle_seconds=options.idle_seconds, find=find_sessions or self._discover
        )
        self._observer: Observer | None = None
        self._fingerprints: dict[str, list[str]] = {}
        self._info: dict[str, Any] = {}

    # -- threads other than the loop -------------------------------------------------------------

    def request_stop(self) -> None:
        """Finish the batch in flight, then return from `run` (safe from a signal handler)."""
        self.stop.set()
        self.debouncer.wake()

    def _on_change(self, changes: list[tuple[str, bool]]) -> None:
        plan = self.plan
        if plan is None:
            return
        reasons: set[Reason] = set()
        for path, is_dir in changes:
            reasons |= relevant(path, plan, is_dir=is_dir)
        self.debouncer.add(reasons)

    def _on_overflow(self) -> None:
        self.debouncer.add([Reason(RESCAN, "")])

    # -- the loop --------------------------------------------------------------------------------

    def run(self, emit: Emit, stop: threading.Event | None = None) -> None:
        """Watch until `stop` (or `request_stop`); one daemon per repository (WatchRunningError)."""
        if stop is not None:
            self.stop = stop
        loc = self.project.loc
        with daemon_lock(loc.ensure_state_dir(), root=loc.root) as me:
            self._info = {"pid": me["pid"], "started": me["started"], "root": str(loc.root)}
            observer = Observer(
                self._on_change,
                poll=self.options.poll,
                poll_interval=self.options.poll_interval,
                on_overflow=self._on_overflow,
                content=lambda path: follows_content(path, self.plan),
            )
            self._observer = observer
            self._info["mode"] = observer.mode
            observer.start()
            try:
                emit(self._startup())
                events = self._guard(self._resync) if self.resync else []
                while True:
                    for event in events:
                        emit(event)
                    if self.stop.is_set():
                        break
                    batch = self.debouncer.wait(self._sleep())
                    if self.stop.is_set():
                        break
                    events = self._guard(self._process, batch) if batch else []
                    events += self._guard(self._sessions, batch)
                    if self.resync and any(e["event"] in _RESYNC_ON for e in events):
                        events += self._guard(self._resync)
            finally:
                observer.stop()
                self._observer = None
        emit({"event": "stopped"})

    def _sleep(self) -> float:
        deadline = self.sessions.next_deadline()
        if deadline is None:
            return MAX_SLEEP
        return max(0.0, min(MAX_SLEEP, deadline - time.monotonic()))

    def _guard(self, work: Callable[..., list[Event]], *args: object) -> list[Event]:
        try:
            return work(*args)
        except Exception as exc:  # noqa: BLE001 (one bad batch must not end the daemon)
            log.warning("watch: batch failed, still watching", exc_info=True)
            return [{"event": "error", "message": f"{type(exc).__name__}: {exc}"}]

    def _startup(self) -> Event:
        changes = self.lessons.load()
        self._replan()
        self.lessons.check(None, announce=False)
        if self.capture is not None:
            self.sessions.start()
        self.lessons.save(self._info)
        assert self._observer is not None
        return {
            "event": "ready",
            **self._info,
            "lessons": len(self.lessons.lessons),
            "stale": [self.lessons.lessons[k].name for k in self.lessons.stale],
            "invalid": [path for path, _ in changes.invalid],
            "watches": len(self._observer.watches),
            "capture": self.capture is not None,
        }

    def _process(self, batch: set[Reason]) -> list[Event]:
        """Lessons: read again if needed, re-plan if needed, re-check those the batch can affect."""
        kinds = {reason.kind for reason in batch}
        keys: set[str] | None = {r.key for r in batch if r.kind == LESSON}
        events: list[Event] = []
        replan = REPLAN in kinds
        if kinds & {LESSONS, RESCAN}:
            changes = self.lessons.load()
            events += lesson_events(changes, len(self.lessons.lessons))
            assert keys is not None
            keys |= {*changes.added, *changes.changed}
            replan = replan or self.lessons.fingerprints() != self._fingerprints
        if RESCAN in kinds:
            keys, replan = None, True
        if replan:
            self._replan()
        events += self.lessons.check(keys)
        self.lessons.save(self._info)
        return events

    def _resync(self) -> list[Event]:
        assert self.resync is not None
        event = self.resync()
        return [event] if event else []

    def _sessions(self, batch: set[Reason]) -> list[Event]:
        """Capture the logs of the batch that ended, then those that went idle."""
        logs = sorted(r.key for r in batch if r.kind == SESSION)
        ended = self.sessions.touched(logs) if logs else []
        return self._capture([*ended, *self.sessions.due()])

    def _capture(self, refs: Iterable[SessionRef]) -> list[Event]:
        events: list[Event] = []
        for ref in refs:
            if self.capture is None:
                continue
            try:
                found = self.capture([ref])
            except Exception as exc:  # noqa: BLE001 (a damaged or truncated log must not end the daemon)
                log.warning("watch: capture of %s failed", ref.path, exc_info=True)
                message = f"capture {ref.path}: {type(exc).__name__}: {exc}"
                events.append({"event": "error", "message": message, "log": str(ref.path)})
                continue
            events += [{"event": "captured", **c, "log": str(ref.path), "agent": ref.agent} for c in found]
        return events

    def _replan(self) -> None:
        loc = self.project.loc
        self._fingerprints = self.lessons.fingerprints()
        plan = build_plan(
            str(loc.root),
            state_dir=str(loc.state_dir),
            lessons=self._fingerprints,
            lesson_dirs=[(str(loc.project_dir), str(loc.root)), (str(loc.global_dir), str(loc.home))],
            session_roots=session_roots(loc.root, env=self.env, home=self.home) if self.capture else (),
        )
        # Publish first, so events from the new watches are judged by the new plan.
        self.plan = plan
        assert self._observer is not None
        watches = resolve(plan.needs, RealFs(plan.root), root=plan.root, state_dir=plan.state_dir)
        self._observer.apply(watches)

    def _discover(self) -> Sequence[SessionRef]:
        return discover(self.project.loc.root, env=self.env, home=self.home)


_RESYNC_ON = frozenset({"stale", "fresh", "lessons"})
