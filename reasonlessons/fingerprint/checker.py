"""The Checker: current facts of fingerprint entries (cached by stat data) and the drift of lessons.

Cache sections (see cache.py), each validated by stat data before use:
    files   path -> (stamp, content hash)                 re-read only when the file's stamp changes
    fields  path#field -> (stat stamp, key, value, why)   re-parsed likewise
    dirs    per-directory listings (tree.py)              re-listed only when the directory's mtime changes
    globs   pattern -> (match, generation, ignore sig)     a remembered match is re-checked with one lstat
    commits (HEAD, entry, value) -> commit                 history is walked once per HEAD
Entries whose stamp is racy (support/stamp.py) are used but not remembered.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reasonlessons import fingerprint
from reasonlessons.constants import REASONIX_DIR, SCOPE_GLOBAL, STATE_DIR
from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint import applies as applicability
from reasonlessons.fingerprint import cache
from reasonlessons.fingerprint.deps import Deps
from reasonlessons.fingerprint.drift import (
    APPEARED,
    CHANGED,
    REMOVED,
    UNREADABLE_REASON,
    Drift,
    compare,
    from_record,
    to_record,
)
from reasonlessons.fingerprint.entry import DIR, FIELD, FILE, GLOB, Entry, Segment, parse_entry
from reasonlessons.fingerprint.facts import (
    ABSENT,
    MATCH,
    Fact,
    field_from,
    file_fact,
    glob_fact,
    inside,
    parse,
    read_document,
    shape_fact,
    stat_target,
    unreadable,
)
from reasonlessons.fingerprint.globs import compile_glob
from reasonlessons.fingerprint.tree import DirIndex, Unreadable, parent_of
from reasonlessons.lessons.model import Lesson
from reasonlessons.support import stamp as stamps
from reasonlessons.support.githead import head_token

MAX_COMMITS_CACHED = 512
# Our own state dir is never walked: it is git-ignored, and every run writes to it.
_SKIP = frozenset({f"{REASONIX_DIR}/{STATE_DIR}"})


class Checker:
    """Facts of one work tree for one command; `save()` keeps what was learned for the next one."""

    def __init__(self, root: Path, *, state_dir: Path | None, deps: Deps | None = None) -> None:
        self.root = os.path.abspath(root)
        self.deps = deps
        self._path = state_dir / cache.CACHE_FILE if state_dir is not None else None
        self._doc = cache.load(self._path)
        self.gen = self._doc["gen"] + 1
        t0 = time.time_ns()
        self._t0 = t0
        self._dirs = DirIndex(self.root, self._doc["dirs"], gen=self.gen, t0=t0, skip=_SKIP, deps=deps)
        # Keyed by the parsed field path, not its text: `Entry.field_text` joins it anew on each call.
        self._memo: dict[tuple[str, str, tuple[Segment, ...]], Fact] = {}
        self._dirty = False
        self._real_root: str | None = None
        self._inside_dirs: dict[str, bool] = {}
        self._reals: dict[str, str] = {}
        self._docs: dict[str, object] = {}  # parsed documents, or Facts saying why not
        self._head: str | None | bool = False
        self._attributor: Any = None

    def __enter__(self) -> Checker:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.save()
        finally:
            self.close()

    # -- facts -----------------------------------------------------------------------------------

    def fact(self, entry: Entry) -> Fact:
        """The entry's value in the work tree now."""
        key = (entry.kind, entry.path, entry.field)
        found = self._memo.get(key)
        if found is None:
            if entry.kind in (FILE, FIELD):
                found = self._file(entry)
            elif entry.kind == DIR:
                found = self._dir(entry)
            else:
                found = self._glob(entry)
            self._memo[key] = found
        return found

    def _file(self, entry: Entry) -> Fact:
        st, early, link = stat_target(self.root, entry)
        if self.deps is not None:
            self.deps.saw(f"{self.root}/{entry.path}", st, follow=True)
        if early is not None or st is None:
            return early or unreadable("cannot stat")
        stamp = stamps.of(st)
        is_field = entry.kind == FIELD
        section = self._doc["fields" if is_field else "files"]
        key = f"{entry.path}#{entry.field_text}" if is_field else entry.path
        hit = section.get(key)
        if hit is not None and hit[0] == stamp:
            return Fact(hit[1], value=hit[2], problem=hit[3])
        if not self._inside(entry.path, link):
            return unreadable("resolves outside the repository through a symbolic link: use a path inside it")
        fact = (
            field_from(entry, self._document(entry.path, st)) if is_field else file_fact(self.root, entry, st)
        )
        if not stamps.racy(stamp, self._t0):
            section[key] = (stamp, fact.key, fact.value, fact.problem)
            self._dirty = True
        return fact

    def _document(self, path: str, st: os.stat_result) -> object:
        """A document parsed once per run however many of its fields are fingerprinted."""
        if path not in self._docs:
            data = read_document(self.root, path, st)
            self._docs[path] = data if isinstance(data, Fact) else parse(path, data)
        return self._docs[path]

    def _inside(self, path: str, link: bool) -> bool:
        """Whether the file (`link`: itself a symbolic link), links resolved, is inside the work tree."""
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        parent = parent_of(path)
        ok = self._inside_dirs.get(parent)
        if ok is None:
            real = self._real_dir(parent)
            root = self._real_root
            ok = self._inside_dirs[parent] = real == root or real.startswith(root + os.sep)
        return ok and (not link or inside(self._real_root, f"{self.root}/{path}"))

    def _real_dir(self, rel: str) -> str:
        """`os.path.realpath` of a directory of the work tree, from its parent's: one `lstat` each."""
        found = self._reals.get(rel)
        if found is None:
            if not rel:
                found = self._real_root or os.path.realpath(self.root)
            else:
                up, _, name = rel.rpartition("/")
                full = f"{self.root}/{rel}"
                link = os.path.islink(full)
                found = os.path.realpath(full) if link else os.path.join(self._real_dir(up), name)
            self._reals[rel] = found
        return found

    def _dir(self, entry: Entry) -> Fact:
        st = self._dirs.lstat(entry.path)
        if st is None:
            return Fact(ABSENT)
        if stat.S_ISLNK(st.st_mode):
            return unreadable("is a symbolic link: fingerprint the directory it points to")
        if not stat.S_ISDIR(st.st_mode):
            return unreadable("is a file, not a directory: drop the trailing '/' to fingerprint its content")
        try:
            return shape_fact(self._dirs.shape(entry.path))
        except Unreadable as exc:
            return unreadable(str(exc))

    def _glob(self, entry: Entry) -> Fact:
        glob = compile_glob(entry.path)
        section = self._doc["globs"]
        hit = section.get(entry.path)
        known = -1
        if hit is not None:
            match, known, sig = hit
            if match is not None:
                st = self._dirs.lstat(match)
                if (
                    st is not None
                    and not stat.S_ISDIR(st.st_mode)
                    and self._dirs.sig(parent_of(match)) == sig
                ):
                    return glob_fact(match)
                known = -1  # the remembered match is gone: look everywhere again
        listings = self._dirs.listings
        try:
            found = self._dirs.glob(glob, known)
        except Unreadable as exc:
            return unreadable(str(exc))
        # Unchanged directories keep the generation at which this glob last looked at them.
        gen = self.gen if known < 0 or self._dirs.listings != listings else known
        new = (found, gen, self._dirs.sig(parent_of(found)) if found is not None else None)
        if new != hit:
            section[entry.path] = new
            self._dirty = True
        return glob_fact(found)

    # -- lessons ---------------------------------------------------------------------------------

    def drift(self, lesson: Lesson) -> list[Drift]:
        """How the lesson's recorded fingerprint differs from the work tree (empty when fresh).

        A global lesson's entries are conditions, not values (applies.py): only a malformed one
        drifts. The commit of each drift is found lazily, when the drift is shown."""
        recorded = lesson.recorded
        conditions_only = lesson.scope == SCOPE_GLOBAL
        out: list[Drift] = []
        for text in lesson.fingerprint:
            try:
                entry = parse_entry(text)
            except InvalidFingerprintError as exc:
                out.append(Drift(text, UNREADABLE_REASON, now="unreadable", detail=f"invalid entry: {exc}"))
                continue
            if conditions_only:
                continue
            rec = recorded.get(text)
            now = self.fact(entry)
            if _same(entry, rec, now):
                continue
            drift = compare(entry, from_record(entry, rec), now)
            if drift is not None:
                if drift.reason in (CHANGED, APPEARED, REMOVED):
                    drift.resolver = lambda d, e=entry: self._commit(e, d)
                out.append(drift)
        return out

    def applies(self, lesson: Lesson) -> list[applicability.NotApplying]:
        """The conditions of a global lesson this work tree does not meet (empty: it applies here;
        always empty for other scopes)."""
        if lesson.scope != SCOPE_GLOBAL:
            return []
        out: list[applicability.NotApplying] = []
        for text, needs in applicability.conditions_of(lesson.meta, lesson.fingerprint).items():
            try:
                entry = parse_entry(text)
            except InvalidFingerprintError:
                continue  # a malformed entry is a drift (above), whatever the repository
            missing = applicability.check(text, needs, self.fact(entry))
            if missing is not None:
                out.append(missing)
        return out

    def record(self, entries: Sequence[str]) -> dict[str, Any]:
        """The `fingerprint-recorded` mapping for these entries as the work tree is now."""
        return {text: to_record(entry, self.fact(entry)) for text, entry in _parsed(entries)}

    def conditions(self, entries: Sequence[str]) -> dict[str, str]:
        """The `applies-when` mapping for these entries: a global lesson applies where they are as now."""
        return {text: applicability.condition(self.fact(entry)) for text, entry in _parsed(entries)}

    def record_for(self, scope: str | None, entries: Sequence[str]) -> dict[str, Any]:
        """The frontmatter keys that record `entries` for a lesson of `scope`."""
        if scope == SCOPE_GLOBAL:
            return {applicability.KEY: self.conditions(entries)}
        return {"fingerprint-recorded": self.record(entries)}

    def _commit(self, entry: Entry, drift: Drift) -> dict[str, str] | None:
        if self._head is False:
            seen: list[str] = []
            self._head = head_token(self.root, seen)
            if self.deps is not None:
                for path in seen:
                    try:
                        self.deps.saw(path, os.stat(path), follow=True)
                    except OSError:
                        self.deps.saw(path, None, follow=True)
        now = drift.facts[1]
        if self._head is None or now is None:
            return None
        key = f"{self._head}\0{entry.text}\0{now.key}"
        section = self._doc["commits"]
        if key not in section:
            if self._attributor is None:
                self._attributor = fingerprint.Attributor(self.root)
            if len(section) >= MAX_COMMITS_CACHED:  # answers for older HEADs are of no more use
                for old in [k for k in section if not k.startswith(f"{self._head}\0")]:
                    del section[old]
            section[key] = self._attributor.find(entry, now.key)
            self._dirty = True
        found: dict[str, str] | None = section[key]
        return found

    # -- another process of the same run (reasonlessons/stale/prefetch.py) -------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The cache as it is now, to tell later what this run added (`learned`)."""
        return cache.copy(self._doc)

    def learned(self, base: dict[str, Any]) -> dict[str, Any]:
        """What this checker found since `base` (marshal-ready), for `absorb`: the facts it computed,
        the paths it looked at, and what it added to the cache."""
        out = cache.changes(self._doc, base)
        out["facts"] = {key: _fact_tuple(fact) for key, fact in self._memo.items()}
        out["deps"] = (self.deps.stat, self.deps.lstat) if self.deps is not None else None
        return out

    def absorb(self, found: dict[str, Any], base: dict[str, Any]) -> None:
        """Take what a checker forked from this one at `base` found (`learned`) in the same run.

        Its facts count as if computed here, and the paths they rest on are added to `deps` with
        the stamps it saw, so a stored answer still depends on every one of them; its cache entries,
        like entries loaded from the state dir, are used only while their stat data hold."""
        if not cache.merge(self._doc, found, base):
            return
        self._dirty = True
        for key, fact in found["facts"].items():
            self._memo.setdefault(key, Fact(*fact))
        if self.deps is not None and found["deps"] is not None:
            for mine, theirs in zip((self.deps.stat, self.deps.lstat), found["deps"], strict=True):
                for path, stamp in theirs.items():
                    mine.setdefault(path, stamp)

    # -- persistence -----------------------------------------------------------------------------

    def save(self) -> None:
        """Write the cache if this run learned anything (the state dir must exist: callers create it)."""
        if self._path is None or not (self._dirty or self._dirs.changed):
            return
        if not self._path.parent.is_dir():
            return
        self._doc["gen"] = self.gen
        cache.save(self._path, self._doc)
        self._dirty = False
        self._dirs.changed = False

    def idle(self) -> bool:
        """Whether no helper process is open (a fork then shares none of its pipes)."""
        return self._attributor is None

    def close(self) -> None:
        """Release the repository opened to explain drifts, if any."""
        if self._attributor is not None:
            self._attributor.close()
            self._attributor = None


