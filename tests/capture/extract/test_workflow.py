"""Drafts of the workflow observations: what they say, and the facts they depend on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reasonlessons.capture.extract.draft import CandidateDraft
from tests.capturesupport import CAPTURE, drafts_of
from tests.paths import RESOURCES

REPOS = RESOURCES / "repos"
CLAUDE = CAPTURE / "claude-code"
GO = CAPTURE / "codex" / "rollout-2026-05-07T08-00-00-bbbb3333-0000-4000-8000-000000000003.jsonl"
LOGS = [
    (CLAUDE / "elixir-commit.jsonl", "capture-elixir"),
    (CLAUDE / "elixir-setup.jsonl", "capture-elixir"),
    (GO, "capture-go"),
    (CLAUDE / "web-workdir.jsonl", "capture-web"),
    (CLAUDE / "python-setup.jsonl", "capture-py"),
    (CLAUDE / "quiet.jsonl", "capture-py"),
]
ABSOLUTE = re.compile(r"(?<![\w.])(?:/(?:home|Users|tmp|c)/|~/|[A-Za-z]:\\)")


def _kind(drafts: list[CandidateDraft], kind: str) -> list[CandidateDraft]:
    return [d for d in drafts if d.kind == kind]


def test_commit_gate_names_the_commands_and_the_configs_that_define_them() -> None:
    (gate,) = _kind(drafts_of(CLAUDE / "elixir-commit.jsonl", root=REPOS / "capture-elixir"), "commit-gate")
    assert gate.description.startswith("Before `git commit`, run `mix format` and `mix dialyzer`")
    assert (
        "`Pre-commit validation failed: [FORMAT] Code is not formatted. Run 'mix format' to fix.`"
        in gate.body
    )
    assert gate.fingerprint == [".formatter.exs", "mix.exs"]
    assert gate.triggers["commands"] == [r"\bgit\s+commit\b"]


def test_a_loop_says_what_to_run_instead_of_retrying() -> None:
    (loop,) = _kind(drafts_of(CLAUDE / "elixir-commit.jsonl", root=REPOS / "capture-elixir"), "loop")
    assert loop.description == (
        "`git commit` failed 3 times on `[DIALYZER]`, even with `--no-verify`: run `mix dialyzer` and fix…"
    )
    assert "- Run `mix dialyzer` and fix what it reports before trying again." in loop.body
    assert loop.outcome == "mixed"


def test_suggested_fix_and_setup_step() -> None:
    drafts = drafts_of(GO, root=REPOS / "capture-go")
    (fix,) = _kind(drafts, "suggested-fix")
    assert fix.description.startswith("If `go test ./...` fails with `go: updates to go.mod needed")
    assert fix.fingerprint == ["go.mod"]
    python = {
        d.name: d for d in _kind(drafts_of(CLAUDE / "python-setup.jsonl", root=REPOS / "capture-py"), "setup")
    }
    deps = python["uv-sync-after-pyproject-toml"]
    assert deps.description == "After changing `pyproject.toml`, run `uv sync` before `uv run pytest`"
    assert deps.fingerprint == ["pyproject.toml"]
    migrate = python["uv-run-alembic-upgrade-head-after-migrations"]
    assert migrate.fingerprint == ["migrations/"]
    assert migrate.triggers["files"] == ["migrations/**"]


def test_tool_rules_are_tagged_for_their_agent_and_the_global_scope() -> None:
    drafts = drafts_of(CLAUDE / "elixir-setup.jsonl", root=REPOS / "capture-elixir")
    rules = {d.name: d for d in _kind(drafts, "tool-rule")}
    assert set(rules) == {"claude-code-edit-string-not-found", "claude-code-read-too-large"}
    big = rules["claude-code-read-too-large"]
    assert (
        big.description
        == "Read large files in parts (offset/limit) or Grep them; Read refuses over 25000 tokens"
    )
    assert big.tags == ["tool-rule", "claude-code", "global"]
    assert big.fingerprint == []
    (codex,) = _kind(drafts_of(GO, root=REPOS / "capture-go"), "tool-rule")
    assert codex.tags == ["tool-rule", "codex", "global"]


def test_git_facts_and_where_commands_run() -> None:
    drafts = drafts_of(CLAUDE / "web-workdir.jsonl", root=REPOS / "capture-web")
    (ignored,) = _kind(drafts, "git-workflow")
    assert "`git add -f dist/app.css`" in ignored.body
    assert ignored.fingerprint == [".gitignore"]
    (workdir,) = _kind(drafts, "workdir-fix")
    assert workdir.description == "Run `node build.js` from `assets/`; from the repository root it fails"
    assert workdir.fingerprint == ["assets/build.js"]
    checks = {d.tags[0]: d for d in _kind(drafts, "verification")}
    assert (
        checks["typecheck"].description == "Type-check with `npx tsc --noEmit --skipLibCheck` in `todo-app/`"
    )
    assert checks["typecheck"].fingerprint == [
        "todo-app/tsconfig.json",
        "todo-app/package.json#devDependencies.typescript",
    ]
    assert checks["test"].fingerprint == ["todo-app/package.json#scripts.test"]
    (branch,) = _kind(drafts_of(GO, root=REPOS / "capture-go"), "git-workflow")
    assert branch.description == "The default branch is `master` (not `main`)"


@pytest.mark.parametrize(("log", "repo"), LOGS, ids=lambda v: Path(str(v)).name[:24])
def test_no_draft_holds_a_path_of_the_machine_the_session_ran_on(log: Path, repo: str) -> None:
    for draft in drafts_of(log, root=REPOS / repo):
        text = "\n".join([draft.description, draft.body, *(e["ref"] for e in draft.evidence)])
        assert not ABSOLUTE.search(text), text
