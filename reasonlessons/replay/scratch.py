"""The scratch store replay learns into: a temporary folder beside nothing the user owns.

The repository's own `.reasonix/` and `$REASONIX_HOME` are never opened for writing: lessons, state
and the global scope all live in the scratch folder, while the repository itself is only read (its
files are the facts lessons are fingerprinted against).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.constants import LESSONS_DIR, STATE_DIR
from reasonlessons.lessons.locations import Locations
from reasonlessons.store.project import Project


@dataclass(frozen=True)
class ScratchLocations(Locations):
    """A repository's root, with its lesson scopes and state moved into `scratch`."""

    scratch: Path

    @property
    def project_dir(self) -> Path:
        return self.scratch / LESSONS_DIR

    @property
    def state_dir(self) -> Path:
        return self.scratch / STATE_DIR


@contextmanager
def scratch_project(root: Path, folder: Path | None = None) -> Iterator[Project]:
    """A Project of `root` whose lessons and state live in a new temporary folder (inside `folder`
    when given), removed afterwards."""
    place = Path(tempfile.mkdtemp(prefix="reasonlessons-replay-", dir=folder))
    try:
        yield Project(ScratchLocations(root=root, home=place / "home", scratch=place))
    finally:
        shutil.rmtree(place, ignore_errors=True)
