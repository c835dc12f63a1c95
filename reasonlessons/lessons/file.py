"""Lesson files on disk: bounded, careful reading and byte-stable writing (the one frontmatter user)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from reasonlessons import safety, support
from reasonlessons.constants import MAX_LESSON_BYTES
from reasonlessons.errors import LessonFileError, UnsafeTextError
from reasonlessons.lessons.model import Lesson, ordered_meta, schema_problems
from reasonlessons.support.atomic import write_atomic

# Wide enough that YAML never folds a one-line description onto two lines.
_YAML_WIDTH = 1 << 20


def read_lesson(path: Path, *, scope: str | None = None) -> Lesson:
    """Load and check one lesson file; raise LessonFileError naming the file and the fix."""
    data = read_lesson_bytes(path)
    lesson = parse_lesson(data, path=path)
    lesson.scope = scope
    return lesson


def read_lesson_bytes(path: Path, info: os.stat_result | None = None) -> bytes:
    """Read a lesson file's bytes, refusing links, non-files and oversized files without reading them.
    `info` is the file's lstat when the caller has just taken it (a cold `stale` stamps 1,000 first)."""
    try:
        info = path.lstat() if info is None else info
    except FileNotFoundError:
        raise LessonFileError(path, "no such file", "check the name with `reasonlessons list`") from None
    except OSError as exc:
        raise LessonFileError(path, f"cannot stat ({exc.strerror})", "check permissions") from exc
    if stat.S_ISLNK(info.st_mode):
        target = "dangling symlink" if not path.exists() else "symlink"
        raise LessonFileError(path, f"is a {target}", "replace it with a regular lesson file or remove it")
    if not stat.S_ISREG(info.st_mode):
        raise LessonFileError(path, "is not a regular file", "move it out of the lessons directory")
    if info.st_size > MAX_LESSON_BYTES:
        raise LessonFileError(
            path,
            f"is {info.st_size} bytes, over the {MAX_LESSON_BYTES}-byte limit for a lesson",
            "a lesson is a few lines of advice: shorten it or move it out of the lessons directory",
        )
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            # Read one byte past the cap: the file may have grown since lstat. Reads sized to the
            # file, straight from the descriptor: no buffer object per lesson (a first index build
            # reads 50,000 of them; `stale` reads 1,000 cold).
            data = _read_upto(fd, info.st_size + 1)
            if len(data) > info.st_size:
                data += _read_upto(fd, MAX_LESSON_BYTES + 1 - len(data))
        finally:
            os.close(fd)
    except OSError as exc:
        raise LessonFileError(path, f"cannot read ({exc.strerror})", "check permissions") from exc
    if len(data) > MAX_LESSON_BYTES:
        raise LessonFileError(path, "grew past the size limit while being read", "shorten it")
    return data


def _read_upto(fd: int, size: int) -> bytes:
    """Up to `size` bytes from `fd`, fewer only at the end of the file (as BufferedReader.read)."""
    chunks = []
    while size > 0:
        chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def parse_lesson(data: bytes, *, path: Path) -> Lesson:
    """Parse lesson bytes; schema errors raise, unknown keys become warnings on the Lesson."""
    import yaml

    if b"\x00" in data:
        raise LessonFileError(path, "is a binary file", "lesson files are UTF-8 Markdown; remove it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonFileError(path, f"is not valid UTF-8 (byte {exc.start})", "re-save it as UTF-8") from None
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        raise LessonFileError(
            path, "has no YAML frontmatter", "start the file with a '---' line, keys, then '---'"
        )
    try:
        meta, content = _read_frontmatter(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 2}" if where is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise LessonFileError(
            path,
            f"has malformed YAML frontmatter{line} ({problem})",
            "fix the YAML between the '---' lines",
        ) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise LessonFileError(path, f"has unreadable frontmatter ({exc})", "fix the frontmatter") from None
    if not meta:
        raise LessonFileError(
            path,
            "has no frontmatter mapping",
            "put `name:`, `description:` and the other keys between '---' lines",
        )
    problem = None if _small_tree(meta) else _expansion_problem(meta)
    if problem is not None:
        raise LessonFileError(path, f"has frontmatter that {problem}", "write plain, shallow values")
    meta = {str(k): v for k, v in meta.items()}
    errors, warnings = schema_problems(meta, stem=path.stem if path.suffix == ".md" else None)
    if errors:
        raise LessonFileError(
            path, "; ".join(errors), "see `reasonlessons validate` and docs/lesson-format.md"
        )
    return Lesson(meta=meta, body=content, path=path, warnings=warnings)


# python-frontmatter's YAML delimiter line (YAMLHandler.FM_BOUNDARY).
_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)
# Keyword names frontmatter.Post(content, handler, **metadata) takes for itself.
_POST_ARGUMENTS = ("content", "handler")


