"""User-supplied patterns on a linear-time engine (the one RE2 user), so no pattern can hang recall.

Trigger command patterns and translated file globs come from lesson files anyone can edit. A
backtracking engine (`re`) turns `(a+)+$` into minutes of CPU; RE2 runs every pattern in time linear
in the input. What RE2 cannot do in linear time (backreferences, lookarounds) it refuses to compile:
such a pattern is reported by `problem()` and never matches, it never raises out of `search()`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Protocol

    class Match(Protocol):
        """What we use of an RE2 match."""

        def end(self) -> int: ...

    class Compiled(Protocol):
        """What we use of an RE2 pattern object (google-re2 ships no type information)."""

        def search(self, data: bytes) -> Match | None: ...

        def fullmatch(self, data: bytes) -> object | None: ...


# Caps that bound compile time and memory per pattern (agentsmesh uses the same length cap).
MAX_PATTERN_CHARS = 1000
MAX_PROGRAM_SIZE = 4000
MAX_MEMORY_BYTES = 8 << 20

_options: Any = None
_CASE_FLAG = re.compile(r"\(\?[a-zA-Z]*i")
_QUANTIFIER = re.compile(r"\{(\d+)(?:,(\d*))?\}")


class PatternError(ValueError):
    """A pattern the linear-time engine refuses; the message says why."""


class Regex:
    """A compiled pattern; searches take `bytes` (UTF-8) so many patterns share one encoding."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str, compiled: Compiled) -> None:
        self.pattern = pattern
        self._compiled = compiled

    def search(self, data: bytes, *, complete: bool = True) -> bool:
        """Whether the pattern matches anywhere in `data`. `complete=False` says `data` is the start of
        a longer input cut short: a match that reaches the cut may depend on where the input ends
        (`$`, `\\b`, `a+!`), so only a match ending before it counts. A cut input can then miss a
        match, never invent one."""
        match = self._compiled.search(data)
        if match is None:
            return False
        return complete or match.end() < len(data)

    def fullmatch(self, data: bytes) -> bool:
        return self._compiled.fullmatch(data) is not None


def compile_pattern(pattern: str) -> Regex:
    """Compile `pattern` (RE2 syntax, Python's `\\Z` accepted) or raise PatternError."""
    global _options
    import re2

    if not isinstance(pattern, str) or not pattern:
        raise PatternError("empty pattern")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"longer than {MAX_PATTERN_CHARS} characters")
    if "\x00" in pattern:
        raise PatternError("contains a NUL character")
    if _options is None:
        options = re2.Options()
        options.log_errors = False  # RE2 would print to stderr, which hooks show to users
        options.max_mem = MAX_MEMORY_BYTES
        _options = options
    try:
        compiled = re2.compile(_python_anchors(pattern), _options)
    except re2.error as exc:
        raise PatternError(_describe(pattern, exc)) from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise PatternError(str(exc)) from None
    if compiled.programsize > MAX_PROGRAM_SIZE:
        raise PatternError(f"too complex (program size {compiled.programsize} > {MAX_PROGRAM_SIZE})")
    return Regex(pattern, compiled)


def problem(pattern: str) -> str | None:
    """Why `pattern` can never match (unsupported or invalid), or None when it compiles."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def _describe(pattern: str, exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    detail = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if re.search(r"\\[1-9]", pattern) and "escape" in detail:
        return f"backreferences are not supported ({detail})"
    if "(?=" in pattern or "(?!" in pattern or "(?<=" in pattern or "(?<!" in pattern:
        return f"lookarounds are not supported ({detail})"
    return f"unsupported or invalid pattern ({detail})"


def _python_anchors(pattern: str) -> str:
    """Python spells end-of-text `\\Z`, RE2 `\\z`; accept both."""
    if "\\Z" not in pattern:
        return pattern
    out = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append("\\z" if pattern[i + 1] == "Z" else pattern[i : i + 2])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def required_literal(pattern: str) -> str | None:
    """A substring every match of `pattern` must contain (longest found, >= 2 chars), or None.

    A cheap prefilter: `lit not in text` proves no match without compiling the pattern. Only
    top-level, unquantified literal runs count; anything unsure gives up (returns None).
    """
    if "\\Q" in pattern or _CASE_FLAG.search(pattern):
        return None
    runs: list[str] = []
    cur: list[str] = []
    i, n, depth = 0, len(pattern), 0

    def cut() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            nxt = pattern[i + 1]
            if not nxt.isascii() or nxt.isalnum():
                cut()
                i = _skip_escape(pattern, i)
                continue
            if depth == 0:
                cur.append(nxt)
            i += 2
            continue
        if c == "[":
            cut()
            i = _skip_class(pattern, i)
            if i < 0:
                return None
            continue
        if c == "(":
            cut()
            depth += 1
        elif c == ")":
            if depth == 0:
                return None
            depth -= 1
        elif depth > 0:
            pass
        elif c == "|":
            return None
        elif c in "*?":
            if cur:
                cur.pop()
            cut()
        elif c == "+":
            cut()
        elif c == "{":
            quant = _QUANTIFIER.match(pattern, i)
            if quant is None:
                cur.append(c)
            else:
                if int(quant.group(1)) == 0 and cur:
                    cur.pop()
                cut()
                i = quant.end()
                continue
        elif c in ".^$":
            cut()
        else:
            cur.append(c)
        i += 1
    if depth != 0:
        return None
    cut()
    best = max(runs, key=len, default="")
    return best if len(best) >= 2 else None


def _skip_escape(pattern: str, i: int) -> int:
    """Index after the escape starting at `pattern[i] == '\\'` whose letter/digit is `pattern[i+1]`."""
    letter = pattern[i + 1]
    j = i + 2
    if letter in "xpP" and j < len(pattern) and pattern[j] == "{":
        end = pattern.find("}", j)
        return len(pattern) if end < 0 else end + 1
    if letter == "x":
        return min(j + 2, len(pattern))
    if letter in "pP":
        return min(j + 1, len(pattern))
    if letter.isdigit():
        while j < len(pattern) and j < i + 4 and pattern[j].isdigit():
            j += 1
    return j


def _skip_class(pattern: str, i: int) -> int:
    """Index after the character class opening at `i`, or -1 when it never closes."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end >= 0:
                j = end + 2
                continue
        if c == "]":
            return j + 1
        j += 1
    return -1


