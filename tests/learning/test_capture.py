"""The learning loop inside `capture`: recalled lessons are judged before extraction, and
`--extractor llm` runs through the same pipeline (falling back, and saying so, when the LLM fails)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.store import outcomes
from tests.capturesupport import CAPTURE
from tests.invoke import Invoke
from tests.learningsupport import LEARNING, NPM_LESSON, project_with_lessons, recall_npm, session_of
from tests.llmserver import Script, completion


def test_capture_judges_the_lessons_recalled_into_the_session(git_repo: Path, cli_invoke: Invoke) -> None:
    project = project_with_lessons(git_repo)
    log = LEARNING / "warned-failure.jsonl"
    session, start = session_of(log)
    recall_npm(project, session=session, now=start - dt.timedelta(seconds=30))
    doc = cli_invoke("capture", log, "--json", "--repo", git_repo).json()
    assert isinstance(doc, dict)
    (learned,) = doc["outcomes"]
    assert (learned["session"], learned["linked_by"]) == (session, "session-id")
    (outcome,) = learned["outcomes"]
    # `npx jest` failed just as the lesson warns (and `npm test` then passed): confirmed.
    assert (outcome["lesson"], outcome["outcome"]) == (f"project:{NPM_LESSON}", "confirmed")
    assert outcome["recalled"] is True
    record = outcomes.load(project.loc.state_dir)[f"project:{NPM_LESSON}"]
    assert (record.confirmed, record.contradicted) == (1, 0)
    # A re-run reads nothing new and counts nothing twice.
    again = cli_invoke("capture", log, "--json", "--repo", git_repo).json()
    assert isinstance(again, dict)
    assert again["outcomes"] == []
    assert outcomes.load(project.loc.state_dir)[f"project:{NPM_LESSON}"].confirmed == 1


def test_capture_without_a_session_id_links_by_time(git_repo: Path, cli_invoke: Invoke) -> None:
    project = project_with_lessons(git_repo)
    log = LEARNING / "followed-ok.jsonl"
    _, start = session_of(log)
    recall_npm(project, session=None, now=start + dt.timedelta(seconds=10))  # e.g. `recall` without --session
    out = cli_invoke("capture", log, "--repo", git_repo).stdout
    assert f"lesson project:{NPM_LESSON}: confirmed by" in out
    summaries = json.loads((git_repo / ".reasonix/state/session-summaries.json").read_text())["data"]
    (entry,) = summaries.values()
    assert entry["linked_by"] == "time-window"
    assert entry["total"] > 0


def test_capture_with_the_llm_extractor(
    make_repo: Callable[[str], Path],
    cli_invoke: Invoke,
    llm_server: tuple[str, Script],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, script = llm_server
    monkeypatch.setenv("REASONLESSONS_LLM_BASE_URL", url)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "test-key")
    lesson = {
        "name": "vitest-through-npx",
        "description": "Run the tests with `npx vitest run`; `npm test` cannot find vitest",
        "body": "- Run `npx vitest run`, not `npm test`.",
        "outcome": "mixed",
        "evidence": ["vitest-not-found.events.jsonl:10"],
        "commands": ["npx vitest run"],
    }
    script.replies.append((200, completion(json.dumps({"lessons": [lesson]})), 0))
    repo = make_repo("capture-node")
    log = CAPTURE / "reasonix-v1" / "vitest-not-found.events.jsonl"
    doc = cli_invoke("capture", log, "--extractor", "llm", "--json", "--repo", repo).json()
    assert isinstance(doc, dict)
    assert [c["name"] for c in doc["candidates"]] == ["vitest-through-npx"]
    text = (repo / ".reasonix/lessons/_candidates/vitest-through-npx.md").read_text()
    assert "source: llm" in text
    assert doc["notes"] == []


def test_llm_failure_falls_back_and_says_so(
    make_repo: Callable[[str], Path],
    cli_invoke: Invoke,
    llm_server: tuple[str, Script],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, script = llm_server
    monkeypatch.setenv("REASONLESSONS_LLM_BASE_URL", url)
    monkeypatch.setenv("REASONLESSONS_LLM_API_KEY", "test-key")
    script.replies.append((500, '{"error": "overloaded"}', 0))
    repo = make_repo("capture-node")
    log = CAPTURE / "reasonix-v1" / "vitest-not-found.events.jsonl"
    result = cli_invoke("capture", log, "--extractor", "llm", "--repo", repo)
    assert "new candidate" in result.stdout  # the heuristic extractor's
    assert "LLM extractor failed (HTTP 500" in result.stderr
    assert "used the heuristic extractor" in result.stderr
    assert "--extractor" in cli_invoke("capture", log, "--extractor", "gpt", "--repo", repo, expect=2).stderr
