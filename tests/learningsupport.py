"""Helpers shared by the learning-loop tests: the lessons under test, logs read into traces, recall."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from reasonlessons.learning.trace import SessionTrace
from reasonlessons.recall.api import recall
from reasonlessons.recall.result import RecallResult
from reasonlessons.sessions.adapters import detect
from reasonlessons.sessions.events import ReadStats
from reasonlessons.store.project import Project, open_project
from tests.paths import RESOURCES

LEARNING = RESOURCES / "learning"
NOW = dt.datetime(2026, 5, 10, 8, 0, tzinfo=dt.UTC)
NPM_LESSON = "use-npm-test"
NPM_BODY = "- Run `npm test`, not `npx jest`: here `npx jest` fails with `sh: 1: jest: not found` (exit 127)."
LINT_LESSON = "lint-command"


def project_with_lessons(repo: Path) -> Project:
    """A repository with the lesson under test and a neighbour that matches the same commands."""
    project = open_project(repo, now=lambda: NOW)
    project.store.add(
        NPM_LESSON,
        description="Run the tests with `npm test`, not `npx jest`",
        body=NPM_BODY,
        extra={"triggers": {"commands": [r"\bnpm\s+test\b", r"\bjest\b"]}},
    )
    project.store.add(
        LINT_LESSON,
        description="Lint with `npm run lint` before committing",
        body="- Run `npm run lint`; it checks formatting too.",
        extra={"triggers": {"commands": [r"\bnpm\b"]}},
    )
    return project


def trace_of(log: Path, *, root: str = "/work/demo") -> SessionTrace:
    """One session's trace, read through the real adapter."""
    adapter = detect(log)
    assert adapter is not None, log
    trace: SessionTrace | None = None
    for event in adapter.read_session(log, stats=ReadStats()):
        if trace is None:
            trace = SessionTrace(event.agent, event.session_id, root=root)
        trace.feed(event)
    assert trace is not None
    return trace


def session_of(log: Path) -> tuple[str, dt.datetime]:
    """(session id, first timestamp) of a Claude Code log."""
    first = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    stamp = dt.datetime.fromisoformat(first["timestamp"].replace("Z", "+00:00"))
    return first["sessionId"], stamp


def recall_npm(
    project: Project, *, session: str | None, now: dt.datetime, record: bool = True
) -> RecallResult:
    """Recall for `npm test` (both lessons match), with fingerprints taken as fresh."""
    return recall(
        project.loc,
        "",
        cmd="npm test",
        task_type="code-gen",
        session=session,
        now=now,
        drift=lambda _: [],
        record=record,
    )
