"""The Aider adapter: genuine histories (tests/resources/aider/, written by aider-chat 0.86.2), the
public ones in ../shared, and hand-written old, Windows and damaged ones (tests/resources/logs/aider/)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import Adapter, aider, detect
from reasonlessons.sessions.adapters._aider_session import session_id, started_at
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Tokens
from tests.paths import REPO_ROOT, RESOURCES
from tests.sessions.adapters import ReadLog

TEXTKIT = RESOURCES / "aider" / "textkit.aider.chat.history.md"
ARCHITECT = RESOURCES / "aider" / "architect.aider.chat.history.md"
OLD = RESOURCES / "logs" / "aider" / "old-windows.aider.chat.history.md"
DAMAGED = RESOURCES / "logs" / "aider" / "aider.chat.history.md"
PUBLIC = REPO_ROOT.parent / "shared" / "quality" / "aider" / "sessions"
NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def paris(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Histories hold local times: read them in one pinned zone."""
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _public(name: str) -> Path:
    path = PUBLIC / f"{name}.aider.chat.history.md"
    if not path.exists():
        pytest.skip("../shared/quality/aider is not beside this checkout")
    return path


def _calls(events: list[Event]) -> list[tuple[Event, Event | None]]:
    """Each tool call with its result (None when it got none)."""
    results = {e.call_id: e for e in events if e.kind == "tool_result"}
    return [(e, results.get(e.call_id)) for e in events if e.kind == "tool_call"]


def _shell(events: list[Event]) -> list[tuple[str, bool | None]]:
    return [
        (call.tool_args["command"], result.is_error if result else None)
        for call, result in _calls(events)
        if call.tool_name == "shell" and call.tool_args and not call.tool_args["command"].startswith("git ")
    ]


def test_detects_histories_by_content_not_by_name(tmp_path: Path) -> None:
    assert detect(TEXTKIT) is aider
    assert detect(OLD) is aider
    assert detect(DAMAGED) is aider  # no leading dot, cut at the top
    renamed = tmp_path / "chat-log.md"
    renamed.write_bytes(TEXTKIT.read_bytes())
    assert detect(renamed) is aider
    assert detect(RESOURCES / "logs" / "bad" / "notes.md") is None


def test_each_launch_is_a_session_in_file_order(read_log: ReadLog) -> None:
    events, stats = read_log(TEXTKIT)
    ids = list(dict.fromkeys(e.session_id for e in events))
    assert len(ids) == 4
    assert all(i.startswith("aider-2026-11-25T16-0") for i in ids)
    assert [e.seq for e in events] == list(range(len(events)))
    assert not stats.skipped
    assert stats.resume_line == 370  # the last launch line: a read resumes there


def test_launch_times_are_local_times_of_the_writer() -> None:
    line = "# aider chat started at 2025-01-03 09:06:34"
    assert started_at(line) == datetime(2025, 1, 3, 8, 6, 34, tzinfo=UTC)  # Paris is UTC+1 in January
    assert session_id(line) == "aider-2025-01-03T09-06-34"
    assert started_at("# aider chat started at yesterday") is None
    assert session_id("# aider chat started at yesterday") == "aider-yesterday"


