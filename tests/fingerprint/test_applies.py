"""A global lesson's fingerprint is relative to the kind of repository it applies to: where its facts
are absent it does not apply (never stale, never recalled), and `stale` says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlessons.fingerprint import Checker
from reasonlessons.fingerprint.applies import as_global, conditions_of
from reasonlessons.lessons.file import read_lesson
from reasonlessons.lessons.model import Lesson
from tests.invoke import Invoke
from tests.repos import commit_all, git

VITEST = {"devDependencies": {"vitest": "^1.6.0"}, "scripts": {"test": "vitest run"}}
ADD = [
    "add",
    "vitest-run",
    "-d",
    "Run vitest once with npx vitest run",
    "-f",
    "package.json#devDependencies.vitest",
    "--file-trigger",
    "tests/**",
    "--body",
    "- `npx vitest run`, not `npm test -- --watch`",
    "--scope",
    "global",
]


def _repo(parent: Path, name: str, package: dict[str, object] | None) -> Path:
    repo = parent / name
    repo.mkdir()
    git(repo, "init", "-q")
    if package is not None:
        (repo / "package.json").write_text(json.dumps(package) + "\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "a.test.ts").write_text("it('x', () => {})\n")
    commit_all(repo, "initial")
    return repo


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, Path]:
    return {
        "home": _repo(tmp_path, "home", VITEST),
        # the same kind of repository, another version and script: the lesson applies
        "other-vitest": _repo(
            tmp_path, "other-vitest", {"devDependencies": {"vitest": "^2.0.0"}, "scripts": {"test": "vitest"}}
        ),
        "jest": _repo(tmp_path, "jest", {"devDependencies": {"jest": "^29"}}),
        "python": _repo(tmp_path, "python", None),
    }


def test_add_global_records_what_makes_it_apply(cli_invoke: Invoke, repos: dict[str, Path]) -> None:
    cli_invoke(*ADD, "--repo", repos["home"])
    lesson = read_lesson(Path.home() / ".reasonix" / "lessons" / "vitest-run.md")
    assert lesson.meta["applies-when"] == {"package.json#devDependencies.vitest": "present"}
    assert "fingerprint-recorded" not in lesson.meta  # a value of one repository means nothing elsewhere


@pytest.mark.parametrize("where", ["jest", "python"])
def test_where_its_facts_are_absent_it_does_not_apply(
    cli_invoke: Invoke, repos: dict[str, Path], where: str
) -> None:
    cli_invoke(*ADD, "--repo", repos["home"])
    repo = repos[where]
    assert cli_invoke("stale", "--check", "--repo", repo).code == 0
    assert cli_invoke("stale", "--json", "--repo", repo).json() == []
    text = cli_invoke("stale", "--repo", repo).stdout
    assert "vitest-run  [global, does not apply here]" in text
    assert (
        "package.json#devDependencies.vitest is absent here (the lesson applies where it is present)" in text
    )
    (listed,) = cli_invoke("list", "--json", "--repo", repo).json()
    assert listed["status"] == "active"
    assert listed["applies"] is False
    assert listed["does_not_apply"] == [
        {"input": "package.json#devDependencies.vitest", "needs": "present", "now": "absent"}
    ]
    shown = cli_invoke("show", "vitest-run", "--repo", repo).stdout
    assert "does not apply here: package.json#devDependencies.vitest is absent here" in shown
    recalled = cli_invoke("recall", "add a test", "--file", "tests/a.test.ts", "--json", "--repo", repo)
    assert recalled.json()["lessons"] == []


@pytest.mark.parametrize("where", ["home", "other-vitest"])
def test_where_its_facts_are_present_it_applies_and_is_recalled(
    cli_invoke: Invoke, repos: dict[str, Path], where: str
) -> None:
    cli_invoke(*ADD, "--repo", repos["home"])
    repo = repos[where]
    assert cli_invoke("stale", "--check", "--repo", repo).code == 0
    assert "does not apply" not in cli_invoke("stale", "--repo", repo).stdout
    (listed,) = cli_invoke("list", "--json", "--repo", repo).json()
    assert (listed["status"], listed["applies"]) == ("active", True)
    recalled = cli_invoke("recall", "add a test", "--file", "tests/a.test.ts", "--json", "--repo", repo)
    assert [x["name"] for x in recalled.json()["lessons"]] == ["vitest-run"]


def test_a_repository_that_drops_the_fact_stops_applying_and_is_not_stale(
    cli_invoke: Invoke, repos: dict[str, Path]
) -> None:
    repo = repos["home"]
    cli_invoke(*ADD, "--repo", repo)
    (repo / "package.json").write_text('{"devDependencies": {"jest": "^29"}}\n')
    commit_all(repo, "switch to jest")
    assert cli_invoke("stale", "--check", "--repo", repo).code == 0
    assert "does not apply here" in cli_invoke("stale", "--repo", repo).stdout


def test_promote_global_turns_the_record_into_conditions(cli_invoke: Invoke, repos: dict[str, Path]) -> None:
    repo = repos["home"]
    cli_invoke(
        "add", "no-jest", "-d", "No jest here", "-f", "package.json#devDependencies.vitest",
        "-f", "jest.config.js", "--allow-absent", "--scope", "candidate", "--repo", repo,
    )  # fmt: skip
    cli_invoke("promote", "no-jest", "--global", "--repo", repo)
    lesson = read_lesson(Path.home() / ".reasonix" / "lessons" / "no-jest.md")
    assert lesson.meta["applies-when"] == {
        "package.json#devDependencies.vitest": "present",
        "jest.config.js": "absent",
    }
    assert cli_invoke("stale", "--check", "--repo", repos["jest"]).code == 0


def test_an_older_global_lesson_with_recorded_values_is_read_as_conditions(tmp_path: Path) -> None:
    """Lessons promoted before `applies-when` existed keep working: present where a value was recorded."""
    meta = {
        "name": "old",
        "fingerprint": ["package.json#scripts.test", "jest.config.js", "tests/"],
        "fingerprint-recorded": {
            "package.json#scripts.test": {"hash": "xxh3:1", "value": '"vitest run"'},
            "jest.config.js": {"absent": True},
        },
    }
    assert conditions_of(meta, meta["fingerprint"]) == {
        "package.json#scripts.test": "present",
        "jest.config.js": "absent",
        "tests/": "present",
    }
    converted = as_global(meta)
    assert "fingerprint-recorded" not in converted
    assert converted["applies-when"]["jest.config.js"] == "absent"
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}')
    (repo / "tests").mkdir()
    (repo / "tests" / "x.py").write_text("")
    lesson = Lesson(meta=meta, body="", scope="global")
    with Checker(repo, state_dir=None) as checker:
        assert checker.drift(lesson) == []  # another value of the field: still the same kind of repo
        assert checker.applies(lesson) == []
        (repo / "jest.config.js").write_text("")
        with Checker(repo, state_dir=None) as fresh:
            assert [m.input for m in fresh.applies(lesson)] == ["jest.config.js"]


def test_a_malformed_entry_of_a_global_lesson_is_still_stale(tmp_path: Path) -> None:
    lesson = Lesson(meta={"name": "x", "fingerprint": ["../outside"]}, body="", scope="global")
    with Checker(tmp_path, state_dir=None) as checker:
        assert [d.reason for d in checker.drift(lesson)] == ["unreadable"]
        assert checker.applies(lesson) == []


def test_project_lessons_are_unchanged(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"scripts": {"test": "jest"}}')
    lesson = Lesson(
        meta={
            "name": "p",
            "fingerprint": ["package.json#scripts.test"],
            "fingerprint-recorded": {"package.json#scripts.test": {"hash": "xxh3:1", "value": '"vitest"'}},
        },
        body="",
        scope="project",
    )
    with Checker(tmp_path, state_dir=None) as checker:
        assert [d.reason for d in checker.drift(lesson)] == ["changed"]
        assert checker.applies(lesson) == []
