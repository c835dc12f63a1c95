"""Glob entries: `**` spans directories, `*`/`?`/`[...]` stay within one, dot files match.

This module decides what a whole glob entry means and walks for it; a segment's syntax is
reasonlessons.support.globs, shared with recall's file triggers and .gitignore lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from reasonlessons.fingerprint.entry import GLOB_CHARS
from reasonlessons.fingerprint.ignore import required_literal
from reasonlessons.support.globs import segment_regex

SegmentMatch = Callable[[str], "re.Match[str] | None"]


class Glob:
    """A compiled glob: the literal directory to walk from, and matchers for what lies below it.

    Matching is relative to `base`, so globs that differ only in their literal prefix (one per
    package, say) share compiled regexes, and nothing is compiled until a walk needs it."""

    __slots__ = ("_cut", "base", "rest")

    def __init__(self, base: str, rest: tuple[str, ...]) -> None:
        self.base = base  # repo-relative literal prefix directory, '' for the root
        self.rest = rest  # the segments below `base`; the last one names files
        self._cut = len(base) + 1 if base else 0

    def match(self, path: str) -> bool:
        """Whether a repo-relative file path (under `base`) matches."""
        return _rest_regex(self.rest)(path[self._cut :]) is not None

    def files_matcher(self, depth: int) -> Callable[[str, str], bool] | None:
        """A test `(dir, name) -> bool` for files of a directory at `depth` below `base` (-1 = base
        itself) that was reached through `may_descend`; None when no file there can match."""
        last = depth + 1
        if self.deep(last):
            return lambda rel, name: self.match(f"{rel}/{name}" if rel else name)
        if last != len(self.rest) - 1:
            return None
        # Every directory above already matched its segment: only the name is left to test.
        segment = _segment_regex(self.rest[last])
        return lambda rel, name: segment(name) is not None

    def first(self, rel: str, depth: int, names: list[str], joined: str | None = None) -> str | None:
        """The first of the file `names` of `rel` (as in `files_matcher`) that matches, or None:
        the same test, with the loop over names in C (a listing may hold thousands). `joined`, the
        names joined by '/' when the caller has them, rules out at once a directory where no name
        holds the literal part of the last segment (`.spec.ts` of `src/*/*.spec.ts`)."""
        if joined is not None and _literal(self.rest[-1]) not in joined:
            return None
        last = depth + 1
        if self.deep(last):
            prefix = (f"{rel}/" if rel else "")[self._cut :]
            found = next(filter(_rest_regex(self.rest), map(prefix.__add__, names)), None)
            return None if found is None else found[len(prefix) :]
        if last != len(self.rest) - 1:
            return None
        return next(filter(_segment_regex(self.rest[last]), names), None)

    def may_descend(self, depth: int, name: str) -> bool:
        """Whether a directory `name` at `depth` below `base` (0 = a child of base) can hold a match."""
        if self.deep(depth):
            return True
        if depth >= len(self.rest) - 1:
            return False
        return _segment_regex(self.rest[depth])(name) is not None

    def deep(self, depth: int) -> bool:
        """Whether a '**' at or above `depth` lets every directory below hold matches."""
        return "**" in self.rest[: depth + 1]


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    """Split a normalized glob path (as parsed by the entry grammar) at its literal prefix."""
    segments = pattern.split("/")
    literal = 0
    while literal < len(segments) - 1 and not GLOB_CHARS.intersection(segments[literal]):
        literal += 1
    return Glob("/".join(segments[:literal]), tuple(segments[literal:]))


@lru_cache(maxsize=1024)
def _rest_regex(rest: tuple[str, ...]) -> SegmentMatch:
    regex = []
    for i, seg in enumerate(rest):
        last = i == len(rest) - 1
        if seg == "**":
            regex.append(".+" if last else "(?:[^/]+/)*")
        else:
            regex.append(segment_regex(seg) + ("" if last else "/"))
    return re.compile("".join(regex), re.DOTALL).fullmatch


@lru_cache(maxsize=1024)
def _literal(seg: str) -> str:
    return required_literal(seg) if seg != "**" else ""


@lru_cache(maxsize=1024)
def _segment_regex(seg: str) -> SegmentMatch:
    return re.compile(segment_regex(seg), re.DOTALL).fullmatch
