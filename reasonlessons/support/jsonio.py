"""JSON in and out: the one orjson user."""

from __future__ import annotations

import datetime
from pathlib import PurePath
from typing import Any

import orjson


class JSONDecodeError(ValueError):
    """Raised for text that is not JSON."""


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise JSONDecodeError(str(exc)) from exc


# `loads` without the wrapper's frame, for loops that parse every line of a log: it raises
# orjson's JSONDecodeError, a ValueError as well.
loads_line = orjson.loads


def dumps(obj: object, *, sort_keys: bool = False, indent: bool = False) -> bytes:
    """Serialize to UTF-8 bytes; `indent` gives two-space pretty output ending in a newline."""
    option = orjson.OPT_NON_STR_KEYS
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    if indent:
        option |= orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps(obj, option=option, default=_default)


def _default(obj: object) -> object:
    # Dates from YAML frontmatter, Paths and sets appear in output documents.
    if isinstance(obj, datetime.date):
        return obj.isoformat()
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")
