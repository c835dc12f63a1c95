"""The line grammar of an Aider chat history: a byte stream cut into blocks, with offsets.

How Aider writes the file (aider/io.py, `append_chat_history`), and so how it is read back:

* `# aider chat started at <local time>` opens a launch;
* `#### <line>` lines are one user message (every line, even the last, ends with two spaces);
* `> <text>` lines are Aider's own output, one message per line, ending with two spaces. A message
  of several lines written by `tool_output` quotes only its first line: the lines that follow belong
  to it up to the first one ending with two spaces (its last line);
* everything else is the model's answer, written between blank lines, code fences included.

Editors that strip trailing spaces lose the two-space marks; until one is seen in a launch the
reader takes every `> ` line for Aider's and every `#### ` line for the user's. Memory is bounded:
a block keeps at most `BLOCK_CAP` bytes, a continued message at most `CONTINUATION_MAX` lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from reasonlessons.sessions.events import ReadStats

HEADER = b"# aider chat started at"
MAX_LINE = 8 * 1024 * 1024
BLOCK_CAP = 512 * 1024
CONTINUATION_MAX = 2000
_CHUNK = 256 * 1024
_BOM = b"\xef\xbb\xbf"
# Aider's own messages, recognised even where a `> ` line could be the model quoting something.
KNOWN = re.compile(
    rb"^> (?:Tokens: |Applied edit to |Commit [0-9a-f]{7,} |The LLM did not conform|Malformed response #|"
    rb"UnifiedDiff|# \d+ SEARCH/REPLACE block|Only \d+ reflections allowed|Unable to commit|Running |"
    rb"Added \d+ lines? of output|Add .*to the chat\?|Committing |Invalid command|Aider v)"
)


class Block(NamedTuple):
    """One message of the history: `kind` is 'header', 'user', 'tool' or 'assistant'."""

    kind: str
    text: str
    line: int  # the 1-based number of its first line
    start: int  # byte offset of its first line
    end: int  # byte offset just after its last line


class _Builder:
    """The block being assembled."""

    __slots__ = ("kind", "lines", "line", "start", "size", "capped")

    def __init__(self, kind: str, line: int, start: int) -> None:
        self.kind = kind
        self.lines: list[bytes] = []
        self.line = line
        self.start = start
        self.size = 0
        self.capped = False

    def add(self, raw: bytes) -> None:
        if self.size + len(raw) > BLOCK_CAP:
            self.capped = True
            return
        self.size += len(raw) + 1
        self.lines.append(raw)

    def build(self, end: int) -> Block:
        lines = self.lines
        if self.kind == "assistant":
            while lines and not lines[-1].strip():
                lines.pop()
        text = b"\n".join(lines).decode("utf-8", "replace")
        return Block(self.kind, text, self.line, self.start, end)


def _user_line(raw: bytes) -> bytes:
    core = raw[:-2] if raw.endswith(b"  ") else raw.rstrip(b" ")
    return core[5:] if core[4:5] == b" " else core[4:]


def _tool_line(raw: bytes) -> bytes:
    core = raw[:-2] if raw.endswith(b"  ") else raw
    return core[2:] if core[1:2] == b" " else core[1:]


class Reader:
    """Cuts a history into blocks; `trailing` says whether two-space line ends are kept."""

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.trailing = False
        self.block: _Builder | None = None
        self.fence = False  # inside a code fence of the model's answer
        self.continued = False  # inside a tool message of several lines
        self.out: list[Block] = []  # blocks completed by the last line

    def blocks(self, path: Path, start_offset: int, start_line: int) -> Iterator[Block]:
        """Every complete block from `start_offset`; a last line without a newline is left unread."""
        stats, out = self.stats, self.out
        with path.open("rb") as handle:
            handle.seek(start_offset)
            offset, line_no, rest, skipping = start_offset, start_line - 1, b"", False
            stats.last_offset, stats.last_line = offset, start_line
            while chunk := handle.read(_CHUNK):
                if skipping:  # inside a line too long to hold: drop bytes up to its end
                    cut = chunk.find(b"\n")
                    if cut < 0:
                        offset += len(chunk)
                        continue
                    offset, line_no, skipping = offset + cut + 1, line_no + 1, False
                    stats.records += 1
                    stats.skip("oversized-line")
                    stats.last_offset, stats.last_line = offset, line_no + 1
                    chunk = chunk[cut + 1 :]
                data = rest + chunk if rest else chunk
                lines = data.split(b"\n")
                rest = lines.pop()
                for raw in lines:
                    line_no += 1
                    start = offset
                    offset += len(raw) + 1
                    stats.records += 1
                    if len(raw) > MAX_LINE:
                        stats.skip("oversized-line")
                    else:
                        if raw.endswith(b"\r"):
                            raw = raw[:-1]
                        if start == 0 and raw.startswith(_BOM):
                            raw = raw[len(_BOM) :]
                        self._line(raw, line_no, start)
                        if out:
                            yield from out
                            out.clear()
                    stats.last_offset, stats.last_line = offset, line_no + 1
                if len(rest) > MAX_LINE:
                    offset, rest, skipping = offset + len(rest), b"", True
            if skipping or rest:
                stats.skip("oversized-line" if skipping else "truncated-tail")  # read next time
        if self.block is not None:
            yield self._close(stats.last_offset)

    def _close(self, end: int) -> Block:
        block = self.block
        assert block is not None
        self.block, self.continued, self.fence = None, False, False
        if block.capped:
            self.stats.skip("oversized-block")
        return block.build(end)

    def _open(self, kind: str, raw: bytes, line_no: int, start: int) -> _Builder:
        if self.block is not None:
            self.out.append(self._close(start))
        block = self.block = _Builder(kind, line_no, start)
        block.add(raw)
        return block

    def _line(self, raw: bytes, line_no: int, start: int) -> None:
        """Feed one line; the blocks it completes go to `out`."""
        block = self.block
        first = raw[:1]
        end = start + len(raw) + 1
        if self.continued and block is not None:
            ends_before = (first == b"#" and (raw.startswith(HEADER) or self._is_user(raw))) or (
                first == b">" and raw[1:2] == b" " and raw.endswith(b"  ")
            )
            if not ends_before:
                block.add(raw)
                if raw.endswith(b"  ") or len(block.lines) >= CONTINUATION_MAX:
                    self.out.append(self._close(end))
                return
            self.out.append(self._close(start))  # its last line was lost: the next block starts here
            block = None
        if self.fence and block is not None:
            if raw.startswith(b"```"):
                self.fence = False
                block.add(raw)
                return
            if not (raw.startswith(HEADER) or self._is_user(raw) or KNOWN.match(raw)):
                block.add(raw)
                return
            self.fence = False  # an answer cut short inside a fence: Aider's own lines end it
        if first == b"#":
            if raw.startswith(HEADER):
                self.trailing = False  # decided again for each launch: merged files mix both
                self._open("header", raw, line_no, start)
                self.out.append(self._close(end))
                return
            if self._is_user(raw):
                if block is not None and block.kind == "user":
                    block.add(_user_line(raw))
                else:
                    self._open("user", _user_line(raw), line_no, start)
                return
        elif first == b">" and self._is_tool(raw, block):
            complete = raw.endswith(b"  ")
            if complete:
                self.trailing = True
            self._open("tool", _tool_line(raw), line_no, start)
            if complete or not self.trailing:
                self.out.append(self._close(end))
            else:
                self.continued = True
            return
        if not raw.strip():
            if block is not None:
                if block.kind == "assistant":
                    block.add(raw)
                else:
                    self.out.append(self._close(start))
            return
        if block is None or block.kind != "assistant":
            block = self._open("assistant", raw, line_no, start)
        else:
            block.add(raw)
        if raw.startswith(b"```"):
            self.fence = not self.fence

    def _is_user(self, raw: bytes) -> bool:
        if not raw.startswith(b"####") or (len(raw) > 4 and raw[4:5] != b" "):
            return False
        return not self.trailing or raw.endswith(b"  ") or not raw[4:].strip()

    def _is_tool(self, raw: bytes, block: _Builder | None) -> bool:
        if len(raw) > 1 and raw[1:2] != b" ":
            return False  # `>>>>>>> REPLACE` and the like
        if not self.trailing or raw.endswith(b"  ") or block is None or block.kind != "assistant":
            return True
        return KNOWN.match(raw) is not None  # after the model's answer: only a message Aider writes


def iter_blocks(
    path: Path, *, stats: ReadStats, start_offset: int = 0, start_line: int = 1
) -> Iterator[Block]:
    """The blocks of a history from `start_offset` (a line start), counting damage in `stats`."""
    return Reader(stats).blocks(path, start_offset, start_line)
