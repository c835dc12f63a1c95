"""The watchdog seam: event kinds kept, reads ignored, dead watches rescheduled, overflow noticed."""

from __future__ import annotations

import logging
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from watchdog import events as ev

from reasonlessons.watch.observer import Observer, _Handler
from reasonlessons.watch.watchset import Watch

TIMEOUT = 10.0


def test_handler_keeps_only_created_modified_moved_deleted() -> None:
    got: list[list[tuple[str, bool]]] = []
    handler = _Handler(got.append)
    for event in (
        ev.FileOpenedEvent("/r/a"),
        ev.FileClosedEvent("/r/a"),
        ev.FileClosedNoWriteEvent("/r/a"),
        ev.FileAttribEvent("/r/a"),
        ev.DirModifiedEvent("/r"),
    ):
        handler.dispatch(event)
    assert got == []
    handler.dispatch(ev.FileModifiedEvent("/r/a"))
    handler.dispatch(ev.FileMovedEvent("/r/.a.tmp", "/r/a"))
    handler.dispatch(ev.DirDeletedEvent("/r/d"))
    assert got == [[("/r/a", False)], [("/r/.a.tmp", False), ("/r/a", False)], [("/r/d", True)]]


def test_handler_survives_a_failing_callback() -> None:
    def boom(changes: list[tuple[str, bool]]) -> None:
        raise RuntimeError("bug")

    _Handler(boom).dispatch(ev.FileCreatedEvent("/r/a"))  # logged, not raised into watchdog


@pytest.fixture
def observed(tmp_path: Path) -> Iterator[tuple[Observer, queue.Queue[str]]]:
    """A native observer whose notifications land in a queue (polling: see test_watch_poller.py)."""
    changes: queue.Queue[str] = queue.Queue()
    observer = Observer(lambda items: [changes.put(path) for path, _ in items])
    observer.start()
    yield observer, changes
    observer.stop()


def until(changes: queue.Queue[str], path: Path) -> list[str]:
    """Everything notified up to and including `path`."""
    seen = []
    while True:
        item = changes.get(timeout=TIMEOUT)
        seen.append(item)
        if item == str(path):
            return seen


def test_reads_do_not_notify_writes_do(observed: tuple[Observer, queue.Queue[str]], tmp_path: Path) -> None:
    observer, changes = observed
    (tmp_path / "a.json").write_text("{}\n")
    observer.apply([Watch(str(tmp_path), False)])
    for _ in range(20):
        (tmp_path / "a.json").read_bytes()
    (tmp_path / "barrier").write_text("x")
    assert str(tmp_path / "a.json") not in until(changes, tmp_path / "barrier")
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    until(changes, tmp_path / "a.json")


def test_a_recreated_directory_is_watched_again(tmp_path: Path) -> None:
    changes: queue.Queue[str] = queue.Queue()
    observer = Observer(lambda items: [changes.put(path) for path, _ in items])
    observer.start()
    try:
        tests = tmp_path / "tests"
        tests.mkdir()
        (tests / "a.ts").write_text("x")
        observer.apply([Watch(str(tmp_path), False), Watch(str(tests), True)])
        shutil.rmtree(tests)
        tests.mkdir()  # quite possibly with the same inode number
        # Deleted (seen by the parent's watch and by its own, which then dies), then created.
        for _ in range(3):
            until(changes, tests)
        assert observer.apply([Watch(str(tmp_path), False), Watch(str(tests), True)]) == []
        (tests / "b.ts").write_text("y")
        until(changes, tests / "b.ts")
    finally:
        observer.stop()


def test_unschedule_and_missing_directories(tmp_path: Path) -> None:
    observer = Observer(lambda items: None)
    observer.start()
    try:
        missing = Watch(str(tmp_path / "missing"), True)
        assert observer.apply([missing]) == [missing]
        observer.apply([Watch(str(tmp_path), False)])
        assert observer.watches == [Watch(str(tmp_path), False)]
        observer.apply([])
        assert observer.watches == []
    finally:
        observer.stop()


def test_a_kernel_queue_overflow_is_reported(tmp_path: Path) -> None:
    overflowed = threading.Event()
    observer = Observer(lambda items: None, on_overflow=overflowed.set)
    try:
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost"
        )
        assert overflowed.is_set()
    finally:
        observer.stop()
    overflowed.clear()
    logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed")
    assert not overflowed.is_set()  # the hook is removed with the observer