def test_edits_that_applied_are_edit_calls_with_their_blocks(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    edits = [(c, r) for c, r in _calls(events) if c.tool_name == "edit" and r is not None and not r.is_error]
    first, result = edits[0]
    assert first.tool_args is not None
    assert first.tool_args["file_path"] == "textkit/slug.py"
    assert first.tool_args["old_string"].startswith("def slugify(text: str) -> str:")
    assert "def word_count(text: str) -> int:" in first.tool_args["new_string"]
    assert result.text == "Applied edit to textkit/slug.py"
    # The rename touched three files with four blocks: four calls, none of them repeated later.
    renamed = [c for c, _ in edits if "make_slug" in (c.tool_args or {}).get("new_string", "")]
    assert len(renamed) == 4


def test_a_search_block_that_did_not_match_is_a_harness_failure_of_its_file(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    failed = [(c, r) for c, r in _calls(events) if c.tool_name == "edit" and r is not None and r.is_error]
    call, result = failed[0]
    assert call.tool_args == {"file_path": "textkit/slug.py"}
    assert result.error_kind == "harness"
    assert result.text is not None
    assert result.text.startswith("## SearchReplaceNoExactMatch: This SEARCH block failed")
    assert "def slugify(text):" in result.text
    udiff = [r for _, r in failed[1:]]
    assert len(udiff) == 4
    assert {r.error_sig for r in udiff if r} == {"UnifiedDiffNoMatch: hunk failed to apply!"}
    assert any(e.kind == "meta" and e.text == "Only 3 reflections allowed, stopping." for e in events)


def test_commands_fail_when_the_following_text_says_so(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    assert _shell(events) == [
        ("pytest -q", True),  # the user answered "What's wrong? Fix"
        ("python -m pytest -q", False),  # run by Aider for the model, then nobody complained
        ("python -m pytest -q", False),
        ("python -m pytest -q", True),  # `/test` adds its output only on a non-zero exit
        ("python -m pytest -q", False),
        ("grep -rn slugify textkit", False),
        ("pytest -q", True),
        ("python -m pytest -q", False),
    ]
    failed = next(r for c, r in _calls(events) if r is not None and r.is_error and c.tool_name == "shell")
    assert failed.error_kind == "exit"
    assert failed.text is not None
    assert "No module named 'textkit'" in failed.text  # the model's answer tells what the output said


def test_the_failure_comes_before_the_users_what_is_wrong(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    at = next(i for i, e in enumerate(events) if e.kind == "text" and e.text == "What's wrong? Fix")
    assert events[at - 1].kind == "tool_result"
    assert events[at - 1].is_error


def test_a_lint_report_fails_and_the_next_edit_of_its_file_passes(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    lint = [(c, r) for c, r in _calls(events) if c.tool_name == "lint"]
    assert [(c.tool_args, r.is_error if r else None) for c, r in lint] == [
        ({"files": "textkit/slug.py"}, True),
        ({"files": "textkit/slug.py"}, False),
    ]
    failure = lint[0][1]
    assert failure is not None
    assert failure.text is not None
    assert "F821 undefined name 'ELLIPSIS'" in failure.text


def test_undo_rejects_the_last_commit(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    commits = [
        (c, r) for c, r in _calls(events) if (c.tool_args or {}).get("command", "").startswith("git commit")
    ]
    assert len(commits) == 8
    rejected = [(c, r) for c, r in commits if r is not None and r.is_error]
    assert len(rejected) == 1
    call, result = rejected[0]
    assert call.tool_args == {"command": "git commit -m 'refactor: rename slugify to make_slug'"}
    assert result.error_kind == "permission"
    assert not any(e.kind == "tool_call" and (e.tool_args or {}).get("command") == "/undo" for e in events)
    correction = events[events.index(result) + 1]
    assert correction.role == "user"
    assert correction.text is not None
    assert correction.text.startswith("no, keep the public name `slugify`")


def test_the_architects_answer_handed_to_the_editor_is_not_the_users(read_log: ReadLog) -> None:
    events, _ = read_log(ARCHITECT)
    said = [e.text for e in events if e.role == "user" and e.kind == "text"]
    assert said == [
        "add a `title_case(text)` helper to textkit/slug.py",
        "add `word_count(text)` to textkit/slug.py",
    ]
    plan = next(e for e in events if e.role == "assistant" and e.kind == "text")
    assert plan.text is not None
    assert plan.text.startswith("Add a function `title_case(text)`")
    edits = [(c, r) for c, r in _calls(events) if c.tool_name in ("edit", "write")]
    assert [(c.tool_name, r.is_error if r else None, r.error_kind if r else None) for c, r in edits] == [
        ("edit", True, "harness"),  # the editor's SEARCH block (editor-diff) did not match
        ("edit", False, None),
        ("write", False, None),  # the whole edit format of the second launch
    ]
    assert "def title_case" in (edits[1][0].tool_args or {})["new_string"]


def test_undo_after_running_the_tests_still_rejects_the_commit(read_log: ReadLog) -> None:
    events, _ = read_log(ARCHITECT)
    commits = [
        (c, r) for c, r in _calls(events) if (c.tool_args or {}).get("command", "").startswith("git commit")
    ]
    assert [(c.tool_args, r.is_error if r else None) for c, r in commits] == [
        ({"command": "git commit -m 'feat: add title_case'"}, True),  # `/run` the tests, then `/undo`
        ({"command": "git commit -m 'feat: add word_count'"}, False),
    ]
    rejected = commits[0][1]
    assert rejected is not None
    assert rejected.error_kind == "permission"
    run = next(c for c, _ in _calls(events) if (c.tool_args or {}).get("command") == "python -m pytest -q")
    assert events.index(run) < events.index(rejected)


def test_an_undo_aider_refuses_is_a_failed_command_not_a_rejection(read_log: ReadLog) -> None:
    events, _ = read_log(ARCHITECT)
    undo = [(c, r) for c, r in _calls(events) if (c.tool_args or {}).get("command") == "/undo"]
    assert [(r.is_error, r.error_kind, r.text) for _, r in undo if r] == [
        (True, "harness", "This is the first commit in the repository. Cannot undo."),
    ]  # the second launch has nothing of its own to undo; the first launch's `/undo` rejected its commit


def test_aider_commands_are_calls_of_the_aider_tool(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    commands = [(c.tool_args, r.is_error if r else None) for c, r in _calls(events) if c.tool_name == "aider"]
    assert commands == [
        ({"command": "/grep slugify"}, True),
        ({"command": "/find ELLIPSIS\n/replace ELLIPSIS ELLIPSIS_CHAR"}, True),
        ({"command": "/drop textkit/slug.py"}, False),
        ({"command": "/add textkit/slug.py"}, False),
    ]
    invalid = next(r for c, r in _calls(events) if c.tool_name == "aider" and r is not None)
    assert (invalid.error_kind, invalid.error_sig) == ("harness", "Invalid command: <path>")


def test_token_reports_are_usage(read_log: ReadLog) -> None:
    events, _ = read_log(TEXTKIT)
    usage = [e.tokens for e in events if e.kind == "usage"]
    assert usage[0] == Tokens(in_=2700, out=75)
    assert all(e.call_id is None for e in events if e.kind == "usage")  # one report per message
    damaged, _ = read_log(DAMAGED)
    cached = [e.tokens for e in damaged if e.kind == "usage"]
    assert Tokens(in_=500, out=55, cache_read=300, cache_write=1500) in cached


def test_old_versions_log_command_output_and_lint_turns(read_log: ReadLog) -> None:
    events, _ = read_log(OLD)
    assert {e.cwd for e in events if e.kind != "meta"} == {"C:\\Users\\dev\\calc"}
    assert _shell(events) == [("pytest", True), ("python -m pytest", False), ("python -m pytest", True)]
    calls = _calls(events)
    written = [c.tool_args for c, _ in calls if c.tool_name == "write"]
    assert [w["file_path"] for w in written if w] == ["calc/ops.py", "calc/ops.py"]  # whole format
    lint = [(c.tool_args, r.is_error if r else None) for c, r in calls if c.tool_name == "lint"]
    assert lint == [({"files": "calc/ops.py"}, True), ({"files": "calc/ops.py"}, False)]
    refused = [r for c, r in calls if (c.tool_args or {}).get("command") == "git commit" and r is not None]
    assert refused[0].is_error
    assert refused[0].text is not None
    assert "black....................Failed" in refused[0].text
    old_edit = [r for c, r in calls if c.tool_name == "edit" and r is not None]
    assert [(r.is_error, r.text) for r in old_edit] == [(True, "Failed to apply edit to tests/test_ops.py")]


def test_damaged_histories_read_what_they_can(read_log: ReadLog) -> None:
    events, stats = read_log(DAMAGED)
    ids = list(dict.fromkeys(e.session_id for e in events))
    # Cut at the top, a launch whose editor stripped the two-space line ends, a launch line with no
    # time, and a launch earlier than the one before it (merged files): all read, in file order.
    assert ids == [
        "aider-aider.chat.history.md",
        "aider-2024-05-01T09-00-00",
        "aider-not-a-time",
        "aider-2024-04-30T18-00-00",
    ]
    edit = next(c for c in events if c.tool_name == "edit")
    assert edit.tool_args == {
        "file_path": "README.md",
        "old_string": "Teh server\n",
        "new_string": "The server\n",
    }
    unclosed = next(e for e in events if e.text and e.text.startswith("an answer whose fence"))
    assert "Tokens" not in (unclosed.text or "")  # Aider's own line ends an answer cut inside a fence
    test = next(r for c, r in _calls(events) if (c.tool_args or {}).get("command") == "/test")
    assert test is not None
    assert test.is_error
    assert stats.skipped == {"truncated-tail": 1}  # the line still being written is left for later


def test_crlf_bom_and_huge_lines(tmp_path: Path, read_log: ReadLog) -> None:
    path = tmp_path / ".aider.chat.history.md"
    huge = b"x" * (9 * 1024 * 1024)
    path.write_bytes(
        b"\xef\xbb\xbf\r\n# aider chat started at 2024-01-01 10:00:00\r\n\r\n#### hello  \r\n\r\n"
        + huge
        + b"\r\n\r\nhi there\r\n\r\n> Tokens: 10 sent, 2 received.  \r\n"
    )
    events, stats = read_log(path)
    assert [(e.kind, e.text) for e in events if e.kind != "usage"] == [
        ("meta", "aider chat started at 2024-01-01 10:00:00"),
        ("text", "hello"),
        ("text", "hi there"),
    ]
    assert stats.skipped == {"oversized-line": 1}


@pytest.mark.parametrize("source", ["textkit", OLD, DAMAGED], ids=["textkit", "old", "damaged"])
def test_a_cut_history_resumes_to_the_same_events(
    source: Path | str, tmp_path: Path, check_cut_then_resume: Callable[[Adapter, Path], None]
) -> None:
    if source == "textkit":  # its last two launches (commands, several at once, udiff), not all four
        lines = TEXTKIT.read_bytes().splitlines(keepends=True)
        source = tmp_path / "textkit" / ".aider.chat.history.md"
        source.parent.mkdir()
        third = [i for i, line in enumerate(lines) if line.startswith(b"# aider chat started")][2]
        source.write_bytes(b"".join(lines[third - 1 :]))
    assert isinstance(source, Path)
    check_cut_then_resume(aider, source)


def test_describe_says_which_launch_is_last_and_whether_it_ended(tmp_path: Path) -> None:
    described = aider.describe(OLD, now=NOW, idle_seconds=float("inf"))
    assert (described.session_id, described.complete) == ("aider-2023-11-02T10-15-00", True)  # /exit
    assert described.started == datetime(2023, 11, 2, 9, 15, tzinfo=UTC)
    live = tmp_path / ".aider.chat.history.md"
    live.write_bytes(TEXTKIT.read_bytes())
    described = aider.describe(live, now=NOW, idle_seconds=float("inf"))
    assert described.session_id == "aider-2026-11-25T16-02-24"
    assert not described.complete  # no end marker, and not idle for ever
    assert aider.describe(live, now=datetime.now(UTC) + timedelta(hours=1), idle_seconds=600).complete
    with pytest.raises(UnsupportedLogError):
        aider.describe(RESOURCES / "logs" / "bad" / "notes.md", now=NOW, idle_seconds=1)


def test_public_histories_read_as_their_versions_wrote_them(read_log: ReadLog) -> None:
    metronome, _ = read_log(_public("metronome"))  # 0.70: commands Aider ran, errors pasted back
    ran = [
        (c, r)
        for c, r in _calls(metronome)
        if (c.tool_args or {}).get("command") == "cargo run -- --start-bpm 60"
    ]
    assert [r.is_error for _, r in ran if r] == [True, False]
    assert "error[E0425]" in (ran[0][1].text or "") if ran[0][1] else False
    afi, _ = read_log(_public("afi-core"))  # 0.85: the repository's place from absolute paths
    assert "/Users/secretservice/AFI_Modular_Repos/afi-core" in {e.cwd for e in afi}
    several = next(r for c, r in _calls(afi) if "\n/add" in (c.tool_args or {}).get("command", ""))
    assert several is not None
    assert several.error_sig == "Error creating file <path> [Errno <n>] Read-only file system: <str>"
    opengpts, _ = read_log(_public("opengpts"))  # 0.21: udiff, "Malformed response #n"
    failed = [r for c, r in _calls(opengpts) if c.tool_name == "edit" and r is not None and r.is_error]
    assert len(failed) >= 8
    assert {(c.tool_args or {}).get("file_path") for c, r in _calls(opengpts) if r in failed} == {
        "backend/app/auth/pwbearer.py"
    }
    assert "/home/anon/ubuntu-repos/opengpts-monorepo" in {e.cwd for e in opengpts}


def test_not_a_history_is_refused() -> None:
    with pytest.raises(UnsupportedLogError):
        list(aider.read_session(RESOURCES / "logs" / "bad" / "notes.md", stats=ReadStats()))
