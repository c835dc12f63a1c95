"""Which commit introduced a drift: computed only for drifted entries, never on the fresh path.

When HEAD already holds the current value (the change is committed), walk back the commits that
touched the entry's path while they still hold that value; the oldest of that run made the change.
An uncommitted change, a repository we cannot read, or a history too long to walk yields None.
"""

from __future__ import annotations

import contextlib
from typing import Any

from reasonlessons.fingerprint.entry import DIR, FIELD, FILE, GLOB, Entry
from reasonlessons.fingerprint.facts import (
    ABSENT,
    Fact,
    content_fact,
    field_value_fact,
    glob_fact,
    shape_fact,
)
from reasonlessons.fingerprint.globs import compile_glob
from reasonlessons.fingerprint.kinds import kind_of
from reasonlessons.fingerprint.tree import Shape, join
from reasonlessons.support.gitrepo import MAX_TREE_ENTRIES, Commit, History, history

# Commits walked back per drifted entry.
MAX_COMMITS = 50


class _TooLarge(Exception):
    pass


class Attributor:
    """Finds the commits behind drifts, opening the repository once, on the first drift."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._stack = contextlib.ExitStack()
        self._repo: History | None | bool = False

    def close(self) -> None:
        self._stack.close()

    def find(self, entry: Entry, now_key: str) -> dict[str, str] | None:
        """{"sha", "subject"} of the commit that gave the entry its current value, or None."""
        try:
            if self._repo is False:
                self._repo = self._stack.enter_context(history(self.root))
            if not isinstance(self._repo, History):
                return None
            return _find(self._repo, entry, now_key)
        except _TooLarge:
            return None
        except Exception:  # noqa: BLE001 (GitPython raises many types; an explanation must never fail a check)
            return None


def _find(repo: History, entry: Entry, now_key: str) -> dict[str, str] | None:
    head = repo.head()
    if head is None or fact_in(head, entry).key != now_key:
        return None  # not committed (yet): no commit to name
    culprit: Commit | None = None
    walked = 0
    for commit in repo.commits(_history_path(entry), MAX_COMMITS):
        if fact_in(commit, entry).key != now_key:
            return culprit.short() if culprit is not None else None
        culprit = commit
        walked += 1
    # Every commit walked holds the value: the oldest made it, unless the walk was cut short.
    return culprit.short() if culprit is not None and walked < MAX_COMMITS else None


def _history_path(entry: Entry) -> str:
    if entry.kind == GLOB:
        return compile_glob(entry.path).base
    return entry.path


def fact_in(commit: Commit, entry: Entry) -> Fact:
    """An entry's fact as of a commit (tracked files only, so no ignore rules apply)."""
    if entry.kind in (FILE, FIELD):
        data = commit.read(entry.path)
        if data is None:
            return Fact(ABSENT)
        return content_fact(data) if entry.kind == FILE else field_value_fact(entry, data)
    if entry.kind == DIR:
        shape = _shape_in(commit, entry.path)
        return Fact(ABSENT) if shape is None else shape_fact(shape)
    return glob_fact(_glob_in(commit, entry.path))


def _shape_in(commit: Commit, path: str) -> Shape | None:
    top = commit.listdir(path)
    if top is None:
        return None
    kinds: set[str] = set()
    stack = [path]
    seen = 0
    while stack:
        rel = stack.pop()
        listed = top if rel == path else commit.listdir(rel)
        if listed is None:
            continue
        dirs, files = listed
        seen += len(dirs) + len(files)
        if seen > MAX_TREE_ENTRIES:
            raise _TooLarge
        kinds.update(kind_of(name) for name in files)
        stack.extend(join(rel, name) for name in dirs)
    # Git stores no empty trees, so every committed child directory holds a file.
    return Shape(tuple(sorted(top[0])), tuple(sorted(kinds)))


def _glob_in(commit: Commit, pattern: str) -> str | None:
    glob = compile_glob(pattern)
    stack: list[tuple[str, int]] = [(glob.base, -1)]
    seen = 0
    while stack:
        rel, depth = stack.pop()
        listed: Any = commit.listdir(rel)
        if listed is None:
            continue
        dirs, files = listed
        seen += len(dirs) + len(files)
        if seen > MAX_TREE_ENTRIES:
            raise _TooLarge
        matches = glob.files_matcher(depth)
        if matches is not None:
            for name in files:
                if matches(rel, name):
                    return join(rel, name)
        stack.extend((join(rel, name), depth + 1) for name in dirs if glob.may_descend(depth + 1, name))
    return None
