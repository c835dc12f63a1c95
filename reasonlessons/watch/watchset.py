"""From a plan's needs to the directories the observer schedules, against the file system as it is.

Three adjustments, each keeping the OS watches proportional to the fingerprinted directories:

* A missing target is watched through its nearest existing ancestor (never above the need's floor),
  so its appearance is noticed and the daemon re-plans.
* A recursive watch never covers `.git`, the state directory or git-ignored directories
  (`node_modules/`, `dist/`): such a directory is watched non-recursively and its other child
  directories recursively. One level only: ignored directories deeper down are watched, and their
  events are dropped by the re-check finding nothing changed.
* Lossless coalescing: a directory that is already watched and whose child directories are all
  watched recursively becomes one recursive watch. This adds no OS watch (inotify counts one per
  directory either way) but saves an observer thread per directory; it never reaches the repository
  root.

The file system is reached through `FsView`, so the rules are tested without a disk.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import NamedTuple, Protocol

from reasonlessons.fingerprint.tree import DirIndex, Unreadable
from reasonlessons.watch.plan import Need


class Watch(NamedTuple):
    """One directory for the observer."""

    path: str
    recursive: bool


class FsView(Protocol):
    def is_dir(self, path: str) -> bool:
        """Whether `path` is a directory now."""
        ...

    def child_dirs(self, path: str) -> tuple[list[str], list[str]]:
        """(every child directory, those git does not ignore) of a directory, by name."""
        ...


class RealFs:
    """The disk, with git's ignore rules as the fingerprint layer applies them."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._index = DirIndex(root, {}, gen=0, t0=time.time_ns())

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path) and not os.path.islink(path)

    def child_dirs(self, path: str) -> tuple[list[str], list[str]]:
        try:
            with os.scandir(path) as it:
                every = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
        except OSError:
            return [], []
        if not _inside(path, self.root):
            return every, every
        rel = "" if path == self.root else path[len(self.root) + 1 :].replace(os.sep, "/")
        try:
            listed = self._index.listing(rel)
        except Unreadable:
            return every, []
        return every, sorted(listed[0]) if listed else []


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + os.sep)


def resolve(needs: Iterable[Need], fs: FsView, *, root: str, state_dir: str) -> list[Watch]:
    """The watches that serve `needs` now, sorted."""
    wanted: dict[str, bool] = {}
    for need in needs:
        path, recursive = need.path, need.recursive
        while not fs.is_dir(path):
            parent = os.path.dirname(path)
            if path == need.floor or parent == path or not _inside(parent, need.floor):
                break
            path, recursive = parent, False
        else:
            wanted[path] = wanted.get(path, False) or recursive
    for path, recursive in sorted(wanted.items()):
        if recursive and _inside(path, root):
            _expand(path, fs, root=root, state_dir=state_dir, into=wanted)
    _coalesce(wanted, fs, root=root, state_dir=state_dir)
    return sorted(Watch(path, rec) for path, rec in wanted.items() if not _covered(path, wanted))


def _expand(path: str, fs: FsView, *, root: str, state_dir: str, into: dict[str, bool]) -> None:
    every, visible = fs.child_dirs(path)
    if path != root and every == visible and not _inside(state_dir, path):
        return
    into[path] = False
    for name in visible:
        child = os.path.join(path, name)
        if child == state_dir:
            continue
        if _inside(state_dir, child):
            _expand(child, fs, root=root, state_dir=state_dir, into=into)
        else:
            into[child] = True


def _covered(path: str, wanted: dict[str, bool]) -> bool:
    """Whether a recursive watch on a proper ancestor already covers `path`."""
    parent = os.path.dirname(path)
    while parent != path:
        if wanted.get(parent):
            return True
        path, parent = parent, os.path.dirname(parent)
    return False


def _coalesce(wanted: dict[str, bool], fs: FsView, *, root: str, state_dir: str) -> None:
    changed = True
    while changed:
        changed = False
        parents = {os.path.dirname(p) for p, rec in wanted.items() if rec}
        for parent in sorted(parents, key=lambda p: -p.count(os.sep)):
            if (
                parent == root
                or not _inside(parent, root)
                or wanted.get(parent) is not False
                or _inside(state_dir, parent)
                or _covered(parent, wanted)
            ):
                continue
            every, visible = fs.child_dirs(parent)
            if every != visible or not every:
                continue
            if all(wanted.get(os.path.join(parent, name)) for name in every):
                wanted[parent] = True
                for path in [p for p in wanted if p != parent and _inside(p, parent)]:
                    del wanted[path]
                changed = True
