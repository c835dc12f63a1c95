"""Lesson files on disk: bounded, careful reading and byte-stable writing (the one frontmatter user)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from reasonlessons.atomic import write_atomic
from reasonlessons.constants import MAX_LESSON_BYTES
from reasonlessons.errors import LessonFileError
from reasonlessons.lesson import Lesson, ordered_meta, schema_problems

# Wide enough that YAML never folds a one-line description onto two lines.
_YAML_WIDTH = 1 << 20


def read_lesson(path: Path, *, scope: str | None = None) -> Lesson:
    """Load and check one lesson file; raise LessonFileError naming the file and the fix."""
    data = read_lesson_bytes(path)
    lesson = parse_lesson(data, path=path)
    lesson.scope = scope
    return lesson


def read_lesson_bytes(path: Path) -> bytes:
    """Read a lesson file's bytes, refusing links, non-files and oversized files without reading them."""
    try:
        info = path.lstat()
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
        with os.fdopen(fd, "rb") as handle:
            # Read one byte past the cap: the file may have grown since lstat. A first read sized to
            # the file spares a 256 KiB buffer per lesson (it showed in `stale` over 1,000 lessons).
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += handle.read(MAX_LESSON_BYTES + 1 - len(data))
    except OSError as exc:
        raise LessonFileError(path, f"cannot read ({exc.strerror})", "check permissions") from exc
    if len(data) > MAX_LESSON_BYTES:
        raise LessonFileError(path, "grew past the size limit while being read", "shorten it")
    return data


def parse_lesson(data: bytes, *, path: Path) -> Lesson:
    """Parse lesson bytes; schema errors raise, unknown keys become warnings on the Lesson."""
    import frontmatter
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
        post = frontmatter.loads(text)
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
    meta: Any = post.metadata
    if not isinstance(meta, dict) or not meta:
        raise LessonFileError(
            path,
            "has no frontmatter mapping",
            "put `name:`, `description:` and the other keys between '---' lines",
        )
    meta = {str(k): v for k, v in meta.items()}
    errors, warnings = schema_problems(meta, stem=path.stem if path.suffix == ".md" else None)
    if errors:
        raise LessonFileError(
            path, "; ".join(errors), "see `reasonlessons validate` and docs/lesson-format.md"
        )
    return Lesson(meta=meta, body=post.content, path=path, warnings=warnings)


def render_lesson(lesson: Lesson) -> bytes:
    """Serialize canonically: same lesson in, same bytes out, always ending in a newline."""
    import frontmatter

    post = frontmatter.Post(_clean_body(lesson.body))
    post.metadata.update(ordered_meta(lesson.meta))
    text = frontmatter.dumps(post, sort_keys=False, width=_YAML_WIDTH)
    # frontmatter.dumps drops the trailing newline (a known quirk).
    return (text.rstrip("\n") + "\n").encode("utf-8")


def write_lesson(path: Path, lesson: Lesson) -> bytes:
    """Write a lesson atomically and return the bytes written."""
    data = render_lesson(lesson)
    write_atomic(path, data)
    return data


def _clean_body(body: str) -> str:
    lines = [line.rstrip() for line in body.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")
