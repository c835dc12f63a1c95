"""Outcome evaluation: what a lesson advises, and the verdict a session gives it (unsure: none)."""

from __future__ import annotations

import datetime as dt

import pytest

from reasonlessons.learning.advice import read_advice
from reasonlessons.learning.outcomes import Recalled, evaluate, judge
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.lessons.model import Lesson
from reasonlessons.sessions.events import Event, Tokens

T0 = dt.datetime(2026, 5, 10, 9, 0, tzinfo=dt.UTC)


def lesson(body: str, description: str = "a lesson", **meta: object) -> Lesson:
    return Lesson(meta={"name": "x", "description": description, **meta}, body=body, scope="project")


def trace(*runs: tuple[str, bool, str | None], files: tuple[str, ...] = ()) -> SessionTrace:
    """A session of shell runs (command, ok, error signature), one a minute from T0, and file writes."""
    out = SessionTrace("claude-code", "s1", root="/repo")
    seq = 0
    for i, (command, ok, sig) in enumerate(runs):
        at = T0 + dt.timedelta(minutes=i)
        common = {"agent": "claude-code", "session_id": "s1", "raw_ref": f"log.jsonl:{i}", "ts": at}
        out.feed(Event(seq=seq, role="assistant", kind="tool_call", tool_name="shell",
                       tool_args={"command": command}, call_id=f"c{i}", **common))  # fmt: skip
        out.feed(Event(seq=seq + 1, role="tool", kind="tool_result", tool_name="shell", call_id=f"c{i}",
                       is_error=not ok, error_sig=sig, exit_code=None if ok else 1, **common))  # fmt: skip
        seq += 2
    for path in files:
        out.feed(Event(agent="claude-code", session_id="s1", seq=seq, role="assistant", kind="tool_call",
                       raw_ref="log.jsonl:99", tool_name="write",
                       tool_args={"file_path": f"/repo/{path}", "content": "x"}))  # fmt: skip
        seq += 1
    return out


COMMAND_FIX = (
    "- Run `npm test`, not `npx jest`: here `npx jest` fails with `sh: 1: jest: not found` (exit 127)."
)


def test_advice_is_read_from_the_words_capture_writes() -> None:
    advice = read_advice(
        lesson(COMMAND_FIX, "`npx jest` fails here with `jest: not found`; run `npm test` instead")
    )
    assert [i.base for i in advice.advised] == ["npm test"]
    assert [i.base for i in advice.avoided] == ["npx jest"]
    assert "sh: <n>: jest: not found" in advice.errors
    edit_fix = read_advice(
        lesson("- `tsc` fails with `src/a.ts(1,2): error TS2835: Relative import paths need explicit file "
               "extensions` (exit 2).\n- Fix it as the agent did in `src/a.ts`: `'./b'` → `'./b.js'`.")
    )  # fmt: skip
    assert [i.base for i in edit_fix.verify] == ["tsc"]
    assert edit_fix.advised == ()  # neither the path nor the code snippet is a command
    repeated = read_advice(
        lesson("- Do not retry it.", "`make e2e` cannot run here: `docker: command not found`")
    )
    assert [i.base for i in repeated.avoided] == ["make e2e"]
    assert read_advice(lesson("Keep functions small.")).checkable is False


@pytest.mark.parametrize(
    ("runs", "ended_well", "expected"),
    [
        ([("npm test -- tests/q.test.ts", True, None)], True, "success"),
        ([("npm run test", True, None)], True, "success"),  # the same script, spelled out
        ([("npx jest", False, "sh: <n>: jest: not found"), ("npm test", True, None)], True, "failure"),
        ([("yarn vitest", False, "sh: <n>: jest: not found")], True, "failure"),  # the warned error itself
        ([("npm test", False, "npm ERR! Missing script: <str>")], False, "failure"),  # advice cannot run
        ([("npm test", False, "AssertionError: expected <n> to be <n>")], False, None),  # the code's fault
        ([("npm test", True, None)], False, None),  # followed, but the session did not end well
        ([("ls", True, None)], True, None),  # advice not followed, nothing warned happened
        ([("npx jest", True, None)], True, None),  # the warned command worked: staleness, not a verdict
    ],
)
def test_verdicts(runs: list[tuple[str, bool, str | None]], ended_well: bool, expected: str | None) -> None:
    outcome = judge(Recalled(lesson(COMMAND_FIX)), trace(*runs), ended_well=ended_well)
    assert (outcome.verdict if outcome else None) == expected
    if outcome:
        assert outcome.refs
        assert outcome.key == "project:x"


def test_missing_script_is_an_advice_that_cannot_run() -> None:
    t = trace(("npm test", False, None))
    t.runs[0] = t.runs[0].__class__(**{**t.runs[0].__dict__, "cannot_run": True})
    outcome = judge(Recalled(lesson(COMMAND_FIX)), t, ended_well=False)
    assert outcome is not None
    assert outcome.verdict == "failure"
    assert "could not run" in outcome.reason


def test_only_what_happened_after_the_injection_counts() -> None:
    runs = trace(("npx jest", False, "sh: <n>: jest: not found"), ("npm test", True, None))
    late = Recalled(lesson(COMMAND_FIX), since=T0 + dt.timedelta(seconds=30))
    early = Recalled(lesson(COMMAND_FIX), since=T0 - dt.timedelta(seconds=30))
    assert [o.verdict for o in evaluate(runs, [late], successful=True)] == ["success"]
    assert [o.verdict for o in evaluate(runs, [early], successful=True)] == ["failure"]


def test_a_verifying_command_that_passes_counts_as_success() -> None:
    body = (
        "- `npx tsc --noEmit` fails with `error TS2835: Relative import paths need explicit file extensions`."
    )
    ok = trace(("npx tsc --noEmit", True, None))
    hit = trace(
        ("npx tsc --noEmit", False, "error TS2835: Relative import paths need explicit file extensions")
    )
    assert judge(Recalled(lesson(body)), ok, ended_well=True).verdict == "success"  # type: ignore[union-attr]
    assert judge(Recalled(lesson(body)), hit, ended_well=True).verdict == "failure"  # type: ignore[union-attr]


def test_a_layout_lesson_succeeds_when_files_go_where_it_says() -> None:
    layout = lesson("- Put new tests in `tests/`.", triggers={"files": ["tests/**/*.test.ts"]})
    there = trace(("ls", True, None), files=("tests/q.test.ts",))
    elsewhere = trace(("ls", True, None), files=("src/q.test.ts",))
    assert judge(Recalled(layout), there, ended_well=True).verdict == "success"  # type: ignore[union-attr]
    assert judge(Recalled(layout), elsewhere, ended_well=True) is None


def test_trace_keeps_tokens_terms_and_times() -> None:
    t = SessionTrace("claude-code", "s1")
    base = {"agent": "claude-code", "session_id": "s1", "raw_ref": "r"}
    t.feed(Event(seq=0, role="user", kind="text", text="Fix the flaky queue drain test", ts=T0, **base))
    for seq, call_id in ((1, "m1"), (2, "m1"), (3, None), (4, None)):
        t.feed(
            Event(seq=seq, role="assistant", kind="usage", call_id=call_id, tokens=Tokens(100, 10), **base)
        )
    assert t.tokens == Tokens(300, 30)  # the snapshot m1 counted once, loose records added up
    assert {"flaky", "queue", "drain", "test"} <= set(t.terms)
    assert "fix" not in t.terms  # generic words say nothing about the task
    assert t.started == t.ended == T0
