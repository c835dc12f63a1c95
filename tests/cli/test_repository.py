"""Reading never writes: read-only commands create no `.reasonix/state/`, and outside any repository
they say so and exit 2 (docs/concepts.md#the-project-root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.invoke import Invoke

LESSON = (
    "---\nname: runner\ndescription: Test runner\nfingerprint: [package.json#scripts.test]\n"
    "captured-at: 2026-05-05\ntriggers:\n  files: ['tests/**']\n---\n- vitest, run via npm test\n"
)

# Every command that only reads, each as a user would type it (NAME: a lesson that exists).
READ_ONLY = [
    ["list"],
    ["list", "--json"],
    ["show", "runner"],
    ["show", "runner", "--json"],
    ["stale"],
    ["stale", "--json"],
    ["stale", "--check"],
    ["recall", "add a test for the parser", "--file", "tests/a.test.ts"],
    ["recall", "add a test for the parser", "--file", "tests/a.test.ts", "--json"],
    ["validate"],
    ["stats", "--json"],
    ["refresh", "--all", "--dry-run"],
    ["sources", "--json"],
]


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


@pytest.fixture
def with_lessons(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    lessons = git_repo / ".reasonix" / "lessons"
    lessons.mkdir(parents=True)
    (lessons / "runner.md").write_text(LESSON)
    return git_repo


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_commands_create_no_state_dir(
    cli_invoke: Invoke, with_lessons: Path, args: list[str]
) -> None:
    before = _tree(with_lessons)
    result = cli_invoke(*args, "--repo", with_lessons, expect=None)
    assert result.code in (0, 3), result.stderr
    assert not (with_lessons / ".reasonix" / "state").exists()
    assert _tree(with_lessons) == before


@pytest.mark.parametrize("args", [a for a in READ_ONLY if a[0] not in ("show",)], ids=" ".join)
def test_read_only_commands_in_a_repository_without_lessons_write_nothing(
    cli_invoke: Invoke, git_repo: Path, args: list[str]
) -> None:
    result = cli_invoke(*args, cwd=git_repo, expect=None)
    assert result.code == 0, result.stderr
    assert not (git_repo / ".reasonix").exists()


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_outside_any_repository_read_commands_say_so_and_exit_2(
    cli_invoke: Invoke, tmp_path: Path, args: list[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    result = cli_invoke(*args, cwd=plain, expect=2)
    assert "not inside a repository" in result.stderr
    assert "--repo" in result.stderr
    assert result.stdout == ""
    assert list(plain.iterdir()) == []


def test_the_global_home_is_not_a_repository(cli_invoke: Invoke, isolated_home: Path) -> None:
    """In ~ itself, ~/.reasonix is the global scope, not a project's .reasonix/."""
    (isolated_home / ".reasonix" / "lessons").mkdir(parents=True)
    result = cli_invoke("list", cwd=isolated_home, expect=2)
    assert "not inside a repository" in result.stderr


def test_a_plain_directory_with_reasonix_is_a_repository(
    cli_invoke: Invoke, with_lessons: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(with_lessons, copy, ignore=shutil.ignore_patterns(".git"))
    listed = cli_invoke("list", "--json", "--repo", copy).json()
    assert [x["name"] for x in listed] == ["runner"]
    assert cli_invoke("stale", "--json", cwd=copy).json()[0]["name"] == "runner"  # never recorded


def test_the_fast_paths_agree_outside_a_repository(tmp_path: Path) -> None:
    """`stale` and `recall` answer from cli/fast/ without Typer: the same exit code and message."""
    plain = tmp_path / "plain"
    plain.mkdir()
    for args in (["stale", "--check"], ["recall", "add a test"]):
        run = subprocess.run(
            [sys.executable, "-m", "reasonlessons", *args],
            cwd=plain,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
        assert run.returncode == 2, run.stderr
        assert "not inside a repository" in run.stderr
    assert list(plain.iterdir()) == []


def test_recall_with_a_session_remembers_it_where_there_are_lessons(
    cli_invoke: Invoke, with_lessons: Path, git_repo: Path
) -> None:
    """`--session` asks recall to remember what it gave: the one read that writes (docs/recall.md)."""
    lesson = with_lessons / ".reasonix" / "lessons" / "runner.md"
    lesson.write_text(lesson.read_text().replace("[package.json#scripts.test]", "[]"))  # fresh
    args = ["recall", "add a test for the parser", "--file", "tests/a.test.ts", "--session", "s1", "--json"]
    first = cli_invoke(*args, "--repo", with_lessons).json()
    assert [x["name"] for x in first["lessons"]] == ["runner"]  # type: ignore[index]
    assert (with_lessons / ".reasonix" / "state" / "recall-counters.log").is_file()  # the journal
    assert cli_invoke(*args, "--repo", with_lessons).json()["lessons"] == []  # type: ignore[index]
    bare = git_repo.parent / "bare"
    bare.mkdir()
    (bare / ".git").mkdir()
    cli_invoke(*args, "--repo", bare)
    assert not (bare / ".reasonix").exists()
