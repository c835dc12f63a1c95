"""Directory listings behind `dir/` and glob entries, remembered per directory between runs.

Each listed directory gets a record: its mtime and inode, whether it holds a `.gitignore`, the
signature of the ignore files in force, its non-ignored child directories and the kinds of its
non-ignored files. Adding, removing or renaming an entry bumps the directory's own mtime, so a record
whose stamp and signature still match needs no `scandir`: a warm check costs one `lstat` per directory
(plus one `stat` per `.gitignore`), and file contents are never read. A directory changed within
the racy window (support/stamp.py) of its listing is recorded as not trusted. A directory is known by
its mtime and inode alone, not a whole Stamp: its listing changes exactly when its mtime does, and
this comparison runs once per directory of every fingerprinted tree.
Symbolic links are never followed (git stores them as files), so link loops cost nothing. Our own
state directory is never listed: it is git-ignored, and we write to it on every run.
"""

from __future__ import annotations

import os
import stat
from itertools import filterfalse
from typing import TYPE_CHECKING, Any

from reasonlessons.fingerprint.deps import Deps
from reasonlessons.fingerprint.globs import Glob
from reasonlessons.fingerprint.ignore import GITIGNORE, MAX_GITIGNORE_BYTES, Pattern, Rules, parse_gitignore
from reasonlessons.fingerprint.kinds import kinds_of
from reasonlessons.support import stamp as stamps
from reasonlessons.support.hashing import digest
from reasonlessons.support.values import Value

# Record layout (a tuple, so the marshal cache stays small and fast).
MTIME, INO, HAS_GI, SIG, SUBDIRS, KINDS, GEN = range(7)
if TYPE_CHECKING:
    Record = tuple[int, int, bool, str, tuple[str, ...], tuple[str, ...], int]


class Unreadable(Exception):
    """A directory under an entry could not be listed; the message says which and why."""


class Shape(Value):
    """What a `dir/` entry records: immediate child directories and the kinds of files below."""

    FIELDS = ("dirs", "kinds")
    __slots__ = FIELDS

    def __init__(self, dirs: tuple[str, ...], kinds: tuple[str, ...]) -> None:
        self.dirs = dirs
        self.kinds = kinds


def join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def parent_of(rel: str) -> str:
    return rel.rpartition("/")[0]


