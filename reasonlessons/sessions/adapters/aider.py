"""Aider chat histories, `.aider.chat.history.md` (docs/log-formats.md#aider).

One Markdown file per repository, appended launch after launch: each `# aider chat started at`
opens a session, `aider-<local start time>`. The history has no exit codes and no tool calls, so
they are built from what Aider wrote (_aider_session.py): `/run`, `/test`, `/git`, `!` and the
commands Aider ran for the model are shell calls; other `/` commands are calls of the `aider` tool;
applied edits are `edit` (or `write`) calls rebuilt from the model's SEARCH/REPLACE blocks, diffs or
whole files; a commit is `git commit`; `/undo` rejects the last commit. Whether a call failed comes
from the text that follows it. A read resumes at the start of the last session.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from reasonlessons.sessions.adapters._aider_lines import HEADER, iter_blocks
from reasonlessons.sessions.adapters._aider_session import History, session_id, started_at
from reasonlessons.sessions.adapters._common import Emitter, undecided
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Session
from reasonlessons.sessions.jsonl import count_lines, is_idle, read_head

name = "aider"

_HEADER_LINE = re.compile(rb"(?m)^# aider chat started at ")
_AIDER_LINE = re.compile(rb"^(?:> |#### )[^\n]*  \r?\n")
_TAIL_BYTES = 64 * 1024
_ENDED = re.compile(r"(?m)^(?:#### /(?:exit|quit)\s*$|> \^C KeyboardInterrupt)")


def sniff(first_bytes: bytes, path: Path) -> bool:
    """True when the head holds Aider's launch line, or starts with a line only Aider writes."""
    head = first_bytes.lstrip(b"\xef\xbb\xbf \r\n")
    if head.startswith(HEADER) or _HEADER_LINE.search(first_bytes) is not None:
        return True
    # A history cut at the top (hand-edited, merged) opens with a quoted or user line.
    return _AIDER_LINE.match(head) is not None


def _starting(first_bytes: bytes) -> bool:
    """Only the beginning of a launch line so far: a history being started, no verdict yet."""
    head = first_bytes.lstrip(b"\xef\xbb\xbf \r\n")
    return b"\n" not in head and HEADER.startswith(head[: len(HEADER)])


def read_session(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_seq: int = 0,
    start_line: int | None = None,
) -> Iterator[Event]:
    """Stream the events of one history; the resume point is the start of its last session."""
    head = read_head(path)
    if not sniff(head, path) and not undecided(head) and not _starting(head):
        raise UnsupportedLogError(f"{path}: not an Aider chat history (.aider.chat.history.md)")
    out = Emitter(name, path, stats, seq=start_seq)
    out.session_id = f"aider-{path.name}"  # events before any launch line: a history cut at the top
    if start_line is None:
        start_line = count_lines(path, start_offset) + 1 if start_offset else 1
    stats.checkpoint(start_offset, start_seq, start_line)
    history = History(out)
    events = history.events
    for block in iter_blocks(path, stats=stats, start_offset=start_offset, start_line=start_line):
        if block.kind == "header":
            history.finish()
            yield from events
            events.clear()
            stats.checkpoint(block.start, out.seq, block.line)
            history.start(block)
        else:
            history.feed(block)
        if events:
            yield from events
            events.clear()
    history.finish()
    yield from events


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state of a history: its last session, complete after `/exit`, `/quit`, a
    second Ctrl-C, or once idle (Aider writes no end marker)."""
    head = read_head(path)
    if not sniff(head, path):
        raise UnsupportedLogError(f"{path}: not an Aider chat history")
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - _TAIL_BYTES))
        tail = handle.read().decode("utf-8", "replace")
    headers = [line for line in tail.splitlines() if line.startswith(HEADER.decode())]
    first = next(
        (line for line in head.decode("utf-8", "replace").splitlines() if line.startswith("# aider")), ""
    )
    last = headers[-1] if headers else first
    after = tail[tail.rfind(last) :] if last and last in tail else tail
    return Session(
        agent=name,
        session_id=session_id(last) if last else f"aider-{path.name}",
        paths=(path,),
        cwd=None,
        started=started_at(first),
        ended=started_at(last),
        complete=_ENDED.search(after) is not None or is_idle(path, now, idle_seconds),
    )
