"""The workflow observations of the reducer, on the hand-made logs of make_workflow_logs.py."""

from __future__ import annotations

from pathlib import Path

from reasonlessons.capture.reduce.observations import (
    CommitGate,
    GitFact,
    Loop,
    SessionObservations,
    SetupStep,
    SuggestedFix,
    ToolRule,
    Verification,
    WorkdirFix,
)
from tests.capturesupport import CAPTURE, observe
from tests.paths import RESOURCES

REPOS = RESOURCES / "repos"
CLAUDE = CAPTURE / "claude-code"
GO = CAPTURE / "codex" / "rollout-2026-05-07T08-00-00-bbbb3333-0000-4000-8000-000000000003.jsonl"


def _one(path: Path, repo: str) -> SessionObservations:
    (obs,) = observe(path, root=REPOS / repo)
    return obs


def _of(obs: SessionObservations, kind: type) -> list:  # type: ignore[type-arg]
    return [item for item in obs.items if isinstance(item, kind)]


def test_a_commit_rejected_until_a_formatter_ran_is_a_gate() -> None:
    obs = _one(CLAUDE / "elixir-commit.jsonl", "capture-elixir")
    (gate,) = _of(obs, CommitGate)
    assert [s.form for s in gate.steps] == ["mix format", "mix dialyzer"]
    assert gate.rejected == 4
    assert gate.rejections[0].excerpt.startswith("Exit code 1\nPre-commit validation failed:")
    assert gate.routine == ()  # only the tests ran before every commit: no routine to tell


def test_the_same_rejection_three_times_is_a_loop_whatever_the_commit_message() -> None:
    obs = _one(CLAUDE / "elixir-commit.jsonl", "capture-elixir")
    (loop,) = _of(obs, Loop)
    assert (loop.subject, loop.count, loop.resolved, loop.bypass) == ("git commit", 3, True, ("--no-verify",))


def test_checks_run_before_every_commit_are_a_routine_gate() -> None:
    obs = _one(CLAUDE / "python-setup.jsonl", "capture-py")
    (gate,) = _of(obs, CommitGate)
    assert (gate.rejections, gate.commits) == ((), 2)
    assert [s.form for s in gate.steps] == ["uv run ruff check", "uv run pytest"]


def test_a_command_named_by_the_error_then_the_rerun_is_a_suggested_fix() -> None:
    (fix,) = _of(_one(GO, "capture-go"), SuggestedFix)
    assert (fix.suggestion, fix.fix.form, fix.failure.call.invocation.base) == (
        "go mod tidy",
        "go mod tidy",
        "go test",
    )
    (elixir,) = _of(_one(CLAUDE / "elixir-setup.jsonl", "capture-elixir"), SuggestedFix)
    assert elixir.suggestion == "mix deps.get"


def test_setup_steps_after_a_dependency_and_a_migration() -> None:
    steps = {s.kind: s for s in _of(_one(CLAUDE / "python-setup.jsonl", "capture-py"), SetupStep)}
    assert (steps["deps"].step.form, steps["deps"].trigger, steps["deps"].check.form) == (
        "uv sync",
        "pyproject.toml",
        "uv run pytest",
    )
    assert steps["deps"].failed_before is not None
    assert (steps["migrate"].step.form, steps["migrate"].trigger) == (
        "uv run alembic upgrade head",
        "migrations/",
    )
    elixir = {s.kind: s for s in _of(_one(CLAUDE / "elixir-setup.jsonl", "capture-elixir"), SetupStep)}
    assert elixir["migrate"].step.form == "MIX_ENV=test mix ecto.migrate"
    assert elixir["migrate"].trigger == "priv/repo/migrations/"
    assert elixir["migrate"].failed_before is None  # the deps failure was over when the tests passed


def test_tool_rules_of_each_agent_including_subagents() -> None:
    elixir = _of(_one(CLAUDE / "elixir-setup.jsonl", "capture-elixir"), ToolRule)
    assert {(r.agent, r.rule) for r in elixir} == {
        ("claude-code", "edit-string-not-found"),
        ("claude-code", "read-too-large"),
    }
    assert next(r for r in elixir if r.rule == "read-too-large").detail == "25000"
    (codex,) = _of(_one(GO, "capture-go"), ToolRule)
    assert (codex.agent, codex.rule) == ("codex", "patch-context-not-found")
    (web,) = _of(_one(CLAUDE / "web-workdir.jsonl", "capture-web"), ToolRule)
    assert web.rule == "write-before-read"  # refused inside an inline (isSidechain) subagent


def test_a_refusal_that_teaches_no_rule_is_no_tool_rule() -> None:
    assert not _of(_one(CLAUDE / "python-setup.jsonl", "capture-py"), ToolRule)  # EISDIR in a subagent
    quiet = _one(CLAUDE / "quiet.jsonl", "capture-py")
    assert not [i for i in quiet.items if not isinstance(i, Verification)]