def _read_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(metadata, content) as `frontmatter.loads(text)` gives them for a text starting with '---',
    the YAML read by support/yamlread.py (PyYAML's safe loader's values and errors, faster for the
    plain documents lessons are: a first index build reads 50,000 of them). Its refusals are kept:
    a mapping with a non-string key, or a `content` or `handler` key, is a TypeError."""
    text = text.strip()
    if not _BOUNDARY.match(text):
        return {}, text
    parts = _BOUNDARY.split(text, 2)
    if len(parts) != 3:
        return {}, text
    _, head, content = parts
    loaded = support.yamlread.safe_load(head)
    if not isinstance(loaded, dict):
        return {}, content.strip()
    if not all(isinstance(key, str) for key in loaded):
        raise TypeError("keywords must be strings")
    for key in _POST_ARGUMENTS:
        if key in loaded:
            raise TypeError(f"Post.__init__() got multiple values for argument '{key}'")
    return dict(loaded), content.strip()


# YAML aliases make a small file stand for a huge value ("billion laughs"): PyYAML builds it
# cheaply as shared references, but every walk of it (rendering, the recall index, redaction) pays
# for the whole expansion; deep nesting overflows those walks' recursion. A lesson's frontmatter
# is a few dozen values, a few levels deep.
MAX_FRONTMATTER_VALUES = 20_000
MAX_FRONTMATTER_DEPTH = 64


def _expansion_problem(meta: object) -> str | None:
    """Why the loaded frontmatter must be refused (refers to itself, too deep, too big), or None."""
    done_: dict[int, tuple[int, int]] = {}  # id -> (values under it, expanded; height)
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(meta, False)]
    while stack:
        node, finished = stack.pop()
        children = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        ident = id(node)
        if finished:
            open_.discard(ident)
            below = [done_.get(id(child), (1, 0)) for child in children]
            size, height = 1 + sum(s for s, _ in below), 1 + max((h for _, h in below), default=0)
            if size > MAX_FRONTMATTER_VALUES:
                return f"expands to more than {MAX_FRONTMATTER_VALUES} values"
            if height > MAX_FRONTMATTER_DEPTH:
                return f"nests deeper than {MAX_FRONTMATTER_DEPTH} levels"
            done_[ident] = (size, height)
        elif ident in open_:
            return "refers to itself (a recursive YAML alias)"
        elif ident not in done_:
            open_.add(ident)
            stack.append((node, True))
            stack.extend((child, False) for child in children if isinstance(child, dict | list))
    return None


def render_lesson(lesson: Lesson) -> bytes:
    """Serialize canonically: same lesson in, same bytes out, always ending in a newline.

    Every lesson write comes through here, so secrets are redacted here (fail closed: a rendering
    that cannot be made clean raises privacy.SecretFoundError), and bidirectional controls, which
    make a line read differently than it runs, are refused (UnsafeTextError)."""
    _, text = safety.redact.scrub([ordered_meta(lesson.meta), _clean_body(lesson.body)], _dump)
    # safety.textview loads on first use: reading lessons (a cold `stale` reads 1,000 before its
    # check can start) never needs it.
    bidi = None if text.isascii() else safety.textview.BIDI.search(text)
    if bidi is not None:
        raise UnsafeTextError(
            f"refusing to write lesson {lesson.name!r}: it holds a bidirectional control character "
            f"(U+{ord(bidi.group(0)):04X}), which makes text read differently than it is; remove it"
        )
    return text.encode("utf-8")


def _dump(doc: list[Any]) -> str:
    import frontmatter

    meta, body = doc
    post = frontmatter.Post(body)
    post.metadata.update(meta)
    text = frontmatter.dumps(post, sort_keys=False, width=_YAML_WIDTH)
    # frontmatter.dumps drops the trailing newline (a known quirk).
    return str(text).rstrip("\n") + "\n"


def write_lesson(path: Path, lesson: Lesson) -> bytes:
    """Write a lesson atomically and return the bytes written."""
    data = render_lesson(lesson)
    write_atomic(path, data)
    return data


def _clean_body(body: str) -> str:
    lines = [line.rstrip() for line in body.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


def split_frontmatter(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter mapping or None when absent, body) of any Markdown file (other tools' formats).

    Raises ValueError with the YAML problem when the frontmatter is malformed.
    """
    import frontmatter
    import yaml

    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return None, text
    try:
        post = frontmatter.loads(text)
    except (yaml.YAMLError, TypeError, RecursionError) as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"malformed YAML frontmatter ({problem})") from None
    meta: Any = post.metadata
    if not isinstance(meta, dict):
        raise ValueError("the frontmatter is not a mapping")
    problem = _expansion_problem(meta)
    if problem is not None:
        raise ValueError(f"the frontmatter {problem}")
    return {str(k): v for k, v in meta.items()}, post.content


