"""A small gitignore matcher: `.gitignore` files from the root down, plus `.git/info/exclude`.

Running `git check-ignore` per path, or `git ls-files --ignored` over the whole work tree, costs far
more than the few directories a fingerprint needs; the rules git applies are simple enough to match
here. Not consulted: the user's `core.excludesFile` (personal, so recorded facts would differ between
teammates). Tracked files that match an ignore pattern are ignored here too (git would keep them).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reasonlessons.support.globs import class_regex, escape
from reasonlessons.support.values import Value

GITIGNORE = ".gitignore"
# A .gitignore larger than this is not a list of patterns; it is skipped rather than parsed.
MAX_GITIGNORE_BYTES = 1 << 20

Match = Callable[[str], "re.Match[str] | None"]


class Pattern(Value):
    """One gitignore line, compiled; `base` is the repo-relative dir of its file plus '/' (or '')."""

    FIELDS = ("source", "match", "base", "anchored", "dir_only", "negate", "literal")
    __slots__ = FIELDS

    def __init__(
        self,
        source: str,
        match: Match,
        base: str,
        anchored: bool,
        dir_only: bool,
        negate: bool,
        literal: str = "",  # a run of plain characters every match contains ('' when there is none)
    ) -> None:
        self.source = source
        self.match = match
        self.base = base
        self.anchored = anchored
        self.dir_only = dir_only
        self.negate = negate
        self.literal = literal


def parse_gitignore(text: str, base: str) -> list[Pattern]:
    """The patterns of one ignore file whose directory is `base` ('' for the root, else 'a/b/')."""
    out = []
    for line in text.splitlines():
        pattern = _compile(line, base)
        if pattern is not None:
            out.append(pattern)
    return out


def _compile(line: str, base: str) -> Pattern | None:
    line = _strip_trailing_spaces(line)
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith(("\\!", "\\#")):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    source = _translate(line)
    try:
        regex = re.compile(source, re.DOTALL)
    except re.error:  # pragma: no cover (translation escapes everything it does not understand)
        return None
    return Pattern(source, regex.fullmatch, base, anchored, dir_only, negate, required_literal(line))


def _strip_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and stripped.endswith("\\"):
        return stripped[:-1] + " "
    return stripped


def _translate(pat: str) -> str:
    """A gitignore glob as a regex over '/'-separated paths ('**' spans directories, '*' does not)."""
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        if pat.startswith("**", i):
            at_start = i == 0 or pat[i - 1] == "/"
            after = pat[i + 2 : i + 3]
            if at_start and after == "/":
                out.append("(?:.*/)?")
                i += 3
                continue
            if at_start and not after:
                out.append(".*")
                i += 2
                continue
        char = pat[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            cls, i = class_regex(pat, i)
            out.append(cls)
            continue
        elif char == "\\" and i + 1 < n:
            i += 1
            out.append(escape(pat[i]))
        else:
            out.append(escape(char))
        i += 1
    return "".join(out)


def required_literal(pat: str) -> str:
    """The longest run of characters that any path matching the glob `pat` contains as is."""
    runs = [""]
    i, n = 0, len(pat)
    while i < n:
        char = pat[i]
        if char in "*?[":
            runs.append("")
            if char == "[":
                i = class_regex(pat, i)[1]
                continue
        elif char == "\\" and i + 1 < n:
            i += 1
            runs[-1] += pat[i]
        else:
            runs[-1] += char
        i += 1
    return max(runs, key=len)


class Rules:
    """The patterns in force in one directory: those of its ancestors' ignore files, then its own.

    `files` and `dirs` are the checks for a file or directory `name` in directory `parent`, or None
    when no pattern can match one; they are specialised because a walk calls them for every entry.
    `file_names` is the regex behind `files` when only the name decides (no anchored pattern, no
    negation), so a listing can filter all its names in one C-level pass; then `file_literals`,
    when every such pattern has one, are strings one of which any ignored name contains."""

    __slots__ = ("dirs", "file_literals", "file_names", "files", "patterns")

    def __init__(self, patterns: list[Pattern]) -> None:
        self.patterns = patterns
        self.files = self._check(False)
        self.dirs = self._check(True)
        files = [p for p in patterns if not p.dir_only]
        by_name = bool(files) and not any(p.negate or p.anchored for p in files)
        self.file_names = _union(files) if by_name else None
        literals = tuple({p.literal for p in files})
        self.file_literals = literals if by_name and all(literals) else None

    def extend(self, more: list[Pattern]) -> Rules:
        return Rules(self.patterns + more) if more else self

    def ignored(self, parent: str, name: str, is_dir: bool) -> bool:
        """Whether `name` in directory `parent` (repo-relative, '' for the root) is ignored."""
        check = self.dirs if is_dir else self.files
        return check is not None and check(parent, name)

    def _check(self, is_dir: bool) -> Callable[[str, str], bool] | None:
        applicable = [p for p in self.patterns if is_dir or not p.dir_only]
        if not applicable:
            return None
        if any(p.negate for p in applicable):
            # Negations make order matter: the last pattern that matches decides.
            ordered = applicable[::-1]

            def check_ordered(parent: str, name: str) -> bool:
                for p in ordered:
                    if _hit(p, parent, name):
                        return not p.negate
                return False

            return check_ordered
        by_name = _union([p for p in applicable if not p.anchored])
        anchored = [p for p in applicable if p.anchored]
        if not anchored:
            assert by_name is not None
            return lambda parent, name: by_name(name) is not None

        def check(parent: str, name: str) -> bool:
            if by_name is not None and by_name(name) is not None:
                return True
            return any(_hit(p, parent, name) for p in anchored)

        return check


def _hit(p: Pattern, parent: str, name: str) -> bool:
    if not p.anchored:
        return p.match(name) is not None
    rel = f"{parent}/{name}" if parent else name
    return rel.startswith(p.base) and p.match(rel[len(p.base) :]) is not None


def _union(patterns: list[Pattern]) -> Match | None:
    if not patterns:
        return None
    regex = "|".join(f"(?:{p.source})" for p in patterns)
    return re.compile(regex, re.DOTALL).fullmatch
