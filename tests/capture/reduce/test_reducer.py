from __future__ import annotations

import dataclasses
import pickle

import pytest

from reasonlessons.capture.reduce.observations import (
    ArgsFix,
    Call,
    CommandFix,
    Correction,
    CreatedFiles,
    EditFix,
    RepeatedFailure,
    ToolRuleSeen,
    Verification,
    Writ,
    new_call,
)
from reasonlessons.capture.reduce.reducer import SessionReducer
from reasonlessons.sessions.events import Event
from reasonlessons.sessions.toolrules import EDIT_MUST_MATCH, NO_SUCH_COMMAND, ONE_COMMAND_PER_MESSAGE
from tests.capturesupport import CAPTURE, events_of, observe
from tests.paths import RESOURCES

V1 = CAPTURE / "reasonix-v1"
TEXTKIT = RESOURCES / "aider" / "textkit.aider.chat.history.md"
TEXTKIT_REPO = RESOURCES / "aider" / "textkit"
CODEX_LOOP = CAPTURE / "codex" / "rollout-2026-05-05T08-00-00-55555555-6666-4777-8888-999999999999.jsonl"


def _only(items: list[object], cls: type) -> list[object]:
    return [i for i in items if isinstance(i, cls)]


def test_failed_command_then_similar_working_command_is_a_command_fix() -> None:
    (obs,) = observe(V1 / "vitest-not-found.events.jsonl")
    assert obs.tool_calls == 5
    (fix,) = _only(obs.items, CommandFix)
    assert isinstance(fix, CommandFix)
    assert fix.failure.call.invocation is not None
    assert fix.failure.call.invocation.text == "npm test"
    assert fix.failure.exit_code == 127
    assert fix.failure.line == "sh: 1: vitest: not found"
    assert fix.fix.invocation is not None
    assert fix.fix.invocation.text == "npx vitest run"
    (verification,) = _only(obs.items, Verification)
    assert isinstance(verification, Verification)
    assert verification.count == 2
    assert verification.invocation.base == "npx vitest run"


def test_rule_stating_error_fixed_by_a_small_edit_is_an_edit_fix() -> None:
    (obs,) = observe(V1 / "esm-fix.events.jsonl")
    (fix,) = _only(obs.items, EditFix)
    assert isinstance(fix, EditFix)
    assert "TS2835" in (fix.failure.line or "")
    (edit,) = fix.edits
    assert (edit.path, edit.before, edit.after) == ("src/drain.ts", '"./queue"', '"./queue.js"')
    assert not _only(obs.items, CommandFix)


def test_a_failing_assertion_fixed_by_an_edit_is_no_lesson() -> None:
    (obs,) = observe(V1 / "assertion.events.jsonl")
    assert not _only(obs.items, EditFix)
    assert not _only(obs.items, CommandFix)
    assert not _only(obs.items, RepeatedFailure)


def test_the_same_call_failing_twice_unfixed_is_a_repeated_failure() -> None:
    (obs,) = observe(CODEX_LOOP)
    (loop,) = _only(obs.items, RepeatedFailure)
    assert isinstance(loop, RepeatedFailure)
    assert loop.streak == 2
    assert loop.count == 2
    assert loop.failure.call.invocation is not None
    assert loop.failure.call.invocation.base == "npx eslint"
    assert len(loop.refs) == 2


def test_writs_corrections_and_created_files_followed_through_a_move() -> None:
    (obs,) = observe(CAPTURE / "claude-code" / "writ-and-correction.jsonl")
    (writ,) = _only(obs.items, Writ)
    assert isinstance(writ, Writ)
    assert writ.title == "changelog"
    assert writ.text.startswith("Every user-facing change gets a line in `CHANGELOG.md`")
    (correction,) = _only(obs.items, Correction)
    assert isinstance(correction, Correction)
    assert correction.text == "Tests go in tests/ as <name>.test.ts, never next to the source in src/"
    (created,) = _only(obs.items, CreatedFiles)
    assert isinstance(created, CreatedFiles)
    assert created.paths == ("tests/parser-empty.test.ts",)  # written in src/, then `git mv`ed
    assert obs.successful


def test_secrets_in_stated_lessons_are_redacted_on_sight() -> None:
    (obs,) = observe(CAPTURE / "claude-code" / "secrets.jsonl")
    (writ,) = _only(obs.items, Writ)
    assert isinstance(writ, Writ)
    assert "ghp_" not in writ.text
    assert "[REDACTED:github-token]" in writ.text


