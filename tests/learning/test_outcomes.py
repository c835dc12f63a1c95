"""Outcome evaluation by what a lesson claims: confirmed, contradicted (direct or soft), or nothing."""

from __future__ import annotations

import datetime as dt
import json
import pickle
from pathlib import Path

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
        ([("npm test -- tests/q.test.ts", True, None)], True, "confirmed"),  # the advised command works
        ([("npm run test", True, None)], True, "confirmed"),  # the same script, spelled out
        ([("npm test", True, None)], False, "confirmed"),  # it worked, whatever else failed later
        # The warned command failed the way the lesson says: that confirms it, never counts against it.
        ([("npx jest", False, "sh: <n>: jest: not found"), ("npm test", True, None)], True, "confirmed"),
        ([("npx jest", False, "sh: <n>: jest: not found")], False, "confirmed"),
        # The warned command now passes: the lesson's own claim is false.
        ([("npx jest", True, None)], True, "contradicted/direct"),
        ([("npx jest", True, None), ("npm test", True, None)], True, "contradicted/direct"),
        # The advised command cannot run here: the advice is wrong here.
        ([("npm test", False, "npm ERR! Missing script: <str>")], False, "contradicted/direct"),
        # The warned command runs now, but fails otherwise: the warned failure did not happen.
        ([("npx jest", False, "FAIL tests/q.test.ts AssertionError")], True, "contradicted/soft"),
        ([("npm test", False, "AssertionError: expected <n> to be <n>")], False, None),  # the code's fault
        ([("yarn vitest", False, "sh: <n>: jest: not found")], True, None),  # another command's failure
        ([("ls", True, None)], True, None),  # nothing the lesson speaks of
        # Both ways in one session: the environment changed mid-session, nothing to learn.
        ([("npx jest", False, "sh: <n>: jest: not found"), ("npx jest", True, None)], True, None),
    ],
)
def test_decisions(runs: list[tuple[str, bool, str | None]], ended_well: bool, expected: str | None) -> None:
    outcome = judge(Recalled(lesson(COMMAND_FIX)), trace(*runs), ended_well=ended_well)
    got = None if outcome is None else "/".join(p for p in (outcome.verdict, outcome.weight) if p)
    assert got == expected
    if outcome:
        assert outcome.refs
        assert outcome.key == "project:x"
        assert outcome.at is not None


def test_an_advised_command_that_cannot_run_contradicts_the_lesson() -> None:
    t = trace(("npm test", False, "npm ERR! Missing script: <str>"))
    t.runs[0] = t.runs[0].__class__(**{**t.runs[0].__dict__, "cannot_run": True})
    outcome = judge(Recalled(lesson(COMMAND_FIX)), t, ended_well=False)
    assert outcome is not None
    assert (outcome.verdict, outcome.weight) == ("contradicted", "direct")
    assert "could not run" in outcome.reason


def test_the_issue_lesson_reads_as_a_claim_that_npm_test_fails() -> None:
    """ "`npm test` fails here (vitest not found); run `npx vitest run`": confirmed while npm test keeps
    failing, contradicted once it passes."""
    issue = lesson(
        "- Then run `npx vitest run`.", "`npm test` fails here (vitest not found); run `npx vitest run`"
    )
    advice = read_advice(issue)
    assert [i.base for i in advice.avoided] == ["npm test"]
    assert [i.base for i in advice.advised] == ["npx vitest run"]
    failing = trace(("npm test", False, "sh: <n>: vitest: not found"), ("npx vitest run", True, None))
    passing = trace(("npm test", True, None))
    assert judge(Recalled(issue), failing, ended_well=True).verdict == "confirmed"  # type: ignore[union-attr]
    decided = judge(Recalled(issue), passing, ended_well=True)
    assert decided is not None
    assert (decided.verdict, decided.weight) == ("contradicted", "direct")
    assert "passed" in decided.reason


def test_only_what_happened_after_the_injection_counts() -> None:
    runs = trace(("npx jest", True, None), ("npm test", True, None))
    late = Recalled(lesson(COMMAND_FIX), since=T0 + dt.timedelta(seconds=30))
    early = Recalled(lesson(COMMAND_FIX), since=T0 - dt.timedelta(seconds=30))
    assert [o.verdict for o in evaluate(runs, [late], successful=True)] == ["confirmed"]
    assert [o.verdict for o in evaluate(runs, [early], successful=True)] == ["contradicted"]


def test_a_verifying_command_that_passes_confirms_an_injected_lesson() -> None:
    body = (
        "- `npx tsc --noEmit` fails with `error TS2835: Relative import paths need explicit file extensions`."
    )
    ok = trace(("npx tsc --noEmit", True, None))
    hit = trace(
        ("npx tsc --noEmit", False, "error TS2835: Relative import paths need explicit file extensions")
    )
    assert judge(Recalled(lesson(body)), ok, ended_well=True).verdict == "confirmed"  # type: ignore[union-attr]
    assert judge(Recalled(lesson(body)), ok, ended_well=False) is None
    # The check failing as the lesson describes says the advice was not followed yet: no decision.
    assert judge(Recalled(lesson(body)), hit, ended_well=True) is None
    # A lesson that was not injected is judged on its claims about the repository only.
    assert judge(Recalled(lesson(body), recalled=False), ok, ended_well=True) is None


