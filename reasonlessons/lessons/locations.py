"""Where things live: the project root, the three scopes and the local state directory.

As docs/concepts.md#scopes states them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from reasonlessons.constants import (
    CANDIDATES_DIR,
    LESSONS_DIR,
    REASONIX_DIR,
    SCOPE_CANDIDATE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATE_DIR,
)
from reasonlessons.errors import NotARepositoryError, UnsafeLocationError, UsageError
from reasonlessons.lessons import statedir
from reasonlessons.support.atomic import write_atomic
from reasonlessons.support.values import Value

_STATE_GITIGNORE = b"# reasonlessons local state: caches, checkpoints, counters. Never commit.\n*\n"


def find_root(repo: Path | None, cwd: Path) -> Path:
    """`--repo` if given, else the enclosing git work tree, else `cwd`."""
    if repo is not None:
        path = (cwd / repo).resolve()
        if not path.is_dir():
            raise UsageError(f"--repo {repo}: not a directory; pass the repository's top folder")
        return path
    here = cwd.resolve()
    # Walking up for `.git` is what `git rev-parse --show-toplevel` does for ordinary work trees,
    # without paying for a subprocess on every agent turn.
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def reasonix_home(env: Mapping[str, str], home: Path) -> Path:
    """`$REASONIX_HOME`, defaulting to `~/.reasonix`."""
    return Path(statedir.reasonix_home(env, str(home)))


class Locations(Value):
    """Every directory reasonlessons reads or writes for one repository."""

    FIELDS: ClassVar[tuple[str, ...]] = ("root", "home")

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home

    @classmethod
    def discover(
        cls,
        repo: Path | None = None,
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
    ) -> Locations:
        env = os.environ if env is None else env
        root = find_root(repo, cwd or Path.cwd())
        return cls(root=root, home=reasonix_home(env, home or Path.home()))

    @property
    def project_dir(self) -> Path:
        return self.root / REASONIX_DIR / LESSONS_DIR

    @property
    def candidates_dir(self) -> Path:
        return self.project_dir / CANDIDATES_DIR

    @property
    def global_dir(self) -> Path:
        return self.home / LESSONS_DIR

    @cached_property
    def state_dir(self) -> Path:
        """`.reasonix/state/`, or this checkout's folder under `$REASONIX_HOME` when that one arrived
        by git or leaves the repository (reasonlessons/lessons/statedir.py)."""
        return Path(statedir.resolve(str(self.root), str(self.home)))

    @property
    def repo_state_dir(self) -> Path:
        """`.reasonix/state/` itself, whoever made it."""
        return self.root / REASONIX_DIR / STATE_DIR

    @property
    def machine_dir(self) -> Path:
        """This checkout's folder of per-machine state under `$REASONIX_HOME` (trust decisions)."""
        return Path(statedir.machine_dir(str(self.root), str(self.home)))

    def guard_writes(self) -> None:
        """Refuse to write when a lessons or state directory leaves its scope's root through a
        symlink: a repository can carry `.reasonix/lessons -> /somewhere/else` (UnsafeLocationError)."""
        checks = [
            (self.root, self.root / REASONIX_DIR),
            (self.root, self.project_dir),
            (self.root, self.candidates_dir),
            (self.root, self.repo_state_dir),
            (self.root, self.root / REASONIX_DIR / "skills"),
            (self.home, self.global_dir),
            (self.home, self.home / STATE_DIR),
        ]
        for base, directory in checks:
            if os.path.lexists(directory) and not statedir.inside(str(directory), str(base)):
                raise UnsafeLocationError(
                    f"{directory} resolves to {os.path.realpath(directory)}, outside {base}; nothing is "
                    f"written through it: replace the symlink with a real directory (or remove it)"
                )

    def scope_dir(self, scope: str) -> Path:
        return {
            SCOPE_PROJECT: self.project_dir,
            SCOPE_CANDIDATE: self.candidates_dir,
            SCOPE_GLOBAL: self.global_dir,
        }[scope]

    def lock_path(self, scope: str) -> Path:
        """The lock guarding mutations of a scope; project and candidates share one (promote spans both)."""
        if scope == SCOPE_GLOBAL:
            return self.home / STATE_DIR / "lessons.lock"
        return self.state_dir / "lessons.lock"

    def is_repository(self) -> bool:
        """Whether the root is a repository: a git work tree, or a folder that has `.reasonix/` of
        its own (the global home `~/.reasonix` does not count: it holds the global scope)."""
        if (self.root / ".git").exists():
            return True
        own = self.root / REASONIX_DIR
        return own.is_dir() and own.resolve() != self.home.resolve()

    def require_repository(self) -> Locations:
        """These locations, or NotARepositoryError (exit 2) when the root is not a repository."""
        if not self.is_repository():
            raise NotARepositoryError(
                f"not inside a repository: {self.root} has no git work tree and no {REASONIX_DIR}/ "
                "folder; cd into your repository, or pass --repo DIR"
            )
        return self

    def existing_state_dir(self) -> Path | None:
        """The local state directory when it exists, else None: read commands use their caches
        there but never create it (only commands that change something do, with ensure_state_dir)."""
        state = self.state_dir
        return state if state.is_dir() else None

    def ensure_state_dir(self) -> Path:
        """Create the local state directory with a .gitignore that hides it from git."""
        state = self.state_dir
        gitignore = state / ".gitignore"
        if not gitignore.exists():
            write_atomic(gitignore, _STATE_GITIGNORE)
        return state
