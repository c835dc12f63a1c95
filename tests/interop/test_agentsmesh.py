"""agentsmesh lessons.json import: triggers mapped, supersession carried, bad documents write nothing."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.interop import agentsmesh_checks as checks
from reasonlessons.interop.agentsmesh import problems
from reasonlessons.interop.api import import_lessons
from reasonlessons.interop.common import InteropError
from reasonlessons.recall.api import recall
from reasonlessons.store.project import open_project
from tests.invoke import Invoke
from tests.paths import RESOURCES
from tests.repos import git

MESH = RESOURCES / "agentsmesh"
NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)


def test_import_maps_triggers_topics_status_and_supersession(git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    report = import_lessons(project, "agentsmesh", MESH / "lessons.json", scope="project")
    assert len(report.written) == 3
    assert report.notes == []
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
        "agentsmesh": {"scope": "always", "topics": {"style": "Code style"}}
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
    assert len(import_lessons(project, "agentsmesh", tmp_path / "other").written) == 3
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
    bad["lessons"]["Bad_Id"] = bad["lessons"].pop("style-prefer-named-exports")
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


# -- agentsmesh's own checks: what it refuses is refused, by its codes ---------------------------


def _graph(lessons: dict[str, Any], triggers: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    base = {"rule": "Run vitest.", "topics": ["t"], "triggers": [], "evidence": [], "status": "active",
            "createdAt": "2026-04-02"}  # fmt: skip
    return {
        "version": 2,
        "lessons": {k: {**base, **v} for k, v in lessons.items()},
        "topics": {"t": {"summary": "tests"}},
        "triggers": triggers or {},
        **over,
    }


KW = {"t-kw-1": {"kind": "keyword", "pattern": "vitest"}}
# code -> a graph agentsmesh refuses for that reason alone
REFUSED: dict[str, dict[str, Any]] = {
    "SCHEMA_INVALID": _graph({"a": {"createdAt": "April 2"}}),
    "NEWER_VERSION": _graph({"a": {}}, version=3),
    "DANGLING_TOPIC": _graph({"a": {"topics": ["t", "nowhere"]}}),
    "DANGLING_TRIGGER": _graph({"a": {"triggers": ["t-kw-missing"]}}),
    "DANGLING_SUPERSEDER": _graph({"a": {"status": "superseded", "supersededBy": "ghost"}}),
    "DUPLICATE_TOPIC_REF": _graph({"a": {"topics": ["t", "t"]}}),
    "DUPLICATE_TRIGGER_REF": _graph({"a": {"triggers": ["t-kw-1", "t-kw-1"]}}, KW),
    "SUPERSEDED_WITHOUT_TARGET": _graph({"a": {"status": "superseded"}}),
    "ACTIVE_WITH_SUPERSEDER": _graph({"a": {"supersededBy": "b"}, "b": {"rule": "Run jest."}}),
    "SELF_SUPERSEDED": _graph({"a": {"status": "superseded", "supersededBy": "a"}}),
    "INACTIVE_SUPERSEDER": _graph(
        {"a": {"status": "superseded", "supersededBy": "b"}, "b": {"rule": "Other.", "status": "deprecated"}}
    ),
    "SUPERSEDE_CYCLE": json.loads((MESH / "cycle.json").read_text()),
    "DUPLICATE_RULE": _graph({"a": {"rule": "Run  vitest."}, "b": {"rule": "run vitest."}}),
    "INVALID_TRIGGER_PATTERN": _graph(
        {"a": {"triggers": ["c"]}}, {"c": {"kind": "command_pattern", "pattern": "(x"}}
    ),
    "UNSAFE_TRIGGER_PATTERN": json.loads((MESH / "unsafe-pattern.json").read_text()),
    "UNSAFE_GLOB_PATTERN": _graph(
        {"a": {"triggers": ["g"]}}, {"g": {"kind": "file_glob", "pattern": "@(a|b).ts"}}
    ),
    "BACKSLASH_GLOB_PATTERN": _graph(
        {"a": {"triggers": ["g"]}}, {"g": {"kind": "file_glob", "pattern": "src\\a.ts"}}
    ),
    "DUPLICATE_TRIGGER": _graph(
        {"a": {"triggers": ["t-kw-1", "t-kw-2"]}}, {**KW, "t-kw-2": {"kind": "keyword", "pattern": "vitest"}}
    ),
}


@pytest.mark.parametrize("code", sorted(REFUSED))
def test_import_refuses_what_agentsmesh_refuses(code: str, git_repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps(REFUSED[code]))
    project = open_project(git_repo, now=lambda: NOW)
    assert code in {f.code for f in checks.errors(REFUSED[code])}
    with pytest.raises(InteropError, match="agentsmesh itself refuses, nothing written") as info:
        import_lessons(project, "agentsmesh", path, scope="project")
    assert f"{code}: " in str(info.value)
    assert project.store.scan().lessons == []


def test_the_example_graph_has_no_error_and_warnings_become_notes(git_repo: Path, tmp_path: Path) -> None:
    assert checks.findings(json.loads((MESH / "lessons.json").read_text())) == []
    graph = _graph(
        {"a": {}, "b": {"rule": "Other.", "triggers": ["t-kw-1"]}},
        {**KW, "t-kw-9": KW["t-kw-1"] | {"pattern": "jest"}},
    )
    assert {f.code for f in checks.findings(graph)} == {"UNREACHABLE_LESSON", "ORPHAN_TRIGGER"}
    graph["topics"]["unused"] = {"summary": "nobody"}
    assert {f.code for f in checks.findings(graph)} == {
        "UNREACHABLE_LESSON",
        "ORPHAN_TRIGGER",
        "ORPHAN_TOPIC",
    }
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps(graph))
    report = import_lessons(open_project(git_repo, now=lambda: NOW), "agentsmesh", path)
    assert len(report.written) == 2
    assert any("UNREACHABLE_LESSON" in n for n in report.notes)


def test_an_active_lesson_with_a_superseder_is_never_retired_silently(
    git_repo: Path, cli_invoke: Invoke
) -> None:
    result = cli_invoke("import", "agentsmesh", MESH / "active-superseded.json", "--scope", "project",
                        "--repo", git_repo, expect=1)  # fmt: skip
    assert "ACTIVE_WITH_SUPERSEDER" in result.stderr
    assert not (git_repo / ".reasonix" / "lessons").exists()


def test_an_import_does_not_retire_an_active_local_lesson(git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    project.store.add(
        "testing-call-jest-directly", description="Mine, still true", body="- call jest for one file"
    )
    with pytest.raises(InteropError, match="would retire the active lesson"):
        import_lessons(project, "agentsmesh", MESH / "lessons.json", scope="project")
    assert [x.name for x in project.store.scan().lessons] == ["testing-call-jest-directly"]
    assert len(import_lessons(project, "agentsmesh", MESH / "lessons.json").written) == 3  # as candidates


def _canonical(graph: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(graph, sort_keys=True))


def test_export_round_trips_the_example_graph(git_repo: Path, tmp_path: Path, cli_invoke: Invoke) -> None:
    cli_invoke("import", "agentsmesh", MESH / "lessons.json", "--scope", "project", "--repo", git_repo)
    out = tmp_path / "out"
    doc = cli_invoke("export", "agentsmesh", "--out", out, "--json", "--repo", git_repo).json()
    written = out / ".agentsmesh" / "lessons" / "lessons.json"
    assert [w["path"] for w in doc["written"]] == [str(written)]  # type: ignore[index]
    original = json.loads((MESH / "lessons.json").read_text())
    exported = json.loads(written.read_text())
    assert exported == original
    assert written.read_text() == json.dumps(original, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert checks.findings(exported) == []
    again = cli_invoke("export", "agentsmesh", "--out", out, "--json", "--repo", git_repo).json()
    assert len(again["unchanged"]) == 1  # type: ignore[index]
    # and back: the exported graph imports to the same lessons
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    cli_invoke("import", "agentsmesh", out, "--scope", "project", "--repo", other)
    first = {p.name: p.read_text() for p in (git_repo / ".reasonix" / "lessons").glob("*.md")}
    second = {p.name: p.read_text() for p in (other / ".reasonix" / "lessons").glob("*.md")}
    assert first == second


def test_export_writes_a_graph_agentsmesh_accepts_from_native_lessons(git_repo: Path, tmp_path: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    store = project.store
    store.add(
        "old_rule",
        description="Use jest",
        body="- jest runs tests",
        extra={"triggers": {"keywords": ["jest"], "commands": [r"\bjest\b"]}, "tags": ["testing"]},
    )
    store.add(
        "new.rule",
        description="Use vitest",
        body="- vitest runs tests",
        extra={
            "supersedes": ["old_rule"],
            "triggers": {"keywords": ["vitest"], "files": ["tests/**"]},
            "evidence": [{"ref": "s1"}],
        },
    )
    store.add("gone", description="Expired", body="- x", extra={"expires-at": "2026-01-01"})
    from reasonlessons.interop.api import export_lessons

    export_lessons(project, "agentsmesh", tmp_path)
    graph = json.loads((tmp_path / ".agentsmesh/lessons/lessons.json").read_text())
    assert checks.errors(graph) == []
    assert graph["lessons"]["old-rule"]["status"] == "superseded"
    assert graph["lessons"]["old-rule"]["supersededBy"] == "new-rule"
    assert graph["lessons"]["gone"]["status"] == "deprecated"
    assert graph["lessons"]["new-rule"]["evidence"] == ["s1"]
    assert graph["lessons"]["new-rule"]["topics"] == ["general"]
    assert "t-kw-" + __import__("hashlib").sha1(b"keyword|jest").hexdigest()[:8] in graph["triggers"]


def test_export_refuses_to_drop_lessons_of_an_existing_graph(git_repo: Path, tmp_path: Path) -> None:
    target = tmp_path / ".agentsmesh" / "lessons"
    target.mkdir(parents=True)
    shutil.copy(MESH / "lessons.json", target / "lessons.json")
    project = open_project(git_repo, now=lambda: NOW)
    project.store.add("mine", description="Mine", body="- mine")
    from reasonlessons.interop.api import export_lessons

    with pytest.raises(InteropError, match="would drop"):
        export_lessons(project, "agentsmesh", tmp_path)
    assert (target / "lessons.json").read_text() == (MESH / "lessons.json").read_text()
