"""The read phase (capture/reading.py): events reach the reducer and the trace in batches, with
the same sessions as one event at a time, nothing lost before a read error, and bounded memory."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from reasonlessons import capture
from reasonlessons.capture import reading
from reasonlessons.capture.reading import FileRead, ReadJob, read_file, read_sessions
from reasonlessons.capture.reduce.reducer import SessionReducer
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats
from tests.capturesupport import CAPTURE

V1 = CAPTURE / "reasonix-v1"


def _one_log(into: Path) -> Path:
    """One v1 event log of many launches (sessions), longer than several batches."""
    into.mkdir(parents=True, exist_ok=True)
    log = into / "many.events.jsonl"
    parts = sorted(V1.glob("*.events.jsonl"))
    log.write_bytes(b"".join(p.read_bytes() for p in parts * 3))
    return log


def _reference(job: ReadJob) -> list[tuple[Any, ...]]:
    """Each session's observations and trace, fed one event at a time (the contract)."""
    adapter = capture.adapters.get(job.agent)
    out: list[tuple[Any, ...]] = []
    reducer: SessionReducer | None = None
    trace: SessionTrace | None = None
    for event in adapter.read_session(job.path, stats=ReadStats()):
        if reducer is None or reducer.obs.session_id != event.session_id:
            if reducer is not None and trace is not None:
                out.append(_summary(reducer.finish(), trace))
            reducer = SessionReducer(adapter.name, event.session_id, root=job.root)
            trace = SessionTrace(event.agent, event.session_id, root=job.root)
        reducer.feed(event)
        trace.feed(event)
    if reducer is not None and trace is not None:
        out.append(_summary(reducer.finish(), trace))
    return out


def _summary(obs: object, trace: SessionTrace) -> tuple[Any, ...]:
    trace.seal()
    return (pickle.dumps(obs), trace.runs, trace.files, trace.tokens, trace.commands, trace.messages)


def test_batched_sessions_equal_sessions_fed_one_event_at_a_time(tmp_path: Path) -> None:
    log = _one_log(tmp_path / "logs")
    job = ReadJob(log, "reasonix-v1", 0, 0, None, {}, str(tmp_path), extract=False)
    read = FileRead()
    got = [_summary(s.obs, s.trace) for s in read_sessions(job, read)]
    want = _reference(job)
    assert len(want) > 3  # several sessions,
    assert read.stats.events > 2 * reading._BATCH  # over several batches
    assert got == want


def _events(count: int, per_session: int, stats: ReadStats, *, step: int = 100) -> Iterator[Event]:
    for n in range(count):
        stats.last_offset += step
        yield Event(
            agent="stub",
            session_id=f"s{n // per_session}",
            seq=n % per_session,
            role="user",
            kind="text",
            raw_ref=f"log:{n + 1}",
            text=f"message {n}",
        )


def _stub(monkeypatch: pytest.MonkeyPatch, read: Any) -> None:
    monkeypatch.setattr(capture.adapters, "get", lambda name: SimpleNamespace(name="stub", read_session=read))


def test_a_read_error_keeps_the_sessions_that_ended_before_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # 50 events a session, the error after the 160th: the third session ended in the batch the
    # error cut short (events 128-159), the fourth had begun.
    def read(path: Path, *, stats: ReadStats, **_: object) -> Iterator[Event]:
        yield from _events(160, 50, stats)
        raise UnsupportedLogError("cut short")

    _stub(monkeypatch, read)
    job = ReadJob(tmp_path / "x.jsonl", "stub", 0, 0, None, {}, str(tmp_path), extract=False)
    sessions: list[reading.SessionRead] = []
    with pytest.raises(UnsupportedLogError, match="cut short"):
        sessions.extend(read_sessions(job, FileRead()))
    ended = [("s0", 50), ("s1", 50), ("s2", 50)]
    assert [(s.obs.session_id, s.obs.events) for s in sessions] == ended
    whole = read_file(job)  # in a pool worker: the same sessions, and why reading stopped
    assert [(s.obs.session_id, s.obs.events) for s in whole.sessions] == ended
    assert whole.failed == "cut short"
    assert whole.seen == {"s0", "s1", "s2", "s3"}


