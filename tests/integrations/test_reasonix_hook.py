"""`reasonlessons hook reasonix` and `install reasonix`, without the binary (test_reasonix_e2e.py has it)."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli.fast import hook
from reasonlessons.errors import UsageError
from reasonlessons.integrations import reasonix_capture, reasonix_hook, reasonix_install, reasonix_start
from reasonlessons.learning.link import BY_ID, recalled_into
from reasonlessons.lessons.locations import Locations
from reasonlessons.sessions.discovery import reasonix_slug
from reasonlessons.store.counts import Record
from reasonlessons.store.project import Project
from tests.repos import git
from tests.sessions.adapters.v2store import BATCHES, batch, make_store, message

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
SESSION = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "demo")
    store = Project(Locations.discover(git_repo)).store
    store.add("general", description="The docs live in docs/, one page per topic")
    store.add(
        "test-command",
        description="`npm test` runs vitest",
        fingerprint=["package.json#scripts.test"],
        extra={"triggers": {"commands": [r"\bnpm\s+test\b"]}},
    )
    store.add(
        "gotcha", description="Note: the lockfile is generated; never edit it", extra={"outcome": "failure"}
    )
    return git_repo


def memory(repo: Path, workspace: Path | None = None) -> Path:
    home = Locations.discover(repo).home  # $REASONIX_HOME of the isolated home
    return home / "projects" / reasonix_slug(workspace or repo) / "memory"


def start(repo: Path, **payload: Any) -> str | None:
    return reasonix_hook.handle(
        {"event": "SessionStart", "cwd": str(repo), "sessionId": SESSION, **payload}, now=NOW
    )


def test_session_start_exports_and_briefs_cautions_then_commands(repo: Path) -> None:
    text = start(repo)
    assert text is not None
    lines = text.split("\n")
    assert lines[0] == reasonix_start.HEADER
    assert lines[1:] == [
        "- Note: the lockfile is generated; never edit it",
        "- `npm test` runs vitest",
        "- The docs live in docs/, one page per topic",
    ]
    assert sorted(p.name for p in memory(repo).glob("*.md")) == [
        "MEMORY.md",
        "general.md",
        "gotcha.md",
        "test-command.md",
    ]
    assert start(repo) == text  # nothing changed: the same brief, nothing rewritten


def test_the_brief_keeps_to_its_budget_and_says_what_went_out_of_date(repo: Path) -> None:
    store = Project(Locations.discover(repo)).store
    for i in range(30):
        store.add(f"filler-{i:02d}", description=f"Filler lesson {i} " + "words " * 20)
    start(repo)
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    text = start(repo, budget=5000)
    assert text is not None
    assert (len(text) + 3) // 4 <= reasonix_hook.SESSION_BUDGET  # 200 even when --budget says more
    assert text.split("\n")[1] == "Out of date, ignore if recalled: test-command."
    assert not (memory(repo) / "test-command.md").exists()
    assert len(text.split("\n")) - 2 <= reasonix_start.MAX_LESSONS
    assert reasonix_start.brief([], {}, withdrawn=[], budget=200) == ""
    assert reasonix_start.brief([], {}, withdrawn=[], budget=10) == ""


def test_a_lesson_contradicted_more_often_than_confirmed_is_a_caution(repo: Path) -> None:
    lessons = Project(Locations.discover(repo)).entries()[0]
    general = [e.lesson for e in lessons if e.lesson.name == "general"]
    counts = {"project:general": Record(confirmed=1, soft=2)}
    text = reasonix_start.brief(general, counts, withdrawn=[], budget=200)
    assert text.endswith(reasonix_start.CAUTION)


def test_session_start_through_a_symlink_writes_that_workspaces_memory(repo: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert start(link) is not None
    # Reasonix reads memory under the slug of the path it was started with: the link's.
    assert (memory(repo, link) / "gotcha.md").is_file()
    assert (memory(repo) / "gotcha.md").is_file()


def test_session_end_hands_the_payload_to_the_spawner(repo: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    payload = {"event": "SessionEnd", "sessionId": SESSION, "cwd": str(repo), "reason": "other"}
    assert reasonix_hook.handle(payload, spawn=lambda root, doc: calls.append((root, doc))) is None
    assert calls == [(str(repo.resolve()), payload)]
    for event in ("UserPromptSubmit", "Stop", "PreToolUse", None):
        assert (
            reasonix_hook.handle({"event": event, "cwd": str(repo)}, spawn=lambda *a: calls.append(a)) is None
        )
    assert len(calls) == 1


def test_session_end_syncs_and_captures_the_store_wherever_reasonix_filed_it(
    repo: Path, isolated_home: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    (repo / "src").mkdir()
    store = make_store(state / "projects" / reasonix_slug(repo / "src") / "sessions-v4", b"".join(BATCHES))
    env = {"REASONIX_STATE_HOME": str(state), "REASONIX_HOME": str(isolated_home / ".reasonix")}
    assert reasonix_capture.find_store(store.name, repo, env=env, home=isolated_home) == store
    assert reasonix_capture.find_store("../../etc", repo, env=env, home=isolated_home) is None
    hook_ = reasonix_hook.Hook(
        {"event": "SessionEnd", "sessionId": store.name, "cwd": str(repo)}, env=env, now=NOW
    )
    report = reasonix_capture.on_session_end(hook_, sleep=lambda _: None)
    assert report is not None
    assert report.sessions == 1
    assert (state / "projects" / reasonix_slug(repo) / "memory" / "gotcha.md").is_file()  # synced too


def test_the_lessons_of_the_brief_count_as_recalled_into_that_session(repo: Path) -> None:
    start(repo)
    state = Locations.discover(repo).state_dir
    link = recalled_into(state, SESSION, None, None)
    assert link.how == BY_ID  # capture at SessionEnd judges them in full, confirmations included
    assert sorted(link.keys) == ["project:general", "project:gotcha", "project:test-command"]
    assert set(link.keys.values()) == {NOW}


def test_the_brief_is_printed_even_when_the_note_of_it_cannot_be_saved(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(self: object) -> None:
        raise OSError("read-only file system")

    monkeypatch.setattr(reasonix_start.Counters, "save", fail)
    text = start(repo)
    assert text is not None
    assert "- `npm test` runs vitest" in text.split("\n")


def test_a_reasonix_session_judges_the_lessons_its_brief_showed(
    repo: Path, isolated_home: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    store = make_store(state / "projects" / reasonix_slug(repo) / "sessions-v4", b"".join(BATCHES))
    env = {"REASONIX_STATE_HOME": str(state), "REASONIX_HOME": str(isolated_home / ".reasonix")}
    at = dt.datetime(2026, 5, 5, 10, 0, 1, tzinfo=dt.UTC)  # as the session in the store starts
    payload = {"cwd": str(repo), "sessionId": store.name}
    assert "`npm test` runs vitest" in (
        reasonix_hook.handle({"event": "SessionStart", **payload}, env=env, now=at) or ""
    )
    end = reasonix_hook.Hook({"event": "SessionEnd", **payload}, env=env, now=at)
    report = reasonix_capture.on_session_end(end, sleep=lambda _: None)
    (learned,) = report.outcomes
    assert learned.linked_by == BY_ID
    # The session ran `npm test`, which could not run (no test script): the lesson's claim is false.
    (judged,) = [o.to_json() for o in learned.outcomes if o.to_json()["lesson"] == "project:test-command"]
    assert (judged["outcome"], judged.get("weight"), judged["recalled"]) == ("contradicted", "direct", True)
    record = Project(Locations.discover(repo)).entry("test-command").record
    assert (record.confirmed, record.direct) == (0, 1)


WRIT_BATCHES = [
    batch(1, [message("system", content="You are Reasonix.")]),
    batch(2, [("turn/start", {"status": "in_progress"})]),
    batch(
        3,
        [
            message(
                "user",
                origin="user",
                content="/lesson pnpm only: Use `pnpm install`, never `npm install`; the lockfile is "
                "pnpm-lock.yaml",
            ),
            message(
                "assistant",
                content="Noted.",
                tool_calls=[{"id": "call_0", "name": "bash", "arguments": '{"command": "ls"}'}],
            ),
        ],
    ),
    batch(
        5,
        [
            message("tool", tool_call_id="call_0", name="bash", content="ok", tool_run_state="completed"),
            ("turn/end", {"status": "completed"}),
        ],
    ),
]


def test_a_writ_in_a_one_tool_call_session_lands_and_the_next_brief_says_so_once(
    repo: Path, isolated_home: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    store = make_store(state / "projects" / reasonix_slug(repo) / "sessions-v4", b"".join(WRIT_BATCHES))
    env = {"REASONIX_STATE_HOME": str(state), "REASONIX_HOME": str(isolated_home / ".reasonix")}
    end = reasonix_hook.Hook(
        {"event": "SessionEnd", "sessionId": store.name, "cwd": str(repo)}, env=env, now=NOW
    )
    report = reasonix_capture.on_session_end(end, sleep=lambda _: None)
    assert [item.name for item in report.written] == ["pnpm-only"]

    def brief() -> str:
        payload = {"event": "SessionStart", "cwd": str(repo), "sessionId": "f" * 32}
        return reasonix_hook.handle(payload, env=env, now=NOW) or ""

    first = brief().split("\n")
    assert first[1] == reasonix_start.RECORDED + "`pnpm-only`."
    assert reasonix_start.RECORDED not in brief()  # told once


def test_the_command_prints_plain_text_and_never_fails_reasonix(
    repo: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = json.dumps({"event": "SessionStart", "sessionId": SESSION, "cwd": str(repo)}).encode()
    assert hook.run("reasonix", budget=600, wait=False, repo=None, stdin=io.BytesIO(payload)) == 0
    out = capsysbinary.readouterr().out.decode()
    assert out.startswith(reasonix_start.HEADER + "\n- Note:")
    assert not out.lstrip().startswith("{")  # Reasonix wraps plain text in <hook-context>
    assert hook.run("reasonix", budget=600, wait=False, repo=None, stdin=io.BytesIO(b"not json")) == 0
    assert capsysbinary.readouterr().out == b""
    spawned: list[Any] = []
    monkeypatch.setattr(hook, "spawn_reasonix", lambda root, doc: spawned.append(doc))
    end = {"event": "SessionEnd", "sessionId": SESSION, "cwd": str(repo)}
    assert (
        hook.run("reasonix", budget=600, wait=False, repo=None, stdin=io.BytesIO(json.dumps(end).encode()))
        == 0
    )
    assert spawned == [end]
    assert hook.run("cursor", budget=600, wait=False, repo=None, stdin=io.BytesIO(payload)) == 1


# -- install -------------------------------------------------------------------------------------


def installer(repo: Path, home: Path, **options: Any) -> reasonix_install.ReasonixInstallReport:
    env = {"REASONIX_HOME": str(home / ".reasonix")}
    return reasonix_install.install(Project(Locations.discover(repo)), env=env, home=home, now=NOW, **options)


def test_install_merges_keeps_theirs_and_twice_changes_nothing(repo: Path, isolated_home: Path) -> None:
    path = repo / ".reasonix" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    theirs = {"command": "./notify.sh", "timeout": 3000}
    path.write_text(json.dumps({"hooks": {"SessionStart": [theirs], "PreToolUse": [theirs]}, "x": 1}))
    report = installer(repo, isolated_home)
    assert (report.changed, report.added) == (True, ["SessionStart", "SessionEnd"])
    assert report.export is not None
    assert len(report.export.written) == 3
    doc = json.loads(path.read_text())
    assert doc["x"] == 1
    assert doc["hooks"]["PreToolUse"] == [theirs]
    assert doc["hooks"]["SessionStart"] == [
        theirs,
        {
            "command": "reasonlessons hook reasonix",
            "timeout": 15000,
            "description": reasonix_install.HOOKS["SessionStart"][1],
        },
    ]
    assert doc["hooks"]["SessionEnd"][0]["timeout"] == 5000  # milliseconds, as Reasonix reads them
    once = path.read_bytes()
    again = installer(repo, isolated_home)
    assert (again.changed, again.added, path.read_bytes()) == (False, [], once)
    other = installer(repo, isolated_home, command="/venv/bin/reasonlessons hook reasonix")
    assert other.removed == other.added == ["SessionStart", "SessionEnd"]  # replaced, never doubled
    gone = installer(repo, isolated_home, uninstall=True)
    assert gone.removed == ["SessionStart", "SessionEnd"]
    assert json.loads(path.read_text()) == {
        "hooks": {"SessionStart": [theirs], "PreToolUse": [theirs]},
        "x": 1,
    }
    assert not installer(repo, isolated_home, uninstall=True).changed


def test_install_global_backup_and_refusals(repo: Path, isolated_home: Path) -> None:
    report = installer(repo, isolated_home, global_=True)
    assert report.path == isolated_home / ".reasonix" / "settings.json"
    assert "SessionEnd" in json.loads(report.path.read_text())["hooks"]
    broken = repo / ".reasonix" / "settings.json"
    broken.parent.mkdir(exist_ok=True)
    broken.write_text("{not json")
    report = installer(repo, isolated_home)
    assert report.backup is not None
    assert report.backup.read_text() == "{not json"
    broken.write_text(json.dumps({"hooks": {"SessionStart": {"command": "x"}}}))
    with pytest.raises(reasonix_install.SettingsShapeError, match="not a list of hooks"):
        installer(repo, isolated_home)
    with pytest.raises(UsageError, match="hook reasonix"):
        installer(repo, isolated_home, command="reasonlessons hook claude-code")