def _parsed(entries: Sequence[str]) -> list[tuple[str, Entry]]:
    out: list[tuple[str, Entry]] = []
    for text in entries:
        try:
            out.append((text, parse_entry(text)))
        except InvalidFingerprintError as exc:
            raise InvalidFingerprintError(f"fingerprint entry {text!r} {exc}") from None
    return out


def _fact_tuple(fact: Fact) -> tuple[Any, ...]:
    return (fact.key, fact.value, fact.dirs, fact.kinds, fact.problem, fact.truncated)


def _same(entry: Entry, rec: object, now: Fact) -> bool:
    """The common case, decided without building the recorded Fact: recorded value still holds."""
    if not isinstance(rec, dict) or now.key == "unreadable" or "unreadable" in rec:
        return False
    if entry.kind == GLOB and "matches" in rec:
        return rec["matches"] is (now.key == MATCH)
    if now.key == ABSENT:
        return rec.get("absent") is True
    return rec.get("hash") == now.key


def record(root: Path, entries: Sequence[str]) -> dict[str, Any]:
    """The `fingerprint-recorded` mapping of `entries`, computed now without any cache."""
    with Checker(root, state_dir=None) as checker:
        return checker.record(entries)


def record_for(root: Path, scope: str | None, entries: Sequence[str]) -> dict[str, Any]:
    """The frontmatter keys recording `entries` for a lesson of `scope` (Checker.record_for)."""
    with Checker(root, state_dir=None) as checker:
        return checker.record_for(scope, entries)