def test_a_batch_holds_a_bounded_part_of_the_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Events of 400 KiB of log each: a batch stops at about a MiB, not at _BATCH events.
    pulled = fed = most = 0

    def read(path: Path, *, stats: ReadStats, **_: object) -> Iterator[Event]:
        nonlocal pulled
        for event in _events(200, 200, stats, step=400 * 1024):
            pulled += 1
            yield event

    feed = SessionReducer.feed

    def counted(self: SessionReducer, event: Event) -> None:
        nonlocal fed, most
        most = max(most, pulled - fed)
        fed += 1
        feed(self, event)

    _stub(monkeypatch, read)
    monkeypatch.setattr(SessionReducer, "feed", counted)
    job = ReadJob(tmp_path / "x.jsonl", "stub", 0, 0, None, {}, str(tmp_path), extract=False)
    assert [s.obs.events for s in read_sessions(job, FileRead())] == [200]
    assert fed == 200
    assert most <= 4  # held at once: what a MiB of log gave, not _BATCH (64) large events


def test_the_sessions_that_ended_before_a_read_error_are_drafted(
    monkeypatch: pytest.MonkeyPatch, make_repo: Any, tmp_path: Path
) -> None:
    # 40 sessions of 3 events, then the error: more sessions than a drafting group waited for it.
    def read(path: Path, *, stats: ReadStats, **_: object) -> Iterator[Event]:
        yield from _events(121, 3, stats)
        raise UnsupportedLogError("cut short")

    drafted: list[str] = []
    draft = reading._draft

    def spied(session: reading.SessionRead, *args: Any) -> None:
        drafted.append(session.obs.session_id)
        draft(session, *args)

    _stub(monkeypatch, read)
    monkeypatch.setattr(reading, "_draft", spied)
    job = ReadJob(tmp_path / "x.jsonl", "stub", 0, 0, None, {}, str(make_repo("capture-node")))
    whole = read_file(job)
    assert whole.failed == "cut short"
    ended = [f"s{n}" for n in range(40)]
    assert [s.obs.session_id for s in whole.sessions] == ended
    assert drafted == ended  # each one went through extraction, in order
    assert reading._DRAFT_GROUP < 40
    # In-process, the same sessions come out, drafted, before the error does.
    drafted.clear()
    sessions: list[reading.SessionRead] = []
    with pytest.raises(UnsupportedLogError, match="cut short"):
        sessions.extend(read_sessions(job, FileRead()))
    assert [s.obs.session_id for s in sessions] == ended
    assert drafted == ended


def test_a_session_whose_drafts_fail_stops_the_read_there_and_is_drafted_once(
    monkeypatch: pytest.MonkeyPatch, make_repo: Any, tmp_path: Path
) -> None:
    # 40 sessions of 3 events; drafting the sixth fails: the five before it are kept, nothing after.
    def read(path: Path, *, stats: ReadStats, **_: object) -> Iterator[Event]:
        yield from _events(121, 3, stats)

    drafted: list[str] = []
    draft = reading._draft

    def failing(session: reading.SessionRead, *args: Any) -> None:
        drafted.append(session.obs.session_id)
        if session.obs.session_id == "s5":
            raise ValueError("draft failed")
        draft(session, *args)

    _stub(monkeypatch, read)
    monkeypatch.setattr(reading, "_draft", failing)
    job = ReadJob(tmp_path / "x.jsonl", "stub", 0, 0, None, {}, str(make_repo("capture-node")))
    whole = read_file(job)
    assert whole.failed == "draft failed"
    kept = [f"s{n}" for n in range(5)]
    assert [s.obs.session_id for s in whole.sessions] == kept
    assert drafted == [*kept, "s5"]  # not drafted again on the way out
    drafted.clear()
    sessions: list[reading.SessionRead] = []
    with pytest.raises(ValueError, match="draft failed"):
        sessions.extend(read_sessions(job, FileRead()))
    assert [s.obs.session_id for s in sessions] == kept
    assert drafted == [*kept, "s5"]
