"""Errors raised while reading agent logs."""

from __future__ import annotations

from reasonlessons.errors import ReasonLessonsError, UsageError


class UnsupportedLogError(ReasonLessonsError):
    """A file that is not a log of the expected (or any known) agent format."""


class MissingDependencyError(ReasonLessonsError):
    """An optional package needed for this log format is not installed."""


class UnknownAgentError(UsageError):
    """An `--agent` value that names no adapter."""
