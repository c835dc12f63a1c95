from __future__ import annotations

import os
import random
import tracemalloc
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.sessions import jsonl as lines_module
from reasonlessons.sessions.events import ReadStats
from reasonlessons.sessions.jsonl import (
    MAX_LINE,
    count_lines,
    ends_with_newline,
    head_objects,
    is_idle,
    iter_json_lines,
    read_head,
    tail_objects,
)
from tests.paths import RESOURCES

LOGS = RESOURCES / "logs"


def _read(
    path: Path, *, start_offset: int = 0, start_line: int = 1, max_line: int = MAX_LINE
) -> tuple[list[tuple[int, dict[str, Any]]], ReadStats]:
    stats = ReadStats()
    found = iter_json_lines(
        path, stats=stats, start_offset=start_offset, start_line=start_line, max_line=max_line
    )
    return [(line.line_no, line.obj) for line in found], stats


def test_yields_objects_with_line_numbers_and_offsets(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"b": 2}\n')
    stats = ReadStats()
    lines = list(iter_json_lines(path, stats=stats))
    assert [(line.line_no, line.obj, line.start, line.end) for line in lines] == [
        (1, {"a": 1}, 0, 9),
        (3, {"b": 2}, 10, 19),
    ]
    assert stats.records == 2
    assert not stats.skipped  # blank lines are skipped silently
    assert (stats.last_offset, stats.last_line) == (19, 4)


def test_damaged_lines_are_counted_by_reason_and_skipped() -> None:
    lines, stats = _read(LOGS / "bad" / "damaged.jsonl")
    assert [number for number, _ in lines] == [1, 6, 7]
    assert stats.skipped == {
        "not-json": 1,
        "invalid-utf8": 1,
        "not-object": 1,
        "truncated-tail": 1,
    }