def test_git_facts() -> None:
    (ignored,) = _of(_one(CLAUDE / "web-workdir.jsonl", "capture-web"), GitFact)
    assert (ignored.kind, ignored.subject, ignored.detail) == ("force-add", "dist/", "dist/app.css")
    (branch,) = _of(_one(GO, "capture-go"), GitFact)
    assert (branch.kind, branch.subject, branch.detail) == ("default-branch", "master", "main")
    (listed,) = _of(_one(CLAUDE / "python-setup.jsonl", "capture-py"), GitFact)
    assert (listed.subject, listed.detail, listed.fix.form) == ("master", "main", "git branch -a")


def test_where_a_command_must_run() -> None:
    obs = _one(CLAUDE / "web-workdir.jsonl", "capture-web")
    (fix,) = _of(obs, WorkdirFix)
    assert (fix.fix.form, fix.workdir, fix.failure.call.invocation.workdir) == (
        "node build.js",
        "assets",
        None,
    )
    checks = {v.invocation.category: v for v in _of(obs, Verification)}
    assert (checks["typecheck"].form, checks["typecheck"].invocation.workdir) == (
        "npx tsc --noEmit --skipLibCheck",
        "todo-app",
    )
    # The shell moved into todo-app/ (the transcript's cwd): `npm test` ran there, in the background.
    assert (checks["test"].form, checks["test"].invocation.workdir) == ("npm test", "todo-app")


def test_a_loop_of_lint_failures_left_unresolved() -> None:
    (loop,) = _of(_one(GO, "capture-go"), Loop)
    assert (loop.subject, loop.count, loop.resolved) == ("make lint", 3, False)


def test_test_failures_while_fixing_a_bug_are_no_loop() -> None:
    assert not _of(_one(CLAUDE / "quiet.jsonl", "capture-py"), Loop)


def test_a_loop_the_exit_code_did_not_show_is_read_from_the_output() -> None:
    """`npm run build 2>&1 | tail -20` exits 0 whatever the build did: its TypeError says it failed."""
    obs = _one(CLAUDE / "build-loop.jsonl", "capture-web")
    (loop,) = _of(obs, Loop)
    assert (loop.subject, loop.count, loop.resolved) == ("npm run build", 4, True)
    assert loop.failure.line == "TypeError: Cannot read properties of undefined (reading 'map')"
    assert loop.failure.call.invocation.workdir == "todo-app"
    (build,) = _of(obs, Verification)
    assert build.count == 1  # only the run that really passed


def test_tool_rules_hold_for_their_agent_only() -> None:
    from reasonlessons.capture.reduce import toolrules

    refusal = "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"
    found = toolrules.match("claude-code", "edit", refusal)
    assert found is not None
    assert found[0].id == "edit-string-not-found"
    assert toolrules.match("codex", "edit", refusal) is None  # a Codex session never gets it
    assert toolrules.match("claude-code", "shell", refusal) is None
    envelope = toolrules.match(
        "codex", "edit", "Invalid patch: The last line of the patch must be '*** End Patch'"
    )
    assert envelope is not None
    assert envelope[0].id == "patch-format"
    assert toolrules.match("claude-code", "read", "EISDIR: illegal operation on a directory, read") is None


def test_a_read_refused_for_size_and_followed_by_a_grep_shows_the_rule() -> None:
    from reasonlessons.capture.reduce.toolrules import ToolRuleTracker

    refusal = "File content (41234 tokens) exceeds maximum allowed tokens (25000). Please use offset"
    tracker = ToolRuleTracker("claude-code")
    assert tracker.refused("read", refusal, "s.jsonl:3")
    tracker.worked("Edit")  # another tool working shows nothing
    assert tracker.finish() == []
    tracker.worked("Grep")  # the advice's other half: search instead of reading the whole file
    (rule,) = tracker.finish()
    assert (rule.rule, rule.detail, rule.refs) == ("read-too-large", "25000", ("s.jsonl:3",))
    other = ToolRuleTracker("claude-code")
    other.refused("edit", "String to replace not found in file.", "s.jsonl:9")
    other.worked("Grep")  # a Grep does not show Edit's rule
    assert other.finish() == []


def _run(tracker: object, command: str, clock: int, failed: bool = False) -> None:
    from reasonlessons.capture.reduce.observations import Call, Failure
    from reasonlessons.capture.reduce.setup import SetupTracker
    from reasonlessons.sessions.commands import segments

    assert isinstance(tracker, SetupTracker)
    parts = segments(command)
    call = Call(clock, "shell", command, f"s.jsonl:{clock}", parts[0], command=command)
    if failed:
        tracker.failed(Failure(call, "FAIL <path>", call.ref, "FAIL src/user.test.ts"), parts, clock)
    else:
        tracker.succeeded(call, parts, clock)


