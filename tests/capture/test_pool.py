"""Reading logs in a process pool (capture/pool.py): the same result as one process, and no log
lost when a worker dies."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.capture import pool
from reasonlessons.capture.pipeline import CaptureReport, capture
from reasonlessons.capture.reading import ReadJob
from reasonlessons.store.project import open_project
from reasonlessons.support import jsonio
from tests.capturesupport import CAPTURE, copy_v1_logs
from tests.invoke import Invoke

NOW = dt.datetime(2026, 5, 6, 12, 0, tzinfo=dt.UTC)
V1 = CAPTURE / "reasonix-v1"
NAMES = ("vitest-not-found", "esm-fix", "assertion", "vitest-again", "short")


def _logs(into: Path) -> list[Path]:
    copy_v1_logs(into, *NAMES)
    (into / "notes.jsonl").write_text('{"not": "a log"}\n')  # skipped, the same way in both runs
    return sorted(into.glob("*.jsonl"))


def _run(repo: Path, jobs: int) -> CaptureReport:
    return capture(open_project(repo, now=lambda: NOW), [repo / "logs"], now=NOW, jobs=jobs)


def _outcome(repo: Path, report: CaptureReport) -> dict[str, object]:
    """What a run leaves behind, with this repo's path taken out."""
    state = repo / ".reasonix"
    files: dict[str, object] = {
        str(p.relative_to(state)): p.read_text().replace(str(repo), "<repo>")
        for p in sorted(state.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }
    checkpoints = jsonio.loads(str(files.pop("state/capture-checkpoints.json")))
    # Entries are filed under a digest of their log's path, and the logs of each run are other paths.
    checkpoints["data"] = {entry["path"]: entry for entry in checkpoints["data"].values()}
    for entry in checkpoints["data"].values():
        for key in ("dev", "ino", "mtime_ns", "ctime_ns"):  # copies of the same logs are other files
            entry["identity"].pop(key)
    files["checkpoints"] = checkpoints
    doc = jsonio.loads(jsonio.dumps(report.to_json()).decode().replace(str(repo), "<repo>"))
    return {"files": files, "report": doc}


def test_a_pooled_run_writes_exactly_what_a_sequential_run_writes(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    sequential = make_repo("capture-node")
    pooled = tmp_path / "pooled"
    shutil.copytree(sequential, pooled, symlinks=True)
    for repo in (sequential, pooled):
        _logs(repo / "logs")
    one = _run(sequential, jobs=1)
    two = _run(pooled, jobs=2)
    assert one.written, "the fixture logs should yield candidates"
    assert _outcome(sequential, one) == _outcome(pooled, two)
    again = _run(pooled, jobs=2)  # checkpoints were saved: nothing is read again
    assert again.unchanged == again.files
    assert not again.written
    assert not again.updated


def test_workers_are_used_only_when_they_pay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "cpus", lambda: 4)

    def jobs(*sizes: int) -> list[int]:
        return list(sizes)

    mib = 1 << 20
    assert pool.workers_for(jobs(mib, mib), None, {}) == 0  # a small run: one process
    assert pool.workers_for(jobs(*[20 * mib] * 8), None, {}) == 4  # one per CPU
    assert pool.workers_for(jobs(20 * mib, 20 * mib), None, {}) == 2  # no more than the logs
    assert pool.workers_for(jobs(300 * mib, 300 * mib), None, {}) == 0  # huge logs stream in-process
    assert pool.workers_for(jobs(*[20 * mib] * 8), 1, {}) == 0  # --jobs 1
    assert pool.workers_for(jobs(mib, mib, mib), 3, {}) == 3  # --jobs wins over the size rule
    env = {pool.ENV_WORKERS: "2"}
    assert pool.workers_for(jobs(*[20 * mib] * 8), None, env) == 2
    assert pool.workers_for(jobs(*[20 * mib] * 8), 3, env) == 3
    assert pool.workers_for(jobs(*[20 * mib] * 8), None, {pool.ENV_WORKERS: "many"}) == 4
    monkeypatch.setattr(pool, "cpus", lambda: 64)
    assert pool.workers_for(jobs(*[20 * mib] * 80), None, {}) == pool.DEFAULT_MAX_WORKERS  # memory
    assert pool.workers_for(jobs(*[20 * mib] * 80), 8, {}) == 8


def test_a_dead_worker_leaves_the_rest_to_the_main_process(tmp_path: Path) -> None:
    """A worker killed mid-read (out of memory, a signal) breaks the pool: every log it had not
    handed back is reported as not read ahead, so the caller reads it itself."""
    stuck = tmp_path / "stuck.events.jsonl"
    os.mkfifo(stuck)  # opening it blocks the worker until we kill it
    later = tmp_path / "later.events.jsonl"
    shutil.copy(V1 / "short.events.jsonl", later)
    jobs = [ReadJob(p, "reasonix-v1", 0, 0, None, {}, str(tmp_path)) for p in (stuck, later)]
    ahead = pool.ReadAhead(jobs, 2)
    try:
        deadline = time.monotonic() + 30
        while not ahead._executor._processes and time.monotonic() < deadline:  # noqa: SLF001
            time.sleep(0.05)
        for pid in list(ahead._executor._processes):  # noqa: SLF001
            os.kill(pid, signal.SIGKILL)
        assert ahead.take(stuck) is None
        assert ahead.take(later) is None
    finally:
        ahead.close()


def test_the_pool_starts_while_the_caller_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting the workers waits for the fork server: it happens on a thread, a log never handed
    to the pool is answered at once, and a failure to start reaches the caller at its next take."""
    later = tmp_path / "later.events.jsonl"
    shutil.copy(V1 / "short.events.jsonl", later)
    jobs = [ReadJob(later, "reasonix-v1", 0, 0, None, {}, str(tmp_path))]
    release = threading.Event()

    def slow_fill(self: pool.ReadAhead) -> None:
        release.wait(30)
        raise OSError("cannot start a worker")

    monkeypatch.setattr(pool.ReadAhead, "_fill", slow_fill)
    ahead = pool.ReadAhead(jobs, 2)
    try:
        assert ahead.take(tmp_path / "first.events.jsonl") is None  # not waiting for the start
        release.set()
        with pytest.raises(OSError, match="cannot start a worker"):
            ahead.take(later)
    finally:
        ahead.close()


def test_the_jobs_option(cli_invoke: Invoke, make_repo: Callable[[str], Path]) -> None:
    repo = make_repo("capture-node")
    logs = _logs(repo / "logs")
    doc = cli_invoke("capture", "--repo", repo, "--jobs", "2", "--json", *logs).json()
    assert isinstance(doc, dict)
    assert doc["candidates"]
    bad = cli_invoke("capture", "--repo", repo, "--jobs", "0", *logs, expect=None)
    assert bad.code == 2
    assert "--jobs" in bad.stderr


def test_workers_exit_when_the_capture_process_is_killed(tmp_path: Path) -> None:
    """A capture killed with SIGKILL runs no cleanup: its workers notice and exit by themselves,
    so nothing keeps reading logs or holds the caller's output pipe open."""
    import subprocess
    import sys

    stuck = tmp_path / "stuck.events.jsonl"
    os.mkfifo(stuck)  # the worker reading it blocks until the pool is gone
    later = tmp_path / "later.events.jsonl"
    shutil.copy(V1 / "short.events.jsonl", later)
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from reasonlessons.capture import pool\n"
        "from reasonlessons.capture.reading import ReadJob\n"
        "jobs = [ReadJob(Path(p), 'reasonix-v1', 0, 0, None, {}, '/') for p in sys.argv[1:]]\n"
        "ahead = pool.ReadAhead(jobs, 2)\n"
        "while len(ahead._executor._processes) < 2: time.sleep(0.05)\n"
        "print(*ahead._executor._processes, flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(stuck), str(later)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    workers = [int(pid) for pid in child.stdout.readline().split()]
    assert len(workers) == 2
    child.kill()
    child.wait()
    deadline = time.monotonic() + 20
    while any(pool.alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(pool.alive(pid) for pid in workers)
    assert child.stdout.read() == ""  # EOF: no process is left holding the pipe
