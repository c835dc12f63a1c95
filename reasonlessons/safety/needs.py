"""Substrings every match of a Python regex must contain: a prefilter that skips running it.

The secret detectors of detect-secrets have no single literal to look for (`(?:key|pwd|pass|token)`
after an optional prefix, say), so running them means a regex attempt at every position of the
text: on a page of ordinary text that costs more than everything else capture does with it.
Each alternation of literals that every match must go through is a necessary condition, and
`may_match` checks them all with plain `in` tests. The pattern is read with Python's own regex
parser; anything it cannot account for simply adds no condition, so the answer is never wrong,
only sometimes uninformative.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

Needs = tuple[frozenset[str], ...]
_MIN = 2  # shorter alternatives are in nearly every text: no use as a filter


def needs(pattern: re.Pattern[str]) -> Needs:
    """Sets of strings such that every match contains one string of each set (lower case when the
    pattern ignores case); empty when nothing certain is found."""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        tree = _parser.parse(pattern.pattern, pattern.flags)
        found = _Walk(_constants).sequence(list(tree))
    except Exception:  # noqa: BLE001 (a private module that may change: no prefilter, never wrong)
        return ()
    folded = bool(pattern.flags & re.IGNORECASE)
    out: list[frozenset[str]] = []
    for alternatives in found:
        kept = _minimal({a.lower() if folded else a for a in alternatives})
        if kept and min(map(len, kept)) >= _MIN and kept not in out:
            out.append(kept)
    return tuple(out)


def may_match(needed: Needs, text: str, present: set[str] | None = None) -> bool:
    """False only when some needed set has no member in `text` (already lower-cased when the
    pattern ignores case). `present`, the lower-cased strings known to occur in the text (a
    linear_re.WordSet found them in one pass), spares most substring searches."""
    return all(
        any((present is None or s.lower() in present) and s in text for s in alternatives)
        for alternatives in needed
    )


def _minimal(strings: set[str]) -> frozenset[str]:
    """Drop strings that contain another member: finding the shorter one is enough."""
    return frozenset(s for s in strings if not any(o != s and o in s for o in strings))


class _Walk:
    """Necessary literal sets of a parsed pattern (re._parser's tree)."""

    def __init__(self, ops: ModuleType) -> None:
        self.ops = ops

    def sequence(self, items: list[tuple[Any, Any]]) -> list[frozenset[str]]:
        """Every set found in a sequence of items: all of them are necessary."""
        out: list[frozenset[str]] = []
        run: list[str] = []
        for op, arg in items:
            if op is self.ops.LITERAL:
                run.append(chr(arg))
                continue
            if run:
                out.append(frozenset({"".join(run)}))
                run = []
            out.extend(self._item(op, arg))
        if run:
            out.append(frozenset({"".join(run)}))
        return out

    def _item(self, op: object, arg: Any) -> list[frozenset[str]]:
        ops = self.ops
        if op is ops.SUBPATTERN:
            return self.sequence(list(arg[-1]))
        if op in (ops.MAX_REPEAT, ops.MIN_REPEAT):
            low, _, body = arg
            return self.sequence(list(body)) if low >= 1 else []
        if op is ops.BRANCH:
            branches = [self.sequence(list(branch)) for branch in arg[1]]
            if not branches or any(not b for b in branches):
                return []  # a branch that needs nothing: the alternation needs nothing
            # Any one set per branch will do; the longest shortest member filters best.
            picks = [max(b, key=lambda s: min(map(len, s))) for b in branches]
            return [frozenset().union(*picks)]
        return []  # classes, anchors, lookarounds, backreferences: no literal for sure
