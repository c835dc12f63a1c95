"""What the daemon watches and which lessons a changed path can affect: pure functions, no I/O.

Each fingerprint entry needs the directories where its fact can change, and every ancestor of its
target non-recursively: inotify does not report a watched directory being renamed (IN_MOVE_SELF is
dropped), so renames and deletions are seen from the parent, and an ancestor's `.gitignore` changes
the shape of `dir/` entries and the matches of globs.

    path/file, file.json#a.b   its parent directory, non-recursively
    dir/                       the directory, recursively (the shape covers the whole subtree)
    a glob                     its literal prefix: recursively when the pattern reaches below it
    lessons                    the project and global lessons directories, non-recursively
    session logs               this repository's session locations (see sessions.py)
    `.git/info/exclude`        when any `dir/` or glob entry exists; nothing else under `.git`

The state directory is never watched or reported, so the daemon's own writes (caches, its state
file) cannot wake it up. Branch switches and rebases are seen through the work-tree files they
rewrite, so `.git/HEAD` is not watched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint.entry import DIR, GLOB, parse_entry
from reasonlessons.fingerprint.globs import Glob, compile_glob

LESSON = "lesson"  # key: a lesson key whose fingerprint a path can affect
LESSONS = "lessons"  # key: a lesson file path: the lesson set must be read again
SESSION = "session"  # key: a session log file's absolute path
REPLAN = "replan"  # key: a directory whose appearance or removal changes what to watch

LESSON_SUFFIX = ".md"
GITIGNORE = ".gitignore"
EXCLUDE = ".git/info/exclude"
_SEP = os.sep
# Editors' and atomic writers' scratch files: never a fingerprinted fact by themselves.
_TEMP_SUFFIXES = (".swp", ".swo", ".swx", "~", ".tmp", ".part", "___jb_tmp___", "___jb_old___")
_TEMP_PREFIXES = (".#", ".goutputstream-")


class Reason(NamedTuple):
    """Why a changed path matters."""

    kind: str
    key: str


class Need(NamedTuple):
    """A directory to watch (absolute); when missing, watch the nearest ancestor, but none above `floor`."""

    path: str
    recursive: bool
    floor: str


class SessionRoot(NamedTuple):
    """A directory holding session logs of this repository."""

    path: str
    recursive: bool
    floor: str


@dataclass(frozen=True)
class WatchPlan:
    """The needs of one lesson set, and the indexes `relevant` answers from (repo-relative keys)."""

    root: str
    state_dir: str
    needs: tuple[Need, ...]
    anchors: frozenset[str]  # absolute: needed directories and their ancestors down to the floors
    exact: Mapping[str, frozenset[str]] = field(default_factory=dict)  # target -> lesson keys
    above: Mapping[str, frozenset[str]] = field(default_factory=dict)  # ancestor of a target -> keys
    below: Mapping[str, frozenset[str]] = field(default_factory=dict)  # dir entry -> keys
    globs: Mapping[str, tuple[tuple[str, Glob], ...]] = field(default_factory=dict)  # glob base
    shapes: Mapping[str, frozenset[str]] = field(default_factory=dict)  # dir/glob base -> keys
    lesson_dirs: frozenset[str] = frozenset()
    session_roots: tuple[str, ...] = ()


def ancestors(rel: str) -> list[str]:
    """Proper ancestors of a repo-relative path, nearest first, without the root ('')."""
    out = []
    while "/" in rel:
        rel = rel.rpartition("/")[0]
        out.append(rel)
    return out


def _abs(root: str, rel: str) -> str:
    return os.path.join(root, *rel.split("/")) if rel else root


def build_plan(
    root: str,
    *,
    state_dir: str,
    lessons: Mapping[str, Sequence[str]],
    lesson_dirs: Iterable[tuple[str, str]] = (),
    session_roots: Iterable[SessionRoot] = (),
) -> WatchPlan:
    """The plan for `lessons` (key -> fingerprint entries); `lesson_dirs` are (directory, floor) pairs."""
    exact: dict[str, set[str]] = {}
    above: dict[str, set[str]] = {}
    below: dict[str, set[str]] = {}
    globs: dict[str, list[tuple[str, Glob]]] = {}
    shapes: dict[str, set[str]] = {}
    needs: set[Need] = set()
    for key, texts in lessons.items():
        for text in texts:
            try:
                entry = parse_entry(text)
            except InvalidFingerprintError:
                continue  # reported as unreadable by the checker; nothing on disk can change that
            if entry.kind == GLOB:
                glob = compile_glob(entry.path)
                target = glob.base
                globs.setdefault(target, []).append((key, glob))
                needs.add(Need(_abs(root, target), len(glob.rest) > 1, root))
            else:
                target = entry.path
                if entry.kind == DIR:
                    below.setdefault(target, set()).add(key)
                    needs.add(Need(_abs(root, target), True, root))
            if entry.kind in (DIR, GLOB):
                shapes.setdefault(target, set()).add(key)
            if target:
                exact.setdefault(target, set()).add(key)
            for parent in ancestors(target) if target else ():
                above.setdefault(parent, set()).add(key)
            parents = [*ancestors(target), ""] if target else []
            needs.update(Need(_abs(root, parent), False, root) for parent in parents)
    if shapes:
        needs.add(Need(os.path.join(root, ".git", "info"), False, os.path.join(root, ".git")))
    dirs = set()
    for directory, floor in lesson_dirs:
        dirs.add(directory)
        needs.add(Need(directory, False, floor))
        needs.update(Need(parent, False, floor) for parent in _abs_ancestors(directory, floor))
    for session in session_roots:
        needs.add(Need(session.path, session.recursive, session.floor))
    return WatchPlan(
        root=root,
        state_dir=state_dir,
        needs=tuple(sorted(needs)),
        anchors=frozenset(a for need in needs for a in (need.path, *_abs_ancestors(need.path, need.floor))),
        exact=_freeze(exact),
        above=_freeze(above),
        below=_freeze(below),
        globs={base: tuple(items) for base, items in globs.items()},
        shapes=_freeze(shapes),
        lesson_dirs=frozenset(dirs),
        session_roots=tuple(sorted({s.path for s in session_roots})),
    )


def _abs_ancestors(path: str, floor: str) -> list[str]:
    """Ancestors of an absolute path down to (and including) `floor`, when it lies below it."""
    out = []
    while path != floor and path.startswith(floor + _SEP):
        path = os.path.dirname(path)
        out.append(path)
    return out


def _freeze(index: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    return {key: frozenset(values) for key, values in index.items()}


def is_temp(name: str) -> bool:
    """Editor swap/backup files and atomic writers' temp files."""
    return name.endswith(_TEMP_SUFFIXES) or name.startswith(_TEMP_PREFIXES) or name == "4913"


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + _SEP)


