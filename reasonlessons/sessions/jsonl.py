"""Streaming JSONL reading shared by the adapters: byte offsets, damage counting, bounded memory."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from reasonlessons.sessions.events import ReadStats
from reasonlessons.support import jsonio

MAX_LINE = 8 * 1024 * 1024
HEAD_BYTES = 64 * 1024
_SKIP_CHUNK = 1024 * 1024
_FIRST_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"
_NEWLINE = ord("\n")


class JsonLine(NamedTuple):
    """One parsed JSONL record: its 1-based line number, end offset, object and start offset."""

    line_no: int
    end: int
    obj: dict[str, Any]
    start: int


def iter_json_lines(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_line: int = 1,
    max_line: int = MAX_LINE,
) -> Iterator[JsonLine]:
    """Yield the JSON objects of `path` from `start_offset`, counting what is skipped in `stats`.

    `stats.last_offset` follows the consumed bytes. A last line without a newline that does not
    parse is a record still being written: it is counted as 'truncated-tail' and not consumed.
    Lines longer than `max_line` bytes are skipped without being held in memory.

    This loop runs once per line of every log: the buffered reader finds each newline with
    `memchr` and hands out the line (a block split in Python's `bytes.split` looks at every byte
    again, a tenth of a `json.loads` pass), and nothing but the parse is called per line.
    """
    loads, new_line = jsonio.loads_line, tuple.__new__
    # A small buffer (the first read): discovery reads heads only.
    with path.open("rb", buffering=_FIRST_CHUNK) as handle:
        handle.seek(start_offset)
        offset, line_no = start_offset, start_line - 1
        stats.last_offset, stats.last_line = offset, start_line
        tail = b""  # a last line without a newline
        # At most `max_line` bytes and the newline: a longer line comes back cut, without one.
        for raw in iter(partial(handle.readline, max_line + 1), b""):
            if raw[-1] != _NEWLINE:
                if len(raw) <= max_line:
                    tail = raw  # the end of the file
                    break
                stats.skip("oversized-line")
                skipped = _skip_line(handle)
                if skipped is None:
                    return  # still being written: leave it for the next read
                line_no += 1
                offset += len(raw) + skipped
                stats.last_offset, stats.last_line = offset, line_no + 1
                continue
            line_no += 1
            start = offset
            offset += len(raw)
            stats.last_offset, stats.last_line = offset, line_no + 1
            try:
                # The line as read, newline and all (JSON's whitespace): no stripped copy of it.
                obj = loads(raw) if start else loads(raw.removeprefix(_BOM))
            except ValueError:
                body = raw.strip()
                obj = _reparsed(body if start else body.removeprefix(_BOM).strip(), stats)
                if obj is None:
                    continue  # a blank line, or one counted as skipped
            if obj.__class__ is not dict:
                stats.skip("not-object")
                continue
            stats.records += 1
            yield new_line(JsonLine, (line_no, offset, obj, start))
    body = tail.strip()
    if offset == 0 and body.startswith(_BOM):
        body = body[len(_BOM) :].strip()
    if not body:
        return
    # The last line has no newline: a complete record, or one still being written.
    obj, _ = parse_line(body)
    if obj is None:
        stats.skip("truncated-tail")
        return
    start, offset = offset, offset + len(tail)
    stats.records += 1
    stats.last_offset, stats.last_line = offset, line_no + 2
    yield JsonLine(line_no + 1, offset, obj, start)


def _reparsed(body: bytes, stats: ReadStats) -> Any:
    """A line JSON's own whitespace rules did not parse: parsed again stripped of all ASCII
    whitespace (a form feed around a record), None when blank or counted as skipped."""
    if not body:
        return None
    try:
        return jsonio.loads(body)
    except ValueError:
        stats.skip(_not_json(body))
        return None


def _skip_line(handle: BinaryIO) -> int | None:
    """Read past the rest of an oversized line, a block at a time: the bytes up to and including
    its newline, or None at the end of the file."""
    skipped = 0
    while chunk := handle.readline(_SKIP_CHUNK):
        skipped += len(chunk)
        if chunk[-1] == _NEWLINE:
            return skipped
    return None


def _not_json(body: bytes) -> str:
    """The ReadStats skip key of a line that does not parse."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid-utf8"
    return "not-json"


def parse_line(body: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """Parse one line: (object, None), or (None, reason) with reason a ReadStats skip key."""
    try:
        obj = jsonio.loads(body)
    except ValueError:
        return None, _not_json(body)
    if not isinstance(obj, dict):
        return None, "not-object"
    return obj, None


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes of a file (fewer if it is shorter)."""
    with path.open("rb") as handle:
        return handle.read(size)


def head_objects(head: bytes, *, limit: int = 20) -> list[dict[str, Any]]:
    """JSON objects on the lines of a file head; a line cut short by the head never parses."""
    found: list[dict[str, Any]] = []
    for line in head.split(b"\n"):
        obj, _ = parse_line(line.strip().removeprefix(_BOM))
        if obj is not None:
            found.append(obj)
            if len(found) >= limit:
                break
    return found


def tail_objects(path: Path, *, size: int = 64 * 1024, max_size: int = MAX_LINE) -> list[dict[str, Any]]:
    """JSON objects on the last complete lines of a file, reading from the end only.

    The window doubles until it holds at least one whole record or reaches `max_size`.
    """
    file_size = path.stat().st_size
    while True:
        start = max(0, file_size - size)
        with path.open("rb") as handle:
            handle.seek(start)
            data = handle.read(file_size - start)
        lines = data.split(b"\n")
        if start > 0:
            lines = lines[1:]  # the first piece may be the end of a longer line
        found = [obj for obj, _ in (parse_line(line.strip()) for line in lines) if obj is not None]
        if found or start == 0 or size >= max_size:
            return found
        size *= 2


def count_lines(path: Path, end: int) -> int:
    """Number of newlines in the first `end` bytes, read in chunks."""
    count = 0
    with path.open("rb") as handle:
        remaining = end
        while remaining > 0 and (chunk := handle.read(min(_SKIP_CHUNK, remaining))):
            count += chunk.count(b"\n")
            remaining -= len(chunk)
    return count


def is_idle(path: Path, now: datetime, idle_seconds: float) -> bool:
    """True when the file has not been modified for `idle_seconds` before `now`."""
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    return (now - mtime).total_seconds() >= idle_seconds


def ends_with_newline(path: Path) -> bool:
    """True when the file's last byte is a newline (a JSONL writer finished its record)."""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return False
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"
