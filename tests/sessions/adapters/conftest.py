"""Fixtures for the adapter tests: read a whole log, and check that a cut read resumes to the same events."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import Adapter, detect
from reasonlessons.sessions.events import Event, ReadStats
from tests.sessions.adapters import ReadLog


@pytest.fixture
def read_log() -> ReadLog:
    """`read_log(path, adapter=None, *, after=None, **resume)`: every event of a log, and the ReadStats
    of the read.

    Without `adapter`, the one `detect` picks (there must be one). The read starts where the read
    that left `after` would resume, or at `resume` (start_offset, start_seq, start_line)."""

    def read(
        path: Path, adapter: Adapter | None = None, *, after: ReadStats | None = None, **resume: int
    ) -> tuple[list[Event], ReadStats]:
        if adapter is None:
            adapter = detect(path)
            assert adapter is not None, f"no adapter reads {path}"
        if after is not None:
            resume = {
                "start_offset": after.resume_offset,
                "start_seq": after.resume_seq,
                "start_line": after.resume_line,
            }
        stats = ReadStats()
        return list(adapter.read_session(path, stats=stats, **resume)), stats

    return read


@pytest.fixture
def check_cut_then_resume(tmp_path: Path, read_log: ReadLog) -> Callable[[Adapter, Path], None]:
    """`check(adapter, source)`: a copy of `source` cut at every line end (and 7 bytes before each),
    read, completed and read again from the first read's resume point, gives the full read's events."""

    def check(adapter: Adapter, source: Path) -> None:
        full = source.read_bytes()
        live = tmp_path / source.name
        live.write_bytes(full)
        expected, _ = read_log(live, adapter)
        ends = [i + 1 for i, byte in enumerate(full) if byte == ord("\n")]
        for cut in sorted({*ends, *(end - 7 for end in ends)}):
            live.write_bytes(full[:cut])
            first, stats = read_log(live, adapter)
            live.write_bytes(full)
            rest, _ = read_log(live, adapter, after=stats)
            merged = {(e.session_id, e.seq): e for e in first + rest}
            assert sorted(merged.values(), key=lambda e: e.seq) == expected, cut

    return check
