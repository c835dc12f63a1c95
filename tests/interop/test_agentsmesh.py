"""agentsmesh lessons.json import: triggers mapped, supersession carried, bad documents write nothing."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.interop.agentsmesh import problems
from reasonlessons.interop.api import import_lessons
from reasonlessons.interop.common import InteropError
from reasonlessons.recall.api import recall
from reasonlessons.store.project import open_project
from tests.paths import RESOURCES

MESH = RESOURCES / "agentsmesh"
NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)


def test_import_maps_triggers_topics_status_and_supersession(git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    report = import_lessons(project, "agentsmesh", MESH / "lessons.json", scope="project")
    assert len(report.written) == 4
    assert any("skipped" in note and "backreferences" in note for note in report.notes)
    lesson = project.store.find("testing-run-vitest-through-npm-test")
    assert lesson.triggers == {
        "files": ["tests/**/*.test.ts"],
        "commands": [r"\bjest\b"],
        "keywords": ["unit tests"],
    }
    assert lesson.meta["tags"] == ["testing"]
    assert lesson.description == "Run vitest through npm test."
    assert "Why: jest is not installed" in lesson.body
    assert lesson.supersedes == ["testing-call-jest-directly"]
    statuses = {e.lesson.name: e.status for e in project.entries("all", check_drift=False)[0]}
    assert statuses["testing-call-jest-directly"] == "superseded"
    assert statuses["style-prefer-named-exports"] == "deprecated"
    assert project.store.find("style-prefer-named-exports").meta["interop"] == {
        "agentsmesh": {"scope": "always"}
    }
    found = recall(
        project.loc, "", files=["tests/a.test.ts"], task_type="code-gen", now=NOW, drift=lambda _: []
    )
    assert [r.name for r in found.lessons] == ["testing-run-vitest-through-npm-test"]


def test_a_folder_finds_its_lessons_json(git_repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "other" / ".agentsmesh" / "lessons"
    target.mkdir(parents=True)
    shutil.copy(MESH / "lessons.json", target / "lessons.json")
    project = open_project(git_repo, now=lambda: NOW)
    assert len(import_lessons(project, "agentsmesh", tmp_path / "other").written) == 4
    assert (git_repo / ".reasonix" / "lessons" / "_candidates" / "testing-call-jest-directly.md").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("dangling.json", "topic 'nowhere' does not exist (dangling reference)"),
        ("dangling.json", "trigger 't-kw-missing' does not exist (dangling reference)"),
        ("dangling.json", "supersededBy 'testing-ghost' does not exist (dangling reference)"),
        ("cycle.json", "supersession cycle a-one -> a-two -> a-three -> a-one"),
    ],
)
def test_bad_references_write_nothing(git_repo: Path, name: str, message: str) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    with pytest.raises(InteropError, match="nothing written") as info:
        import_lessons(project, "agentsmesh", MESH / name)
    assert message in str(info.value)
    assert project.store.scan().lessons == []


def doc(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = json.loads((MESH / "lessons.json").read_text())
    base.update(over)
    return base


def test_strictness() -> None:
    assert problems(doc()) == []
    assert problems(doc(version=3)) == [
        "version 3 is newer than this reasonlessons understands (2); upgrade it"
    ]
    assert "unknown top-level key 'extra'" in problems(doc(extra=1))
    bad = doc()
    bad["lessons"]["testing-call-jest-directly"]["votes"] = 3
    bad["lessons"]["Bad_Id"] = bad["lessons"].pop("build-backreference-pattern")
    found = problems(bad)
    assert "lesson 'testing-call-jest-directly': unknown key 'votes'" in found
    assert "lessons: id 'Bad_Id' is not kebab-case (a-z, 0-9, '-')" in found
    v1 = doc(version=1)
    assert (
        "lesson 'style-prefer-named-exports': scope may only be 'always', and only in version 2"
        in problems(v1)
    )
    assert problems([]) == ["the document must be a JSON object"]


def test_not_json(tmp_path: Path, git_repo: Path) -> None:
    (tmp_path / "lessons.json").write_text("{oops")
    with pytest.raises(InteropError, match="not valid JSON"):
        import_lessons(open_project(git_repo), "agentsmesh", tmp_path / "lessons.json")
