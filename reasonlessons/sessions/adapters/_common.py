"""Helpers shared by the adapters: building events with a running `seq`."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.errorsig import error_signature
from reasonlessons.sessions.events import ErrorKind, Event, Kind, ReadStats, Role, Tokens, new_event

_SIG_MAX = 64
_SIG_TEXT = 16 * 1024


class Emitter:
    """Builds the events of one session: shared fields, a running `seq`, and the event count."""

    def __init__(self, agent: str, path: Path, stats: ReadStats, *, seq: int = 0) -> None:
        self.agent = agent
        self.path = path
        self.stats = stats
        self.seq = seq
        self.session_id = path.stem
        self.cwd: str | None = None
        self._sigs: dict[str | None, str | None] = {}

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
        sig = self._signature(error_text if error_text is not None else text) if is_error else None
        event = new_event(
            self.agent,
            self.session_id,
            self.seq,
            role,
            kind,
            ref,
            ts,
            self.cwd,
            text,
            tool_name,
            tool_args,
            call_id,
            is_error,
            error_kind if is_error else None,
            exit_code,
            sig,
            tokens,
        )
        self.seq += 1
        self.stats.events += 1
        return event

    def _signature(self, text: str | None) -> str | None:
        # Remembered per error text: an agent retrying a command gets the same error again.
        if text is not None and len(text) > _SIG_TEXT:
            return error_signature(text)
        if text in self._sigs:
            return self._sigs[text]
        if len(self._sigs) >= _SIG_MAX:
            self._sigs.clear()
        sig = self._sigs[text] = error_signature(text)
        return sig


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