def test_a_layout_lesson_is_confirmed_when_files_go_where_it_says() -> None:
    layout = lesson("- Put new tests in `tests/`.", triggers={"files": ["tests/**/*.test.ts"]})
    there = trace(("ls", True, None), files=("tests/q.test.ts",))
    elsewhere = trace(("ls", True, None), files=("src/q.test.ts",))
    assert judge(Recalled(layout), there, ended_well=True).verdict == "confirmed"  # type: ignore[union-attr]
    assert judge(Recalled(layout), elsewhere, ended_well=True) is None


def _said(*texts: str) -> SessionTrace:
    out = trace(("ls", True, None))
    for i, text in enumerate(texts):
        out.feed(Event(agent="claude-code", session_id="s1", seq=100 + i, role="user", kind="text", text=text,
                       raw_ref=f"log.jsonl:{100 + i}", ts=T0 + dt.timedelta(minutes=5)))  # fmt: skip
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("don't use `npm test` here, run the file directly", "a user said not to run `npm test`"),
        ("Please never run npm test in this repo", "a user said not to run `npm test`"),
        ("no, run `npx jest` instead", "a user said to run `npx jest`"),
        ("run `npx jest` to see the failures", None),  # a task, not a correction
        ("thanks, that worked", None),
    ],
)
def test_a_user_who_says_otherwise_softly_contradicts_an_injected_lesson(
    text: str, expected: str | None
) -> None:
    outcome = judge(Recalled(lesson(COMMAND_FIX)), _said(text), ended_well=True)
    if expected is None:
        assert outcome is None
        return
    assert outcome is not None
    assert (outcome.verdict, outcome.weight, outcome.reason) == ("contradicted", "soft", expected)
    assert outcome.refs == ("log.jsonl:100",)
    assert judge(Recalled(lesson(COMMAND_FIX), recalled=False), _said(text), ended_well=True) is None


def test_trace_keeps_tokens_terms_and_times() -> None:
    t = SessionTrace("claude-code", "s1")
    base = {"agent": "claude-code", "session_id": "s1", "raw_ref": "r"}
    t.feed(Event(seq=0, role="user", kind="text", text="Fix the flaky queue drain test", ts=T0, **base))
    for seq, call_id in ((1, "m1"), (2, "m1"), (3, None), (4, None)):
        t.feed(
            Event(seq=seq, role="assistant", kind="usage", call_id=call_id, tokens=Tokens(100, 10), **base)
        )
    assert t.tokens == Tokens(300, 30)  # the snapshot m1 counted once, loose records added up
    before = pickle.dumps(t)
    t.seal()  # the session is over: the same figure, without one entry per response to ship
    assert t.tokens == Tokens(300, 30)
    assert len(pickle.dumps(t)) < len(before)
    assert {"flaky", "queue", "drain", "test"} <= set(t.terms)
    assert "fix" not in t.terms  # generic words say nothing about the task
    assert t.started == t.ended == T0


def test_a_shipped_trace_reads_as_the_one_the_worker_sealed() -> None:
    """A pool worker's trace reaches the main process with its runs and messages packed, unpacked
    only when a lesson is judged: what the main process reads of it, and every verdict, is the same."""
    t = trace(("npx jest", False, "sh: <n>: jest: not found"), ("npm test", True, None), files=("src/a.ts",))
    t.feed(Event(agent="claude-code", session_id="s1", seq=90, role="user", kind="text",
                 raw_ref="log.jsonl:90", text="no, use npm test"))  # fmt: skip
    t.seal()
    shipped = pickle.loads(pickle.dumps(t))
    assert isinstance(shipped, SessionTrace)
    assert "runs" not in vars(shipped)  # still packed: summaries need none of it
    assert shipped.ran is True
    assert shipped.commands == t.commands == ["npx jest", "npm test"]
    assert (shipped.tokens, shipped.files, shipped.started, shipped.last_seq) == (
        t.tokens, t.files, t.started, t.last_seq
    )  # fmt: skip
    item = Recalled(lesson(COMMAND_FIX, "`npx jest` fails here; run `npm test` instead"), None)
    assert evaluate(shipped, [item]) == evaluate(t, [item])  # unpacked on first use
    assert shipped.runs == t.runs
    assert shipped.messages == t.messages
    assert shipped.successful is t.successful is True
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(t))))  # shipped twice, never unpacked
    assert again.runs == t.runs
    empty = SessionTrace("claude-code", "s2")
    empty.seal()
    assert pickle.loads(pickle.dumps(empty)).ran is False


def test_summaries_are_written_only_when_a_record_changes_them(tmp_path: Path) -> None:
    from reasonlessons.learning.link import Link
    from reasonlessons.learning.summaries import SUMMARIES_FILE, Summaries

    t = trace(("npm test", True, None))
    t.seal()
    doc = Summaries.load(tmp_path)
    doc.save()
    assert not (tmp_path / SUMMARIES_FILE).exists()  # nothing recorded: nothing written
    doc.record(t, Link({}), [], successful=True)
    doc.save()
    written = (tmp_path / SUMMARIES_FILE).read_bytes()
    (tmp_path / SUMMARIES_FILE).write_bytes(b"marker: the file was not rewritten")
    again = Summaries(tmp_path / SUMMARIES_FILE, json.loads(written)["data"])
    again.record(t, Link({}), [], successful=True)  # the same session captured again: no change
    again.save()
    assert (tmp_path / SUMMARIES_FILE).read_bytes() == b"marker: the file was not rewritten"
    again.record(t, Link({}), [], successful=False)  # a change: written
    again.save()
    data = json.loads((tmp_path / SUMMARIES_FILE).read_bytes())["data"]
    assert data["claude-code:s1"]["successful"] is False
