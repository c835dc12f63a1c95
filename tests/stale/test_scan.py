"""`stale` and `refresh` as library calls: which lessons are checked, explanations, commits, re-recording."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL
from reasonlessons.errors import InvalidFingerprintError, UsageError
from reasonlessons.stale.refresh import refresh
from reasonlessons.stale.scan import scan_stale, stale_lessons
from tests.repos import commit_all, git
from tests.stale.lessonrepo import NOW, add, project_of


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "a.test.ts").write_text("it()\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "add tests")
    return git_repo


def test_fresh_lessons_are_not_reported(repo: Path) -> None:
    add(repo, "testing", "package.json#scripts.test", "tests/", "tests/**/*.test.ts", "package.json")
    result = scan_stale(project_of(repo))
    assert result.reports == []
    assert result.checked == 1


def test_committed_drifts_name_their_commit_with_was_and_now(repo: Path) -> None:
    add(repo, "testing", "package.json#scripts.test", "tests/", "tests/**/*.test.ts", "package.json")
    commit_all(repo, "add lesson")
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    jest = commit_all(repo, "switch to jest")
    (repo / "tests" / "a.test.ts").rename(repo / "tests" / "a.spec.ts")
    (repo / "tests" / "e2e").mkdir()
    (repo / "tests" / "e2e" / "flow.spec.ts").write_text("x\n")
    spec = commit_all(repo, "rename tests to spec")
    (report,) = stale_lessons(project_of(repo))
    assert (report.name, report.scope) == ("testing", "project")
    by_input = {d["input"]: d for d in report.to_json()["drift"]}
    assert by_input["package.json#scripts.test"] == {
        "input": "package.json#scripts.test",
        "was": '"vitest run"',
        "now": '"jest"',
        "reason": "changed",
        "kind": "field",
        "commit": {"sha": jest[:10], "subject": "switch to jest"},
    }
    tests_dir = by_input["tests/"]
    assert (tests_dir["added"], tests_dir["removed"]) == ([".spec.ts"], [".test.ts"])
    assert (tests_dir["dirs_added"], tests_dir["dirs_removed"]) == (["e2e"], [])
    assert tests_dir["commit"] == {"sha": spec[:10], "subject": "rename tests to spec"}
    glob = by_input["tests/**/*.test.ts"]
    assert (glob["was"], glob["now"], glob["reason"]) == ("matches", "no match", "removed")
    assert glob["commit"]["sha"] == spec[:10]
    assert by_input["package.json"]["commit"]["sha"] == jest[:10]
    lines = [d.describe() for d in report.drift]
    assert f'package.json#scripts.test: "vitest run" → "jest" [{jest[:10]} switch to jest]' in lines
    assert f"tests/: kinds +.spec.ts -.test.ts; dirs +e2e/ [{spec[:10]} rename tests to spec]" in lines


def test_uncommitted_drift_names_no_commit_all(repo: Path) -> None:
    add(repo, "testing", "package.json#scripts.test")
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    (report,) = stale_lessons(project_of(repo))
    assert "commit" not in report.to_json()["drift"][0]


def test_outside_a_git_repository_there_is_no_commit_and_no_crash(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("one")
    add(plain, "plain", "a.txt")
    (plain / "a.txt").write_text("two")
    (report,) = stale_lessons(project_of(plain))
    assert report.to_json()["drift"][0]["reason"] == "changed"
    assert "commit" not in report.to_json()["drift"][0]


def test_a_corrupt_repository_does_not_break_the_check(repo: Path) -> None:
    add(repo, "testing", "package.json")
    (repo / "package.json").write_text("{}\n")
    commit_all(repo, "empty package")
    for obj in (repo / ".git" / "objects").rglob("*"):
        if obj.is_file() and obj.parent.name != "info":
            obj.chmod(0o644)
            obj.write_bytes(b"garbage")
    (report,) = stale_lessons(project_of(repo))
    assert report.drift[0].reason == "changed"
    assert report.drift[0].commit is None


def test_hand_written_lessons_without_recorded_values_are_stale_until_refreshed(repo: Path) -> None:
    lessons = repo / ".reasonix" / "lessons"
    lessons.mkdir(parents=True)
    (lessons / "testing.md").write_text(
        "---\nname: testing\ndescription: Test runner\nfingerprint:\n  - package.json#scripts.test\n"
        "  - tests/\ncaptured-at: 2026-05-05\n---\n- vitest\n"
    )
    (report,) = stale_lessons(project_of(repo))
    assert [(d["input"], d["reason"], d["was"]) for d in report.to_json()["drift"]] == [
        ("package.json#scripts.test", "unrecorded", None),
        ("tests/", "unrecorded", None),
    ]
    assert "never recorded" in report.drift[0].describe()
    (refreshed,) = refresh(project_of(repo), "testing")
    assert refreshed.meta["refreshed-at"] == NOW.date()
    assert stale_lessons(project_of(repo)) == []
    text = (lessons / "testing.md").read_text()
    assert "fingerprint-recorded:" in text
    assert "refreshed-at: 2026-11-21" in text


def test_refresh_all_rewrites_only_lessons_whose_record_changed(repo: Path) -> None:
    add(repo, "fresh", "tests/")
    add(repo, "drifted", "package.json#scripts.test")
    add(repo, "mine", "package.json", scope=SCOPE_GLOBAL)
    fresh_file = repo / ".reasonix" / "lessons" / "fresh.md"
    before = fresh_file.read_bytes()
    mine = Path.home() / ".reasonix" / "lessons" / "mine.md"
    global_before = mine.read_bytes()
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    assert {r.name for r in stale_lessons(project_of(repo))} == {"drifted"}  # global: a condition, still met
    refreshed = refresh(project_of(repo), all=True)
    assert sorted(lesson.name for lesson in refreshed) == ["drifted"]
    assert mine.read_bytes() == global_before
    assert fresh_file.read_bytes() == before
    assert stale_lessons(project_of(repo)) == []
    assert refresh(project_of(repo), all=True) == []


def test_refresh_needs_exactly_one_target(repo: Path) -> None:
    with pytest.raises(UsageError):
        refresh(project_of(repo))
    with pytest.raises(UsageError):
        refresh(project_of(repo), "x", all=True)


def test_refresh_reports_lessons_with_malformed_entries(repo: Path) -> None:
    add(repo, "good", "tests/")
    lessons = repo / ".reasonix" / "lessons"
    (lessons / "bad.md").write_text(
        "---\nname: bad\ndescription: d\nfingerprint: ['../outside']\ncaptured-at: 2026-05-05\n---\n"
    )
    (repo / "tests" / "b.spec.ts").write_text("x")
    with pytest.raises(InvalidFingerprintError) as caught:
        refresh(project_of(repo), all=True)
    assert "refreshed 1 lesson(s), but not: bad" in str(caught.value)
    with pytest.raises(InvalidFingerprintError):
        refresh(project_of(repo), "bad")


def test_which_lessons_are_checked(repo: Path) -> None:
    for name in ("active", "old", "gone", "proposal", "shared"):
        add(repo, name, "package.json")
    project_of(repo).store.add(
        "dead", description="d", fingerprint=["package.json"], extra={"status": "deprecated"}
    )
    project_of(repo).store.add(
        "expiring", description="d", fingerprint=["package.json"], extra={"expires-at": dt.date(2026, 1, 1)}
    )
    project_of(repo).store.add(
        "newer", description="d", fingerprint=["package.json"], extra={"supersedes": ["old"]}
    )
    add(repo, "idea", "package.json", scope=SCOPE_CANDIDATE)
    add(repo, "shared", "package.json", scope=SCOPE_GLOBAL)
    add(repo, "personal", "package.json", scope=SCOPE_GLOBAL)
    (repo / "package.json").write_text("{}\n")
    result = scan_stale(project_of(repo))
    assert [(r.name, r.scope) for r in result.reports] == [
        ("active", "project"),
        ("gone", "project"),
        ("newer", "project"),
        ("proposal", "project"),
        ("shared", "project"),
    ]
    # The global lesson is checked too, as a condition: package.json is there, so it applies (and a
    # global lesson is never stale by value: docs/fingerprints.md#global-lessons).
    assert result.checked == 6
    assert result.not_applying == []
    # list/show use the same check.
    statuses = {e.lesson.name: e.status for e in project_of(repo).entries("all")[0]}
    assert statuses["active"] == statuses["idea"] == "stale"
    assert (statuses["dead"], statuses["expiring"], statuses["old"]) == (
        "deprecated",
        "expired",
        "superseded",
    )


def test_unreadable_lesson_files_are_returned_not_raised(repo: Path) -> None:
    add(repo, "good", "tests/")
    (repo / ".reasonix" / "lessons" / "broken.md").write_text("---\nname: [oops\n---\n")
    result = scan_stale(project_of(repo))
    assert result.reports == []
    assert [b.path.name for b in result.bad] == ["broken.md"]


def test_a_state_dir_that_cannot_be_written_only_costs_the_caches(repo: Path) -> None:
    add(repo, "testing", "package.json")
    state = repo / ".reasonix" / "state"
    for child in state.iterdir():
        child.unlink()
    state.rmdir()
    state.write_text("not a directory")
    (repo / "package.json").write_text("{}\n")
    assert [r.name for r in stale_lessons(project_of(repo))] == ["testing"]
    assert state.read_text() == "not a directory"


def test_commits_that_add_or_delete_a_target_are_named(repo: Path) -> None:
    add(repo, "changelog", "CHANGELOG.md", "package.json")
    commit_all(repo, "add lesson")
    (repo / "CHANGELOG.md").write_text("# changes\n")
    (repo / "package.json").unlink()
    both = commit_all(repo, "add a changelog, drop package.json")
    (repo / "tests" / "b.test.ts").write_text("later, unrelated\n")
    commit_all(repo, "unrelated")
    (report,) = stale_lessons(project_of(repo))
    assert [(d.reason, d.commit) for d in report.drift] == [
        ("appeared", {"sha": both[:10], "subject": "add a changelog, drop package.json"}),
        ("removed", {"sha": both[:10], "subject": "add a changelog, drop package.json"}),
    ]
