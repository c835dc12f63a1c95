"""`capture`: session logs -> adapters -> reducer -> extractor -> gates -> candidates (the library entry).

Logs are read incrementally (checkpoint.py), one event at a time; each session's observations are
turned into drafts as soon as the session ends, so memory stays flat whatever the log size. Nothing
is printed: progress goes to a callback and the outcome is a CaptureReport.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import reasonlessons.capture
from reasonlessons import sessions
from reasonlessons.capture import sources
from reasonlessons.capture.checkpoint import Checkpoints, FileCheckpoint, Identity, Plan, plan
from reasonlessons.capture.report import CaptureReport, Item, Progress, ProgressCallback
from reasonlessons.sessions.events import SessionRef
from reasonlessons.store import config
from reasonlessons.support.atomic import locked

if TYPE_CHECKING:
    from reasonlessons.capture.apply import CandidateMaker, Extractor
    from reasonlessons.capture.pool import ReadAhead
    from reasonlessons.capture.reading import FileRead, ReadJob, SessionRead
    from reasonlessons.sessions.adapters import Adapter
    from reasonlessons.store.project import Project

__all__ = ["DEFAULT_IDLE_SECONDS", "CaptureReport", "Item", "Progress", "ProgressCallback", "capture"]

DEFAULT_IDLE_SECONDS = 600.0
SAVE_EVERY = 30.0  # seconds between saves of a long run's progress (checkpoints, evidence)


@dataclass
class _Log:
    ref: SessionRef
    adapter: Adapter
    identity: Identity | None = None
    plan: Plan | None = None

    @property
    def todo(self) -> int:
        if self.identity is None or self.plan is None or self.plan.action == "unchanged":
            return 0
        return max(0, self.identity.size - self.plan.offset)


def capture(
    project: Project,
    paths: Sequence[Path] | None = None,
    *,
    agent: str = "auto",
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now: dt.datetime | None = None,
    idle_seconds: float = DEFAULT_IDLE_SECONDS,
    progress: ProgressCallback | None = None,
    extractor: Extractor | None = None,
    jobs: int | None = None,
) -> CaptureReport:
    """Read session logs (`paths`, or this repo's logs found in each agent's standard location) and
    write new candidates; a re-run on unchanged logs reads and writes nothing. `extractor` replaces
    the heuristic one (e.g. the LLM extractor, reasonlessons/capture/extract/llm/). `jobs` is how many
    processes read logs (capture/pool.py; by default one per CPU when the run is big)."""
    project.loc.guard_writes()
    report = CaptureReport()
    discovered = None if paths else sources.discovered(project.loc.root, agent, env=env, home=home)
    files = sources.plain_files(paths) if paths else [ref.path for ref in discovered or []]
    if files and _all_unchanged(project, files, agent):
        report.files = report.unchanged = len(files)
        return report  # the common re-run: no adapter loaded, no lock taken, nothing read
    chosen = (
        None if agent == "auto" else reasonlessons.capture.adapters.get(agent)
    )  # raises a usage error early
    if paths:
        refs = sources.explicit(
            paths,
            chosen,
            lambda what, why: report.skipped.append(Item(what, reason=why)),
            lambda what, why: report.errors.append(Item(what, reason=why)),
        )
    else:
        refs = [(ref, reasonlessons.capture.adapters.get(ref.agent)) for ref in discovered or []]
    logs = [_Log(ref, adapter) for ref, adapter in refs]
    report.files = len(logs)
    if not logs:
        return report
    project.loc.ensure_state_dir()
    with locked(project.loc.state_dir / "capture.lock"):
        run = _Run(project, report, now or project.now(), idle_seconds, progress, extractor)
        run.named = bool(paths)
        run.all(logs, jobs=jobs, env=os.environ if env is None else env)
    return report


def _all_unchanged(project: Project, files: list[Path], agent: str) -> bool:
    """True when every log has a checkpoint of the wanted agent and is byte-for-byte as it was then.

    Checkpoints are written atomically, so reading them needs no lock; anything less than all
    unchanged goes the full way, under the lock.
    """
    checkpoints = Checkpoints(project.loc.state_dir)
    for path in files:
        checkpoint = checkpoints.get(path)
        if checkpoint is None or checkpoint.pending or agent not in ("auto", checkpoint.agent):
            return False
        try:
            if Identity.of(path) != checkpoint.identity:
                return False
        except OSError:
            return False
    return True


class _Run:
    """One capture run: checkpoints, the candidate writer, counters and progress."""

    def __init__(
        self,
        project: Project,
        report: CaptureReport,
        now: dt.datetime,
        idle_seconds: float,
        progress: ProgressCallback | None,
        extractor: Extractor | None = None,
    ) -> None:
        self.project = project
        self.extractor = extractor
        self.report = report
        self.now = now
        self.idle = idle_seconds
        self.progress = progress
        self.checkpoints = Checkpoints(project.loc.state_dir)
        self.settings = config.load(project.loc)  # a bad config.toml stops the run before any read
        self._maker: CandidateMaker | None = None
        # Logs named on the command line: one that cannot be read is an error, not a skip.
        self.named = False
        self.done = 0
        self.total = 0
        self.files_done = 0
        self._saved = time.monotonic()

    def all(self, logs: list[_Log], *, jobs: int | None = None, env: Mapping[str, str] | None = None) -> None:
        for log in logs:
            try:
                log.identity = Identity.of(log.ref.path)
            except OSError as exc:
                self._unreadable(log.ref.path, f"cannot read ({exc.strerror or exc})")
                continue
            log.plan = plan(self.checkpoints.get(log.ref.path), log.identity, log.adapter.name, log.ref.path)
        self.total = sum(log.todo for log in logs)
        ahead = self._read_ahead(logs, jobs, env or {})
        try:
            for log in logs:
                if log.plan is not None:
                    self.one(log, ahead.take(log.ref.path) if ahead is not None else None)
                self.files_done += 1
                if time.monotonic() - self._saved >= SAVE_EVERY:
                    self._save()
                self._tick(None, 0)
        finally:
            if ahead is not None:
                ahead.close()
            if self._maker is not None:
                self._maker.flush()
            self.checkpoints.save()

    def _read_ahead(self, logs: list[_Log], jobs: int | None, env: Mapping[str, str]) -> ReadAhead | None:
        """A pool reading the logs with new bytes, when the run is big enough (capture/pool.py)."""
        pool = reasonlessons.capture.pool
        todo = [log for log in logs if log.todo]
        workers = pool.workers_for([log.todo for log in todo], jobs, env)
        if not workers:
            return None
        # The first log is read here, while the pool's processes start.
        return pool.ReadAhead([self._job(log) for log in todo[1:] if pool.poolable(log.todo)], workers)

    def _job(self, log: _Log) -> ReadJob:
        start = log.plan
        assert start is not None
        return reasonlessons.capture.reading.ReadJob(
            log.ref.path,
            log.adapter.name,
            start.offset,
            start.seq,
            start.line,
            dict(start.captured),
            str(self.project.loc.root),
            extract=self.extractor is None,
            settings=self.settings,
        )

    def _save(self) -> None:
        """Make what was applied so far durable: evidence and learning counts first, then the
        checkpoints that say those logs are done (a capture killed later resumes from here)."""
        if self._maker is not None:
            self._maker.save()
        self.checkpoints.save()
        self._saved = time.monotonic()

    @property
    def maker(self) -> CandidateMaker:
        """What turns sessions into candidates; loaded only when some log has something new."""
        if self._maker is None:
            self._maker = reasonlessons.capture.apply.CandidateMaker(
                self.project, self.report, now=self.now, extractor=self.extractor, settings=self.settings
            )
        return self._maker

    def _tick(self, path: Path | None, read: int) -> None:
        if self.progress is not None:
            self.progress(Progress(self.done + read, self.total, self.files_done, self.report.files, path))

    def one(self, log: _Log, read: FileRead | None = None) -> None:
        """Apply one log: learn from its sessions in order, then move its checkpoint. `read` is the
        pool's read of it; without one, the log is read here, a session at a time."""
        path, adapter, start = log.ref.path, log.adapter, log.plan
        assert start is not None
        assert log.identity is not None
        if start.action == "unchanged":
            self.report.unchanged += 1
            return
        previous = self.checkpoints.get(path)
        unchanged = previous is not None and previous.identity == log.identity
        # Only the last session was pending and no byte was added: read only if it has ended since.
        if start.action == "resume" and unchanged and not self._complete(log):
            self.report.skipped.append(Item(str(path), reason="last session still being written"))
            return
        job = self._job(log)
        captured = dict(job.captured)
        reading = reasonlessons.capture.reading
        if read is None:
            read = reading.FileRead()
            facts = self.maker.facts if job.extract else None
            sessions = reading.read_sessions(job, read, lambda done: self._tick(path, done), facts)
        else:
            sessions = iter(read.sessions)
        held: SessionRead | None = None  # the last session: whether it ended is known at the end
        try:
            for session in sessions:
                if held is not None:
                    self.maker.session(held, captured, complete=True)
                held = session
        except reading.READ_ERRORS as exc:
            read.failed = str(exc)
        stats = read.stats
        self.report.damage.update(stats.skipped)
        self.done += log.todo
        if read.failed is not None:
            self._unreadable(path, f"cannot read: {read.failed}")
            if held is not None:
                self.maker.session(held, captured, complete=True)  # it ended before the bad part
            return  # keep the old checkpoint: the next run tries this log again
        pending = False
        if held is not None:
            # A half-written last record means the agent is still writing, unless it went quiet.
            complete = self._complete(log) and not stats.skipped.get("truncated-tail") or self._idle(log)
            pending = not complete
            self.maker.session(held, captured, complete=complete)
        offset, seq, line = stats.resume_offset, stats.resume_seq, stats.resume_line
        if pending and seq != 0:
            offset, seq, line = start.offset, start.seq, start.line  # re-read the open session whole
        kept = {sid: last for sid, last in captured.items() if sid in read.seen}
        self.checkpoints.put(
            path, FileCheckpoint(adapter.name, log.identity, offset, seq, line, kept, pending)
        )

    def _unreadable(self, path: Path, reason: str) -> None:
        (self.report.errors if self.named else self.report.skipped).append(Item(str(path), reason=reason))

    def _idle(self, log: _Log) -> bool:
        target = log.ref.path / "events.frames" if log.ref.path.is_dir() else log.ref.path
        try:
            return sessions.jsonl.is_idle(target, self.now, self.idle)
        except OSError:
            return False

    def _complete(self, log: _Log) -> bool:
        try:
            return log.adapter.describe(log.ref.path, now=self.now, idle_seconds=self.idle).complete
        except reasonlessons.capture.reading.READ_ERRORS:
            return False
