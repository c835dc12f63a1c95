"""The repository's files as lint and prune see them: what git does not ignore, listed once per
run, with a cached answer to "does any file match this glob"."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from reasonlessons.fingerprint.checker import Checker
from reasonlessons.recall import globs
from reasonlessons.recall.match import glob_matches

MAX_REPO_FILES = 200_000


class RepoFiles:
    """The repository's files (tracked and untracked, not ignored), listed once per lint run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] | None = None
        self._set: frozenset[str] = frozenset()
        self._globs: dict[str, bool] = {}
        self._checker: Checker | None = None

    def checker(self) -> Checker:
        if self._checker is None:
            self._checker = Checker(self.root, state_dir=None)
        return self._checker

    @property
    def files(self) -> list[str]:
        if self._files is None:
            self._files = list_files(self.root)
            self._set = frozenset(self._files)
        return self._files

    def has(self, path: str) -> bool:
        _ = self.files
        return path in self._set

    def any_match(self, glob: str) -> bool:
        """Whether any file matches the glob (searching only files its literal prefix allows)."""
        if glob not in self._globs:
            keys = globs.bucket_keys(glob)
            candidates: Iterable[str] = self.files
            if globs.GENERAL_KEY not in keys:
                prefixes = tuple(k.split("|")[0] for k in keys)
                candidates = (f for f in self.files if _under_any(f, prefixes))
            self._globs[glob] = any(glob_matches(glob, f) for f in candidates)
        return self._globs[glob]


def _under_any(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(not p or path.startswith(p + "/") or path == p for p in prefixes)


def list_files(root: Path) -> list[str]:
    """Repo-relative paths of every file git does not ignore (a walk when this is no git work tree)."""
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        proc = None
    if proc is not None and proc.returncode == 0:
        names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
        return [n for n in names if n][:MAX_REPO_FILES]
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules", ".venv")]
        rel = os.path.relpath(dirpath, root)
        out.extend(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/") for name in filenames)
        if len(out) >= MAX_REPO_FILES:
            break
    return out
