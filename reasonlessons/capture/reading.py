"""The read phase of capture: the new events of one log file -> its sessions, reduced.

Everything here depends only on the log and a small `ReadJob`, and its results pickle, so a pool
of processes can read several files at once (capture/pool.py) while the main process applies the
results (extraction, writes, checkpoints) in file order. Read in-process, sessions come out one
at a time, so memory stays flat whatever the size of one file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons import capture
from reasonlessons.capture import extract, reduce
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.reduce.observations import Observation, SessionObservations, Writ
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.sessions.errors import MissingDependencyError, UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats
from reasonlessons.store.config import DEFAULTS, Config

if TYPE_CHECKING:
    from reasonlessons.capture.gates import Checked
    from reasonlessons.capture.reduce.reducer import SessionReducer

# What a log that cannot be read raises; anything else is a bug and propagates.
READ_ERRORS = (UnsupportedLogError, MissingDependencyError, OSError, ValueError)
PROGRESS_EVERY = 20_000  # events between two progress reports of an in-process read
_BATCH = 64  # events read before the reducer and the trace take them (_batch)
_BATCH_BYTES = 1 << 20  # or this much of the log read, whichever comes first
_DRAFT_GROUP = 16  # sessions read before they are drafted


@dataclass(frozen=True)
class ReadJob:
    """Where to read one log from, and what of it was already learned from."""

    path: Path
    agent: str  # the adapter's name (adapters.get)
    offset: int
    seq: int
    line: int | None
    captured: dict[str, int]  # session id -> last seq already learned from
    root: str  # the project root, for paths in observations
    extract: bool = True  # run the heuristic extractor here (not when another one is plugged in)
    settings: Config = DEFAULTS  # the gates' settings (store/config.py), read once per run


@dataclass
class SessionRead:
    """One session of a log: its observations, its trace for the learning loop, and (when the
    heuristic extractor ran here) its gated drafts and the ones dropped, with why."""

    obs: SessionObservations
    trace: SessionTrace
    drafts: list[Checked] | None = None
    dropped: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class FileRead:
    """What reading one log gave: its sessions (pool reads only), counters and the ids it saw."""

    stats: ReadStats = field(default_factory=ReadStats)
    seen: set[str] = field(default_factory=set)
    sessions: list[SessionRead] = field(default_factory=list)
    failed: str | None = None


def read_sessions(
    job: ReadJob,
    into: FileRead,
    tick: Callable[[int], None] | None = None,
    facts: RepoFacts | None = None,
) -> Iterator[SessionRead]:
    """Yield each session of the log in order, once its last event in this read is seen.

    The last session comes out when the log is exhausted; whether it ended is the caller's call.
    Events already learned from (`job.captured`) are only counted. Counters and seen session ids
    go to `into`; `tick(bytes read)` is called every PROGRESS_EVERY events; `facts` are the
    repository's, for the extractor (read afresh when not given). Raises READ_ERRORS.
    """
    if job.extract and facts is None:
        facts = RepoFacts(Path(job.root))
    # Read a group at a time, then drafted and handed out one by one, as in a pool worker (read_file).
    waiting: list[SessionRead] = []  # read, not drafted yet
    try:
        for read in _sessions(job, into, tick):
            waiting.append(read)
            if len(waiting) >= _DRAFT_GROUP:
                yield from _each_drafted(waiting, facts, job.settings)
    except READ_ERRORS:
        yield from _each_drafted(waiting, facts, job.settings)  # they ended before the error
        raise
    yield from _each_drafted(waiting, facts, job.settings)


def _each_drafted(
    waiting: list[SessionRead], facts: RepoFacts | None, settings: Config
) -> Iterator[SessionRead]:
    """The waiting sessions in order, each drafted just before it is handed out. One whose drafts
    fail stops the read there: it and the sessions after it are dropped from `waiting`, so a
    caller draining `waiting` on the way out does not draft it again."""
    while waiting:
        session = waiting[0]
        if facts is not None:
            try:
                _draft(session, facts, settings)
            except READ_ERRORS:
                waiting.clear()
                raise
        del waiting[0]
        yield session


def _sessions(job: ReadJob, into: FileRead, tick: Callable[[int], None] | None) -> Iterator[SessionRead]:
    """The sessions of the log, ended and sealed, without drafts (read_sessions)."""
    adapter = capture.adapters.get(job.agent)
    stats, seen, captured = into.stats, into.seen, job.captured
    reducer: SessionReducer | None = None
    trace: SessionTrace | None = None
    count = 0
    current: str | None = None  # the session of the last event, and what is known of it:
    floor = -1  # its last seq already learned from
    switch = True  # its events go to a new reducer
    events = adapter.read_session(
        job.path, stats=stats, start_offset=job.offset, start_seq=job.seq, start_line=job.line
    )
    batch: list[Event] = []  # events handed on a batch at a time (_batch)
    run: list[Event] = []  # the events of the batch for the current session's reducer and trace
    while True:
        exhausted, failure = _batch(events, batch, stats)
        # Once per event of every log: session bookkeeping only when the session changes.
        for event in batch:
            if tick is not None:
                count += 1
                if count % PROGRESS_EVERY == 0:
                    tick(stats.last_offset - job.offset)
            sid = event.session_id
            if sid != current:
                current, floor = sid, captured.get(sid, -1)
                seen.add(sid)
                switch = reducer is None or reducer.obs.session_id != sid
            if event.seq <= floor:
                continue  # re-read from the resume point: already learned from
            if switch:
                if reducer is not None and trace is not None:
                    _feed(reducer, trace, run)
                    yield _finished(reducer, trace)
                reducer = reduce.reducer.SessionReducer(adapter.name, sid, root=job.root)
                trace = SessionTrace(event.agent, sid, root=job.root)
                switch = False
            run.append(event)
        if reducer is not None and trace is not None:
            _feed(reducer, trace, run)
        if failure is not None:
            raise failure  # what came before it is fed: the sessions it ended are out, its own is not
        if exhausted:
            break
    if reducer is not None and trace is not None:
        yield _finished(reducer, trace)


def _batch(events: Iterator[Event], into: list[Event], stats: ReadStats) -> tuple[bool, Exception | None]:
    """Refill `into` with the next events of the log (up to _BATCH of them, or about _BATCH_BYTES
    of it): whether the log is exhausted, and the read error that stopped it, if any.

    The reducer and the trace then take the batch one after the other, each in a loop of its own:
    per event, adapter, reducer and trace took turns, each turn running with the others' code and
    data in the CPU's caches (the same instructions, less CPU time in batches: measured in-process,
    docs/benchmarks.md#capture-at-parse-speed). The byte bound keeps memory flat with large outputs."""
    into.clear()
    end = stats.last_offset + _BATCH_BYTES
    try:
        for event in events:
            into.append(event)
            if len(into) >= _BATCH or stats.last_offset > end:
                return False, None
    except READ_ERRORS as exc:
        return True, exc
    return True, None


