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
_CHUNK = 1024 * 1024
_SIGNIFICANT = re.compile(rb"^(?:#|>|```)", re.MULTILINE)
_SIGNIFICANT_IN_FENCE = re.compile(rb"^(?:```|# aider chat started at|####|> )", re.MULTILINE)
# The same after a newline: a pattern that starts with a literal is searched for by that byte in C,
# several times faster than `^`, which the engine tries at every position.
_NEXT_SIGNIFICANT = re.compile(rb"\n(?:#|>|```)")
_NEXT_SIGNIFICANT_IN_FENCE = re.compile(rb"\n(?:```|# aider chat started at|####|> )")
_USER_RUN = re.compile(rb"(?:####(?: [^\n]*)?  \r?\n|####\ ?\r?\n)+")  # with two-space ends
_USER_RUN_STRIPPED = re.compile(rb"(?:####(?: [^\n]*)?\r?\n)+")
_USER_MARK = re.compile(rb"^#### ?", re.MULTILINE)
_TWO_SPACES = re.compile(rb"  (?=\r?\n)")
_TOOL_RUN = re.compile(rb"(?:>(?: [^\n]*)?  \r?\n)+")
_TOOL_MARK = re.compile(rb"^> ?", re.MULTILINE)
_LAST_LINE = re.compile(rb"  \r?\n")  # the last line of a message of several lines
_TEXT = re.compile(rb"\S")
_BOM = b"\xef\xbb\xbf"
# Aider's own messages, recognised even where a `> ` line could be the model quoting something.
KNOWN = re.compile(
    rb"^> (?:Tokens: |Applied edit to |Commit [0-9a-f]{7,} |The LLM did not conform|Malformed response #|"
    rb"UnifiedDiff|# \d+ SEARCH/REPLACE block|Only \d+ reflections allowed|Unable to commit|Running |"
    rb"Added \d+ lines? of output|Add .*to the chat\?|Committing |Invalid command|Aider v)"
)


class Block(NamedTuple):
    """One message of the history: `kind` is 'header', 'user', 'tool' (a message of several lines),
    'tools' (Aider's one-line messages in a row, one per line) or 'assistant'."""

    kind: str
    text: str
    line: int  # the 1-based number of its first line
    start: int  # byte offset of its first line
    end: int  # byte offset just after its last line


class _Builder:
    """The block being assembled: pieces of bytes, each ending with a newline."""

    __slots__ = ("kind", "parts", "line", "start", "size", "lines", "capped")

    def __init__(self, kind: str, line: int, start: int) -> None:
        self.kind = kind
        self.parts: list[bytes] = []
        self.line = line
        self.start = start
        self.size = 0
        self.lines = 0
        self.capped = False

    def add(self, piece: bytes, lines: int = 1) -> None:
        self.lines += lines
        if self.size + len(piece) > BLOCK_CAP:
            self.capped = True
            return
        self.size += len(piece)
        self.parts.append(piece)

    def build(self, end: int) -> Block:
        data = b"".join(self.parts)
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n")
        data = data.rstrip() if self.kind == "assistant" else data.removesuffix(b"\n")
        return Block(self.kind, data.decode("utf-8", "replace"), self.line, self.start, end)


def _user_line(raw: bytes) -> bytes:
    core = raw[:-2] if raw.endswith(b"  ") else raw.rstrip(b" ")
    return (core[5:] if core[4:5] == b" " else core[4:]) + b"\n"


def _tool_line(raw: bytes) -> bytes:
    core = raw[:-2] if raw.endswith(b"  ") else raw
    return (core[2:] if core[1:2] == b" " else core[1:]) + b"\n"


