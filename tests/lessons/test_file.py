"""Lesson files: the RFC minimal form loads, writes are byte-stable, bad files fail clearly."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.constants import MAX_LESSON_BYTES
from reasonlessons.errors import LessonFileError
from reasonlessons.lessons import file
from reasonlessons.lessons.file import parse_lesson, read_lesson, render_lesson, write_lesson

RFC_MINIMAL = b"""---
name: testing
description: Test runner + file convention
fingerprint:
  - package.json#scripts.test
  - tests/
captured-at: 2026-05-05
---
- vitest, tests/**/*.test.ts, run via `npm test`
- import style: .js suffix even for .ts source (ESM-NodeNext)
"""


def test_rfc_minimal_form_loads_as_is(tmp_path: Path) -> None:
    path = tmp_path / "testing.md"
    path.write_bytes(RFC_MINIMAL)
    lesson = read_lesson(path, scope="project")
    assert lesson.name == "testing"
    assert lesson.description == "Test runner + file convention"
    assert lesson.fingerprint == ["package.json#scripts.test", "tests/"]
    assert lesson.captured_at == dt.datetime(2026, 5, 5, tzinfo=dt.UTC)
    assert lesson.body.startswith("- vitest, tests/**/*.test.ts")
    assert lesson.warnings == []
    assert lesson.task_types == ["code-gen"]


def test_rewrite_is_byte_stable_and_ends_with_newline(tmp_path: Path) -> None:
    path = tmp_path / "testing.md"
    path.write_bytes(RFC_MINIMAL)
    first = write_lesson(path, read_lesson(path))
    second = write_lesson(path, read_lesson(path))
    assert first == second == path.read_bytes()
    assert first.endswith(b"\n")
    assert not first.endswith(b"\n\n")


def test_unknown_keys_are_kept_with_a_warning(tmp_path: Path) -> None:
    data = RFC_MINIMAL.replace(b"captured-at:", b"x-team-owner: infra\ncaptured-at:")
    lesson = parse_lesson(data, path=tmp_path / "testing.md")
    assert any("x-team-owner" in w for w in lesson.warnings)
    assert b"x-team-owner: infra" in render_lesson(lesson)


def test_known_keys_are_written_in_canonical_order(tmp_path: Path) -> None:
    data = b"---\ncaptured-at: 2026-05-05\nfingerprint: []\ndescription: d\nname: n1\n---\nbody\n"
    out = render_lesson(parse_lesson(data, path=tmp_path / "n1.md")).decode()
    keys = [line.split(":")[0] for line in out.splitlines()[1:5]]
    assert keys == ["name", "description", "fingerprint", "captured-at"]


def test_long_description_stays_on_one_line(tmp_path: Path) -> None:
    long = "word " * 60
    data = f"---\nname: n1\ndescription: {long.strip()}\nfingerprint: []\ncaptured-at: 2026-05-05\n---\n"
    out = render_lesson(parse_lesson(data.encode(), path=tmp_path / "n1.md"))
    assert out.count(b"description:") == 1
    assert b"description: " + long.strip().encode() + b"\n" in out


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"---\nname: [unclosed\n---\nbody\n", "malformed YAML"),
        (b"no frontmatter at all\n", "no YAML frontmatter"),
        (b"---\nname: testing\n---\nbody\n", "missing required key(s) description, fingerprint, captured-at"),
        (b"---\n- a\n- b\n---\nbody\n", "no frontmatter mapping"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (b"---\nname: testing\n\xff\xfe\n---\n", "not valid UTF-8"),
        (
            b"---\nname: Testing\ndescription: d\nfingerprint: []\ncaptured-at: 2026-05-05\n---\n",
            "not a valid lesson name",
        ),
        (
            b"---\nname: other\ndescription: d\nfingerprint: []\ncaptured-at: 2026-05-05\n---\n",
            "differs from the file name",
        ),
        (
            b"---\nname: testing\ndescription: d\nfingerprint: x\ncaptured-at: 2026-05-05\n---\n",
            "fingerprint must be a list",
        ),
        (
            b"---\nname: testing\ndescription: d\nfingerprint: []\ncaptured-at: yesterday\n---\n",
            "captured-at must be a date",
        ),
    ],
)
def test_bad_files_fail_with_the_file_and_the_fix(tmp_path: Path, data: bytes, needle: str) -> None:
    path = tmp_path / "testing.md"
    path.write_bytes(data)
    with pytest.raises(LessonFileError) as info:
        read_lesson(path)
    message = str(info.value)
    assert needle in message
    assert str(path) in message
    assert "\n" not in message


def test_huge_file_is_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "testing.md"
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB that costs nothing to create
    opened: list[object] = []
    monkeypatch.setattr("os.open", lambda *a, **k: opened.append(a) or (_ for _ in ()).throw(AssertionError))
    with pytest.raises(LessonFileError, match=f"over the {MAX_LESSON_BYTES}-byte limit"):
        read_lesson(path)
    assert opened == []


def test_dangling_symlink_and_directory_are_reported(tmp_path: Path) -> None:
    link = tmp_path / "gone.md"
    link.symlink_to(tmp_path / "missing.md")
    with pytest.raises(LessonFileError, match="dangling symlink"):
        read_lesson(link)
    folder = tmp_path / "folder.md"
    folder.mkdir()
    with pytest.raises(LessonFileError, match="not a regular file"):
        read_lesson(folder)


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: a\ndescription: b\n---\n\n- body\n\n",
        "---\n---\nbody",
        "---\n1: a\n---\nx",
        "---\ncontent: a\n---\nx",
        "---\nhandler: 1\n---\n",
        "---\n- a\n---\nb",
        "----  \n\n\nname: a\n---\n\nbody\n\n",
        "---x\nname: a\n---\n",
        "---\nname: a\n",
        "---\nname: a\n---\nb\n---\nc: d\n---\n",
        "---\nname: &a [1]\nb: *a\n---\nz",
        "---\nname: 'x\n---\n",
        "---\n{a: 1}\n---\nq",
        "---\n[1, 2]\n---\n",
        "---\nwhen: 2026-01-02\nn: 1.5\nflag: yes\n---\nq",
    ],
)
def test_frontmatter_is_read_as_python_frontmatter_reads_it(text: str) -> None:
    """file.py reads the YAML through support/yamlread.py, not frontmatter.loads: the same
    metadata, body and errors, quirks included (a `content` key, a non-string key)."""
    import frontmatter

    def outcome(read: Any) -> tuple[Any, ...]:
        try:
            return ("ok", *read())
        except Exception as exc:  # noqa: BLE001 (the comparison is of whatever each raises)
            mark = getattr(exc, "problem_mark", None)
            return ("error", type(exc).__name__, getattr(exc, "problem", str(exc)), mark and mark.line)

    def old() -> tuple[Any, str]:
        post = frontmatter.loads(text)
        return dict(post.metadata), post.content

    assert outcome(lambda: file._read_frontmatter(text)) == outcome(old)
