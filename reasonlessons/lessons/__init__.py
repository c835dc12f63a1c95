"""The lesson itself: its model, its file on disk, and where the scopes live (docs/lesson-format.md).

Takes a repository root (and `$REASONIX_HOME`); gives `Locations`, and `Lesson`s read from and
written to their files byte for byte.

    model.py      Lesson: what each frontmatter key means, and checks that need no file system
    file.py       reading a lesson file carefully and writing it byte-stable (python-frontmatter)
    locations.py  the project root, the three scopes and the local state directory
    statedir.py   where local state lives: `.reasonix/state/`, unless it arrived by git or leaves the repo
"""

from __future__ import annotations

import importlib

# Submodules loaded on first use, for modules on the per-turn path: recall reads lessons from its
# index, builds a Lesson only for the few it checks for drift, and parses a lesson file (frontmatter,
# YAML) only when one changed; a Claude Code hook needs the locations only for some events.
__all__ = ["file", "locations", "model", "statedir"]

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Any

    from reasonlessons.lessons import file, locations, model, statedir


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.lessons' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.lessons.{name}")
