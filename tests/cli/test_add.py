"""`add` checks its fingerprint at the door and can set triggers, so what it adds is recalled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlessons.lessons.file import read_lesson
from tests.invoke import Invoke


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text(
        json.dumps(
            {"scripts": {"test": "vitest run", "test:unit": "vitest"}, "devDependencies": {"vitest": "1"}}
        )
    )
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "queue.test.ts").write_text("it('x', () => {})\n")
    (git_repo / "src").mkdir()
    (git_repo / "src" / "queue.ts").write_text("export {}\n")
    return git_repo


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("package.json#scirpts.test", "nearest that exists: package.json#scripts.test"),
        ("package.json#scripts.tset", "nearest that exists: package.json#scripts.test"),
        ("package.json#devDependencies.vitset", "nearest that exists: package.json#devDependencies.vitest"),
        ("package.json#scripts.test:unti", "nearest that exists: package.json#scripts.test:unit"),
        ('package.json#scripts."tset.x"', "nearest that exists: package.json#scripts.test"),
        ("package.json#nothing.like.it", "keys there: scripts, devDependencies"),
        ("pakcage.json#scripts.test", "nearest that exists: package.json#scripts.test"),
        ("src/queu.ts", "nearest that exists: src/queue.ts"),
        ("tsets/", "nearest that exists: tests/"),
        ("tests/**/*.spec.ts", "matches no file"),
    ],
)
def test_an_entry_that_names_nothing_is_refused_with_the_nearest_that_exists(
    cli_invoke: Invoke, repo: Path, entry: str, said: str
) -> None:
    result = cli_invoke("add", "testing", "-d", "Test runner", "-f", entry, "--repo", repo, expect=2)
    assert f"fingerprint entry {entry!r} names nothing here" in result.stderr
    assert said in result.stderr
    assert "--allow-absent" in result.stderr
    assert not (repo / ".reasonix" / "lessons" / "testing.md").exists()


def test_every_bad_entry_is_named_at_once(cli_invoke: Invoke, repo: Path) -> None:
    result = cli_invoke(
        "add", "x", "-d", "d", "-f", "package.json#scirpts.test", "-f", "tests/", "-f", "nope.md",
        "--repo", repo, expect=2,
    )  # fmt: skip
    assert "'package.json#scirpts.test'" in result.stderr
    assert "'nope.md'" in result.stderr
    assert "'tests/'" not in result.stderr


def test_allow_absent_records_it_as_absent(cli_invoke: Invoke, repo: Path) -> None:
    cli_invoke(
        "add", "no-jest", "-d", "No jest config", "-f", "jest.config.js", "--allow-absent", "--repo", repo
    )
    lesson = read_lesson(repo / ".reasonix" / "lessons" / "no-jest.md")
    assert lesson.meta["fingerprint-recorded"] == {"jest.config.js": {"absent": True}}


def test_triggers_are_written_and_checked(cli_invoke: Invoke, repo: Path) -> None:
    doc = cli_invoke(
        "add", "testing", "-d", "Test runner", "-f", "package.json#scripts.test",
        "--file-trigger", "tests/**/*.test.ts", "--command-trigger", r"\bvitest\b",
        "--keyword-trigger", "unit test", "--json", "--repo", repo,
    ).json()  # fmt: skip
    assert doc == {
        "name": "testing",
        "scope": "project",
        "path": str(repo / ".reasonix" / "lessons" / "testing.md"),
        "fingerprint": ["package.json#scripts.test"],
        "triggers": {"files": ["tests/**/*.test.ts"], "commands": [r"\bvitest\b"], "keywords": ["unit test"]},
        "flags": [],
    }
    lesson = read_lesson(repo / ".reasonix" / "lessons" / "testing.md")
    assert lesson.triggers == doc["triggers"]  # type: ignore[index]
    bad = cli_invoke("add", "x", "-d", "d", "--command-trigger", "(unclosed", "--repo", repo, expect=2)
    assert "--command-trigger '(unclosed'" in bad.stderr


def test_the_readme_add_then_recall_example_recalls(cli_invoke: Invoke, repo: Path) -> None:
    """README's tour: what `add` writes, `recall` hands the agent for a matching file."""
    cli_invoke(
        "add", "testing", "-d", "Test runner", "-f", "package.json#scripts.test", "-f", "tests/",
        "--file-trigger", "tests/**", "--body", "- npm test", "--repo", repo,
    )  # fmt: skip
    out = cli_invoke("recall", "add a test for peek", "--file", "tests/queue.test.ts", "--repo", repo).stdout
    assert "## testing (project lesson)" in out
    assert "- npm test" in out
