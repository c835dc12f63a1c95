"""One adapter per agent log format, a registry, and format detection for `--agent auto`.

Takes a log file (or a Reasonix v2 session directory); gives its events, streamed, and a `Session`
descriptor. Every adapter module satisfies `Adapter`: `name`, `sniff`, a streaming `read_session`,
and `describe` (incl. the `complete` rule documented on each module's `describe`).

    reasonix_v1.py      Reasonix v1 event logs joined with their sidecars; _v1_transcript.py, _v1_common.py
    reasonix_v2.py      Reasonix v2 trajectories and stream-json; _v2_frames.py for sessions-v4 stores
    claude_code.py      Claude Code transcripts
    codex.py            Codex CLI rollouts
    aider.py            Aider chat histories (Markdown); _aider_lines.py, _aider_session.py, _aider_text.py
    _common.py          building events with a running `seq`
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Protocol

from reasonlessons.sessions.adapters import aider, claude_code, codex, reasonix_v1, reasonix_v2
from reasonlessons.sessions.errors import UnknownAgentError, UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Session
from reasonlessons.sessions.jsonl import read_head


class Adapter(Protocol):
    """What capture needs from a log format."""

    @property
    def name(self) -> str:
        """The `agent` value of its events, e.g. 'claude-code'."""
        ...

    def sniff(self, first_bytes: bytes, path: Path) -> bool:
        """True when the first bytes of `path` (empty for a directory) look like this format."""
        ...

    def read_session(
        self,
        path: Path,
        *,
        stats: ReadStats,
        start_offset: int = 0,
        start_seq: int = 0,
        start_line: int | None = None,
    ) -> Iterator[Event]:
        """Stream the events of one log from `start_offset`; see ReadStats for resuming."""
        ...

    def describe(self, path: Path, *, now: datetime, idle_seconds: float) -> Session:
        """Identity, place, time span and completeness of one log, without reading it all."""
        ...


class _AnyReasonix:
    """`--agent reasonix`: v1 or v2, whichever the file is."""

    name = "reasonix"

    def _pick(self, path: Path) -> Adapter:
        head = b"" if path.is_dir() else read_head(path)
        for adapter in (reasonix_v2, reasonix_v1):
            if adapter.sniff(head, path):
                return adapter
        raise UnsupportedLogError(f"{path}: not a Reasonix v1 or v2 log")

    def sniff(self, first_bytes: bytes, path: Path) -> bool:
        return reasonix_v2.sniff(first_bytes, path) or reasonix_v1.sniff(first_bytes, path)

    def read_session(
        self,
        path: Path,
        *,
        stats: ReadStats,
        start_offset: int = 0,
        start_seq: int = 0,
        start_line: int | None = None,
    ) -> Iterator[Event]:
        return self._pick(path).read_session(
            path, stats=stats, start_offset=start_offset, start_seq=start_seq, start_line=start_line
        )

    def describe(self, path: Path, *, now: datetime, idle_seconds: float) -> Session:
        return self._pick(path).describe(path, now=now, idle_seconds=idle_seconds)


# Detection order: the binary store first, then formats with the most specific first records, and
# the one Markdown format last.
ADAPTERS: tuple[Adapter, ...] = (reasonix_v2, reasonix_v1, claude_code, codex, aider)
_BY_NAME: dict[str, Adapter] = {a.name: a for a in (*ADAPTERS, _AnyReasonix())}


def names() -> list[str]:
    """Valid `--agent` values besides 'auto'."""
    return sorted(_BY_NAME)


def get(agent: str) -> Adapter:
    """The adapter for an explicit `--agent` value."""
    try:
        return _BY_NAME[agent]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {agent!r}; use one of: auto, {', '.join(names())}") from None


def detect(path: Path) -> Adapter | None:
    """The adapter whose format `path` is in, from its first bytes only; None if none fits."""
    try:
        head = b"" if path.is_dir() else read_head(path)
    except OSError:
        return None
    return next((adapter for adapter in ADAPTERS if adapter.sniff(head, path)), None)
