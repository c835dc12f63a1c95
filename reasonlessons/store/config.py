"""Settings: `.reasonix/lessons/config.toml` (project, committed) over `$REASONIX_HOME/lessons/config.toml`
(global, personal) over the defaults, key by key (docs/learning.md#configuration).

    [capture]   min-tool-calls, max-candidates, min-confidence
    [recall]    budget, top-k, task-types
    [learning]  archive-floor, decay-days
    [promote]   auto-after

An unknown section or key, or a value of the wrong kind, is a ConfigError naming the file and the
key (exit 2): a typo in a committed file must not silently change nothing.

Recall reads this before every agent turn, so a repository without config files pays two stat()
calls, and tomllib is imported only when a file exists. Parsed files are kept per process by their
stamp (a long-lived Recaller, the MCP server and the watch daemon parse each version once).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from reasonlessons.constants import CONFIG_FILE, DEFAULT_BUDGET, TASK_TYPES
from reasonlessons.errors import ConfigError
from reasonlessons.support import stamp as stamps

if TYPE_CHECKING:
    from reasonlessons.lessons.locations import Locations

DOCS = "docs/learning.md#configuration"
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


class Config(NamedTuple):
    """Every setting, with its default (docs/learning.md#configuration lists the same)."""

    min_tool_calls: int = 3  # capture: sessions with fewer tool calls teach nothing (writs excepted)
    max_candidates: int = 5  # capture: candidates written per session, strongest first
    min_confidence: float = 0.6  # capture: drafts the extractor is less sure of are not written
    budget: int = DEFAULT_BUDGET  # recall: tokens of lessons per turn when the caller gives none
    top_k: int = 10  # recall: lessons per turn at most
    task_types: tuple[str, ...] = TASK_TYPES  # recall: the task types that get lessons at all
    archive_floor: float = 0.3  # learning: below this confidence a lesson is archived
    decay_days: float = 30.0  # learning: ranking weight = confidence * exp(-days unconfirmed / this)
    auto_after: int = 7 * 86_400  # promote --auto: candidates older than this many seconds


DEFAULTS = Config()


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

# path -> (stamp, the settings it holds); a process parses each version of a file once.
_PARSED: dict[str, tuple[stamps.Stamp, dict[str, object]]] = {}


def config_paths(loc: Locations) -> tuple[str, str]:
    """(global, project) config file paths, in the order they apply."""
    return str(loc.global_dir / CONFIG_FILE), str(loc.project_dir / CONFIG_FILE)


def load(loc: Locations) -> Config:
    """The settings for this repository: project over global over the defaults."""
    return load_files(config_paths(loc))


def load_files(paths: tuple[str, ...]) -> Config:
    """The settings of these files, later ones winning key by key."""
    merged: dict[str, object] = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue  # the usual case: no file, the defaults stand
        found = stamps.of(info)
        cached = _PARSED.get(path)
        if cached is None or cached[0] != found or stamps.racy(found, _now_ns()):
            cached = (found, parse_file(path))
            _PARSED[path] = cached
        merged.update(cached[1])
    return DEFAULTS._replace(**merged) if merged else DEFAULTS  # type: ignore[arg-type]


def parse_file(path: str) -> dict[str, object]:
    """The settings one file sets, by Config field; ConfigError for anything it cannot use."""
    import tomllib  # only when a config file exists: recall runs every turn

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


def _now_ns() -> int:
    import time

    return time.time_ns()