class WordSet:
    """Which of many literal strings occur in a text, in one linear pass (an RE2 set).

    A prefilter for many patterns at once: testing `word in text` for a hundred words reads the
    text a hundred times; this reads it once, and reports overlapping words too (`pass` and
    `passw` in "passwd")."""

    def __init__(self, words: Iterable[str]) -> None:
        import re2

        self.words = sorted(set(words))
        self._set: Any = None
        if self.words:
            options = re2.Options()
            options.log_errors = False
            self._set = re2.Set.SearchSet(options)
            for word in self.words:
                self._set.Add(re2.escape(word))
            self._set.Compile()

    def present(self, text: str) -> set[str]:
        """The words found in `text`."""
        if self._set is None:
            return set()
        return {self.words[i] for i in self._set.Match(text) or ()}  # None when none matches


# What `re` and RE2 read differently in a text that is otherwise ASCII: `\s` is wider in `re`
# (vertical tab, the information separators \x1c-\x1f). Texts with them, or with any non-ASCII
# character (Unicode classes and case folding differ), are not screened.
_WIDER_SPACE = ("\x0b", "\x1c", "\x1d", "\x1e", "\x1f")


def _reads_apart(pattern: re.Pattern[str]) -> bool:
    """Whether RE2 would read the pattern's syntax differently from `re` (or might): a `$` outside
    multi-line mode also matches before a last newline in `re`; `{,n}` is a literal in RE2. (What
    RE2 lacks, it refuses to compile.)"""
    text = pattern.pattern
    bare = re.sub(r"\\.", "", text)  # escaped characters are literals in both
    return "{," in text or ("$" in bare and not pattern.flags & re.MULTILINE)


class Screen:
    """Whether any of several `re` patterns can match a text, in one linear-time RE2 search, so a
    scan with backtracking patterns runs only on the texts where one of them can match.

    RE2 reads these patterns (no lookarounds, no backreferences: refused when built) as `re` does
    on plain ASCII text; `can_match` answers None ("cannot tell: run the patterns") for any other
    text. One search of the patterns' alternation, not an RE2 set: a set's DFA may give up on a
    hostile text and report no match, where a search falls back to another engine."""

    __slots__ = ("_compiled",)

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        import re2

        options = re2.Options()
        options.log_errors = False
        options.never_capture = True  # whether, not where: RE2 need not track groups
        parts = []
        for pattern in patterns:
            unknown = pattern.flags & ~(re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE)
            if unknown or not isinstance(pattern.pattern, str) or _reads_apart(pattern):
                raise PatternError(f"cannot screen {pattern.pattern!r} (flags {pattern.flags})")
            flags = "".join(
                letter
                for flag, letter in ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
                if pattern.flags & flag
            )
            parts.append(f"(?{flags}:{pattern.pattern})" if flags else f"(?:{pattern.pattern})")
        try:
            self._compiled = re2.compile("|".join(parts), options)
        except re2.error as exc:
            raise PatternError(_describe("|".join(parts), exc)) from None

    def can_match(self, text: str) -> bool | None:
        """False when no pattern matches anywhere in `text`; True when one may; None: cannot tell."""
        if not text.isascii() or any(space in text for space in _WIDER_SPACE):
            return None
        return self._compiled.search(text.encode("ascii")) is not None