class DirIndex:
    """Listings of one work tree for one run, backed by the records of earlier runs."""

    def __init__(
        self,
        root: str,
        records: dict[str, Any],
        *,
        gen: int,
        t0: int,
        skip: frozenset[str] = frozenset(),
        deps: Deps | None = None,
    ) -> None:
        self.root = root
        self.records = records
        self.gen = gen
        self.t0 = t0
        self.racy_from = t0 - stamps.RACY_NS
        self.skip = skip  # repo-relative directories never listed
        self.deps = deps
        self.changed = False
        self.listings = 0
        self._stat: dict[str, os.stat_result | None] = {}
        self._sig: dict[str, str] = {}
        self._rules: dict[str, Rules] = {}
        self._listed: dict[str, tuple[list[str], list[str]]] = {}
        self._joined: dict[str, str] = {}  # a listing's file names joined by '/'
        self._valid: dict[str, bool] = {}
        self._subtree: dict[str, tuple[frozenset[str], bool]] = {}
        self._counted: set[int] = set()  # devices whose directories' link counts count subdirectories
        self._miscounted: set[int] = set()

    # -- one directory ---------------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def lstat(self, rel: str) -> os.stat_result | None:
        if rel not in self._stat:
            path = self._abs(rel)
            try:
                st: os.stat_result | None = os.lstat(path)
            except OSError:
                st = None
            self._stat[rel] = st
            if self.deps is not None:
                self.deps.saw(path, st, follow=False)
        return self._stat[rel]

    def _file_stamp(self, path: str) -> tuple[int, ...] | None:
        """Stamp of an ignore file; a racy one (this run's time in place of the stamp) never matches
        a later one, so the signatures built on it do not either."""
        try:
            st: os.stat_result | None = os.stat(path)
        except OSError:
            st = None
        if self.deps is not None:
            self.deps.saw(path, st, follow=True)
        if st is None:
            return None
        stamp = stamps.of(st)
        return (-1, self.t0) if stamps.racy(stamp, self.t0) else stamp

    def _stamp_ok(self, rel: str, rec: Record | None) -> bool:
        st = self.lstat(rel)
        return rec is not None and st is not None and rec[MTIME] == st.st_mtime_ns and rec[INO] == st.st_ino

    def sig(self, rel: str) -> str:
        """Identity of the ignore files in force in `rel`: equal signatures mean equal ignore rules."""
        found = self._sig.get(rel)
        if found is not None:
            return found
        rec: Any = self.records.get(rel)
        known = rec[HAS_GI] if self._stamp_ok(rel, rec) else None
        return self._make_sig(rel, known)

    def _make_sig(self, rel: str, has_gi: bool | None) -> str:
        if rel:
            base = self.sig(parent_of(rel))
        else:
            base = "exclude:" + repr(self._file_stamp(os.path.join(self.root, ".git", "info", "exclude")))
        stamp = self._file_stamp(os.path.join(self._abs(rel), GITIGNORE)) if has_gi is not False else None
        sig = base if stamp is None else digest(f"{base}|{rel}|{stamp}".encode())
        self._sig[rel] = sig
        return sig

    def rules(self, rel: str, has_gi: bool | None = None) -> Rules:
        """The ignore rules in force in `rel`; `has_gi=False` spares looking for its own file."""
        found = self._rules.get(rel)
        if found is None:
            if rel:
                inherited = self.rules(parent_of(rel))
            else:
                inherited = Rules(_read_patterns(os.path.join(self.root, ".git", "info", "exclude"), ""))
            own: list[Pattern] = []
            if has_gi is not False:
                own = _read_patterns(os.path.join(self._abs(rel), GITIGNORE), f"{rel}/" if rel else "")
            found = self._rules[rel] = inherited.extend(own)
        return found

    def node(self, rel: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """(child dirs, file kinds) of a directory, from its record when still valid; None if gone."""
        if (rel in self._listed or not self.valid(rel)) and self.listing(rel) is None:
            return None
        rec = self.records[rel]
        return rec[SUBDIRS], rec[KINDS]

    def valid(self, rel: str) -> bool:
        """Whether the record of `rel` still describes the directory (stamp and ignore rules)."""
        found = self._valid.get(rel)
        if found is None:
            rec: Any = self.records.get(rel)
            found = self._stamp_ok(rel, rec) and rec[SIG] == self.sig(rel)
            self._valid[rel] = found
        return found

    def listing(self, rel: str) -> tuple[list[str], list[str]] | None:
        """Non-ignored (child dirs, file names) of `rel`, listed now; the record is renewed."""
        found = self._listed.get(rel)
        if found is not None:
            return found
        st = self.lstat(rel)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return None
        # A directory without child directories (its link count says so, on a file system
        # whose counts this run has checked) is listed by name alone: no DirEntry per entry.
        leaf = st.st_nlink == 2 and st.st_dev in self._counted
        names, dirs = _entries(self._abs(rel), rel, leaf)
        if not leaf:
            self._count_links(st, dirs)
        has_gi = GITIGNORE in names and GITIGNORE not in dirs
        if dirs:
            dirset = set(dirs)
            files = [name for name in names if name not in dirset]
        else:
            files = names
        joined = "/".join(files)  # '/' cannot occur in a name
        rules = self.rules(rel, has_gi)
        if rules.file_names is not None:
            literals = rules.file_literals
            if literals is None or any(literal in joined for literal in literals):
                kept = list(filterfalse(rules.file_names, files))
                if len(kept) < len(files):
                    files, joined = kept, "/".join(kept)
        elif rules.files is not None:
            files = [name for name in files if not rules.files(rel, name)]
            joined = "/".join(files)
        if rules.dirs is not None:
            dirs = [name for name in dirs if not rules.dirs(rel, name)]
        if ".git" in names:
            dirs = [name for name in dirs if name != ".git"]
            files = [name for name in files if name != ".git"]
            joined = "/".join(files)
        if self.skip:
            dirs = [name for name in dirs if join(rel, name) not in self.skip]
        dirs.sort()
        mtime = st.st_mtime_ns if st.st_mtime_ns < self.racy_from else -1
        kinds = tuple(sorted(kinds_of(files, joined)))
        self.records[rel] = (
            mtime,
            st.st_ino,
            has_gi,
            self._make_sig(rel, has_gi),
            tuple(dirs),
            kinds,
            self.gen,
        )
        self._listed[rel] = (dirs, files)
        self._joined[rel] = joined
        self._valid[rel] = True
        self.changed = True
        self.listings += 1
        return dirs, files

    def _count_links(self, st: os.stat_result, dirs: list[str]) -> None:
        """Learn from a directory listed in full whether its file system's link counts can be
        trusted (2 + its child directories, as ext4, xfs and tmpfs keep them; btrfs and overlayfs
        say 1): then a directory whose count is 2 holds none, and is listed by name alone."""
        dev = st.st_dev
        if dev in self._miscounted:
            return
        if st.st_nlink != 2 + len(dirs):
            self._miscounted.add(dev)
            self._counted.discard(dev)
        elif dirs:
            self._counted.add(dev)

    # -- dir/ entries ----------------------------------------------------------------------------

    def shape(self, rel: str) -> Shape:
        """Child directories git can see (they hold a non-ignored file) and the kinds of files below."""
        order: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
        stack = [rel]
        while stack:
            current = stack.pop()
            if current in self._subtree:
                continue
            node = self.node(current)
            if node is None:
                self._subtree[current] = (frozenset(), False)
                continue
            order.append((current, *node))
            stack.extend(join(current, name) for name in node[0])
        for current, subdirs, kinds in reversed(order):
            total = set(kinds)
            visible = bool(kinds)
            for name in subdirs:
                sub_kinds, sub_visible = self._subtree.get(join(current, name), (frozenset(), False))
                if sub_visible:
                    total.update(sub_kinds)
                    visible = True
            self._subtree[current] = (frozenset(total), visible)
        node = self.node(rel)
        children = tuple(n for n in node[0] if self._subtree[join(rel, n)][1]) if node else ()
        return Shape(children, tuple(sorted(self._subtree[rel][0])))

    # -- glob entries ----------------------------------------------------------------------------

    def glob(self, glob: Glob, known_gen: int) -> str | None:
        """A file matching `glob`, or None. Directories whose record is valid and no newer than
        `known_gen` (when this glob last found nothing) are not listed again."""
        stack: list[tuple[str, int]] = [(glob.base, -1)]
        while stack:
            rel, depth = stack.pop()
            rec = self.records.get(rel)
            matches = glob.files_matcher(depth)
            # A directory needs listing only when a file in it may match and it may have changed
            # since this glob last looked; otherwise its record gives the subdirectories.
            if (
                rel not in self._listed
                and rec is not None
                and (matches is None or rec[GEN] <= known_gen)
                and self.valid(rel)
            ):
                subdirs: list[str] | tuple[str, ...] = rec[SUBDIRS]
            else:
                listed = self.listing(rel)
                if listed is None:
                    continue
                subdirs, files = listed
                if matches is not None:
                    found = glob.first(rel, depth, files, self._joined.get(rel))
                    if found is not None:
                        return join(rel, found)
            stack.extend(
                (join(rel, name), depth + 1)
                for name in reversed(subdirs)
                if glob.may_descend(depth + 1, name)
            )
        return None


# Listing through a descriptor: the entries then carry their name only, not the joined and decoded
# path as well (a third less work per entry: 100,000 in a cold check), for an open and a close.
_BY_FD = os.scandir in os.supports_fd and os.listdir in os.supports_fd and hasattr(os, "O_DIRECTORY")
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _entries(path: str, rel: str, leaf: bool = False) -> tuple[list[str], list[str]]:
    """(names, names of child directories) of the directory at `path` (`rel` names it in errors).
    `leaf`: its link count said it holds no directory; then its names alone are listed, a third
    cheaper than building a DirEntry per name, and the count is read again through the open
    descriptor once they are (a directory made meanwhile is seen: the full listing decides).

    A cold check lists every entry of every fingerprinted tree: no Python-level step per entry
    beyond two comprehensions (the rest runs in C over all names at once). Links, and the odd
    fifo, count as files: git stores links as files and never follows them."""
    try:
        fd = os.open(path, _DIR_FLAGS) if _BY_FD else None
    except OSError as exc:
        raise Unreadable(f"cannot list {rel or '.'}/ ({exc.strerror or exc})") from None
    try:
        try:
            if leaf and fd is not None:
                names = os.listdir(fd)  # rewinds the descriptor for scandir below
                if os.fstat(fd).st_nlink == 2:  # still no child directory once listed
                    return names, []
            with os.scandir(path if fd is None else fd) as it:
                items = list(it)
        except OSError as exc:
            raise Unreadable(f"cannot list {rel or '.'}/ ({exc.strerror or exc})") from None
        # Before the descriptor closes: an entry of unknown type is stat'ed through it.
        return [item.name for item in items], _subdirs(items)
    finally:
        if fd is not None:
            os.close(fd)


def _subdirs(items: list[os.DirEntry[str]]) -> list[str]:
    """Names of the entries that are directories themselves, not links to one.

    `is_dir()` without arguments costs a third less than `is_dir(follow_symlinks=False)` (no keyword
    parsing; 100,000 entries in a cold check) and answers from the entry's type alike for all but
    links, whose target it stats; `is_symlink()` then runs for the few directories only. Following
    a link can fail where not following cannot (a loop, a target out of reach): the keyword form
    then decides, raising what it raises."""
    try:
        return [item.name for item in items if item.is_dir() and not item.is_symlink()]
    except OSError:
        return [item.name for item in items if item.is_dir(follow_symlinks=False)]


def _read_patterns(path: str, base: str) -> list[Pattern]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_GITIGNORE_BYTES + 1)
    except OSError:
        return []
    if len(data) > MAX_GITIGNORE_BYTES:
        return []
    return parse_gitignore(data.decode("utf-8", "replace"), base)
