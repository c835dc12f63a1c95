"""Helpers shared by the adapters: building events with a running `seq`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.capture.errorsig import error_signature
from reasonlessons.capture.events import ErrorKind, Event, Kind, ReadStats, Role, Tokens


class Emitter:
    """Builds the events of one session: shared fields, a running `seq`, and the event count."""

    def __init__(self, agent: str, path: Path, stats: ReadStats, *, seq: int = 0) -> None:
        self.agent = agent
        self.path = path
        self.stats = stats
        self.seq = seq
        self.session_id = path.stem
        self.cwd: str | None = None

    def ref(self, line_no: int) -> str:
        """The `raw_ref` of a line of this file."""
        return f"{self.path}:{line_no}"

    def emit(
        self,
        ref: str,
        role: Role,
        kind: Kind,
        *,
        ts: datetime | None = None,
        text: str | None = None,
        tool_name: str | None = None,
        tool_args: dict[str, Any] | None = None,
        call_id: str | None = None,
        is_error: bool | None = None,
        error_kind: ErrorKind | None = None,
        exit_code: int | None = None,
        tokens: Tokens | None = None,
        error_text: str | None = None,
    ) -> Event:
        """A new event; `error_sig` is computed from `error_text` (default `text`) on errors."""
        sig = error_signature(error_text if error_text is not None else text) if is_error else None
        event = Event(
            agent=self.agent,
            session_id=self.session_id,
            seq=self.seq,
            role=role,
            kind=kind,
            raw_ref=ref,
            ts=ts,
            cwd=self.cwd,
            text=text,
            tool_name=tool_name,
            tool_args=tool_args,
            call_id=call_id,
            is_error=is_error,
            error_kind=error_kind if is_error else None,
            exit_code=exit_code,
            error_sig=sig,
            tokens=tokens,
        )
        self.seq += 1
        self.stats.events += 1
        return event


def undecided(head: bytes) -> bool:
    """True when a file holds no complete line yet (a log being started), so no verdict on it."""
    return b"\n" not in head


def str_field(obj: dict[str, Any], key: str) -> str | None:
    """A string field, or None when absent or of another type."""
    value = obj.get(key)
    return value if isinstance(value, str) else None


def dict_field(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """An object field, or an empty dict when absent or of another type."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}
