"""Acceptance (issue 21): the story of "`npm test` fails here (vitest not found); run `npx vitest run`"
over five sessions. Capture learns it from the first; while `npm test` keeps failing that way its
confidence rises; once `npm test` passes it drops, and a second such session archives it; `show`
names the sessions that decided it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from reasonlessons.capture.pipeline import capture
from reasonlessons.learning.supersede import promote
from reasonlessons.recall.api import recall
from reasonlessons.store.project import Project, open_project
from tests.invoke import Invoke
from tests.learningsupport import LEARNING, session_of

CLOCK = dt.datetime(2026, 5, 12, tzinfo=dt.UTC)  # capture runs after the sessions it reads


def captured(project: Project, name: str) -> None:
    capture(project, [LEARNING / f"{name}.jsonl"], agent="claude-code", now=CLOCK, idle_seconds=0.0)


def recalled_into(project: Project, name: str) -> list[str]:
    """Recall before `npm test` in the session, as the Claude Code hook does; the names injected."""
    session, start = session_of(LEARNING / f"{name}.jsonl")
    result = recall(
        project.loc,
        "",
        cmd="npm test",
        task_type="code-gen",
        session=session,
        now=start + dt.timedelta(seconds=5),
        drift=lambda _: [],  # the repository in the logs changed; this one did not
        agent="claude-code",
    )
    return [lesson.name for lesson in result.lessons]


def test_the_npm_test_fails_lesson_rises_drops_and_archives(
    make_repo: Callable[[str], Path], cli_invoke: Invoke
) -> None:
    repo = make_repo("capture-node")
    project = open_project(repo, now=lambda: CLOCK)

    captured(project, "vitest-1")  # `npm test`: vitest not found; `npx vitest run` works
    (entry,) = project.entries("candidates", check_drift=False)[0]
    name = entry.lesson.name
    assert "`npm test` fails here" in entry.lesson.description
    assert "`npx vitest run`" in entry.lesson.description
    assert entry.confidence == 0.75  # the extractor's: a failure, then what worked instead
    promote(project, name)

    seen = [project.entry(name).confidence]
    for session in ("vitest-2", "vitest-3"):  # npm test keeps failing the same way
        assert name in recalled_into(project, session)
        captured(project, session)
        seen.append(project.entry(name).confidence)
    assert seen == sorted(seen)
    assert seen[0] < seen[1] < seen[2]

    assert name in recalled_into(project, "vitest-fixed-1")
    captured(project, "vitest-fixed-1")  # npm test passes: the lesson's own claim is false
    dropped = project.entry(name)
    assert dropped.confidence < seen[-1] - 0.35
    assert (dropped.status, dropped.archived) == ("active", False)

    assert name in recalled_into(project, "vitest-fixed-2")
    captured(project, "vitest-fixed-2")  # and again: archived
    archived = project.entry(name)
    assert archived.archived
    assert archived.status == "deprecated"
    assert name not in recalled_into(project, "vitest-fixed-2")
    assert (archived.record.confirmed, archived.record.direct) == (2, 2)

    listed = cli_invoke("list", "--archived", "--json", "--repo", repo).json()
    assert [e["name"] for e in listed] == [name]
    shown = cli_invoke("show", name, "--repo", repo).stdout
    fixed = [session_of(LEARNING / f"vitest-fixed-{n}.jsonl")[0] for n in (1, 2)]
    confirming = [session_of(LEARNING / f"vitest-{n}.jsonl")[0] for n in (2, 3)]
    for session in fixed:
        assert f"contradicted (direct)  claude-code:{session}: `npm test` passed" in shown
    for session in confirming:
        assert f"confirmed  claude-code:{session}" in shown
    doc = cli_invoke("show", name, "--json", "--repo", repo).json()
    assert isinstance(doc, dict)
    deciding = [d for d in doc["decisions"] if d["verdict"] == "contradicted"]
    assert [d["session"] for d in deciding] == [f"claude-code:{s}" for s in fixed]
    assert all(d["ref"] for d in doc["decisions"])  # the event that decided each