def relevant(path: str, plan: WatchPlan, *, is_dir: bool = False) -> set[Reason]:
    """Why a created/modified/moved/deleted absolute `path` matters to the daemon (empty: it does not)."""
    if _inside(path, plan.state_dir):
        return set()
    out: set[Reason] = set()
    if is_dir and path in plan.anchors:
        out.add(Reason(REPLAN, path))
    parent, _, name = path.rpartition(_SEP)
    lesson_file = parent in plan.lesson_dirs and name.endswith(LESSON_SUFFIX) and not name.startswith(".")
    if lesson_file or (is_dir and any(_inside(d, path) for d in plan.lesson_dirs)):
        out.add(Reason(LESSONS, path))
    for session_root in plan.session_roots:
        if _inside(path, session_root) and not is_dir and not is_temp(name):
            out.add(Reason(SESSION, path))
    if _inside(path, plan.root) and path != plan.root:
        rel = path[len(plan.root) + 1 :].replace(_SEP, "/")
        out.update(Reason(LESSON, key) for key in lesson_keys(rel, plan))
    return out


def lesson_keys(rel: str, plan: WatchPlan) -> set[str]:
    """The lessons whose fingerprint a change of the repo-relative `rel` can alter."""
    if rel == ".git" or rel.startswith(".git/"):
        return set().union(*plan.shapes.values()) if rel == EXCLUDE else set()
    keys = set(plan.exact.get(rel, ()))
    keys.update(plan.above.get(rel, ()))
    name = rel.rpartition("/")[2]
    if is_temp(name):
        return keys
    parents = ancestors(rel)
    for parent in (*parents, ""):
        keys.update(plan.below.get(parent, ()))
    for base in (*parents, ""):
        for key, glob in plan.globs.get(base, ()):
            if key not in keys and _may_match(rel, base, glob):
                keys.add(key)
    if name == GITIGNORE:
        here = parents[0] if parents else ""
        for directory, shape_keys in plan.shapes.items():
            if not here or directory == here or directory.startswith(here + "/"):
                keys.update(shape_keys)
    return keys


def _may_match(rel: str, base: str, glob: Glob) -> bool:
    """Whether a path below a glob's base can add or remove a match (a file, or a dir holding some)."""
    depth = rel.count("/") - (base.count("/") + 1 if base else 0) + 1
    return "**" in glob.rest or depth <= len(glob.rest)


def follows_content(path: str, plan: WatchPlan | None) -> bool:
    """Whether a file's content (not only its presence) can matter: what `--poll` must stat."""
    if plan is None:
        return True
    if _inside(path, plan.state_dir):
        return False
    parent, _, name = path.rpartition(_SEP)
    if name == GITIGNORE or parent in plan.lesson_dirs:
        return True
    if any(_inside(path, session_root) for session_root in plan.session_roots):
        return True
    if _inside(path, plan.root) and path != plan.root:
        rel = path[len(plan.root) + 1 :].replace(_SEP, "/")
        return rel in plan.exact or rel == EXCLUDE
    return False
