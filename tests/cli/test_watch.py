"""`reasonlessons watch` as a real process: JSON lines, real SIGTERM/SIGINT, one daemon per repo."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli.watch import Signals, human
from reasonlessons.constants import EXIT_INTERRUPTED
from tests.jsonshape import command_problems
from tests.watch.harness import seed_project, write_json

TIMEOUT = 20.0


class Proc:
    """A `watch --json` process whose stdout lines are read on a thread, so waits can time out."""

    def __init__(self, repo: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reasonlessons", "watch", "--repo", str(repo), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.seen: list[Any] = []
        self.reader = threading.Thread(target=self._read, name="watch-stdout-reader")
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no {kind} {fields} within {timeout}s; saw {self.seen}; {self.stderr()}")
            if line is None:
                code = self.proc.wait()
                pytest.fail(f"watch exited ({code}) before {kind}; saw {self.seen}; {self.stderr()}")
            event = json.loads(line)  # every stdout line is one JSON object
            self.seen.append(event)
            if event["event"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return dict(event)

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")

    def finish(self, sig: int | None = signal.SIGTERM) -> int:
        if sig is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.reader.join(TIMEOUT)
            for stream in (self.proc.stdout, self.proc.stderr):
                assert stream is not None
                stream.close()
        while not self.lines.empty():
            line = self.lines.get_nowait()
            if line is not None and line.startswith(b"{"):
                self.seen.append(json.loads(line))
        return code


@pytest.fixture
def repo(git_repo: Path) -> Path:
    seed_project(git_repo)
    return git_repo


@pytest.fixture
def watching(repo: Path) -> Iterator[Proc]:
    proc = Proc(repo, "--json", "--debounce", "0.05")
    proc.expect("ready")
    yield proc
    if proc.proc.poll() is None:
        proc.finish(signal.SIGKILL)


def list_json(repo: Path) -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "reasonlessons", "list", "--json", "--repo", str(repo)],
        capture_output=True,
        check=True,
    )
    return {item["name"]: item["status"] for item in json.loads(out.stdout)}


def test_end_to_end_stale_fresh_and_silence(watching: Proc, repo: Path) -> None:
    started = time.monotonic()
    write_json(repo / "package.json", {"name": "demo", "scripts": {"test": "jest"}})
    event = watching.expect("stale", timeout=2.0, name="testing")
    assert time.monotonic() - started < 2.0
    assert event["input"] == "package.json#scripts.test"
    assert (event["was"], event["now"]) == ('"vitest run"', '"jest"')
    assert list_json(repo)["testing"] == "stale"

    write_json(repo / "package.json", {"name": "demo", "scripts": {"test": "vitest run"}})
    watching.expect("fresh", timeout=2.0, name="testing")
    assert list_json(repo)["testing"] == "active"

    (repo / "package.json").write_text('{\n    "scripts": {"test": "vitest run"},\n    "name": "demo"\n}\n')
    (repo / "sentinel.txt").write_text("poke\n")  # a barrier: its event proves the reformat was seen
    before = len(watching.seen)
    watching.expect("stale", name="sentinel")
    assert watching.seen[before:-1] == []

    assert watching.finish(signal.SIGTERM) == 0
    assert watching.seen[-1]["event"] == "stopped"
    for event in watching.seen:  # each line is a documented event (docs/schema/watch.json)
        assert command_problems("watch", event) == [], event


def test_sigint_ends_cleanly_with_exit_0(watching: Proc) -> None:
    assert watching.finish(signal.SIGINT) == 0
    assert [e["event"] for e in watching.seen] == ["ready", "stopped"]


def test_a_second_daemon_says_who_runs_and_exits_1(watching: Proc, repo: Path) -> None:
    second = subprocess.run(
        [sys.executable, "-m", "reasonlessons", "watch", "--json", "--repo", str(repo)],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert second.returncode == 1
    assert second.stdout == b""
    assert f"already running for {repo}".encode() in second.stderr
    assert f"pid {watching.proc.pid}".encode() in second.stderr
    assert watching.finish() == 0


def test_a_killed_daemon_leaves_a_pid_file_that_is_taken_over(repo: Path) -> None:
    first = Proc(repo, "--json")
    first.expect("ready")
    assert first.finish(signal.SIGKILL) == -signal.SIGKILL
    assert (repo / ".reasonix" / "state" / "watch.pid").exists()
    second = Proc(repo, "--json")
    assert second.expect("ready")["pid"] == second.proc.pid
    assert second.finish() == 0


def test_human_output_without_json(repo: Path) -> None:
    proc = Proc(repo, "--debounce", "0.05")
    assert proc.proc.stdout is not None
    first = proc.lines.get(timeout=TIMEOUT)
    assert first is not None
    assert b"watching" in first
    assert b"2 lesson(s), 0 stale" in first
    write_json(repo / "package.json", {"scripts": {"test": "jest"}})
    line = proc.lines.get(timeout=TIMEOUT)
    assert line is not None
    assert b"stale  testing [project]  package.json#scripts.test" in line
    assert proc.finish(signal.SIGINT) == 0


def test_usage_errors_exit_2(repo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "reasonlessons", "watch", "--idle-seconds", "0", "--repo", str(repo)],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 2


def test_a_second_ctrl_c_exits_at_once() -> None:
    stops: list[int] = []
    exits: list[int] = []
    handler = Signals(lambda: stops.append(1), exit=exits.append)
    handler(signal.SIGINT)
    assert (stops, exits) == ([1], [])
    handler(signal.SIGINT)
    assert (stops, exits) == ([1], [EXIT_INTERRUPTED])


def test_sigterm_twice_only_asks_to_stop() -> None:
    stops: list[int] = []
    handler = Signals(lambda: stops.append(1), exit=lambda code: pytest.fail("must not exit"))
    handler(signal.SIGTERM)
    handler(signal.SIGTERM)
    assert stops == [1, 1]


def test_human_lines() -> None:
    assert human({"event": "fresh", "name": "t", "scope": "project", "input": "a", "status": "stale"}) == (
        "fresh  t [project]  a is back to its recorded value (other inputs still drifted)"
    )
    assert human({"event": "error", "message": "boom"}) == "error: boom (still watching)"
    assert human({"event": "captured", "name": "c", "log": "/l", "path": "/p"}).startswith("captured")
