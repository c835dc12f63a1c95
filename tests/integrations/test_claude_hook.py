"""The Claude Code hook: per-event answers in the documented shape, loop detection, silence on errors."""

from __future__ import annotations

import datetime as dt
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli.fast import hook
from reasonlessons.integrations import claude_capture, claude_hook, claude_loops
from reasonlessons.recall.api import Recaller
from tests.jsonshape import load_schema, problems
from tests.paths import RESOURCES

OUTPUT_SCHEMA = load_schema("claude-hook-output.schema.json")
PROMPT = "Add a unit test for the parser in tests/foo.test.ts"
NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def no_claude_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv(hook.DEBUG_ENV, raising=False)


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("recall-ts")


def event(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    base = {"session_id": "s-1", "transcript_path": str(repo / "t.jsonl"), "cwd": str(repo)}
    return {**base, "hook_event_name": name, **fields}


def assert_valid(out: dict[str, Any] | None, event_name: str) -> str:
    """The output conforms to the documented schema for its event; returns the added context."""
    assert out is not None
    assert problems(out, OUTPUT_SCHEMA) == []
    assert out["hookSpecificOutput"]["hookEventName"] == event_name
    context: str = out["hookSpecificOutput"]["additionalContext"]
    return context


def run_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes, *args: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    capsys.readouterr()
    code = hook.main(["claude-code", *args])
    out, err = capsys.readouterr()
    return code, out, err


# -- UserPromptSubmit ----------------------------------------------------------------------------


def test_prompt_gets_the_recalled_lessons_in_the_documented_shape(repo: Path) -> None:
    out = claude_hook.handle(event(repo, "UserPromptSubmit", prompt=PROMPT), now=NOW)
    context = assert_valid(out, "UserPromptSubmit")
    assert context.startswith("<reasonlessons-recall>\n")
    assert "## testing (project lesson)" in context
    assert "expired-tip" not in context  # expired lessons never come back


@pytest.mark.parametrize("prompt", ["", "   \n", None, 42])
def test_empty_or_missing_prompt_prints_nothing(repo: Path, prompt: object) -> None:
    assert claude_hook.handle(event(repo, "UserPromptSubmit", prompt=prompt), now=NOW) is None


def test_a_one_megabyte_prompt_is_answered(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = PROMPT + "\n" + "pasted log line with vitest output\n" * 30_000
    assert len(prompt) > 1_000_000
    data = json.dumps(event(repo, "UserPromptSubmit", prompt=prompt)).encode()
    code, out, err = run_cli(monkeypatch, capsys, data)
    assert (code, err) == (0, "")
    assert "## testing (project lesson)" in assert_valid(json.loads(out), "UserPromptSubmit")


def test_input_over_two_megabytes_is_ignored(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.dumps(event(repo, "UserPromptSubmit", prompt=PROMPT + "x" * (2 << 20))).encode()
    assert run_cli(monkeypatch, capsys, data) == (0, "", "")


def test_context_stays_under_claude_codes_cap(git_repo: Path) -> None:
    lessons = git_repo / ".reasonix" / "lessons"
    lessons.mkdir(parents=True)
    body = "\n".join(f"- vitest advice line {i} " + "word " * 20 for i in range(20))
    for i in range(12):
        (lessons / f"big-{i:02d}.md").write_text(
            f"---\nname: big-{i:02d}\ndescription: Vitest advice {i}\nfingerprint: []\n"
            f"captured-at: 2026-05-05\ntriggers:\n  keywords: [vitest]\n---\n{body}\n"
        )
    payload = event(git_repo, "UserPromptSubmit", prompt="add a vitest test for the parser")
    context = assert_valid(claude_hook.handle(payload, now=NOW, budget=100_000), "UserPromptSubmit")
    assert 3_000 < len(context) <= claude_hook.MAX_CONTEXT_CHARS
    assert context.endswith("</reasonlessons-recall>\n")  # whole lessons dropped, never a cut block


# -- PreToolUse ----------------------------------------------------------------------------------


def test_pre_tool_use_injects_lessons_for_the_file_about_to_be_edited(repo: Path) -> None:
    payload = event(
        repo, "PreToolUse", tool_name="Edit", tool_input={"file_path": str(repo / "src/index.ts")}
    )
    context = assert_valid(claude_hook.handle(payload, now=NOW), "PreToolUse")
    assert "## esm-imports (project lesson)" in context


def test_pre_tool_use_injects_lessons_for_the_command_about_to_run(repo: Path) -> None:
    payload = event(repo, "PreToolUse", tool_name="Bash", tool_input={"command": "npx tsc --noEmit"})
    assert "## esm-imports" in assert_valid(claude_hook.handle(payload, now=NOW), "PreToolUse")


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [("Glob", {"pattern": "**/*.ts"}), ("Read", {"file_path": ""}), ("Bash", "npm test"), ("Read", None)],
)
def test_pre_tool_use_without_a_file_or_command_prints_nothing(
    repo: Path, tool: str, tool_input: object
) -> None:
    payload = event(repo, "PreToolUse", tool_name=tool, tool_input=tool_input)
    assert claude_hook.handle(payload, now=NOW) is None


def test_a_lesson_is_injected_once_per_session_across_events(repo: Path) -> None:
    first = claude_hook.handle(event(repo, "UserPromptSubmit", prompt=PROMPT), now=NOW)
    assert "## testing" in assert_valid(first, "UserPromptSubmit")
    again = event(
        repo, "PreToolUse", tool_name="Write", tool_input={"file_path": str(repo / "tests/foo.test.ts")}
    )
    assert claude_hook.handle(again, now=NOW) is None
    other_session = {**again, "session_id": "s-2"}
    assert "## testing" in assert_valid(claude_hook.handle(other_session, now=NOW), "PreToolUse")


# -- PostToolUse / PostToolUseFailure: loop detection ---------------------------------------------


def failure(repo: Path, command: str = "npm test", **extra: Any) -> dict[str, Any]:
    fields = {"tool_name": "Bash", "tool_input": {"command": command, "description": "Run tests"}, **extra}
    return event(repo, "PostToolUseFailure", error="Command exited with non-zero status code 1", **fields)


def test_the_same_call_failing_twice_in_a_row_is_a_loop(repo: Path) -> None:
    assert claude_hook.handle(failure(repo), now=NOW) is None
    retry = failure(
        repo, "npm   test", tool_input={"command": "npm   test", "description": "Run tests again"}
    )
    context = assert_valid(claude_hook.handle(retry, now=NOW), "PostToolUseFailure")
    assert context.startswith("[LOOP DETECTED]")
    assert "Bash" in context
    assert "(npm test)" in context
    assert "2 times in a row" in context
    third = assert_valid(claude_hook.handle(failure(repo), now=NOW), "PostToolUseFailure")
    assert "3 times in a row" in third


@pytest.mark.parametrize(
    "response",
    [
        {"is_error": True},
        "Error: ENOENT: no such file",
        {"success": False},
        {"exit_code": 2},
        {"isError": True},
    ],
)
def test_post_tool_use_failures_are_read_from_the_tool_response(repo: Path, response: object) -> None:
    payload = event(
        repo, "PostToolUse", tool_name="Read", tool_input={"file_path": "a.ts"}, tool_response=response
    )
    assert claude_hook.handle(payload, now=NOW) is None
    context = assert_valid(claude_hook.handle(payload, now=NOW), "PostToolUse")
    assert "(a.ts)" in context


def test_a_success_in_between_breaks_the_streak(repo: Path) -> None:
    ok = event(
        repo,
        "PostToolUse",
        tool_name="Edit",
        tool_input={"file_path": "package.json"},
        tool_response={"filePath": "package.json", "success": True},
    )
    assert claude_hook.handle(failure(repo), now=NOW) is None
    assert claude_hook.handle(ok, now=NOW) is None
    assert claude_hook.handle(failure(repo), now=NOW) is None


def test_different_arguments_sessions_and_interrupts_are_not_loops(repo: Path) -> None:
    assert claude_hook.handle(failure(repo, "npm test"), now=NOW) is None
    assert claude_hook.handle(failure(repo, "npm run test"), now=NOW) is None
    assert claude_hook.handle({**failure(repo, "npm run test"), "session_id": "s-other"}, now=NOW) is None
    assert claude_hook.handle(failure(repo, "npm run test", is_interrupt=True), now=NOW) is None
    assert claude_hook.handle(failure(repo, "npm run test"), now=NOW) is None


def test_successes_after_successes_never_write_state(repo: Path) -> None:
    ok = event(
        repo, "PostToolUse", tool_name="Read", tool_input={"file_path": "a"}, tool_response={"type": "text"}
    )
    for _ in range(3):
        assert claude_hook.handle(ok, now=NOW) is None
    assert not (repo / ".reasonix" / "state" / claude_loops.STATE_FILE).exists()


def test_loop_state_is_git_ignored_small_and_survives_damage(repo: Path) -> None:
    state = repo / ".reasonix" / "state"
    claude_hook.handle(failure(repo), now=NOW)
    assert (state / ".gitignore").exists()
    (state / claude_loops.STATE_FILE).write_bytes(b"\x00{not json")
    assert claude_hook.handle(failure(repo), now=NOW) is None  # the damaged ring starts over
    assert "LOOP" in assert_valid(claude_hook.handle(failure(repo), now=NOW), "PostToolUseFailure")
    for i in range(claude_loops.MAX_SESSIONS + 10):
        claude_hook.handle({**failure(repo), "session_id": f"many-{i}"}, now=NOW)
    doc = json.loads((state / claude_loops.STATE_FILE).read_bytes())
    assert len(doc["data"]["sessions"]) == claude_loops.MAX_SESSIONS
    assert all(len(s["calls"]) <= claude_loops.RING for s in doc["data"]["sessions"].values())


def test_call_keys_ignore_volatile_arguments_only() -> None:
    key = claude_loops.call_key
    assert key("Bash", {"command": "npm  test", "description": "a"}) == key("Bash", {"command": "npm test"})
    assert key("Bash", {"command": "npm test"}) != key("Bash", {"command": "npm run test"})
    assert key("Bash", {"command": "x"}) != key("Zsh", {"command": "x"})
    assert key("Read", {"file_path": "a", "limit": 5}) != key("Read", {"file_path": "a"})


# -- SessionEnd ----------------------------------------------------------------------------------


def test_session_end_hands_the_transcript_to_the_spawner(repo: Path) -> None:
    transcript = repo / "t.jsonl"
    transcript.write_text("{}\n")
    calls: list[tuple[str, str, str]] = []
    out = claude_hook.handle(event(repo, "SessionEnd", reason="other"), spawn=lambda *a: calls.append(a))
    assert out is None
    assert calls == [(str(repo), str(transcript), "s-1")]
    calls.clear()
    claude_hook.handle(
        event(repo, "SessionEnd", transcript_path=str(repo / "missing.jsonl")), spawn=calls.append
    )
    assert calls == []


def test_session_end_runs_the_capture_pipeline_on_the_transcript(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonlessons.capture import pipeline

    transcript = repo / "t.jsonl"
    transcript.write_text("{}\n")
    seen: dict[str, Any] = {}

    def fake_capture(project: Any, paths: Any, **kwargs: Any) -> None:
        seen.update(root=project.loc.root, paths=paths, **kwargs)

    monkeypatch.setattr(pipeline, "capture", fake_capture)
    assert claude_hook.handle(event(repo, "SessionEnd"), now=NOW) is None
    assert seen["root"] == repo.resolve()
    assert seen["paths"] == [transcript]
    assert (seen["agent"], seen["idle_seconds"], seen["now"]) == ("claude-code", 0.0, NOW)


def test_session_end_capture_really_reads_a_claude_code_transcript(repo: Path) -> None:
    source = RESOURCES / "capture" / "claude-code" / "writ-and-correction.jsonl"
    transcript = repo / "session.jsonl"
    transcript.write_bytes(source.read_bytes())
    payload = event(repo, "SessionEnd", transcript_path=str(transcript))
    report = claude_capture.capture_transcript(claude_hook.Hook(payload, now=NOW), str(transcript))
    assert report.files == 1
    assert (repo / ".reasonix" / "state" / "capture-checkpoints.json").exists()


# -- where the repository is ---------------------------------------------------------------------


def test_root_is_repo_then_project_dir_then_cwd(repo: Path, tmp_path: Path) -> None:
    nested = repo / "src"
    assert claude_hook.project_root({"cwd": str(nested)}, None, {}) == str(repo.resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(elsewhere)}
    assert claude_hook.project_root({"cwd": str(nested)}, None, env) == str(elsewhere.resolve())
    assert claude_hook.project_root({"cwd": str(elsewhere)}, str(repo), env) == str(repo.resolve())
    gone = {"CLAUDE_PROJECT_DIR": str(tmp_path / "deleted")}
    assert claude_hook.project_root({"cwd": str(nested)}, None, gone) == str(repo.resolve())


# -- the command: bad input, injected failures, usage errors ----------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   \n",
        b"not json",
        b'{"hook_event_name": ',
        b"[1, 2]",
        b'"UserPromptSubmit"',
        b"\xff\xfe\x00",
        b'{"hook_event_name": "Nope"}',
        b'{"hook_event_name": null}',
        b"[" * 100_000,
    ],
)
def test_malformed_hook_input_exits_0_and_prints_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    monkeypatch.chdir(repo)
    assert run_cli(monkeypatch, capsys, data) == (0, "", "")


@pytest.mark.parametrize(
    "error", [RuntimeError("boom"), OSError(28, "No space"), MemoryError(), KeyboardInterrupt()]
)
def test_any_internal_error_exits_0_and_prints_nothing(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: BaseException,
) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(Recaller, "recall", explode)
    monkeypatch.setattr(claude_loops, "observe", explode)
    data = json.dumps(event(repo, "UserPromptSubmit", prompt=PROMPT)).encode()
    assert run_cli(monkeypatch, capsys, data) == (0, "", "")
    data = json.dumps(failure(repo)).encode()
    assert run_cli(monkeypatch, capsys, data) == (0, "", "")


def test_debug_variable_shows_the_swallowed_traceback(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(Recaller, "recall", lambda *a, **k: 1 / 0)
    monkeypatch.setenv(hook.DEBUG_ENV, "1")
    code, out, err = run_cli(
        monkeypatch, capsys, json.dumps(event(repo, "UserPromptSubmit", prompt=PROMPT)).encode()
    )
    assert (code, out) == (0, "")
    assert "ZeroDivisionError" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["codex"], "unknown agent"),
        (["claude-code", "--budget", "0"], "--budget"),
        (["claude-code", "--budget", "many"], "--budget"),
        (["claude-code", "--repo", "/nonexistent/x"], "--repo"),
        (["claude-code", "--bogus"], "unrecognized"),
    ],
)
def test_usage_errors_exit_1_never_2(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(event(repo, "SessionEnd")).encode()))
    )
    code = hook.main(argv)
    out, err = capsys.readouterr()
    assert code == 1  # exit 2 would make Claude Code block the prompt or tool call
    assert out == ""
    assert message in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert hook.main(["--help"]) == 0
    assert "--wait" in capsys.readouterr().out