def test_observations_are_deterministic() -> None:
    first = observe(V1 / "esm-fix.events.jsonl")
    second = observe(V1 / "esm-fix.events.jsonl")
    assert first == second


def _event(seq: int, kind: str, **fields: object) -> Event:
    return Event(
        agent="test", session_id="s", seq=seq, role="tool", kind=kind, raw_ref=f"log:{seq}", **fields
    )  # type: ignore[arg-type]


def test_non_shell_tool_refused_then_working_with_other_arguments_is_an_args_fix() -> None:
    reducer = SessionReducer("test", "s")
    reducer.feed(_event(0, "tool_call", tool_name="list_directory", tool_args={"path": "."}, call_id="a"))
    reducer.feed(
        _event(
            1,
            "tool_result",
            tool_name="list_directory",
            call_id="a",
            is_error=True,
            error_kind="tool",
            text="ERROR: Access denied - path outside allowed directories: /x not in /srv/data",
            error_sig="ERROR: Access denied - path outside allowed directories: <path> not in <path>",
        )
    )
    reducer.feed(_event(2, "tool_call", tool_name="list_allowed_directories", tool_args={}, call_id="b"))
    reducer.feed(_event(3, "tool_result", tool_name="list_allowed_directories", call_id="b", is_error=False))
    reducer.feed(
        _event(4, "tool_call", tool_name="list_directory", tool_args={"path": "/srv/data"}, call_id="c")
    )
    reducer.feed(_event(5, "tool_result", tool_name="list_directory", call_id="c", is_error=False))
    (fix,) = _only(reducer.finish().items, ArgsFix)
    assert isinstance(fix, ArgsFix)
    assert fix.via == ("list_allowed_directories",)
    assert dict(fix.fix.args) == {"path": "/srv/data"}


def test_reading_a_missing_file_then_another_is_no_args_fix() -> None:
    reducer = SessionReducer("test", "s")
    reducer.feed(_event(0, "tool_call", tool_name="read", tool_args={"path": "a.ts"}, call_id="a"))
    reducer.feed(
        _event(
            1,
            "tool_result",
            call_id="a",
            is_error=True,
            error_kind="tool",
            error_sig="ENOENT: no such file <path>",
        )
    )
    reducer.feed(_event(2, "tool_call", tool_name="read", tool_args={"path": "b.ts"}, call_id="b"))
    reducer.feed(_event(3, "tool_result", call_id="b", is_error=False))
    assert reducer.finish().items == []


def test_memory_stays_bounded_on_a_huge_session() -> None:
    reducer = SessionReducer("test", "s")
    seq = 0
    for i in range(20_000):
        command = f"npx vitest run tests/t{i}.test.ts" if i % 2 else f"tool{i % 997} --flag"
        reducer.feed(
            _event(seq, "tool_call", tool_name="shell", tool_args={"command": command}, call_id=f"c{i}")
        )
        failed = i % 3 == 0
        reducer.feed(
            _event(
                seq + 1,
                "tool_result",
                call_id=f"c{i}",
                is_error=failed,
                exit_code=127 if failed else 0,
                error_sig=f"tool{i % 997}: not found" if failed else None,
                text="x" * 1000,
            )
        )
        seq += 2
    state = vars(reducer)
    assert len(state["_pending"]) <= 64
    assert len(state["_open"]) <= 16
    assert len(state["_stats"]) <= 256
    assert len(state["_verified"]) <= 32
    obs = reducer.finish()
    assert obs.tool_calls == 20_000
    assert len(obs.items) <= 64 + 32 + 256 + 1


def test_events_from_adapters_feed_without_error_for_every_resource_log() -> None:
    for path in sorted((CAPTURE).rglob("*.jsonl")):
        if path.name.endswith(".events.jsonl") or "codex" in path.parts or "claude-code" in path.parts:
            assert events_of(path)
            assert observe(path)


def test_aider_refusals_are_tool_rules_per_session() -> None:
    """tests/resources/aider: a SEARCH block that did not match (then one that did), invalid and
    multi-line commands, and a udiff hunk refused four times in a row."""
    first, second, third, fourth = observe(TEXTKIT, root=TEXTKIT_REPO)
    (edit,) = _only(first.items, ToolRuleSeen)
    assert isinstance(edit, ToolRuleSeen)
    assert (edit.rule, edit.path, edit.count, edit.longest) == (EDIT_MUST_MATCH, "textkit/slug.py", 1, 1)
    assert edit.examples == ("def slugify(text):",)
    assert edit.matched == "def slugify(text: str) -> str:"  # what the next edit found there
    assert not _only(second.items, ToolRuleSeen)
    rules = {r.rule.key: r for r in _only(third.items, ToolRuleSeen) if isinstance(r, ToolRuleSeen)}
    assert rules[NO_SUCH_COMMAND.key].examples == ("/grep",)
    assert rules[ONE_COMMAND_PER_MESSAGE.key].examples == ("/find + /replace",)
    (loop,) = _only(fourth.items, ToolRuleSeen)
    assert isinstance(loop, ToolRuleSeen)
    assert (loop.count, loop.longest, loop.line) == (4, 4, "UnifiedDiffNoMatch: hunk failed to apply!")


