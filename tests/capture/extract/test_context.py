"""Where a session ran, from any machine: its checkout root, its sub-project, paths fit to commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasonlessons.capture.extract.context import SessionPlace, canonical
from reasonlessons.capture.extract.fingerprints import RepoFacts

WIN = "C:\\Users\\me\\proj\\todo-app"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "todo-app" / "src").mkdir(parents=True)
    (root / "todo-app" / "package.json").write_text("{}")
    (root / "todo-app" / "src" / "list.ts").write_text("")
    (root / "docs").mkdir()  # a directory without a manifest is no sub-project
    (root / "go.mod").write_text("module x\n")
    return root


def _place(repo: Path, cwd: str) -> SessionPlace:
    return SessionPlace("claude-code", "s", RepoFacts(repo), cwd=cwd)


@pytest.mark.parametrize(
    ("cwd", "base"),
    [
        ("C:\\Users\\me\\proj\\todo-app", "todo-app/"),
        ("/c/Users/me/proj/todo-app", "todo-app/"),
        ("/home/me/src/proj/.claude/worktrees/fix-list", ""),
        ("/home/me/src/proj/.claude/worktrees/fix-list/todo-app", "todo-app/"),
        ("/tmp/clone-1234/todo-app", "todo-app/"),
        ("/home/me/worktrees/proj-feature", ""),
        ("/home/me/worktrees/docs", ""),
    ],
)
def test_a_cwd_from_any_machine_finds_its_sub_project(repo: Path, cwd: str, base: str) -> None:
    assert _place(repo, cwd).base == base


def test_the_cwd_under_the_repository_itself(repo: Path) -> None:
    assert _place(repo, str(repo / "todo-app")).base == "todo-app/"
    assert _place(repo, str(repo / ".claude" / "worktrees" / "x")).base == ""


@pytest.mark.parametrize(
    ("cwd", "quoted", "clean"),
    [
        (WIN, f"error in {WIN}\\src\\list.ts:3", "error in todo-app/src/list.ts:3"),
        ("/c/Users/me/proj/todo-app", f"at {WIN}\\src\\list.ts", "at todo-app/src/list.ts"),
        ("/c/Users/me/proj", "at /c/Users/me/proj/todo-app/src/list.ts", "at todo-app/src/list.ts"),
        ("/home/me/proj", "see /tmp/claude-1000/tasks/b7.output", "see b7.output"),
        ("/home/me/proj", "cannot open /home/other/elsewhere/notes.txt", "cannot open notes.txt"),
        ("/home/me/proj", "fetch https://example.com/home/page", "fetch https://example.com/home/page"),
        ("/home/me/proj", "wrote /Users/me/old-clone/todo-app/src/list.ts", "wrote todo-app/src/list.ts"),
    ],
)  # fmt: skip
def test_quoted_output_keeps_no_path_of_the_machine(repo: Path, cwd: str, quoted: str, clean: str) -> None:
    assert _place(repo, cwd).clean(quoted) == clean


def test_canonical_spellings() -> None:
    assert canonical("C:\\Users\\me\\x\\") == "/c/Users/me/x"
    assert canonical("/C/Users/me") == "/c/Users/me"
    assert canonical("/home/me/x/") == "/home/me/x"
