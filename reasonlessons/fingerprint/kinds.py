"""A file's kind: its compound extension (`foo.test.ts` -> `.test.ts`), the unit of a directory's shape.

At most the last two extension-like segments count (`.test.ts`, `.tar.gz`, `.min.js`); a segment is
extension-like when it is 1-16 letters, digits, '_' or '-' and not all digits (so `jquery-3.5.1.min.js`
is `.min.js`, `report.2024` has no extension). No extension is ''. A dot file without a further dot is
its own kind (`.gitignore`); otherwise its leading dot is not an extension (`.eslintrc.json` -> `.json`).
"""

from __future__ import annotations

import re

_EXT = re.compile(r"[A-Za-z0-9_-]{1,16}")
_MEMO_LIMIT = 20_000
_memo: dict[str, str] = {}
# The tail of a name that does not start with '.': from its second-to-last dot, or its last one,
# with the '/' after it (consumed rather than looked ahead at, and the possessive `*+` never backtracks
# into a segment: the same matches, ~10% less time over 100,000 names).
_TAILS = re.compile(r"\.[^./]*+(?:\.[^./]*+)?/")


def kind_of(name: str) -> str:
    """The compound extension of a file name."""
    if name[:1] == ".":
        return _dotfile_kind(name)
    last = name.rfind(".")
    if last < 0:
        return ""
    second = name.rfind(".", 0, last)
    return _tail_kind_of(name[last:] if second <= 0 else name[second:])


def kinds_of(names: list[str], joined: str | None = None) -> set[str]:
    """`{kind_of(name) for name in names}`, with one regex pass over the joined names instead of a
    call per name (or none, when the names share one tail): a cold `dir/` check lists every file of
    the tree (100,000 in the benchmark).

    `joined` is `"/".join(names)` when the caller has it ('/' cannot occur in a name)."""
    if joined is None:
        joined = "/".join(names)
    if joined[:1] == "." or "/." in joined:  # a dot file's kind depends on its whole name
        return set(map(kind_of, names))
    shared = _shared_tail(names, joined)
    if shared is not None:
        return {_tail_kind_of(shared)}
    tails = _TAILS.findall(joined + "/")
    kinds = {_tail_kind_of(tail[:-1]) for tail in set(tails)}
    if len(tails) < len(names):  # one tail per name holding a dot: the others have no extension
        kinds.add("")
    return kinds


def _shared_tail(names: list[str], joined: str) -> str | None:
    """The tail of every name, when they all end in the last name's tail and hold no other dot
    (`mod0.ts`, `mod1.ts`, ...: a directory of source files often is), found with three C-level scans
    instead of a regex match and a string per name. None otherwise.

    Each occurrence of `tail + '/'` in `joined + '/'` ends exactly one name (it holds one '/', at its
    end); when there are as many as names, and as many dots as those tails hold, no stem holds a
    dot, so every name's tail is that one. (No name starts with '.': the caller checked.)"""
    name = names[-1] if names else ""
    last = name.rfind(".")
    if last <= 0:
        return None
    second = name.rfind(".", 0, last)
    tail = name[second:] if second > 0 else name[last:]
    count = len(names)
    if joined.count(".") != count * tail.count(".") or (joined + "/").count(tail + "/") != count:
        return None
    return tail


def _tail_kind_of(tail: str) -> str:
    # Only the tail after the stem decides the kind, so memoize on it: suffixes repeat massively.
    kind = _memo.get(tail)
    if kind is None:
        if len(_memo) > _MEMO_LIMIT:
            _memo.clear()
        kind = _memo[tail] = _tail_kind(tail[1:].split("."))
    return kind


def _dotfile_kind(name: str) -> str:
    stem = name.lstrip(".")
    if "." not in stem:
        return name
    return _tail_kind(stem.split(".")[1:][-2:])


def _tail_kind(segments: list[str]) -> str:
    taken: list[str] = []
    for seg in reversed(segments):
        if not _EXT.fullmatch(seg) or seg.isdigit():
            break
        taken.append(seg)
    return "".join("." + seg for seg in reversed(taken))
