"""`capture`: session logs -> adapters -> reducer -> extractor -> gates -> candidates (the library entry).

Logs are read incrementally (checkpoint.py), one event at a time; each session's observations are
turned into drafts as soon as the session ends, so memory stays flat whatever the log size. Nothing
is printed: progress goes to a callback and the outcome is a CaptureReport.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons.atomic import locked
from reasonlessons.capture import sources
from reasonlessons.capture.checkpoint import Checkpoints, FileCheckpoint, Identity, Plan, plan
from reasonlessons.capture.errors import MissingDependencyError, UnsupportedLogError
from reasonlessons.capture.events import ReadStats, SessionRef
from reasonlessons.capture.report import CaptureReport, Item, Progress, ProgressCallback

if TYPE_CHECKING:
    from reasonlessons.capture.adapters import Adapter
    from reasonlessons.capture.learn import Extractor, Learner
    from reasonlessons.capture.reducer import SessionReducer
    from reasonlessons.project import Project

__all__ = ["DEFAULT_IDLE_SECONDS", "CaptureReport", "Item", "Progress", "ProgressCallback", "capture"]

DEFAULT_IDLE_SECONDS = 600.0
_PROGRESS_EVERY = 20_000


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
) -> CaptureReport:
    """Read session logs (`paths`, or this repo's logs found in each agent's standard location) and
    write new candidates; a re-run on unchanged logs reads and writes nothing. `extractor` replaces
    the heuristic one (e.g. the LLM extractor, reasonlessons/extract_llm/)."""
    report = CaptureReport()
    discovered = None if paths else sources.discovered(project.loc.root, agent, env=env, home=home)
    files = sources.plain_files(paths) if paths else [ref.path for ref in discovered or []]
    if files and _all_unchanged(project, files, agent):
        report.files = report.unchanged = len(files)
        return report  # the common re-run: no adapter loaded, no lock taken, nothing read
    from reasonlessons.capture import adapters

    chosen = None if agent == "auto" else adapters.get(agent)  # raises a usage error early
    if paths:
        refs = sources.explicit(
            paths, chosen, lambda what, why: report.skipped.append(Item(what, reason=why))
        )
    else:
        refs = [(ref, adapters.get(ref.agent)) for ref in discovered or []]
    logs = [_Log(ref, adapter) for ref, adapter in refs]
    report.files = len(logs)
    if not logs:
        return report
    project.loc.ensure_state_dir()
    with locked(project.loc.state_dir / "capture.lock"):
        run = _Run(project, report, now or project.now(), idle_seconds, progress, extractor)
        run.all(logs)
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
        self._learner: Learner | None = None
        self.done = 0
        self.total = 0
        self.files_done = 0

    def all(self, logs: list[_Log]) -> None:
        for log in logs:
            try:
                log.identity = Identity.of(log.ref.path)
            except OSError as exc:
                self.report.skipped.append(
                    Item(str(log.ref.path), reason=f"cannot read ({exc.strerror or exc})")
                )
                continue
            log.plan = plan(self.checkpoints.get(log.ref.path), log.identity, log.adapter.name, log.ref.path)
        self.total = sum(log.todo for log in logs)
        try:
            for log in logs:
                if log.plan is not None:
                    self.one(log)
                self.files_done += 1
                self._tick(None, 0)
        finally:
            if self._learner is not None:
                self._learner.flush()
            self.checkpoints.save()

    @property
    def learner(self) -> Learner:
        """What turns sessions into candidates; loaded only when some log has something new."""
        if self._learner is None:
            from reasonlessons.capture.learn import Learner

            self._learner = Learner(self.project, self.report, now=self.now, extractor=self.extractor)
        return self._learner

    def _tick(self, path: Path | None, read: int) -> None:
        if self.progress is not None:
            self.progress(Progress(self.done + read, self.total, self.files_done, self.report.files, path))

    def one(self, log: _Log) -> None:
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
        from reasonlessons.capture.reducer import SessionReducer

        stats = ReadStats()
        captured = dict(start.captured)
        seen: set[str] = set()
        reducer: SessionReducer | None = None
        count = 0
        failed: str | None = None
        try:
            events = adapter.read_session(
                path, stats=stats, start_offset=start.offset, start_seq=start.seq, start_line=start.line
            )
            for event in events:
                count += 1
                if count % _PROGRESS_EVERY == 0:
                    self._tick(path, stats.last_offset - start.offset)
                seen.add(event.session_id)
                if event.seq <= captured.get(event.session_id, -1):
                    continue  # re-read from the resume point: already learned from
                if reducer is None or reducer.obs.session_id != event.session_id:
                    if reducer is not None:
                        self.learner.session(reducer, captured, complete=True)
                    reducer = SessionReducer(adapter.name, event.session_id, root=str(self.project.loc.root))
                reducer.feed(event)
                self.learner.trace(event)  # outcomes of recalled lessons (reasonlessons/learning/)
        except (UnsupportedLogError, MissingDependencyError, OSError, ValueError) as exc:
            failed = str(exc)
            self.report.skipped.append(Item(str(path), reason=f"cannot read: {failed}"))
        self.report.damage.update(stats.skipped)
        self.done += log.todo
        pending = False
        if reducer is not None and failed is None:
            # A half-written last record means the agent is still writing, unless it went quiet.
            complete = self._complete(log) and not stats.skipped.get("truncated-tail") or self._idle(log)
            pending = not complete
            self.learner.session(reducer, captured, complete=complete)
        if failed is not None:
            return  # keep the old checkpoint: the next run tries this log again
        offset, seq, line = stats.resume_offset, stats.resume_seq, stats.resume_line
        if pending and seq != 0:
            offset, seq, line = start.offset, start.seq, start.line  # re-read the open session whole
        kept = {sid: last for sid, last in captured.items() if sid in seen}
        self.checkpoints.put(
            path, FileCheckpoint(adapter.name, log.identity, offset, seq, line, kept, pending)
        )

    def _idle(self, log: _Log) -> bool:
        from reasonlessons.capture.lines import is_idle

        target = log.ref.path / "events.frames" if log.ref.path.is_dir() else log.ref.path
        try:
            return is_idle(target, self.now, self.idle)
        except OSError:
            return False

    def _complete(self, log: _Log) -> bool:
        try:
            return log.adapter.describe(log.ref.path, now=self.now, idle_seconds=self.idle).complete
        except (UnsupportedLogError, OSError, ValueError):
            return False
