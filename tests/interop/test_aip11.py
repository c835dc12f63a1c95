"""AIP-11 LESSON.md packages: the example imports and exports back to the same lessons; counts in
files are never trusted; bad packages write nothing; exports own only their files."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.interop.aip11 import lesson_files
from reasonlessons.interop.api import export_lessons, import_lessons
from reasonlessons.interop.common import InteropError
from reasonlessons.learning import lifecycle
from reasonlessons.lessons.file import split_frontmatter
from reasonlessons.lessons.model import as_datetime
from reasonlessons.store import outcomes
from reasonlessons.store.project import Project, open_project
from tests.paths import RESOURCES

EXAMPLE = RESOURCES / "aip11" / "lessons"
NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)


def read(path: Path) -> tuple[dict[str, Any], str]:
    meta, body = split_frontmatter(path.read_text(encoding="utf-8"))
    assert meta is not None
    return meta, body.strip()


def comparable(meta: dict[str, Any]) -> dict[str, Any]:
    """What AIP-11 says about a lesson, minus the runtime-maintained counts and our own vendor key."""
    out = {k: v for k, v in meta.items() if k not in ("success_count", "failure_count")}
    if "expires_at" in out:
        out["expires_at"] = as_datetime(out["expires_at"])
    metadata = {k: v for k, v in (out.pop("metadata", None) or {}).items() if k != "reasonlessons"}
    if metadata:
        out["metadata"] = metadata
    return out


def imported(repo: Path) -> Project:
    project = open_project(repo, now=lambda: NOW)
    report = import_lessons(project, "aip11", EXAMPLE, scope="project")
    assert len(report.written) == 3
    return project


def test_the_example_round_trips_to_the_same_lessons(git_repo: Path, tmp_path: Path) -> None:
    project = imported(git_repo)
    out = tmp_path / "package"
    report = export_lessons(project, "aip11", out)
    assert sorted(i.name for i in report.written) == sorted(p.stem for p in lesson_files(EXAMPLE))
    for original in lesson_files(EXAMPLE):
        before, body_before = read(original)
        after, body_after = read(out / original.name)
        assert comparable(after) == comparable(before), original.name
        assert body_after == body_before
        assert (after["success_count"], after["failure_count"]) == (0, 0)  # observed here: none yet
    index = (out / "_index.md").read_text()
    for original in lesson_files(EXAMPLE):
        assert f"| {original.stem} |" in index
    again = export_lessons(project, "aip11", out)
    assert again.written == []  # byte-identical when nothing changed
    assert len(again.unchanged) == 3


def test_author_supplied_counts_are_ignored(git_repo: Path, tmp_path: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    report = import_lessons(project, "aip11", EXAMPLE, scope="project")
    assert any("ignored the success_count/failure_count" in n for n in report.notes)
    assert outcomes.load(project.loc.state_dir) == {}
    lesson = project.store.find("use-npm-test-not-npx-jest")
    assert "success_count" not in str(lesson.meta)
    # Only observed outcomes reach an export.
    state = project.loc.ensure_state_dir()
    against = outcomes.Decision("contradicted", "direct", NOW.isoformat(), "s1.jsonl:3", "npx jest passed")
    lifecycle.apply(
        state, state / "lessons.lock", [("project:use-npm-test-not-npx-jest", "claude-code:s1", against)]
    )
    export_lessons(project, "aip11", tmp_path / "out")
    meta, _ = read(tmp_path / "out" / "use-npm-test-not-npx-jest.md")
    assert (meta["success_count"], meta["failure_count"]) == (0, 1)


def test_the_mapping(git_repo: Path) -> None:
    project = imported(git_repo)
    lesson = project.store.find("use-npm-test-not-npx-jest")
    assert lesson.description == "Run the test suite with npm test, never with npx jest."
    assert lesson.meta["outcome"] == "mixed"
    assert lesson.meta["tags"] == ["testing", "jest", "npm"]
    assert lesson.meta["evidence"][0] == {
        "kind": "run",
        "ref": "r_2026-05-02_4f1a9c",
        "note": 'npx jest failed with "jest: not found" (exit 127); npm test then passed.',
    }
    assert lesson.meta["interop"]["aip11"]["confidence"] == 0.8
    assert lesson.meta["interop"]["aip11"]["metadata"] == {"acme": {"team": "web-platform", "reviewed": True}}
    assert lesson.body.startswith("## When this applies")
    newer = project.store.find("prefer-vitest-run-for-single-files")
    assert newer.supersedes == ["run-jest-directly"]
    assert newer.meta["expires-at"] == "2027-01-01T00:00:00Z"
    statuses = {e.lesson.name: e.status for e in project.entries("all", check_drift=False)[0]}
    assert statuses["run-jest-directly"] == "superseded"


def test_a_native_lesson_round_trips_through_aip11(git_repo: Path, tmp_path: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    project.store.add(
        "test_runner.v2",
        description="Run tests with `npm test`",
        body="- vitest, tests/**/*.test.ts, run via `npm test`",
        extra={
            "triggers": {"files": ["tests/**/*.test.ts"], "keywords": ["vitest"]},
            "task-types": ["code-gen", "qa"],
            "evidence": [{"agent": "claude-code", "session": "s-1", "ref": "s-1.jsonl:4"}],
        },
    )
    export_lessons(project, "aip11", tmp_path / "pkg")
    meta, body = read(tmp_path / "pkg" / "test-runner-v2.md")
    assert meta["slug"] == "test-runner-v2"
    assert meta["trigger"]["tags"] == ["vitest"]
    assert meta["evidence"] == [{"kind": "conversation", "ref": "s-1", "note": "log claude-code s-1.jsonl:4"}]
    assert "## What to do (or avoid)" in body
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = open_project(elsewhere, now=lambda: NOW)
    import_lessons(other, "aip11", tmp_path / "pkg", scope="project")
    back = other.store.find("test_runner.v2")
    original = project.store.find("test_runner.v2")
    for key in ("triggers", "task-types", "evidence"):
        assert back.meta[key] == original.meta[key]
    assert back.body == original.body
    assert back.description == original.description


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda t: t.replace("schema: learning/v1", "schema: learning/v2"), "schema must be 'learning/v1'"),
        (lambda t: t.replace("outcome: mixed", "outcome: great"), "outcome must be one of"),
        (lambda t: t.replace("confidence: 0.8", "confidence: 0.8\nvotes: 3"), "unknown key 'votes'"),
        (lambda t: t.replace("  - kind: run\n", "  - kind: tweet\n", 1), "evidence[0].kind"),
        (lambda t: t.replace("slug: use-npm-test-not-npx-jest", "slug: Use_NPM"), "slug 'Use_NPM'"),
        (lambda t: t.replace("title: Run", "title: |\n  Run"), None),  # still valid
    ],
)
def test_bad_packages_write_nothing(git_repo: Path, tmp_path: Path, edit: Any, problem: str | None) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(EXAMPLE, package)
    target = package / "use-npm-test-not-npx-jest.md"
    target.write_text(edit(target.read_text()))
    project = open_project(git_repo, now=lambda: NOW)
    if problem is None:
        import_lessons(project, "aip11", package)
        return
    with pytest.raises(InteropError, match="nothing written") as info:
        import_lessons(project, "aip11", package)
    assert problem in str(info.value)
    assert project.store.scan().lessons == []


def test_supersedes_must_resolve(git_repo: Path, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(EXAMPLE, package)
    (package / "run-jest-directly.md").unlink()
    project = open_project(git_repo, now=lambda: NOW)
    with pytest.raises(InteropError, match="supersedes 'run-jest-directly'"):
        import_lessons(project, "aip11", package)
    project.store.add("run-jest-directly", description="Here already")
    assert len(import_lessons(project, "aip11", package).written) == 2  # now it exists


def test_export_refuses_a_file_as_target(git_repo: Path, tmp_path: Path) -> None:
    project = imported(git_repo)
    target = tmp_path / "taken"
    target.write_text("not a folder")
    with pytest.raises(InteropError, match="is a file"):
        export_lessons(project, "aip11", target)
    assert target.read_text() == "not a folder"


def test_export_owns_only_its_files(git_repo: Path, tmp_path: Path) -> None:
    project = imported(git_repo)
    out = tmp_path / "pkg"
    out.mkdir()
    (out / "hand-written.md").write_text((EXAMPLE / "run-jest-directly.md").read_text().replace(
        "slug: run-jest-directly", "slug: hand-written"))  # fmt: skip
    export_lessons(project, "aip11", out)
    project.store.remove("run-jest-directly")
    report = export_lessons(project, "aip11", out)
    assert [i.name for i in report.removed] == ["run-jest-directly"]
    assert (out / "hand-written.md").exists()
    index = (out / "_index.md").read_text()
    assert "| hand-written |" in index
    assert "| run-jest-directly |" not in index


# -- imported metadata is used (issue 21) ----------------------------------------------------------


def test_imported_confidence_tags_and_targets_are_used(git_repo: Path, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(EXAMPLE, package)
    original = (package / "use-npm-test-not-npx-jest.md").read_text(encoding="utf-8")
    (package / "use-npm-test-not-npx-jest.md").write_text(
        original.replace("    - role: coder\n", "    - role: coder\n    - operator: claude-code\n"),
        encoding="utf-8",
    )
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n', encoding="utf-8")
    project = open_project(git_repo, now=lambda: NOW)
    import_lessons(project, "aip11", package, scope="project")
    entry = project.entry("use-npm-test-not-npx-jest")
    assert entry.confidence == 0.8  # its AIP-11 confidence is its prior
    lesson = entry.lesson
    assert lesson.agents == ["claude-code"]  # `role: coder` names no agent; `operator: claude-code` does
    assert lesson.triggers["keywords"] == ["testing", "jest", "npm"]  # tags match as keywords
    assert lesson.fingerprint == ["package.json#scripts.test"]  # inferred from the text: `npm test`
    # Exported back, the agents are its targets and the confidence its own.
    export_lessons(project, "aip11", tmp_path / "out")
    meta, _ = read(tmp_path / "out" / "use-npm-test-not-npx-jest.md")
    assert meta["confidence"] == 0.8
    assert {"operator": "claude-code"} in meta["trigger"]["targets"]


def test_targets_that_name_no_agent_limit_nothing(git_repo: Path) -> None:
    project = imported(git_repo)
    assert project.store.find("use-npm-test-not-npx-jest").agents == []  # role: coder, skill: run-tests