class Reader:
    """Cuts a history into blocks; `trailing` says whether two-space line ends are kept.

    Only lines that can start or end a block (`#`, `>` and code fences) are looked at one by one;
    the runs of other lines between them, the model's text and code, are taken whole."""

    def __init__(self, stats: ReadStats) -> None:
        self.stats = stats
        self.trailing = False
        self.block: _Builder | None = None
        self.fence = False  # inside a code fence of the model's answer
        self.continued = False  # inside a tool message of several lines
        self.out: list[Block] = []  # blocks completed so far, handed out after each chunk

    def blocks(self, path: Path, start_offset: int, start_line: int) -> Iterator[Block]:
        """Every complete block from `start_offset`; a last line without a newline is left unread."""
        stats, out = self.stats, self.out
        with path.open("rb") as handle:
            handle.seek(start_offset)
            offset, line_no, rest, skipping = start_offset, start_line, b"", False
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
                    stats.last_offset, stats.last_line = offset, line_no
                    chunk = chunk[cut + 1 :]
                data = rest + chunk if rest else chunk
                cut = data.rfind(b"\n") + 1
                body, rest = data[:cut], data[cut:]
                if body:
                    skip = len(_BOM) if offset == 0 and body.startswith(_BOM) else 0
                    self._feed(body, skip, offset, line_no)
                    lines = body.count(b"\n")
                    offset, line_no = offset + cut, line_no + lines
                    stats.records += lines
                    stats.last_offset, stats.last_line = offset, line_no
                    if out:
                        yield from out
                        out.clear()
                if len(rest) > MAX_LINE:
                    offset, rest, skipping = offset + len(rest), b"", True
            if skipping or rest:
                stats.skip("oversized-line" if skipping else "truncated-tail")  # read next time
        if self.block is not None:
            yield self._close(stats.last_offset)

    def _feed(self, body: bytes, pos: int, offset: int, line_no: int) -> None:
        """The complete lines of `body` (at file `offset`, its first line numbered `line_no`)."""
        size = len(body)
        while pos < size:
            # Inside a code fence only a fence, a launch, a user or an Aider line can matter.
            if self.fence:
                here, after = _SIGNIFICANT_IN_FENCE, _NEXT_SIGNIFICANT_IN_FENCE
            else:
                here, after = _SIGNIFICANT, _NEXT_SIGNIFICANT
            if here.match(body, pos) is not None:  # `^` matches at 0 or after a newline only
                at = pos
            else:
                found = after.search(body, pos)
                at = found.start() + 1 if found is not None else size
            if at > pos:
                self._run(body, pos, at, offset, line_no)
                line_no += body.count(b"\n", pos, at)
            if at == size:
                return
            end = body.index(b"\n", at)
            if end - at > MAX_LINE:
                self.stats.skip("oversized-line")
            else:
                raw = body[at:end]
                self._line(raw[:-1] if raw.endswith(b"\r") else raw, line_no, offset + at)
            line_no += 1
            pos = end + 1
            block = self.block
            if block is not None and block.kind == "tools" and pos < size and body[pos] == 62:  # ">"
                run = _TOOL_RUN.match(body, pos)
                if run is not None:  # Aider's next messages, one line each, cut in one go
                    lines = body.count(b"\n", pos, run.end())
                    block.add(_TOOL_MARK.sub(b"", _TWO_SPACES.sub(b"", run.group())), lines)
                    line_no, pos = line_no + lines, run.end()
            if block is not None and block.kind == "user" and pos < size and body[pos] == 35:  # "#"
                run = (_USER_RUN if self.trailing else _USER_RUN_STRIPPED).match(body, pos)
                if run is not None:  # the rest of a pasted message, its prefixes cut in one go
                    lines = body.count(b"\n", pos, run.end())
                    text = _USER_MARK.sub(b"", run.group())
                    block.add(_TWO_SPACES.sub(b"", text) if self.trailing else text, lines)
                    line_no, pos = line_no + lines, run.end()

    def _run(self, body: bytes, pos: int, end: int, offset: int, line_no: int) -> None:
        """Lines `body[pos:end]` that start with none of `#`, `>` or a fence: text, taken whole."""
        while pos < end:
            block = self.block
            if self.continued and block is not None:
                found = _LAST_LINE.search(body, pos, end)
                stop = found.end() if found is not None else end
                lines = body.count(b"\n", pos, stop)
                block.add(body[pos:stop], lines)
                line_no += lines
                if found is not None or block.lines >= CONTINUATION_MAX:
                    self.out.append(self._close(offset + stop))
                pos = stop
                continue
            if block is not None and block.kind == "assistant":
                block.add(body[pos:end], 0)
                return
            text = _TEXT.search(body, pos, end)
            if block is not None:
                self.out.append(self._close(offset + pos))  # a blank line (or text) ends it
            if text is None:
                return  # blank lines between blocks
            first = body.rfind(b"\n", pos, text.start()) + 1 or pos
            self._open("assistant", body[first:end], line_no + body.count(b"\n", pos, first), offset + first)
            return

    def _close(self, end: int) -> Block:
        block = self.block
        assert block is not None
        self.block, self.continued, self.fence = None, False, False
        if block.capped:
            self.stats.skip("oversized-block")
        return block.build(end)

    def _open(self, kind: str, piece: bytes, line_no: int, start: int) -> _Builder:
        if self.block is not None:
            self.out.append(self._close(start))
        block = self.block = _Builder(kind, line_no, start)
        block.add(piece)
        return block

    def _line(self, raw: bytes, line_no: int, start: int) -> None:
        """Feed one line that starts with `#`, `>` or a fence; the blocks it completes go to `out`."""
        block = self.block
        first = raw[:1]
        end = start + len(raw) + 1
        if self.continued and block is not None:
            ends_before = (first == b"#" and (raw.startswith(HEADER) or self._is_user(raw))) or (
                first == b">" and raw[1:2] == b" " and raw.endswith(b"  ")
            )
            if not ends_before:
                block.add(raw + b"\n")
                if raw.endswith(b"  ") or block.lines >= CONTINUATION_MAX:
                    self.out.append(self._close(end))
                return
            self.out.append(self._close(start))  # its last line was lost: the next block starts here
            block = None
        if self.fence and block is not None:
            if raw.startswith(b"```"):
                self.fence = False
                block.add(raw + b"\n")
                return
            if not (raw.startswith(HEADER) or self._is_user(raw) or KNOWN.match(raw)):
                block.add(raw + b"\n")
                return
            self.fence = False  # an answer cut short inside a fence: Aider's own lines end it
        if first == b"#":
            if raw.startswith(HEADER):
                self.trailing = False  # decided again for each launch: merged files mix both
                self._open("header", raw + b"\n", line_no, start)
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
            if complete or not self.trailing:  # the common case: one line, one message
                if block is None or block.kind != "tools":
                    block = self._open("tools", _tool_line(raw), line_no, start)
                else:
                    block.add(_tool_line(raw))
                if not complete:
                    self.out.append(self._close(end))
                return
            self._open("tool", _tool_line(raw), line_no, start)
            self.continued = True
            return
        if block is None or block.kind != "assistant":
            block = self._open("assistant", raw + b"\n", line_no, start)
        else:
            block.add(raw + b"\n")
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
