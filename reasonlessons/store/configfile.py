"""Reading one config.toml and checking every key against what it may hold (store/config.py).

Only loaded when a config file exists: recall's per-turn path pays for none of this otherwise.
An unknown section or key, or a value of the wrong kind, is a ConfigError naming the file and the
key (exit 2): a typo in a committed file must not silently change nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from typing import Any

from reasonlessons.constants import TASK_TYPES
from reasonlessons.errors import ConfigError

DOCS = "docs/learning.md#configuration"
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def _int(low: int, high: int) -> Callable[[object], object]:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"use a whole number from {low} to {high}")
        return value

    return check


def _number(low: float, high: float, *, open_low: bool = False) -> Callable[[object], object]:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"use a number from {low:g} to {high:g}")
        if value < low or value > high or (open_low and value == low):
            above = f"above {low:g}" if open_low else f"from {low:g}"
            raise ValueError(f"use a number {above} to {high:g}")
        return float(value)

    return check


def _task_types(value: object) -> object:
    if not isinstance(value, list) or not all(isinstance(v, str) and v in TASK_TYPES for v in value):
        raise ValueError(f"use a list drawn from {', '.join(TASK_TYPES)} (may be empty: no lessons)")
    return tuple(dict.fromkeys(value))


def parse_duration(value: object) -> int:
    """`7d`, `12h`, `30m`, `2w` or `45s` as seconds; ValueError saying what to write otherwise."""
    text = value.strip() if isinstance(value, str) else ""
    number, unit = text[:-1], text[-1:].lower()
    if unit not in DURATION_UNITS or not number.isdigit():
        raise ValueError("use a number and a unit, e.g. 7d, 12h, 30m, 2w")
    return int(number) * DURATION_UNITS[unit]


# (section, key) -> (Config field, check returning the value to keep)
KEYS: dict[tuple[str, str], tuple[str, Callable[[object], object]]] = {
    ("capture", "min-tool-calls"): ("min_tool_calls", _int(0, 1000)),
    ("capture", "max-candidates"): ("max_candidates", _int(1, 100)),
    ("capture", "min-confidence"): ("min_confidence", _number(0.0, 1.0)),
    ("recall", "budget"): ("budget", _int(1, 100_000)),
    ("recall", "top-k"): ("top_k", _int(1, 50)),
    ("recall", "task-types"): ("task_types", _task_types),
    ("learning", "archive-floor"): ("archive_floor", _number(0.0, 1.0)),
    ("learning", "decay-days"): ("decay_days", _number(0.0, 36_500.0, open_low=True)),
    ("promote", "auto-after"): ("auto_after", parse_duration),
}
SECTIONS = tuple(dict.fromkeys(section for section, _ in KEYS))


def parse_file(path: str) -> dict[str, object]:
    """The settings one file sets, by Config field; ConfigError for anything it cannot use."""
    try:
        with open(path, "rb") as handle:
            doc = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc}); check its permissions") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file ({DOCS})") from None
    return settings(doc, path)


def settings(doc: Mapping[str, Any], path: str) -> dict[str, object]:
    """Check a parsed TOML document against KEYS; the settings it sets, by Config field."""
    out: dict[str, object] = {}
    for section, table in doc.items():
        if section not in SECTIONS:
            raise ConfigError(
                f"{path}: unknown section [{section}]; use {', '.join(f'[{s}]' for s in SECTIONS)} ({DOCS})"
            )
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: `{section}` must be a table ([{section}] with keys under it)")
        for key, value in table.items():
            spec = KEYS.get((section, key))
            if spec is None:
                known = ", ".join(k for s, k in KEYS if s == section)
                raise ConfigError(
                    f"{path}: unknown key `{section}.{key}`; [{section}] takes {known} ({DOCS})"
                )
            field, check = spec
            try:
                out[field] = check(value)
            except ValueError as exc:
                raise ConfigError(f"{path}: `{section}.{key}` = {value!r}: {exc}") from None
    return out
