"""search, deprecate, merge and untrigger, through the library and the command line."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from reasonlessons.curation.edits import deprecate, untrigger
from reasonlessons.curation.merge import merge
from reasonlessons.curation.search import search
from reasonlessons.errors import LessonExistsError, UsageError
from reasonlessons.recall.counters import Counters, lesson_key
from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import Decision, History
from reasonlessons.store.project import Project, open_project
from tests.invoke import Invoke

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)


@pytest.fixture
def project(git_repo: Path) -> Project:
    p = open_project(git_repo, now=lambda: NOW)
    p.store.add(
        "vitest-runner",
        description="Tests run with vitest",
        body="- run `npm test`\n- never call jest",
        fingerprint=["package.json#scripts.test"],
        extra={
            "triggers": {"keywords": ["vitest"], "files": ["tests/**"]},
            "evidence": [{"session": "s1", "ref": "e1"}, {"session": "s2", "ref": "e2"}],
            "tags": ["testing"],
            "captured-at": dt.date(2026, 3, 1),
        },
    )
    p.store.add(
        "test-command",
        description="The test command is npm test",
        body="- Run `npm test`\n- a single file: npx vitest run FILE",
        fingerprint=["package.json#devDependencies.vitest"],
        extra={
            "triggers": {"commands": [r"\bvitest\b"], "keywords": ["vitest"]},
            "evidence": [{"session": "s3", "ref": "e3"}, {"session": "s1", "ref": "e1"}],
            "supersedes": ["older"],
        },
    )
    p.store.add("older", description="Tests used to run with mocha", body="- mocha")
    return p


def test_search_finds_every_word_in_any_field_best_first(project: Project) -> None:
    hits = search(project, "VITEST npm")
    assert [h.name for h in hits] == ["vitest-runner", "test-command"]
    assert hits[0].fields == ["name", "description", "triggers", "body"]
    assert [h.name for h in search(project, "testing")] == ["vitest-runner"]  # a tag
    assert search(project, "vitest mocha") == []
    assert search(project, "  ") == []


def test_deprecate_with_and_without_a_replacement(project: Project) -> None:
    deprecate(project, "older")
    statuses = {e.lesson.name: e.status for e in project.entries(check_drift=False)[0]}
    assert statuses["older"] == "deprecated"
    lesson, other = deprecate(project, "vitest-runner", by="test-command")
    assert other is not None
    assert "vitest-runner" in project.store.find("test-command").supersedes
    assert project.store.find("vitest-runner").meta["status"] == "deprecated"
    with pytest.raises(UsageError, match="cannot replace itself"):
        deprecate(project, "older", by="older")


def test_untrigger_removes_one_trigger_and_says_what_is_left(project: Project) -> None:
    assert untrigger(project, "test-command", "Vitest") == ["keywords"]
    assert project.store.find("test-command").triggers == {"commands": [r"\bvitest\b"]}
    assert untrigger(project, "test-command", r"\bvitest\b") == ["commands"]
    assert "triggers" not in project.store.find("test-command").meta
    with pytest.raises(UsageError, match="has no trigger 'nope'"):
        untrigger(project, "vitest-runner", "nope")
    with pytest.raises(UsageError, match="--kind"):
        untrigger(project, "vitest-runner", "vitest", kind="globs")


def test_merge_keeps_every_evidence_entry_triggers_and_counts(project: Project) -> None:
    state = project.loc.ensure_state_dir()
    counters = Counters.load(state)
    counters.record([lesson_key("project", "vitest-runner")], now=NOW, session=None, tokens={})
    counters.record(
        [lesson_key("project", "vitest-runner"), lesson_key("project", "test-command")], now=NOW, session=None
    )
    counters.save()

    def seed(histories: object) -> dict[str, History]:
        def decided(prefix: str, *verdicts: str) -> History:
            history = History()
            for n, verdict in enumerate(verdicts):
                weight = "direct" if verdict == "contradicted" else ""
                history = history.decide(
                    f"claude-code:{prefix}{n}", Decision(verdict, weight, None, f"log:{n}")
                )
            return history

        return {
            "project:vitest-runner": decided("a", "confirmed", "confirmed", "confirmed", "contradicted"),
            "project:test-command": decided("b", "confirmed", "confirmed", "confirmed"),
        }

    outcomes.update(state, project.loc.lock_path("project"), seed)
    before = [
        *project.store.find("vitest-runner").meta["evidence"],
        *project.store.find("test-command").meta["evidence"],
    ]

    merged = merge(project, "vitest-runner", "test-command", into="testing")
    lesson = project.store.find("testing")
    for entry in before:
        assert entry in lesson.meta["evidence"]
    assert len(lesson.meta["evidence"]) == 3  # e1 was in both
    assert merged.evidence == 3
    assert lesson.triggers == {"files": ["tests/**"], "commands": [r"\bvitest\b"], "keywords": ["vitest"]}
    assert lesson.fingerprint == ["package.json#scripts.test", "package.json#devDependencies.vitest"]
    assert lesson.supersedes == ["older", "vitest-runner", "test-command"]
    assert lesson.body.strip() == "- run `npm test`\n- never call jest\n- a single file: npx vitest run FILE"
    assert lesson.description == "Tests run with vitest"
    assert lesson.captured_at == dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    assert lesson.meta["tags"] == ["testing"]
    assert "supersedes" not in project.store.find("test-command").meta  # moved to the merged lesson
    statuses = {e.lesson.name: e.status for e in project.entries(check_drift=False)[0]}
    assert statuses == {"testing": "active", "vitest-runner": "superseded", "test-command": "superseded",
                        "older": "superseded"}  # fmt: skip
    assert Counters.load(state).hits("project:testing") == 3
    record = outcomes.load(state)["project:testing"]
    assert (record.confirmed, record.contradicted) == (6, 1)
    assert merged.counts == {"hits": 3, "success": 6, "failure": 1}
    from reasonlessons.curation.lint import validate_project

    codes = {p.code for p in validate_project(project)}
    assert codes <= {"DEAD_FINGERPRINT_ENTRY", "DEAD_FILE_GLOB"}, (
        codes
    )  # no package.json in this repository; nothing about the merge itself


def test_merge_into_one_of_the_two(project: Project) -> None:
    merge(project, "test-command", "vitest-runner", into="test-command", description="How tests run")
    lesson = project.store.find("test-command")
    assert lesson.description == "How tests run"
    assert lesson.supersedes == ["older", "vitest-runner"]
    with pytest.raises(LessonExistsError):
        merge(project, "test-command", "older", into="vitest-runner")
    with pytest.raises(UsageError):
        merge(project, "older", "older", into="x")


def test_cli(cli_invoke: Invoke, project: Project) -> None:
    repo = project.loc.root
    found = cli_invoke("search", "vitest", "--json", "--repo", repo).json()
    assert [h["name"] for h in found] == ["vitest-runner", "test-command"]  # type: ignore[index,union-attr]
    assert "no lesson matches" in cli_invoke("search", "zebra", "--repo", repo).stdout
    assert "vitest-runner" in cli_invoke("search", "jest", "--repo", repo).stdout
    out = cli_invoke("deprecate", "older", "--by", "test-command", "--repo", repo).stdout
    assert "deprecated older" in out
    assert "test-command supersedes it" in out
    cli_invoke("untrigger", "test-command", "vitest", "--kind", "keywords", "--repo", repo)
    cli_invoke("untrigger", "test-command", "vitest", "--kind", "keywords", "--repo", repo, expect=2)
    doc = cli_invoke(
        "merge", "vitest-runner", "test-command", "--into", "testing", "--json", "--repo", repo
    ).json()
    assert doc["supersedes"] == ["vitest-runner", "test-command"]  # type: ignore[index]
    assert "already exists" in cli_invoke("merge", "testing", "older", "--into", "vitest-runner",
                                          "--repo", repo, expect=1).stderr  # fmt: skip


def test_add_takes_every_field_flag_and_refuses_a_duplicate(cli_invoke: Invoke, project: Project) -> None:
    repo = project.loc.root
    doc = cli_invoke(
        "add", "watch-mode", "-d", "Vitest watch mode for quick runs", "--body", "- npx vitest --watch",
        "--file-trigger", "tests/**", "--cmd-trigger", r"\bvitest\b", "--keyword", "watch mode",
        "--task-type", "code-gen", "--task-type", "qa", "--supersedes", "older", "--expires", "2027-01-01",
        "--agent", "claude-code", "--json", "--repo", repo,
    ).json()  # fmt: skip
    want = {"files": ["tests/**"], "commands": [r"\bvitest\b"], "keywords": ["watch mode"]}
    assert doc["triggers"] == want  # type: ignore[index]
    lesson = project.store.find("watch-mode")
    assert lesson.task_types == ["code-gen", "qa"]
    assert lesson.supersedes == ["older"]
    assert lesson.expires_at == dt.datetime(2027, 1, 1, tzinfo=dt.UTC)
    assert lesson.meta["evidence"] == [{"agent": "claude-code", "ref": "added by hand"}]
    body = "- Run `npm test`\n- never call jest"
    same = cli_invoke(
        "add", "again", "-d", "tests run with VITEST.", "--body", body, "--repo", repo, expect=1
    )
    assert "says what project lesson 'vitest-runner' says" in same.stderr
    assert not (repo / ".reasonix" / "lessons" / "again.md").exists()
    body = "- run `npm test`\n- never ever call jest"
    near = cli_invoke("add", "again", "-d", "Tests run with vitest", "--body", body, "--repo", repo, expect=1)
    assert "overlap project lesson 'vitest-runner'" in near.stderr
    bad_type = cli_invoke("add", "x", "-d", "x", "--task-type", "build", "--repo", repo, expect=2)
    assert "--task-type 'build'" in bad_type.stderr
    ghost = cli_invoke("add", "x", "-d", "x", "--supersedes", "ghost", "--repo", repo, expect=2)
    assert "no lesson of that name" in ghost.stderr


def test_edit_changes_fields_in_place(cli_invoke: Invoke, project: Project) -> None:
    repo = project.loc.root
    doc = cli_invoke(
        "edit", "older", "-d", "Tests ran with mocha before 2026", "--keyword", "mocha", "--keyword", "mocha",
        "--task-type", "qa", "--expires", "30d", "--agent", "codex", "--json", "--repo", repo,
    ).json()  # fmt: skip
    changed = ["description", "evidence", "expires-at", "task-types", "triggers"]
    assert doc["changed"] == changed  # type: ignore[index]
    lesson = project.store.find("older")
    assert lesson.description == "Tests ran with mocha before 2026"
    assert lesson.triggers == {"keywords": ["mocha"]}
    assert lesson.expires_at is not None
    assert "nothing to change" in cli_invoke("edit", "older", "--keyword", "mocha", "--repo", repo).stdout
    cli_invoke("edit", "older", "--expires", "never", "--body", "- mocha, long ago", "--repo", repo)
    lesson = project.store.find("older")
    assert "expires-at" not in lesson.meta
    assert lesson.body.strip() == "- mocha, long ago"
    body = "- run `npm test`\n- never call jest"
    dup = cli_invoke("edit", "older", "-d", "Tests run with vitest", "--body", body, "--repo", repo, expect=1)
    assert "vitest-runner" in dup.stderr
    assert project.store.find("older").description == "Tests ran with mocha before 2026"
    cli_invoke("edit", "ghost", "-d", "x", "--repo", repo, expect=1)