def _feed(reducer: SessionReducer, trace: SessionTrace, run: list[Event]) -> None:
    """One session's events of a batch, to its reducer and then to its trace."""
    feed = reducer.feed
    for event in run:
        feed(event)
    feed = trace.feed
    for event in run:
        feed(event)
    run.clear()


def _finished(reducer: SessionReducer, trace: SessionTrace) -> SessionRead:
    """The session, its events all seen."""
    trace.seal()
    return SessionRead(reducer.finish(), trace)


def _draft(read: SessionRead, facts: RepoFacts, settings: Config) -> None:
    """The session's drafts: extraction is pure, so it runs where the reading does."""
    gates = capture.gates
    if gates.session_skip_reason(read.obs, complete=True, settings=settings) is None:
        place = SessionPlace(read.obs.agent, read.obs.session_id, facts, cwd=read.obs.cwd)
        drafts, read.dropped = gates.prepare(
            extract.heuristic.extract(read.obs, place),
            settings=settings,
            only_writs=gates.writs_only(read.obs, settings),
        )
        read.drafts = capture.gates.check_all(drafts)  # redaction is the costly part


def read_file(job: ReadJob) -> FileRead:
    """Read one log whole (in a pool worker): its sessions in order, and why reading stopped early.

    As in-process, the sessions that ended before a read error are kept; the one it cut is not.
    Sessions are drafted a group at a time (_DRAFT_GROUP), not between the reads of two sessions:
    extraction and reading each keep their own code and data in the CPU's caches longer."""
    read = FileRead()
    waiting: list[SessionRead] = []  # read, not drafted yet
    try:
        facts = RepoFacts(Path(job.root)) if job.extract else None
        for session in _sessions(job, read, None):
            waiting.append(session)
            if len(waiting) >= _DRAFT_GROUP:
                _drafted(waiting, facts, job.settings, read.sessions)
        _drafted(waiting, facts, job.settings, read.sessions)
    except READ_ERRORS as exc:
        read.failed = str(exc)
        try:
            _drafted(waiting, facts, job.settings, read.sessions)  # they ended before it
        except READ_ERRORS as first:
            read.failed = str(first)  # a session's drafts failed: nothing after it is kept
    return read


def _drafted(
    waiting: list[SessionRead], facts: RepoFacts | None, settings: Config, into: list[SessionRead]
) -> None:
    """Draft the waiting sessions in order, moving each into `into` once drafted."""
    for session in _each_drafted(waiting, facts, settings):
        if session.drafts is not None:
            # Drafts made here: the main process needs of the observations only their counts and
            # whether a writ is among them (gates.session_skip_reason), not every item rebuilt
            # from the pickle, one session after another.
            items: list[Observation] = [item for item in session.obs.items if isinstance(item, Writ)]
            session.obs = replace(session.obs, items=items)
        into.append(session)
