"""`refresh`: was → now per lesson before anything is written, --dry-run, and a question before
re-recording more than one lesson unless --yes."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from reasonlessons.cli import app as cli_app
from tests.invoke import Invoke


@pytest.fixture
def repo(git_repo: Path, cli_invoke: Invoke) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run", "build": "tsc"}}\n')
    for name, entry in (("testing", "package.json#scripts.test"), ("build", "package.json#scripts.build")):
        cli_invoke("add", name, "-d", f"The {name} command", "-f", entry, "--repo", git_repo)
    (git_repo / "package.json").write_text('{"scripts": {"test": "jest", "build": "vite build"}}\n')
    return git_repo


def _files(repo: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (repo / ".reasonix" / "lessons").glob("*.md")}


def test_dry_run_shows_was_and_now_and_writes_nothing(cli_invoke: Invoke, repo: Path) -> None:
    before = _files(repo)
    out = cli_invoke("refresh", "--all", "--dry-run", "--repo", repo).stdout
    assert "would refresh build (" in out
    assert '  package.json#scripts.build: "tsc" → "vite build"' in out
    assert '  package.json#scripts.test: "vitest run" → "jest"' in out
    assert out.endswith("2 lesson(s) would be refreshed; nothing written (--dry-run)\n")
    assert _files(repo) == before
    doc = cli_invoke("refresh", "--all", "--dry-run", "--json", "--repo", repo).json()
    assert doc["dry_run"] is True  # type: ignore[index]
    assert [(x["name"], x["changes"][0]["was"], x["changes"][0]["now"]) for x in doc["lessons"]] == [  # type: ignore[index]
        ("build", '"tsc"', '"vite build"'),
        ("testing", '"vitest run"', '"jest"'),
    ]
    assert _files(repo) == before


def test_more_than_one_without_a_terminal_or_yes_is_refused(cli_invoke: Invoke, repo: Path) -> None:
    before = _files(repo)
    result = cli_invoke("refresh", "--all", "--repo", repo, expect=2)
    assert "without a terminal" in result.stderr
    assert "--yes" in result.stderr
    assert _files(repo) == before
    assert cli_invoke("stale", "--check", "--repo", repo, expect=3)


def test_yes_refreshes_them_all(cli_invoke: Invoke, repo: Path) -> None:
    out = cli_invoke("refresh", "--all", "--yes", "--repo", repo).stdout
    assert "refreshed build (" in out
    assert '"tsc" → "vite build"' in out
    assert out.endswith("2 lesson(s) refreshed\n")
    cli_invoke("stale", "--check", "--repo", repo)


@pytest.mark.parametrize(("answer", "code"), [(True, 0), (False, 1)])
def test_a_person_at_a_terminal_is_asked(
    cli_invoke: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch, answer: bool, code: int
) -> None:
    asked: list[str] = []

    def confirm(text: str, **kwargs: object) -> bool:
        asked.append(text)
        return answer

    monkeypatch.setattr(cli_app, "interactive", lambda: True)
    monkeypatch.setattr(typer, "confirm", confirm)
    before = _files(repo)
    result = cli_invoke("refresh", "--all", "--repo", repo, expect=code)
    assert asked == ["Re-record these 2 lessons?"]
    assert '"vitest run" → "jest"' in result.stdout  # shown before the question
    if answer:
        cli_invoke("stale", "--check", "--repo", repo)
    else:
        assert _files(repo) == before
        assert "nothing done" in result.stderr


def test_one_lesson_is_refreshed_without_asking_and_shows_its_change(cli_invoke: Invoke, repo: Path) -> None:
    out = cli_invoke("refresh", "testing", "--repo", repo).stdout
    assert out.startswith("refreshed testing (")
    assert '  package.json#scripts.test: "vitest run" → "jest"' in out
    doc = cli_invoke("refresh", "build", "--json", "--repo", repo).json()
    assert doc["dry_run"] is False  # type: ignore[index]
    assert doc["lessons"][0]["name"] == "build"  # type: ignore[index]
    cli_invoke("stale", "--check", "--repo", repo)