def test_truncated_tail_is_not_consumed_and_is_read_after_it_completes(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 2}\n{"n": 3, "te')
    first, stats = _read(path)
    assert [obj["n"] for _, obj in first] == [1, 2]
    assert stats.skipped == {"truncated-tail": 1}
    assert stats.last_offset == len(b'{"n": 1}\n{"n": 2}\n')

    with path.open("ab") as handle:
        handle.write(b'xt": "done"}\n{"n": 4}\n')
    second, again = _read(path, start_offset=stats.last_offset, start_line=stats.last_line)
    assert second == [(3, {"n": 3, "text": "done"}), (4, {"n": 4})]
    assert not again.skipped
    assert again.last_offset == path.stat().st_size


def test_json_that_is_not_an_object_is_counted_as_such(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'null\n[1]\n"s"\n7\n{"a": 1}\n')
    lines, stats = _read(path)
    assert lines == [(5, {"a": 1})]
    assert stats.skipped == {"not-object": 4}


def _reference(data: bytes, max_line: int) -> tuple[list[tuple[int, int, int]], dict[str, int], int]:
    """(line, start, end) of each record, skip counts and consumed bytes, the simple way (for data
    whose lines are blank, `x`, or an object that parses exactly when it ends with `}`)."""
    found, skipped, offset = [], Counter[str](), 0
    pieces = data.split(b"\n")
    for number, piece in enumerate(pieces, start=1):
        last = number == len(pieces)
        body = piece.strip()
        if last and not body:
            break
        if len(piece) > max_line:
            skipped["oversized-line"] += 1
            if last:
                break  # still being written
        elif body:
            parses = body.startswith(b"{") and body.endswith(b"}")
            if last and not parses:
                skipped["truncated-tail"] += 1
                break
            if parses:
                found.append((number, offset, offset + len(piece) + (0 if last else 1)))
            else:
                skipped["not-json"] += 1
        offset += len(piece) + (0 if last else 1)
    return found, dict(skipped), offset


@pytest.mark.parametrize("chunk", [2, 3, 16, 4096])  # (a buffer of 1 byte is no buffer in binary mode)
def test_lines_across_read_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    # Small buffers put line ends, long lines and oversized lines at every position of a block.
    monkeypatch.setattr(lines_module, "_FIRST_CHUNK", chunk)
    monkeypatch.setattr(lines_module, "_SKIP_CHUNK", max(1, chunk // 2))
    rng = random.Random(chunk)
    for _ in range(40):
        parts = [
            rng.choice([b"", b"x", b'{"k": "' + b"v" * rng.randint(0, 60) + b'"}', b"  ", b'{"a": 1}'])
            for _ in range(rng.randint(0, 12))
        ]
        data = b"\n".join(parts) + rng.choice([b"", b"\n", b'\n{"t": '])
        path = tmp_path / "a.jsonl"
        path.write_bytes(data)
        stats = ReadStats()
        got = [(li.line_no, li.start, li.end) for li in iter_json_lines(path, stats=stats, max_line=40)]
        expected, skipped, consumed = _reference(data, 40)
        assert (got, dict(stats.skipped), stats.last_offset) == (expected, skipped, consumed), data


def test_complete_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}')
    lines, stats = _read(path)
    assert [obj for _, obj in lines] == [{"a": 1}, {"b": 2}]
    assert stats.last_offset == path.stat().st_size


def test_bom_at_file_start_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    assert _read(path)[0] == [(1, {"a": 1})]


def _write_huge_line(path: Path, megabytes: int, *, newline: bool) -> None:
    with path.open("wb") as handle:
        handle.write(b'{"before": true}\n{"huge": "')
        block = b"x" * (1024 * 1024)
        for _ in range(megabytes):
            handle.write(block)
        handle.write(b'"}\n{"after": true}\n' if newline else b"")


def test_50_megabyte_line_is_skipped_without_holding_it_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    _write_huge_line(path, 50, newline=True)
    tracemalloc.start()
    try:
        lines, stats = _read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == [(1, {"before": True}), (3, {"after": True})]
    assert stats.skipped == {"oversized-line": 1}
    assert stats.last_offset == path.stat().st_size
    assert peak < 25 * 1024 * 1024


def test_oversized_line_still_being_written_is_not_consumed(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    _write_huge_line(path, 2, newline=False)
    lines, stats = _read(path, max_line=1024 * 1024)
    assert lines == [(1, {"before": True})]
    assert stats.skipped == {"oversized-line": 1}
    assert stats.last_offset == len(b'{"before": true}\n')


def test_configurable_line_cap(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"long": "' + b"y" * 200 + b'"}\n{"short": 1}\n')
    lines, stats = _read(path, max_line=100)
    assert lines == [(2, {"short": 1})]
    assert stats.skipped == {"oversized-line": 1}


def test_head_and_tail_helpers(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    body = b"".join(b'{"i": %d}\n' % i for i in range(2000))
    path.write_bytes(body + b'{"i": "partial')
    head = read_head(path, 100)
    assert len(head) == 100
    assert head_objects(head, limit=3) == [{"i": 0}, {"i": 1}, {"i": 2}]
    tail = tail_objects(path, size=64)
    assert tail[-1] == {"i": 1999}
    assert all(isinstance(obj["i"], int) for obj in tail)
    assert count_lines(path, len(b'{"i": 0}\n{"i": 1}\n')) == 2
    assert not ends_with_newline(path)


def test_tail_window_grows_for_a_long_last_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"first": 1}\n{"last": "' + b"z" * 5000 + b'"}\n')
    assert tail_objects(path, size=64)[-1]["last"] == "z" * 5000


def test_is_idle_uses_the_given_clock(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"{}\n")
    mtime = datetime(2026, 5, 1, 12, 0, tzinfo=UTC).timestamp()
    os.utime(path, (mtime, mtime))
    assert not is_idle(path, datetime(2026, 5, 1, 12, 4, tzinfo=UTC), 300)
    assert is_idle(path, datetime(2026, 5, 1, 12, 5, tzinfo=UTC), 300)


def test_lines_are_read_as_stripped_of_any_ascii_whitespace_and_a_bom_only_at_the_start(
    tmp_path: Path,
) -> None:
    # JSON's whitespace is space, tab, CR and LF; a form feed or vertical tab around a record
    # was stripped before the parse too, and a BOM is a file's first bytes, nowhere else.
    path = tmp_path / "a.jsonl"
    path.write_bytes(
        b' \xef\xbb\xbf {"a": 1}\r\n\x0c{"b": 2}\x0b\n \t \n\xef\xbb\xbf{"c": 3}\n\x0c[1]\n{"d": 4}\n'
    )
    lines, stats = _read(path)
    assert lines == [(1, {"a": 1}), (2, {"b": 2}), (6, {"d": 4})]
    assert dict(stats.skipped) == {"not-json": 1, "not-object": 1}
    assert stats.last_offset == path.stat().st_size
