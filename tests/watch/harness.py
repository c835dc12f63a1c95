"""A watched project, and a watch daemon run in a thread whose events a test waits for."""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.store.project import Project, open_project
from reasonlessons.watch.daemon import CaptureFn, Daemon, FindSessions, WatchOptions

TIMEOUT = 15.0


def write_json(path: Path, doc: object) -> None:
    path.write_text(json.dumps(doc) + "\n")


def seed_project(repo: Path) -> Project:
    """Give `repo` a package.json with a test script, a tests/ folder, and two lessons: `testing` (on
    the test script and tests/) and `sentinel` (on sentinel.txt, which `Harness.poke` changes)."""
    write_json(repo / "package.json", {"name": "demo", "scripts": {"test": "vitest run"}})
    (repo / "tests").mkdir()
    (repo / "tests" / "a.test.ts").write_text("it('x', () => {})\n")
    (repo / "sentinel.txt").write_text("0\n")
    project = open_project(repo)
    project.store.add(
        "testing",
        description="Test runner",
        fingerprint=["package.json#scripts.test", "tests/"],
        body="- vitest",
    )
    project.store.add("sentinel", description="A file the tests poke", fingerprint=["sentinel.txt"])
    return project


class Harness:
    """A daemon on a thread; `expect` waits (with a timeout, never a sleep) for a matching event."""

    def __init__(
        self,
        project: Project,
        *,
        poll: bool = False,
        capture: CaptureFn | None = None,
        find_sessions: FindSessions | None = None,
        idle_seconds: float = 60.0,
        env: dict[str, str] | None = None,
    ) -> None:
        options = WatchOptions(
            poll=poll, poll_interval=0.05, debounce=0.05, max_wait=0.5, idle_seconds=idle_seconds
        )
        self.project = project
        self.root = project.loc.root
        self.daemon = Daemon(
            project,
            options=options,
            capture=capture,
            find_sessions=find_sessions,
            env=env if env is not None else dict(os.environ),
            home=Path(os.environ["HOME"]),
        )
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="watch-daemon-under-test")
        self._poke = 0

    def _run(self) -> None:
        try:
            self.daemon.run(self.events.put)
        except BaseException as exc:  # noqa: BLE001 (reported to the test thread)
            self.error = exc
            self.events.put({"event": "crashed", "error": repr(exc)})

    def start(self) -> dict[str, Any]:
        self.thread.start()
        return self.expect("ready")

    def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        try:
            event = self.events.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no event within {timeout}s; saw {self.seen}")
        self.seen.append(event)
        if event["event"] == "crashed":
            pytest.fail(f"the daemon crashed: {event['error']}")
        return event

    def expect(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """The first event of `kind` with `fields`, skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"no {kind} {fields} within {timeout}s; saw {self.seen}")
            event = self.next(remaining)
            if event["event"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return event

    def poke(self) -> list[dict[str, Any]]:
        """Change sentinel.txt and return every event up to the sentinel's own: a barrier."""
        self._poke += 1
        (self.root / "sentinel.txt").write_text(f"{self._poke}\n")
        before = len(self.seen)
        self.expect("stale", name="sentinel")
        return list(self.seen[before:-1])

    def stop(self) -> None:
        self.daemon.request_stop()
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive(), "the daemon did not stop"
        assert self.error is None, repr(self.error)
        rest = []
        while not self.events.empty():
            rest.append(self.events.get_nowait())
        self.seen += rest
        assert rest, "no `stopped` event"
        assert rest[-1]["event"] == "stopped", rest

    def status(self, name: str) -> str:
        """What `list` says now (a new Project, as each command builds one: its checker memoizes)."""
        entries, _ = open_project(self.root).entries("all")
        return next(e.status for e in entries if e.lesson.name == name)
