"""The normalized event model every adapter produces, plus read bookkeeping.

The model as documented: docs/log-formats.md#the-normalized-event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

Role = Literal["user", "assistant", "tool", "system"]
Kind = Literal["text", "tool_call", "tool_result", "usage", "meta"]
# Why a tool call failed, when the format lets us tell (docs/log-formats.md#failures).
ErrorKind = Literal["exit", "timeout", "harness", "permission", "tool"]


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token counts of one model call, normalized as docs/log-formats.md#tokens says."""

    in_: int = 0
    out: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        """All tokens counted, prompt and completion."""
        return self.in_ + self.out + self.cache_read + self.cache_write


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One normalized happening in a session; the reducer and extractor see nothing else.

    Conventions the reducer can rely on:
    * `seq` orders events within `session_id` (file order, never re-sorted by `ts`).
    * `tool_call` and `tool_result` share `call_id`; a call may lack its result.
    * For `usage` events `call_id` is a snapshot key when set (one API response for Claude Code, the
      cumulative counter for Codex): keep only the last event per (session_id, call_id). Usage
      events without `call_id` are independent and add up.
    * For shell calls `tool_name == "shell"` and `tool_args["command"]` is one string.
    * `error_kind` (set only when `is_error`): 'exit' non-zero exit code, 'timeout' killed,
      'harness' the agent's tool layer refused the call (validation, sandbox), 'permission' a user
      or policy refusal, 'tool' any other failure. `error_sig` compares equal across files.
    """

    agent: str
    session_id: str
    seq: int
    role: Role
    kind: Kind
    raw_ref: str
    ts: datetime | None = None
    cwd: str | None = None
    text: str | None = None
    tool_name: str | None = None
    tool_args: dict[str, Any] | None = None
    call_id: str | None = None
    is_error: bool | None = None
    error_kind: ErrorKind | None = None
    exit_code: int | None = None
    error_sig: str | None = None
    tokens: Tokens | None = None


def _setters(cls: type, names: tuple[str, ...]) -> tuple[Callable[[Any, Any], None], ...]:
    """The slot setters of a frozen dataclass, in field order (checked against the class)."""
    assert names == tuple(f.name for f in fields(cls)), f"update the fast constructor of {cls.__name__}"
    return tuple(getattr(cls, name).__set__ for name in names)


_EVENT_FIELDS = (
    *("agent", "session_id", "seq", "role", "kind", "raw_ref", "ts", "cwd", "text", "tool_name"),
    *("tool_args", "call_id", "is_error", "error_kind", "exit_code", "error_sig", "tokens"),
)
assert Event.__slots__ == _EVENT_FIELDS, "update new_event"
_new = object.__new__


class _Unsealed:
    """An Event's slots, same names in the same order, without the frozen guard: `new_event`
    fills one with plain attribute stores, which CPython specializes, and then makes it an Event
    (`__class__` may change between classes whose layouts are the same)."""

    __slots__ = _EVENT_FIELDS


def new_event(
    agent: str,
    session_id: str,
    seq: int,
    role: Role,
    kind: Kind,
    raw_ref: str,
    ts: datetime | None,
    cwd: str | None,
    text: str | None,
    tool_name: str | None,
    tool_args: dict[str, Any] | None,
    call_id: str | None,
    is_error: bool | None,
    error_kind: ErrorKind | None,
    exit_code: int | None,
    error_sig: str | None,
    tokens: Tokens | None,
) -> Event:
    """`Event(...)` with every field given by position, for the adapters' per-line loop.

    Equal to the keyword constructor and as frozen, but about 4 times cheaper: the generated
    `__init__` of a frozen dataclass goes through `object.__setattr__` once per field (and
    calling each slot's setter is a call per field too).
    """
    event: Any = _new(_Unsealed)
    event.agent = agent
    event.session_id = session_id
    event.seq = seq
    event.role = role
    event.kind = kind
    event.raw_ref = raw_ref
    event.ts = ts
    event.cwd = cwd
    event.text = text
    event.tool_name = tool_name
    event.tool_args = tool_args
    event.call_id = call_id
    event.is_error = is_error
    event.error_kind = error_kind
    event.exit_code = exit_code
    event.error_sig = error_sig
    event.tokens = tokens
    event.__class__ = Event
    return event  # type: ignore[no-any-return]


_in, _out, _cache_read, _cache_write = _setters(Tokens, ("in_", "out", "cache_read", "cache_write"))


def new_tokens(in_: int, out: int, cache_read: int, cache_write: int) -> Tokens:
    """`Tokens(...)` by position, cheaper for the same reason as `new_event`."""
    tokens = _new(Tokens)
    _in(tokens, in_)
    _out(tokens, out)
    _cache_read(tokens, cache_read)
    _cache_write(tokens, cache_write)
    return tokens


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session log found on disk: the file (or sessions-v4 directory) to read, plus companions."""

    agent: str
    path: Path
    related: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class Session:
    """What is known about one log without reading it all: identity, place, time and completeness.

    `complete` means the session reached a terminal state (per-adapter rule, see each adapter's
    `describe`) or the log has been idle for the caller's window; capture should only learn from
    complete sessions.
    """

    agent: str
    session_id: str
    paths: tuple[Path, ...]
    cwd: str | None
    started: datetime | None
    ended: datetime | None
    complete: bool


@dataclass(slots=True)
class ReadStats:
    """Counters and resume point of one `read_session` call; offsets are valid once it is exhausted.

    `last_offset` is the byte offset up to which the file is fully consumed (a half-written last
    record is never consumed) and `last_line` the number of the line that starts there.

    To continue later, call `read_session` again with `start_offset=resume_offset,
    start_seq=resume_seq, start_line=resume_line`. The resume point is the last place where the
    adapter carries no state: the start of the last segment for Reasonix v1 (launches, transcript
    runs); the last line with no tool call awaiting its result for Claude Code and Codex; the end
    of the last committed batch for sessions-v4. It may lie before `last_offset`: the events
    after it are then produced again, identical (same `session_id` and `seq`), so callers can
    de-duplicate on that pair.
    """

    records: int = 0
    events: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    last_offset: int = 0
    last_line: int = 1
    resume_offset: int = 0
    resume_seq: int = 0
    resume_line: int = 1

    def skip(self, reason: str, count: int = 1) -> None:
        """Count `count` records skipped for `reason` (e.g. 'not-json', 'truncated-tail')."""
        self.skipped[reason] += count

    @property
    def total_skipped(self) -> int:
        """Number of records skipped for any reason."""
        return sum(self.skipped.values())

    def checkpoint(self, offset: int, seq: int, line: int) -> None:
        """Record a point where reading can restart with no state carried over."""
        self.resume_offset, self.resume_seq, self.resume_line = offset, seq, line

    def checkpoint_at_end(self, seq: int) -> None:
        """Make the end of what was consumed the restart point (formats without segments)."""
        self.checkpoint(self.last_offset, seq, self.last_line)

    def summary(self) -> str:
        """One human line, e.g. '12 records, 9 events; skipped 2 (1 not-json, 1 truncated-tail)'."""
        head = f"{self.records} records, {self.events} events"
        if not self.skipped:
            return head
        parts = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items()))
        return f"{head}; skipped {self.total_skipped} ({parts})"