def test_aider_command_failures_pair_with_their_fix() -> None:
    first, _, third, _ = observe(TEXTKIT, root=TEXTKIT_REPO)
    for obs in (first, third):
        (fix,) = _only(obs.items, CommandFix)
        assert isinstance(fix, CommandFix)
        assert (fix.failure.call.key, fix.fix.key) == ("shell:pytest -q", "shell:python -m pytest -q")
        assert fix.failure.line == "ModuleNotFoundError: No module named 'textkit'"


def test_a_coded_error_whose_output_proposes_the_fix_fixed_by_an_edit_is_an_edit_fix() -> None:
    reducer = SessionReducer("test", "s")
    error = (
        "error[E0425]: cannot find function `sleep` in this scope\n --> src/main.rs:247:13\n"
        "help: consider importing one of these functions\n1 + use std::thread::sleep;"
    )
    run = {"command": "cargo run -- --start-bpm 60"}
    reducer.feed(_event(0, "tool_call", tool_name="shell", tool_args=run, call_id="a"))
    reducer.feed(
        _event(
            1,
            "tool_result",
            call_id="a",
            is_error=True,
            error_kind="exit",
            text=error,
            error_sig="error[E0425]: cannot find function <str> in this scope",
        )
    )
    edit = {
        "file_path": "src/main.rs",
        "old_string": "use std::io;\n",
        "new_string": "use std::io;\nuse std::thread::sleep;\n",
    }
    reducer.feed(_event(2, "tool_call", tool_name="edit", tool_args=edit, call_id="b"))
    reducer.feed(_event(3, "tool_result", call_id="b", is_error=False))
    reducer.feed(_event(4, "tool_call", tool_name="shell", tool_args=run, call_id="c"))
    reducer.feed(_event(5, "tool_result", call_id="c", is_error=False))
    (fix,) = _only(reducer.finish().items, EditFix)
    assert isinstance(fix, EditFix)
    assert fix.edits[0].path == "src/main.rs"


def test_a_success_closes_its_own_failure_far_back_and_forgets_the_evicted_ones() -> None:
    """Past the fix windows only a failure of the same call closes: found among 16 open ones."""
    reducer = SessionReducer("test", "s")
    seq = 0

    def shell(command: str, failed: bool) -> None:
        nonlocal seq
        reducer.feed(
            _event(seq, "tool_call", tool_name="shell", tool_args={"command": command}, call_id=str(seq))
        )
        reducer.feed(
            _event(
                seq + 1,
                "tool_result",
                tool_name="shell",
                call_id=str(seq),
                is_error=failed,
                exit_code=1 if failed else 0,
                text="boom" if failed else "ok",
            )
        )
        seq += 2

    shell("make lint", True)  # the oldest open failure: evicted below
    shell("npm run build", True)
    for n in range(15):
        shell(f"cat missing{n}.txt", True)
    for n in range(20):
        shell(f"echo {n}", False)  # far past every fix window
    expected = ["shell:npm run build", *(f"shell:cat missing{n}.txt" for n in range(15))]
    assert sorted(reducer._open_keys) == sorted(expected)
    assert "shell:make lint" not in reducer._open_keys
    shell("npm run build", False)
    assert "shell:npm run build" not in reducer._open_keys
    assert len(reducer._open) == 15 == sum(reducer._open_keys.values())
    assert reducer._stats["shell:npm run build"].resolved


def test_the_fast_call_constructor_equals_the_keyword_one() -> None:
    fields = {
        "seq": 3,
        "tool": "read",
        "key": "read:()",
        "ref": "f:2",
        "invocation": None,
        "args": (("p", "a"),),
    }
    fast = new_call(*fields.values(), command="")
    assert fast == Call(**fields)
    assert repr(fast) == repr(Call(**fields))
    assert pickle.loads(pickle.dumps(fast)) == fast
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.seq = 4  # type: ignore[misc]
