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


def kind_of(name: str) -> str:
    """The compound extension of a file name."""
    if name[:1] == ".":
        return _dotfile_kind(name)
    last = name.rfind(".")
    if last < 0:
        return ""
    second = name.rfind(".", 0, last)
    # Only the tail after the stem decides the kind, so memoize on it: suffixes repeat massively.
    tail = name[last:] if second <= 0 else name[second:]
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
