"""File-glob triggers: glob -> RE2 regex, narrowness, index bucket keys, and path normalization.

Semantics follow agentsmesh's (picomatch with `dot: true`; docs/recall.md#2-candidates): `*` and
`?` stay within a path segment and match dot files; `**` as a whole segment spans zero or more
segments; `[...]` classes (`!` or `^` negates); `{a,b}` alternatives; a leading `!` negates the whole
glob; `./` is ignored.
Anything else (extglobs, `(a|b)`, backslashes, quotes, control characters) is unsafe and never
matches. Segments are translated by reasonlessons.support.globs, as for glob fingerprint entries;
matching runs on RE2 through reasonlessons.safety.linear_re, so no glob can backtrack.
"""

from __future__ import annotations

import re

from reasonlessons.support.globs import segment_regex

MAX_GLOB_CHARS = 256
MAX_PATH_CHARS = 4096
MAX_ALTERNATIVES = 64

GENERAL_KEY = "|"
_UNSAFE = re.compile(r"[\\\"'()|\x00-\x1f\x7f]|[@!+?*]\(")
_META = frozenset("*?[")


class GlobError(ValueError):
    """A glob that uses unsupported syntax; it never matches."""


def _strip(glob: str) -> tuple[bool, str]:
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    while body.startswith("./"):
        body = body[2:]
    return negated, body.lstrip("/")


def _segments(body: str) -> list[str]:
    return [s for s in body.split("/") if s not in ("", ".")]


def check(glob: str) -> str | None:
    """Why `glob` never matches, or None when it is usable."""
    try:
        translate(glob)
    except GlobError as exc:
        return str(exc)
    return None


def translate(glob: str) -> tuple[bool, str]:
    """(negated, anchored RE2 regex over a normalized repo-relative path)."""
    if not glob or len(glob) > MAX_GLOB_CHARS:
        raise GlobError(f"empty or longer than {MAX_GLOB_CHARS} characters")
    if _UNSAFE.search(glob):
        raise GlobError("uses unsupported syntax (extglob, group, backslash, quote or control character)")
    negated, body = _strip(glob)
    alternatives = expand_braces(body)
    regexes = [_translate_plain(alt) for alt in alternatives]
    regex = regexes[0] if len(regexes) == 1 else "(?:" + "|".join(regexes) + ")"
    return negated, regex


def expand_braces(body: str) -> list[str]:
    """`{a,b}` alternatives expanded (nested allowed, at most MAX_ALTERNATIVES results)."""
    start = body.find("{")
    if start < 0:
        if "}" in body:
            raise GlobError("unbalanced '}'")
        return [body]
    depth, commas, end = 0, [], -1
    for i in range(start, len(body)):
        c = body[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
        elif c == "," and depth == 1:
            commas.append(i)
    if end < 0:
        raise GlobError("unbalanced '{'")
    head, tail = body[:start], body[end + 1 :]
    if not commas:
        raise GlobError("'{...}' without a comma; list alternatives as {a,b}")
    cuts = [start, *commas, end]
    options = [body[cuts[k] + 1 : cuts[k + 1]] for k in range(len(cuts) - 1)]
    out: list[str] = []
    for option in options:
        for expanded in expand_braces(head + option + tail):
            out.append(expanded)
            if len(out) > MAX_ALTERNATIVES:
                raise GlobError(f"expands to more than {MAX_ALTERNATIVES} alternatives")
    return out


def _translate_plain(body: str) -> str:
    segments = _segments(body)
    if not segments:
        raise GlobError("matches no path")
    parts: list[str] = []
    last = len(segments) - 1
    slash = False  # whether the next literal segment needs a '/' before it
    for index, segment in enumerate(segments):
        if segment == "**":
            if index == last:
                # `src/**` matches everything below src/ and src itself; a bare `**` matches all.
                parts.append("(?:/.*)?" if parts else ".*")
            else:
                parts.append("/(?:[^/]*/)*" if parts else "(?:[^/]*/)*")
                slash = False
            continue
        if slash:
            parts.append("/")
        parts.append(segment_regex(segment))
        slash = True
    return "".join(parts)


def narrowness(glob: str) -> float:
    """Literal segments / (segments + `**` segments): exact path 1.0, `src/**` 0.33, `**/*.ts` 0."""
    negated, body = _strip(glob)
    if negated:
        return 0.0
    segments = _segments(body)
    if not segments:
        return 0.0
    literal = sum(1 for s in segments if not (_META & set(s)) and "]" not in s)
    globstars = sum(1 for s in segments if s == "**")
    return literal / (len(segments) + globstars)


def bucket_keys(glob: str) -> list[str]:
    """Index keys under which `glob` is filed; `query_keys(path)` yields every key it could match.

    A key pairs the glob's leading literal directories with what its last segment pins down (an
    exact name, a `*suffix`, or nothing). A path can only match a glob whose literal directories
    are one of its ancestors and whose name or suffix it has, so recall evaluates just those.
    """
    negated, body = _strip(glob)
    if negated:
        return [GENERAL_KEY]
    keys: list[str] = []
    for alternative in expand_braces(body):
        segments = _segments(alternative)
        prefix: list[str] = []
        for segment in segments[:-1]:
            if segment == "**" or (_META & set(segment)):
                break
            prefix.append(segment)
        tail = segments[-1] if segments else "**"
        if tail != "**" and not (_META & set(tail)):
            pinned = "n:" + tail
        elif tail.startswith("*") and not tail.startswith("**") and not (_META & set(tail[1:])):
            pinned = "s:" + tail[1:]
        else:
            pinned = ""
        key = "/".join(prefix) + "|" + pinned
        if key not in keys:
            keys.append(key)
    return keys


def query_keys(path: str) -> list[str]:
    """Every bucket key a normalized path can match: each ancestor (and itself) x name/suffixes.

    A key's directories and its name or suffix are both cut from one glob of at most
    MAX_GLOB_CHARS characters, so only ancestors and suffixes that fit in that many together can be
    filed: the keys of a path thousands of segments deep, or with a name thousands of characters
    long, are as few as those of a glob-sized one (linear, not quadratic, in the path)."""
    base = path[path.rfind("/") + 1 :]
    prefixes = [""]
    end = path.find("/")
    while 0 < end <= MAX_GLOB_CHARS:
        prefixes.append(path[:end])
        end = path.find("/", end + 1)
    if len(path) <= MAX_GLOB_CHARS:
        prefixes.append(path)
    keys: dict[str, None] = {}
    for prefix in prefixes:
        room = MAX_GLOB_CHARS - len(prefix)
        keys[f"{prefix}|"] = None
        if len(base) <= room:
            keys[f"{prefix}|n:{base}"] = None
        for i in range(max(0, len(base) - room), len(base) + 1):
            keys[f"{prefix}|s:{base[i:]}"] = None
    return list(keys)


def normalize_path(path: str, root: str) -> str | None:
    """A repo-relative, forward-slash path; None when it leaves the repository or is too long."""
    if not path or len(path) > MAX_PATH_CHARS or "\x00" in path:
        return None
    text = path.replace("\\", "/")
    if text.startswith("/"):
        prefix = root.rstrip("/") + "/"
        if not text.startswith(prefix):
            import os

            real = os.path.realpath(text)
            if not real.startswith(prefix):
                return None
            text = real
        text = text[len(prefix) :]
    segments = []
    for segment in text.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            return None
        segments.append(segment)
    return "/".join(segments) or None