def dump_frontmatter(meta: dict[str, Any] | None, body: str) -> bytes:
    """Markdown with `meta` as YAML frontmatter (keys in the given order), ending in one newline."""
    import frontmatter

    if not meta:
        return (_clean_body(body) + "\n").encode("utf-8")
    post = frontmatter.Post(_clean_body(body))
    post.metadata.update(meta)
    text = frontmatter.dumps(post, sort_keys=False, width=_YAML_WIDTH, allow_unicode=True)
    return (text.rstrip("\n") + "\n").encode("utf-8")


# python-frontmatter's YAMLHandler.FM_BOUNDARY: the same split, so the same frontmatter text.
_FM_BOUNDARY = r"^-{3,}\s*$"
# frontmatter.Post(content, handler, **metadata) fails on these keys, so parse_lesson refuses them.
_POST_ARGS = frozenset({"self", "content", "handler"})


def read_lesson_meta(path: Path, info: os.stat_result | None = None) -> dict[str, Any]:
    """The frontmatter mapping `read_lesson(path).meta` would give (read-only; no body, no Lesson);
    `info` as for read_lesson_bytes."""
    return parse_lesson_meta(read_lesson_bytes(path, info), path=path)


def parse_lesson_meta(data: bytes, *, path: Path) -> dict[str, Any]:
    """`parse_lesson(data, path=path).meta`, for the per-turn path that reads 1,000 lessons cold.

    Splits the frontmatter as python-frontmatter does and loads it as yaml.load does (through
    reasonlessons.support.yamlread, faster for plain documents), without importing python-frontmatter or
    building the body; anything unusual (a file parse_lesson would refuse, or one it might treat
    differently) goes to parse_lesson, which decides and raises its own LessonFileError."""
    meta = _quick_meta(data)
    if meta is None:
        return parse_lesson(data, path=path).meta
    errors, _ = schema_problems(meta, stem=path.stem if path.suffix == ".md" else None)
    return meta if not errors else parse_lesson(data, path=path).meta


def _quick_meta(data: bytes) -> dict[str, Any] | None:
    import re

    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # As parse_lesson, then frontmatter.loads: BOM, '---' first, CRLF as LF, split the stripped text.
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return None
    text = text.replace("\r\n", "\n")
    boundary = re.compile(_FM_BOUNDARY, re.MULTILINE)
    if boundary.match(text) is None:
        return None
    parts = boundary.split(text.strip(), 2)
    if len(parts) != 3:
        return None
    head = parts[1]
    try:
        # What frontmatter.loads gets from yaml.load, with libyaml's loader.
        meta, by_line = support.yamlread.safe_load_read(head)
    except Exception:  # noqa: BLE001 (parse_lesson reports it, whatever it is)
        return None
    if (
        not isinstance(meta, dict)
        or not meta
        or not all(type(key) is str for key in meta)
        or not _POST_ARGS.isdisjoint(meta)
        or not ((by_line and _bounded(head)) or _small_tree(meta))
    ):
        return None
    return meta


def _bounded(head: str) -> bool:
    """Whether YAML read line by line from `head` (yamlread.safe_load_read: no container shared)
    is surely within `_expansion_problem`'s limits, from the text alone. Each mapping key has a line
    of its own and each sequence item a `-`, so there are at most 1 + 2 * lines + dashes values;
    a nested block starts on a later line or after a `- ` of the same line, and `[]` or `{}` ends
    a chain, so it nests at most 2 + lines + `- `s deep. (Walking the value costs a lesson ~10 µs.)"""
    lines = head.count("\n") + 1
    return (
        1 + 2 * lines + head.count("-") <= MAX_FRONTMATTER_VALUES
        and 2 + lines + head.count("- ") <= MAX_FRONTMATTER_DEPTH
    )


def _small_tree(meta: dict[str, Any]) -> bool:
    """Whether `_expansion_problem(meta)` is surely None: no container reached twice (so no alias
    to share or recurse through), and within its limits; a quicker walk for the common case."""
    seen: set[int] = set()
    values = 1
    stack: list[tuple[Any, int]] = [(meta, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > MAX_FRONTMATTER_DEPTH:
            return False
        seen.add(id(node))
        if isinstance(node, dict):  # its keys are scalars (a mapping key is hashable)
            values += 2 * len(node)
            node = node.values()
        else:
            values += len(node)
        for child in node:
            if isinstance(child, _CONTAINERS):
                stack.append((child, depth + 1))
    return values <= MAX_FRONTMATTER_VALUES


# A tuple, not `dict | list`: isinstance with a union goes through its __instancecheck__, a third
# of this walk's time (it runs once per lesson read, 1,000 times in a cold `stale`).
_CONTAINERS = (dict, list)