def test_the_cli_passes_wait_and_budget(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(claude_hook, "handle", lambda payload, **kw: seen.append(kw))
    data = json.dumps(event(repo, "SessionEnd")).encode()
    run_cli(monkeypatch, capsys, data, "--budget", "50")
    run_cli(monkeypatch, capsys, data, "--wait", f"--repo={repo}")
    assert seen[0]["budget"] == 50
    assert seen[0]["spawn"] is hook.spawn_capture
    assert seen[0]["repo"] is None
    assert seen[1]["spawn"] is None
    assert seen[1]["repo"] == str(repo)


def test_typer_command_runs_the_same_hook(
    repo: Path, cli_invoke: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.dumps(event(repo, "UserPromptSubmit", prompt=PROMPT)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    result = cli_invoke("hook", "claude-code", "--repo", repo)
    assert "## testing" in assert_valid(json.loads(result.stdout), "UserPromptSubmit")
    assert cli_invoke("hook", "codex", expect=1).stdout == ""


def test_a_repository_without_lessons_is_left_untouched(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Recaller, "recall", lambda *a, **k: pytest.fail("recall ran without any lessons"))
    payload = event(git_repo, "UserPromptSubmit", prompt=PROMPT)
    assert claude_hook.handle(payload, now=NOW) is None
    assert not (git_repo / ".reasonix").exists()


def test_the_tool_layer_refusing_other_calls_the_same_way_is_a_loop(repo: Path) -> None:
    refused = (
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    )

    def write(path: str) -> dict[str, Any]:
        return event(
            repo, "PostToolUseFailure", tool_name="Write", tool_input={"file_path": path}, error=refused
        )

    assert claude_hook.handle(write("a.ts"), now=NOW) is None
    context = assert_valid(claude_hook.handle(write("b.ts"), now=NOW), "PostToolUseFailure")
    assert context.startswith("[LOOP DETECTED] The tool layer has now refused 2 calls in a row")
    assert "File has not been read yet" in context
    # Plain failures of other calls are not refusals: no loop (see the test above).
    assert claude_hook.handle(failure(repo, "npm run lint"), now=NOW) is None
