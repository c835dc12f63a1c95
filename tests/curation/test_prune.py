"""`prune` on a generated library of 1,000 lessons archives exactly the known dead, expired,
duplicate, stale and never-recalled ones, and `--dry-run` shows the same without touching a file."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

from reasonlessons.curation.prune import prune
from reasonlessons.recall.counters import Counters, lesson_key
from reasonlessons.store.project import Project, open_project
from tests.invoke import Invoke
from tests.repos import git

ADDED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
N = 1000


def _lesson(name: str, body: str, *, triggers: str, extra: str = "") -> str:
    return (
        f"---\nname: {name}\ndescription: Lesson {name} about its own tool\nfingerprint: []\n"
        f"captured-at: 2026-01-01\n{extra}triggers:\n{triggers}---\n{body}\n"
    )


def _library(repo: Path) -> dict[str, set[str]]:
    """Write the library; return the names expected under each prune reason."""
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (repo / "data").mkdir()
    for i in range(10):
        (repo / "data" / f"fact{i}.txt").write_text(f"fact {i}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "files")
    lessons = repo / ".reasonix" / "lessons"
    lessons.mkdir(parents=True)
    expected: dict[str, set[str]] = {
        "expired": set(),
        "dead": set(),
        "duplicate": set(),
        "never-recalled": set(),
        "stale": set(),
    }
    hit: list[str] = []
    live_count = N - 25 * 4 - 10
    for i in range(N - 10):
        kind = "live" if i < live_count else list(expected)[(i - live_count) // 25]
        name = f"l{i:04d}" if kind != "duplicate" else f"z-dup{i:04d}"
        body = f"- tool{i} takes flag{i} and writes out{i}"
        triggers = f"  keywords: [tool{i}]\n  files: ['src/**/*.py']\n"
        extra = ""
        if kind == "expired":
            extra = "expires-at: 2026-02-01\n"
        elif kind == "dead":
            triggers = "  files: ['gone/**/*.py']\n  commands: ['(unclosed']\n"
        elif kind == "duplicate":
            original = i - live_count - 50  # a live lesson that stays
            body = f"- TOOL{original}  takes flag{original} and writes out{original}."
            (lessons / f"{name}.md").write_text(
                _lesson(name, body, triggers=triggers).replace(f"{name} about", f"l{original:04d} about")
            )
        if kind != "duplicate":
            (lessons / f"{name}.md").write_text(_lesson(name, body, triggers=triggers, extra=extra))
        if kind != "live":
            expected[kind].add(name)
        if kind != "never-recalled":
            hit.append(name)
    adder = open_project(repo, now=lambda: ADDED)
    for i in range(10):
        name = f"s{i:02d}"
        adder.store.add(
            name,
            description=f"Fact file {i} keeps its value",
            fingerprint=[f"data/fact{i}.txt"],
            body=f"- fact{i} is read by tool-s{i}",
            extra={"triggers": {"keywords": [f"fact{i}"]}},
        )
        (repo / "data" / f"fact{i}.txt").write_text(f"changed {i}\n")
        expected["stale"].add(name)
        hit.append(name)
    counters = Counters.load(adder.loc.ensure_state_dir())
    counters.record([lesson_key("project", n) for n in hit], now=ADDED, session=None)
    counters.save()
    return expected


def _by_reason(items: list[Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for item in items:
        for reason in item.reasons:
            out.setdefault(reason, set()).add(item.name)
    return out


def test_prune_archives_exactly_the_known_lessons_of_a_1000_lesson_library(git_repo: Path) -> None:
    expected = _library(git_repo)
    lessons = git_repo / ".reasonix" / "lessons"
    before = {p.name: p.read_bytes() for p in lessons.glob("*.md")}
    assert len(before) == N
    project: Project = open_project(git_repo, now=lambda: NOW)

    started = time.perf_counter()
    plan = prune(project, dry_run=True)
    elapsed = time.perf_counter() - started
    assert _by_reason(plan.pruned) == expected
    assert all(len(item.reasons) == 1 for item in plan.pruned), [i for i in plan.pruned if len(i.reasons) > 1]
    assert plan.kept == N - sum(len(v) for v in expected.values())
    assert {p.name: p.read_bytes() for p in lessons.glob("*.md")} == before  # dry run touched nothing
    assert elapsed < 30, elapsed

    done = prune(open_project(git_repo, now=lambda: NOW))
    gone = set().union(*expected.values())
    assert {item.name for item in done.pruned} == gone
    left = {p.stem for p in lessons.glob("*.md")}
    assert left == {Path(n).stem for n in before} - gone
    archived = {p.stem: p.read_bytes() for p in (lessons / "_archive").glob("*.md")}
    assert set(archived) == gone
    assert all(archived[name] == before[f"{name}.md"] for name in gone)  # bytes unchanged
    assert prune(open_project(git_repo, now=lambda: NOW), dry_run=True).pruned == []


def test_never_recalled_is_not_judged_without_any_recall(git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: ADDED)
    project.store.add("quiet", description="Quiet lesson about rare tool", body="- rare tool x")
    report = prune(open_project(git_repo, now=lambda: NOW), dry_run=True)
    assert report.pruned == []
    assert "never-recalled lessons were not judged" in report.notes[0]


def test_prune_cli_dry_run_then_apply(cli_invoke: Invoke, git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: ADDED)
    project.store.add(
        "old", description="Old rule for the tool", body="- x", extra={"expires-at": "2026-01-02"}
    )
    project.store.add("fine", description="Current rule for the tool", body="- y")
    shown = cli_invoke("prune", "--dry-run", "--repo", git_repo)
    assert "would archive project lesson old: expired on 2026-01-02" in shown.stdout
    assert (git_repo / ".reasonix" / "lessons" / "old.md").exists()
    doc = cli_invoke("prune", "--json", "--repo", git_repo).json()
    assert [(p["name"], p["reasons"]) for p in doc["pruned"]] == [("old", ["expired"])]  # type: ignore[index]
    assert not (git_repo / ".reasonix" / "lessons" / "old.md").exists()
    assert (git_repo / ".reasonix" / "lessons" / "_archive" / "old.md").exists()
    names = [x["name"] for x in cli_invoke("list", "--json", "--repo", git_repo).json()]  # type: ignore[union-attr]
    assert names == ["fine"]
    cli_invoke("validate", "--repo", git_repo)
