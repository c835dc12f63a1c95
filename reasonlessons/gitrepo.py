"""Read-only access to a repository's history (the one GitPython user), for explaining drift.

Everything here is best effort: outside a git repository, in a shallow clone, or in a damaged one the
functions return None instead of raising, because an explanation must never break a staleness check.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# Listing a commit's tree goes through Python objects; past this many entries we give up.
MAX_TREE_ENTRIES = 50_000


def head_token(root: str, seen: list[str] | None = None) -> str | None:
    """The commit id HEAD points to, read from `.git` without starting git; None when unknown.

    Every file consulted (or looked for) is appended to `seen`, so callers can tell when HEAD moves."""
    seen = [] if seen is None else seen

    def read(path: str) -> str | None:
        seen.append(path)
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read(1 << 22).strip()
        except (OSError, UnicodeDecodeError):
            return None

    git_dir = os.path.join(root, ".git")
    if os.path.isfile(git_dir):  # a linked work tree or submodule: `gitdir: <path>`
        pointer = read(git_dir) or ""
        if not pointer.startswith("gitdir:"):
            return None
        git_dir = os.path.join(root, pointer[len("gitdir:") :].strip())
    head = read(os.path.join(git_dir, "HEAD"))
    if not head or not head.startswith("ref:"):
        return head or None
    ref = head[len("ref:") :].strip()
    common = os.path.join(git_dir, read(os.path.join(git_dir, "commondir")) or ".")
    for base in (git_dir, common):
        sha = read(os.path.join(base, ref))
        if sha:
            return sha
    for line in (read(os.path.join(common, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None


@dataclass(frozen=True)
class Commit:
    """One commit as an explanation shows it, with read access to its files."""

    sha: str
    subject: str
    _tree: Any

    def short(self) -> dict[str, str]:
        return {"sha": self.sha[:10], "subject": self.subject}

    def read(self, path: str) -> bytes | None:
        """A file's bytes as committed; None when the commit has no such file."""
        obj = self._at(path)
        if obj is None or obj.type != "blob":
            return None
        data: bytes = obj.data_stream.read()
        return data

    def listdir(self, path: str) -> tuple[list[str], list[str]] | None:
        """(child trees, files) of a committed directory; None when there is no such directory."""
        obj = self._at(path) if path else self._tree
        if obj is None or obj.type != "tree":
            return None
        return [t.name for t in obj.trees], [b.name for b in obj.blobs]

    def _at(self, path: str) -> Any:
        try:
            return self._tree / path
        except KeyError:
            return None


class History:
    """Commits of one repository; open it with `history(root)`."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo

    def head(self) -> Commit | None:
        try:
            return self._wrap(self._repo.head.commit)
        except ValueError:  # unborn branch: no commit yet
            return None

    def commits(self, path: str, limit: int) -> Iterator[Commit]:
        """Commits that touched `path` ('' for any), newest first."""
        paths = [path] if path else None
        for commit in self._repo.iter_commits("HEAD", paths=paths, max_count=limit):
            yield self._wrap(commit)

    @staticmethod
    def _wrap(commit: Any) -> Commit:
        message = commit.message
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        subject = (message.strip().splitlines() or [""])[0]
        return Commit(commit.hexsha, subject, commit.tree)


@contextlib.contextmanager
def history(root: str) -> Iterator[History | None]:
    """The repository at `root` (its top level only), or None when there is none to read."""
    if head_token(root) is None:
        yield None
        return
    try:
        import git
    except ImportError:  # pragma: no cover (GitPython or the git binary missing)
        yield None
        return
    try:
        repo = git.Repo(root)
    except (git.exc.GitError, OSError, ValueError):
        yield None
        return
    with repo:
        yield History(repo)
