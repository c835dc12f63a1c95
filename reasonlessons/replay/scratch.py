"""The scratch store replay learns into: a temporary folder beside nothing the user owns.

The repository's own `.reasonix/` and `$REASONIX_HOME` are never opened for writing: lessons, state
and the global scope all live in the scratch folder, while the repository itself is only read (its
files are the facts lessons are fingerprinted against). The recall settings the product would use
there, the global and the repository's `config.toml`, are copied in: a replay with the default
budget or top-k would not show what the user's own settings inject and miss.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reasonlessons.constants import CONFIG_FILE, LESSONS_DIR, STATE_DIR
from reasonlessons.errors import UnsafeLocationError
from reasonlessons.lessons import statedir
from reasonlessons.lessons.locations import Locations
from reasonlessons.store.project import Project
from reasonlessons.support.atomic import write_atomic


class ScratchLocations(Locations):
    """A repository's root, with its lesson scopes and state moved into `scratch`."""

    FIELDS = ("root", "home", "scratch")

    def __init__(self, root: Path, home: Path, scratch: Path) -> None:
        super().__init__(root, home)
        self.scratch = scratch

    @property
    def project_dir(self) -> Path:
        return self.scratch / LESSONS_DIR

    @property
    def state_dir(self) -> Path:
        return self.scratch / STATE_DIR

    def guard_writes(self) -> None:
        """Every scope and the state live in `scratch`, a folder replay made itself: a write may not
        leave it (the repository's own `.reasonix/` is never written, so it is not checked)."""
        for directory in (self.project_dir, self.candidates_dir, self.state_dir, self.global_dir):
            if os.path.lexists(directory) and not statedir.inside(str(directory), str(self.scratch)):
                raise UnsafeLocationError(
                    f"{directory} resolves outside the replay's scratch folder {self.scratch}"
                )


@contextmanager
def scratch_project(
    root: Path, folder: Path | None = None, *, settings_of: Locations | None = None
) -> Iterator[Project]:
    """A Project of `root` whose lessons and state live in a new temporary folder (inside `folder`
    when given), removed afterwards; with the config files of `settings_of` (the real places)."""
    place = Path(tempfile.mkdtemp(prefix="reasonlessons-replay-", dir=folder))
    try:
        loc = ScratchLocations(root=root, home=place / "home", scratch=place)
        if settings_of is not None:
            _copy_settings(settings_of, loc)
        yield Project(loc)
    finally:
        shutil.rmtree(place, ignore_errors=True)


def _copy_settings(real: Locations, scratch: ScratchLocations) -> None:
    for source, target in ((real.global_dir, scratch.global_dir), (real.project_dir, scratch.project_dir)):
        try:
            data = (source / CONFIG_FILE).read_bytes()
        except OSError:
            continue  # the usual case: no file, the defaults stand
        target.mkdir(parents=True, exist_ok=True)
        write_atomic(target / CONFIG_FILE, data, durable=False)
