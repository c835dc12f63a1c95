"""Tests of the log adapters; `ReadLog` is the type of conftest's `read_log` fixture."""

from __future__ import annotations

from collections.abc import Callable

from reasonlessons.sessions.events import Event, ReadStats

ReadLog = Callable[..., tuple[list[Event], ReadStats]]
