"""One glob syntax for every glob dialect here: a path segment's `*`, `?` and `[...]` as a regex.

Three front ends decide what a whole pattern means and call this for its segments and classes:
fingerprint/globs.py (glob entries: `**` spans directories, a match is a file), recall/globs.py
(file triggers, picomatch-like: `{a,b}`, a leading `!`, `src/**` matching `src` itself; run on
RE2) and fingerprint/ignore.py (.gitignore lines, which add backslash escapes). What this module
writes means the same under Python's `re` and RE2.
"""

from __future__ import annotations

REGEX_META = frozenset(".^$|?*+()[]{}\\")
_CLASS_META = frozenset("]^[-\\")


def escape(char: str) -> str:
    """A character as a regex matching just itself (both engines accept this escaping)."""
    return "\\" + char if char in REGEX_META else char


def segment_regex(seg: str) -> str:
    """One path segment's glob as a regex: `*` (or a run of them) any characters but '/', `?` one,
    `[...]` a class (see `class_regex`), anything else itself."""
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        char = seg[i]
        if char == "*":
            while i + 1 < n and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            cls, i = class_regex(seg, i)
            out.append(cls)
            continue
        else:
            out.append(escape(char))
        i += 1
    return "".join(out)


def class_regex(pat: str, i: int) -> tuple[str, int]:
    """The `[...]` class starting at `pat[i]` as a regex, and the index after it.

    `!` or `^` first negates (and a negated class never matches '/', as in git); a `]` first (after
    that) is literal, as is a `-` first or last; other `-`s make ranges. An unclosed `[` is a
    literal '['."""
    j = i + 1
    negated = j < len(pat) and pat[j] in "!^"
    if negated:
        j += 1
    first = j
    while j < len(pat) and (pat[j] != "]" or j == first):
        j += 1
    if j >= len(pat):
        return "\\[", i + 1
    content = pat[first:j]
    last = len(content) - 1
    items = [
        char if (char == "-" and 0 < k < last) or char not in _CLASS_META else "\\" + char
        for k, char in enumerate(content)
    ]
    return "[" + ("^/" if negated else "") + "".join(items) + "]", j + 1
