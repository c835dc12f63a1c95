"""The one watchdog user: native events (inotify, FSEvents, ...) over a set of watches, or `--poll`.

Only created, modified, moved and deleted events pass. watchdog 7 also reports opened/closed events
when a watched file is merely read: besides being dropped here, they are kept out of the kernel
mask through `event_filter`, so the daemon reading a fingerprinted file never wakes itself up.
The callback runs on the observer's thread: it must only filter and hand over.

`--poll` uses `poller.StatPoller` rather than watchdog's polling observer, which stats every file
under a watched directory on every pass (half a CPU on the 100,000-file benchmark repository).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from reasonlessons.watch.poller import StatPoller

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent
from reasonlessons.watch.watchset import Watch

log = logging.getLogger(__name__)

# (absolute path, is a directory) pairs from one file-system event.
Notify = Callable[[list[tuple[str, bool]]], None]

_KINDS = frozenset({"created", "modified", "moved", "deleted"})
_OVERFLOW = "overflow"


class _Overflow(logging.Handler):
    """watchdog says so only in a log record when the kernel queue overflowed and events were lost."""

    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.callback = callback

    def emit(self, record: logging.LogRecord) -> None:
        if _OVERFLOW in record.getMessage().lower():
            self.callback()


class Observer:
    """Schedules and unschedules watches to match `apply`; calls `notify` from its own thread."""

    def __init__(
        self,
        notify: Notify,
        *,
        poll: bool = False,
        poll_interval: float = 1.0,
        on_overflow: Callable[[], None] | None = None,
        content: Callable[[str], bool] = lambda path: True,
    ) -> None:
        from watchdog import events as ev

        self._notify = notify
        self.mode = "polling" if poll else "native"
        self._poller: StatPoller | None = None
        self._observer: Any = None
        if poll:
            self._poller = StatPoller(notify, interval=poll_interval, content=content)
        else:
            from watchdog.observers import Observer as NativeObserver

            self._observer = NativeObserver()
        self._filter = [
            ev.FileCreatedEvent,
            ev.DirCreatedEvent,
            ev.FileModifiedEvent,
            ev.FileDeletedEvent,
            ev.DirDeletedEvent,
            ev.FileMovedEvent,
            ev.DirMovedEvent,
        ]
        self._handler = _Handler(notify)
        # Directory identity at scheduling time: a watch whose directory was deleted and recreated
        # is dead in watchdog (its emitter stops, or will once it reads the deletion; the inode
        # number may be reused) and must be scheduled again.
        self._scheduled: dict[Watch, tuple[Any, tuple[int, int]]] = {}
        self._overflow: _Overflow | None = None
        if on_overflow is not None:
            self._overflow = _Overflow(on_overflow)
            logging.getLogger("watchdog.observers").addHandler(self._overflow)

    @property
    def watches(self) -> list[Watch]:
        return self._poller.watches if self._poller is not None else sorted(self._scheduled)

    def start(self) -> None:
        if self._poller is not None:
            self._poller.start()
        else:
            self._observer.start()

    def apply(self, watches: Iterable[Watch]) -> list[Watch]:
        """Make the scheduled watches equal `watches`; returns those that could not be scheduled."""
        if self._poller is not None:
            return self._poller.apply(watches)
        wanted = set(watches)
        live = {e.watch for e in self._observer.emitters if e.is_alive() and not e.stopped_event.is_set()}
        dead = [
            w
            for w, (handle, identity) in self._scheduled.items()
            if w not in wanted or handle not in live or _identity(w.path) != identity
        ]
        for watch in dead:
            handle, _ = self._scheduled.pop(watch)
            with contextlib.suppress(KeyError, OSError):  # already gone with its directory
                self._observer.unschedule(handle)
        failed = []
        for watch in sorted(wanted - set(self._scheduled)):
            identity = _identity(watch.path)
            try:
                if identity is None:
                    raise FileNotFoundError(watch.path)
                handle = self._observer.schedule(
                    self._handler, watch.path, recursive=watch.recursive, event_filter=self._filter
                )
            except OSError as exc:
                # Vanished between planning and scheduling: its parent's watch reports that.
                log.debug("cannot watch %s: %s", watch.path, exc)
                failed.append(watch)
                continue
            self._scheduled[watch] = (handle, identity)
        return failed

    def stop(self) -> None:
        """Stop every watchdog thread and wait for them."""
        if self._overflow is not None:
            logging.getLogger("watchdog.observers").removeHandler(self._overflow)
        if self._poller is not None:
            self._poller.stop()
            return
        try:
            self._observer.stop()
            if self._observer.is_alive():
                self._observer.join()
        finally:
            self._scheduled.clear()


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class _Handler:
    """What watchdog calls: keep the four kinds of change, turn them into (path, is_dir) pairs."""

    def __init__(self, notify: Notify) -> None:
        self._notify = notify

    def dispatch(self, event: FileSystemEvent) -> None:
        if event.event_type not in _KINDS or (event.is_directory and event.event_type == "modified"):
            return  # a directory's own "modified" only echoes the child event that caused it
        changes = [(os.fsdecode(event.src_path), bool(event.is_directory))]
        if event.event_type == "moved" and event.dest_path:
            changes.append((os.fsdecode(event.dest_path), bool(event.is_directory)))
        try:
            self._notify(changes)
        except Exception:  # an exception here would kill watchdog's dispatcher thread for good
            log.exception("watch: dropping a file-system event after an error")