def test_generated_code_a_failing_check_needed_is_a_setup_step_after_its_source_changed() -> None:
    from reasonlessons.capture.reduce.setup import SetupTracker

    tracker = SetupTracker()
    tracker.edited("packages/api/prisma/schema.prisma", 1)
    _run(tracker, "pnpm --filter api test", 2, failed=True)
    _run(tracker, "pnpm --filter api db:generate", 3)
    _run(tracker, "pnpm --filter api test", 4)
    (step,) = tracker.found
    assert (step.kind, step.trigger, step.step.form, step.check.form) == (
        "codegen",
        "packages/api/prisma/schema.prisma",
        "pnpm --filter api db:generate",
        "pnpm --filter api test",
    )
    assert step.failed_before is not None
    quiet = SetupTracker()  # generating code nothing failed for is no lesson
    quiet.edited("api/schema.proto", 1)
    _run(quiet, "buf generate", 2)
    _run(quiet, "go test ./...", 3)
    assert quiet.found == []


def test_a_command_a_refusal_names_in_place_of_the_refused_one_is_a_replacement() -> None:
    from reasonlessons.capture.reduce.observations import Call, Failure
    from reasonlessons.capture.reduce.retries import SuggestionTracker
    from reasonlessons.sessions.commands import segments

    said = "PreToolUse:Bash hook error: [h.sh]: npm is not used here. Use bun instead (e.g. `bun test`)."
    tracker = SuggestionTracker()
    npm = segments("npm test")
    failed = Call(1, "shell", "npm test", "s.jsonl:1", npm[0], command="npm test")
    tracker.failed(Failure(failed, "sig", failed.ref, said, excerpt=said), "npm test", 1)
    bun = segments("bun test")
    tracker.succeeded(
        Call(2, "shell", "bun test", "s.jsonl:2", bun[0], command="bun test"), bun, "bun test", 2
    )
    (fix,) = tracker.found
    assert (fix.fix.form, fix.replaces, fix.rerun_ref) == ("bun test", True, "s.jsonl:2")
    # A suggestion of another kind is a step before re-running the failed command, not a replacement.
    gomod = "go: updates to go.mod needed; to update it:\n\tgo mod tidy"
    step = SuggestionTracker()
    go_test = segments("go test ./...")
    call = Call(1, "shell", "go test ./...", "s.jsonl:1", go_test[0], command="go test ./...")
    step.failed(Failure(call, "sig", call.ref, gomod, excerpt=gomod), "go test", 1)
    tidy = segments("go mod tidy")
    step.succeeded(
        Call(2, "shell", "go mod tidy", "s.jsonl:2", tidy[0], command="go mod tidy"), tidy, "go mod", 2
    )
    assert step.found == []
    step.succeeded(call, go_test, "go test", 3)
    (rerun,) = step.found
    assert (rerun.fix.form, rerun.replaces) == ("go mod tidy", False)


def test_no_network_and_failing_assertions_are_no_loops() -> None:
    from reasonlessons.capture.reduce.observations import Call, Failure
    from reasonlessons.capture.reduce.retries import LoopTracker
    from reasonlessons.sessions.commands import segments

    def fail_three_times(command: str, line: str, excerpt: str) -> list[Loop]:
        tracker = LoopTracker()
        parts = segments(command)
        for n in range(3):
            call = Call(n, "shell", command, f"s.jsonl:{n}", parts[0], command=command)
            tracker.failed(call, Failure(call, "sig", call.ref, line, excerpt=excerpt), command)
        return tracker.finish(set())

    offline = "WARNING: Retrying after connection broken by 'NewConnectionError(... name resolution')'"
    assert fail_three_times("pip install dateutil", offline, offline) == []
    banner = "=========== FAILURES ==========="
    summary = f"{banner}\nE       AssertionError: assert None == 3\n1 failed, 2 passed in 0.05s"
    assert fail_three_times("python -m pytest tests/test_core.py", banner, summary) == []
    build = "error: could not compile `r` due to 1 previous error"
    (loop,) = fail_three_times("cargo build", build, build)  # still a loop
    assert loop.count == 3


def test_loops_are_resolved_by_subject_after_older_counts_were_dropped() -> None:
    from reasonlessons.capture.reduce import retries
    from reasonlessons.capture.reduce.observations import Call, Failure

    tracker = retries.LoopTracker()
    for n in range(retries._LOOPS_MAX + 3):  # the three oldest counts are dropped
        call = Call(n, "mcp_tool", f"mcp_tool:{n}", f"s.jsonl:{n}")
        tracker.failed(call, Failure(call, f"sig {n % 2}", call.ref, "no"), f"subject {n}")
    assert len(tracker._counts) == retries._LOOPS_MAX == len(tracker._by_subject)
    assert "subject 0" not in tracker._by_subject
    tracker.succeeded("subject 0")  # dropped: nothing to resolve, no error
    tracker.succeeded("subject 5")
    resolved = [what for (what, _), count in tracker._counts.items() if count.resolved]
    assert resolved == ["subject 5"]
