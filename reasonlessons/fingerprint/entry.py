"""The fingerprint entry grammar: file, `file.json#a.b` field, `dir/` and glob entries.

As docs/fingerprints.md#entry-grammar states it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.support.values import Value

FILE = "file"
FIELD = "field"
DIR = "dir"
GLOB = "glob"

FIELD_SUFFIXES = (".json", ".toml", ".yaml", ".yml")
GLOB_CHARS = frozenset("*?[")
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# One segment of a field path: a bare key/index, or a double-quoted key with \" and \\ escapes.
Segment = tuple[str, bool]  # (text, quoted)


class Entry(Value):
    """A parsed entry: `path` is normalized and repo-relative ('' is the root), never escaping it."""

    FIELDS = ("text", "kind", "path", "field")
    __slots__ = FIELDS

    def __init__(self, text: str, kind: str, path: str, field: tuple[Segment, ...] = ()) -> None:
        self.text = text
        self.kind = kind
        self.path = path
        self.field = field

    @property
    def field_text(self) -> str:
        return ".".join(_quote(text) if quoted else text for text, quoted in self.field)


def check_entry(text: str) -> str | None:
    """A problem with an entry's syntax or safety, or None when it is fine (used by `validate`)."""
    try:
        parse_entry(text)
    except InvalidFingerprintError as exc:
        return str(exc)
    return None


@lru_cache(maxsize=8192)
def parse_entry(text: str) -> Entry:
    """Parse one entry or raise InvalidFingerprintError saying how to write it instead."""
    if not isinstance(text, str) or not text:
        raise InvalidFingerprintError("is empty: name a file, a file.json#field, a dir/ or a glob")
    if text != text.strip():
        raise InvalidFingerprintError("has leading or trailing spaces: remove them")
    if not text.isprintable() and _CONTROL.search(text):  # (printable text holds no control character)
        raise InvalidFingerprintError("contains control characters: use a plain repo-relative path")
    raw_path, hash_sign, raw_field = text.partition("#")
    if "\\" in raw_path:
        raise InvalidFingerprintError("contains '\\': separate directories with '/'")
    if raw_path[:1] in ("/", "~") or (raw_path[1:2] == ":" and _DRIVE.match(raw_path)):
        raise InvalidFingerprintError(
            "escapes the repository (absolute path): write it relative to the repository root"
        )
    is_dir = raw_path[-1:] == "/"
    path = _normalize(raw_path)
    if hash_sign:
        return _field_entry(text, path, is_dir, raw_field)
    if _has_glob(path):
        if is_dir:
            raise InvalidFingerprintError("is a glob ending in '/': a glob matches files, drop the '/'")
        return Entry(text, GLOB, path)
    if is_dir or not path:
        return Entry(text, DIR, path)
    return Entry(text, FILE, path)


def _has_glob(path: str) -> bool:
    # Three C scans: GLOB_CHARS.intersection(path) builds a set of the path's characters.
    return "*" in path or "?" in path or "[" in path


def _normalize(raw: str) -> str:
    if "//" not in raw and "/." not in raw and raw[:1] not in (".", "/"):
        # No empty, '.', '..' or '.git' segment: only a trailing '/' to drop (most entries).
        return raw[:-1] if raw[-1:] == "/" else raw
    return _segments(raw)


def _segments(raw: str) -> str:
    """The normalization one segment at a time (the quick path of `_normalize` must agree)."""
    parts: list[str] = []
    for part in raw.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise InvalidFingerprintError("escapes the repository ('..'): use a path inside it")
            parts.pop()
            continue
        if part == ".git":
            raise InvalidFingerprintError("points into .git: fingerprint files of the work tree instead")
        parts.append(part)
    return "/".join(parts)


def _field_entry(text: str, path: str, is_dir: bool, raw_field: str) -> Entry:
    if is_dir or not path or _has_glob(path):
        raise InvalidFingerprintError(
            "a field entry needs one file before '#', e.g. package.json#scripts.test"
        )
    if not path.lower().endswith(FIELD_SUFFIXES):
        raise InvalidFingerprintError(
            f"fields can be read from {', '.join(FIELD_SUFFIXES)} files only; drop '#...' to fingerprint "
            "the whole file"
        )
    return Entry(text, FIELD, path, parse_field(raw_field))


def parse_field(raw: str) -> tuple[Segment, ...]:
    """`a.b`, `a.0`, `scripts."test:unit"` as segments; raise on empty or unbalanced segments."""
    if not raw:
        raise InvalidFingerprintError("has an empty field after '#': name one, e.g. #scripts.test")
    segments: list[Segment] = []
    i, n = 0, len(raw)
    while True:
        if i < n and raw[i] == '"':
            text, i = _quoted(raw, i + 1)
            segments.append((text, True))
        else:
            end = raw.find(".", i)
            end = n if end < 0 else end
            text = raw[i:end]
            if not text:
                raise InvalidFingerprintError(
                    f'has an empty segment in field {raw!r}: write a.b, a.0 or a."key.with.dots"'
                )
            if '"' in text:
                raise InvalidFingerprintError(f"has a stray '\"' in field {raw!r}: quote whole segments")
            segments.append((text, False))
            i = end
        if i == n:
            return tuple(segments)
        if raw[i] != ".":
            raise InvalidFingerprintError(f"needs '.' after a quoted segment in field {raw!r}")
        i += 1
        if i == n:
            raise InvalidFingerprintError(f"ends with '.' in field {raw!r}: remove it")


def _quoted(raw: str, i: int) -> tuple[str, int]:
    out: list[str] = []
    while i < len(raw):
        char = raw[i]
        if char == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        elif char == '"':
            return "".join(out), i + 1
        else:
            out.append(char)
            i += 1
    raise InvalidFingerprintError(f"has an unterminated quote in field {raw!r}: close it with '\"'")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
