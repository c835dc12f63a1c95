"""Read-only access to a repository's history (the one GitPython user), for explaining drift.

Everything here is best effort: outside a git repository, in a shallow clone, or in a damaged one the
functions return None instead of raising, because an explanation must never break a staleness check.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reasonlessons.support.gitcli import Fallback, Objects, parse_commit, rev_list
from reasonlessons.support.githead import head_token

if TYPE_CHECKING:
    import git
    from git.objects import Blob, Submodule, Tree

# Listing a commit's tree goes through Python objects; past this many entries we give up.
MAX_TREE_ENTRIES = 50_000


@dataclass(frozen=True)
class Commit:
    """One commit as an explanation shows it, with read access to its files."""

    sha: str
    subject: str
    _tree: Tree | _CliTree

    def short(self) -> dict[str, str]:
        return {"sha": self.sha[:10], "subject": self.subject}

    def read(self, path: str) -> bytes | None:
        """A file's bytes as committed; None when the commit has no such file."""
        if isinstance(self._tree, _CliTree):
            return self._tree.read(path)
        obj = _at(self._tree, path)
        if obj is None or obj.type != "blob":
            return None
        data: bytes = obj.data_stream.read()
        return data

    def listdir(self, path: str) -> tuple[list[str], list[str]] | None:
        """(child trees, files) of a committed directory; None when there is no such directory."""
        if isinstance(self._tree, _CliTree):
            return self._tree.listdir(path)
        obj = _at(self._tree, path) if path else self._tree
        if obj is None or obj.type != "tree":
            return None
        return [t.name for t in obj.trees], [b.name for b in obj.blobs]


def _at(tree: Tree, path: str) -> Blob | Tree | Submodule | None:
    try:
        return tree / path
    except KeyError:
        return None


class _CliTree:
    """A commit's tree read through the git command line (gitcli.py); what that reader cannot vouch
    for is read again through GitPython, so every answer is GitPython's."""

    def __init__(self, history: History, commit: str, tree: str) -> None:
        self._history = history
        self._commit = commit
        self._sha = tree

    def read(self, path: str) -> bytes | None:
        objects = self._history.objects()
        try:
            found = self._lookup(path)
            if found is None or found[0] != "blob":
                return None
            got = objects.get(found[1], "blob")
            if got is None:
                raise Fallback(f"blob {found[1]} is missing")
            return got[1]
        except Fallback:
            return self._slow().read(path)

    def listdir(self, path: str) -> tuple[list[str], list[str]] | None:
        try:
            found = ("tree", self._sha) if not path else self._lookup(path)
            if found is None or found[0] != "tree":
                return None
            _, trees, blobs = self._history.objects().tree(found[1])
            return list(trees), list(blobs)
        except Fallback:
            return self._slow().listdir(path)

    def _lookup(self, path: str) -> tuple[str, str] | None:
        """(type, sha) at `path`, walked as GitPython's `tree / path` walks it; None when absent."""
        objects = self._history.objects()
        kind, sha = "tree", self._sha
        for token in path.split("/"):
            if kind != "tree":  # a file named as a directory
                return None
            found = objects.tree(sha)[0].get(token)
            if found is None:
                return None
            kind, sha = found
        return kind, sha

    def _slow(self) -> Commit:
        return Commit(self._commit, "", self._history.repo().commit(self._commit).tree)


class History:
    """Commits of one repository; open it with `history(root)`.

    Objects are read through the git command line (gitcli.py): one `git cat-file --batch` process
    and a `git rev-list` per path cost far less than importing GitPython. GitPython is opened only
    for what that reader leaves to it, and answers then."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._objects: Objects | None = None
        self._repo: git.Repo | None = None
        self._revs: dict[tuple[str, int], tuple[list[str], bool]] = {}  # a path's commits, once

    def objects(self) -> Objects:
        """The git CLI reader (started on first use; Fallback when git cannot be started)."""
        if self._objects is None:
            self._objects = Objects(self._root)
        return self._objects

    def repo(self) -> git.Repo:
        """The GitPython repository (opened on first use; errors propagate to the caller)."""
        if self._repo is None:
            import git

            self._repo = git.Repo(self._root)
        return self._repo

    def head(self) -> Commit | None:
        try:
            got = self.objects().get("HEAD", "commit")
            return None if got is None else self._commit(*got)
        except Fallback:
            return self._slow_head()

    def commits(self, path: str, limit: int) -> Iterator[Commit]:
        """Commits that touched `path` ('' for any), newest first."""
        try:
            listed = self._revs.get((path, limit))
            if listed is None:
                listed = self._revs[path, limit] = rev_list(self._root, path, limit)
            shas, ok = listed
        except Fallback:
            for commit in self.repo().iter_commits("HEAD", paths=[path] if path else "", max_count=limit):
                yield self._wrap(commit)
            return
        for sha in shas:
            try:
                got = self.objects().get(sha, "commit")
                if got is None:
                    raise Fallback(f"commit {sha} is missing")
                yield self._commit(*got)
            except Fallback:
                yield self._wrap(self.repo().commit(sha))
        if not ok:  # as GitPython: git's failure shows once the commits it listed are used up
            raise RuntimeError("git rev-list failed")

    def close(self) -> None:
        if self._objects is not None:
            self._objects.close()
            self._objects = None
        if self._repo is not None:
            self._repo.close()
            self._repo = None

    def _commit(self, sha: str, data: bytes) -> Commit:
        try:
            tree, subject = parse_commit(data)
        except Fallback:
            return self._wrap(self.repo().commit(sha))
        return Commit(sha, subject, _CliTree(self, sha, tree))

    def _slow_head(self) -> Commit | None:
        try:
            return self._wrap(self.repo().head.commit)
        except ValueError:  # unborn branch: no commit yet
            return None

    @staticmethod
    def _wrap(commit: git.Commit) -> Commit:
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
    found = History(root)
    try:
        yield found
    finally:
        found.close()
