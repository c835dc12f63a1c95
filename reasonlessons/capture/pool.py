"""Reading several logs at once in worker processes, handed back in the order capture applies them.

Parsing and reducing a log is most of capture's work and needs nothing from the other logs, so on
a machine with more than one CPU a big run reads ahead in a process pool while the main process
extracts, writes and checkpoints, one file at a time in the run's order (the output is the same
as a sequential run's). Only a bounded window of files is read ahead, so memory does not grow with
the run; a log too big to hold its sessions in memory at once is left to the main process, which
streams it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from reasonlessons.capture.reading import FileRead, ReadJob, read_file
from reasonlessons.safety.secretscan import PLUGINS

ENV_WORKERS = "REASONLESSONS_CAPTURE_JOBS"
MIN_BYTES = 32 << 20  # below this a run takes well under a second: starting workers is not worth it
MAX_FILE_BYTES = 256 << 20  # a bigger log is streamed in the main process (flat memory)
DEFAULT_MAX_WORKERS = 4  # each worker holds its own ~40 MB of interpreter and caches
# What every worker needs, imported once by the fork server rather than by each worker.
_PRELOAD = [
    "reasonlessons.capture.reading",
    "reasonlessons.sessions.adapters",
    "reasonlessons.capture.reduce.reducer",
    "reasonlessons.capture.extract.heuristic",
    "reasonlessons.capture.gates",
    "detect_secrets.filters.heuristic",
    *(f"detect_secrets.plugins.{module}" for module, _ in PLUGINS),
]


def cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return os.cpu_count() or 1


def poolable(size: int) -> bool:
    """Whether a log with `size` bytes to read goes to the pool (else it is read in-process)."""
    return 0 < size <= MAX_FILE_BYTES


def workers_for(sizes: Sequence[int], wanted: int | None, env: Mapping[str, str]) -> int:
    """How many worker processes to read logs with `sizes` bytes to read; 0 for none.

    `wanted` (the `--jobs` option) wins, then $REASONLESSONS_CAPTURE_JOBS; by default one per CPU
    up to DEFAULT_MAX_WORKERS, only for a run big enough to repay starting them. One log or one
    worker reads in-process."""
    pooled = [size for size in sizes if poolable(size)]
    if wanted is None and env.get(ENV_WORKERS, "").strip():
        try:
            wanted = int(env[ENV_WORKERS])
        except ValueError:
            wanted = None
    if wanted is None:
        wanted = min(cpus(), DEFAULT_MAX_WORKERS) if sum(pooled) >= MIN_BYTES else 0
    count = min(wanted, len(pooled))
    return count if count >= 2 else 0


class ReadAhead:
    """Reads jobs in a pool, at most `window` files ahead of the one the caller takes next."""

    def __init__(self, jobs: Sequence[ReadJob], workers: int, *, window: int | None = None) -> None:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        # forkserver: workers fork from a clean server with the readers imported, never from this
        # process (a progress bar's thread or a held lock must not be copied into them).
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if context.get_start_method() == "forkserver":
            context.set_forkserver_preload(_PRELOAD)
        self._executor = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_watch, initargs=(os.getpid(),)
        )
        self._jobs = list(jobs)
        self._paths = {job.path for job in self._jobs}
        self._window = window or 2 * workers
        self._next = 0
        self._futures: dict[Path, Future[FileRead]] = {}
        self._broken = False
        # The first submits start the workers, and each start waits for the fork server to import
        # the readers (0.3-1 s): done on a thread, so the caller reads its first log meanwhile
        # instead of leaving a CPU idle. Only `take` and `close` touch the pool after, once it ran.
        self._failure: BaseException | None = None
        self._starting: threading.Thread | None = threading.Thread(
            target=self._start, name="reasonlessons-pool-start", daemon=True
        )
        self._starting.start()

    def _start(self) -> None:
        try:
            self._fill()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread by _started
            self._failure = exc

    def _started(self) -> None:
        if self._starting is not None:
            self._starting.join()
            self._starting = None
            if self._failure is not None:
                raise self._failure

    def _fill(self) -> None:
        while not self._broken and len(self._futures) < self._window and self._next < len(self._jobs):
            job = self._jobs[self._next]
            self._next += 1
            try:
                self._futures[job.path] = self._executor.submit(read_file, job)
            except (BrokenProcessPool, RuntimeError):
                self._broken = True

    def take(self, path: Path) -> FileRead | None:
        """The read of `path`, waiting for it; None when it was not read ahead (read it in-process)."""
        if path not in self._paths:
            return None  # never handed to the pool (no need to wait for it to start)
        self._started()
        future = self._futures.pop(path, None)
        if future is None:
            return None
        try:
            return future.result()
        except BrokenProcessPool:
            self._broken = True  # a worker died (killed, out of memory): the rest is read in-process
            return None
        finally:
            self._fill()

    def close(self) -> None:
        if self._starting is not None:
            self._starting.join()
            self._starting = None
        for future in self._futures.values():
            future.cancel()
        self._executor.shutdown(wait=True, cancel_futures=True)


def _watch(parent: int) -> None:
    """In each worker: exit as soon as the capture process is gone. A killed capture stops no one
    (its workers hold their own end of the work queue, so they would wait for work forever, and
    keep the terminal or a hook's pipe open)."""
    import threading
    import time

    def run() -> None:
        while alive(parent):
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=run, name="reasonlessons-parent-watch", daemon=True).start()


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, killed but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        pass  # no /proc (macOS): ask the kernel, which cannot tell a zombie
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
