"""Settings: `.reasonix/lessons/config.toml` (project, committed) over `$REASONIX_HOME/lessons/config.toml`
(global, personal) over the defaults, key by key (docs/learning.md#configuration).

    [capture]   min-tool-calls, max-candidates, min-confidence
    [recall]    budget, top-k, task-types
    [learning]  archive-floor, decay-days
    [promote]   auto-after

An unknown section or key, or a value of the wrong kind, is a ConfigError naming the file and the
key (exit 2): a typo in a committed file must not silently change nothing.

Recall reads this before every agent turn, so a repository without config files pays two stat()
calls; reading and checking a file (store/configfile.py, tomllib) happens only when one exists.
Parsed files are kept per process by their stamp (a long-lived Recaller, the MCP server and the
watch daemon parse each version once).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from reasonlessons import store
from reasonlessons.constants import CONFIG_FILE, DEFAULT_BUDGET, TASK_TYPES
from reasonlessons.support import stamp as stamps

if TYPE_CHECKING:
    from reasonlessons.lessons.locations import Locations


class Config:
    """Every setting, with its default (docs/learning.md#configuration lists the same).

    A plain class rather than a NamedTuple or dataclass: building either costs recall's per-turn
    start-up about as much as reading the settings (valgrind: ~1M instructions)."""

    __slots__ = (
        "archive_floor",
        "auto_after",
        "budget",
        "decay_days",
        "max_candidates",
        "min_confidence",
        "min_tool_calls",
        "task_types",
        "top_k",
    )

    def __init__(
        self,
        *,
        min_tool_calls: int = 3,  # capture: sessions with fewer tool calls teach nothing (writs excepted)
        max_candidates: int = 5,  # capture: candidates written per session, strongest first
        min_confidence: float = 0.6,  # capture: drafts the extractor is less sure of are not written
        budget: int = DEFAULT_BUDGET,  # recall: tokens of lessons per turn when the caller gives none
        top_k: int = 10,  # recall: lessons per turn at most
        task_types: tuple[str, ...] = TASK_TYPES,  # recall: the task types that get lessons at all
        archive_floor: float = 0.3,  # learning: below this confidence a lesson is archived
        decay_days: float = 30.0,  # learning: ranking weight = confidence * exp(-days unconfirmed / this)
        auto_after: int = 7 * 86_400,  # promote --auto: candidates older than this many seconds
    ) -> None:
        self.min_tool_calls = min_tool_calls
        self.max_candidates = max_candidates
        self.min_confidence = min_confidence
        self.budget = budget
        self.top_k = top_k
        self.task_types = task_types
        self.archive_floor = archive_floor
        self.decay_days = decay_days
        self.auto_after = auto_after

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def replace(self, **changes: Any) -> Config:
        """A copy with some settings changed."""
        return Config(**{**self.as_dict(), **changes})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.as_dict().items())))

    def __repr__(self) -> str:
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()) + ")"

    def __reduce__(self) -> tuple[Any, ...]:  # pickled into capture's read workers
        return (_rebuild, (self.as_dict(),))


def _rebuild(values: dict[str, Any]) -> Config:
    return Config(**values)


DEFAULTS = Config()


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
            cached = (found, store.configfile.parse_file(path))
            _PARSED[path] = cached
        merged.update(cached[1])
    return DEFAULTS.replace(**merged) if merged else DEFAULTS


def _now_ns() -> int:
    import time

    return time.time_ns()
