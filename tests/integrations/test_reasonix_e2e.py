"""The Reasonix integration against the real program: `reasonix` 1.38.11 from npm, run headless
(`reasonix run`) against a loopback mock model (tests/reasonixmock.py), checked from the requests
the model received and the files Reasonix wrote (docs/integrations.md#reasonix says what this
proves). Skips, with the reason, where node/npm or the package cannot be installed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.lessons.locations import Locations
from reasonlessons.sessions.discovery import reasonix_slug
from reasonlessons.store.project import Project
from tests.reasonixmock import MockModel, bash, say, serve
from tests.reasonixrun import Reasonix, Unavailable, installed, wait_for
from tests.repos import git

pytestmark = [pytest.mark.reasonix_e2e, pytest.mark.slow]

HOOK_CONTEXT = re.compile(r'^<hook-context event="SessionStart">\n(.*?)\n</hook-context>\n\n', re.S)


@pytest.fixture(scope="session")
def launcher() -> Path:
    try:
        return installed()
    except Unavailable as exc:
        pytest.skip(f"the real reasonix cannot run here: {exc}")


@pytest.fixture
def model() -> Iterator[MockModel]:
    with serve() as running:
        yield running


@pytest.fixture
def rx(launcher: Path, model: MockModel, isolated_home: Path, tmp_path: Path) -> Reasonix:
    return Reasonix(launcher, model, isolated_home / ".reasonix", tmp_path)


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "node tests/run.js"}}\n')
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "run.js").write_text("console.log('1 test passed')\n")
    (git_repo / "src" / "web").mkdir(parents=True)
    (git_repo / "src" / "web" / "index.js").write_text("export {}\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "demo")
    return git_repo


def project(repo: Path) -> Project:
    return Project(Locations.discover(repo))


def cli(*args: str | Path) -> Any:
    from reasonlessons.cli import run

    return run([str(a) for a in args])


def memory(rx: Reasonix, repo: Path) -> Path:
    return rx.home / "projects" / reasonix_slug(repo) / "memory"


# -- 1. facts and skills whatever their descriptions say -------------------------------------------

AWKWARD = [
    *(f"{c}quoted start" for c in "`@{[*->|%?&!'\""),
    "Note: colon then space",
    "Hash #inside cuts nothing",
    "Ends with a colon:",
]


def test_awkward_descriptions_come_back_unchanged_and_are_recalled(rx: Reasonix, repo: Path) -> None:
    store = project(repo).store
    names = []
    for i, description in enumerate(AWKWARD):
        name = f"awkward-{i:02d}"
        # Two words of their own, so Reasonix's BM25 can pick each lesson out of the others.
        store.add(
            name, description=description, body=f"- ibex{i} and oryx{i} notes", extra={"tags": [f"oryx{i}"]}
        )
        names.append(name)
    assert cli("export", "reasonix", "--skills", "--repo", repo) == 0
    facts = {name: (memory(rx, repo) / f"{name}.md").read_bytes() for name in names}

    recalled: set[str] = set()
    context = ""
    for start in range(0, len(AWKWARD), 4):  # Reasonix recalls at most 4 facts per turn
        words = " ".join(f"ibex{i} oryx{i}" for i in range(start, min(start + 4, len(AWKWARD))))
        run = rx.run(f"what do the notes say about {words}?", cwd=repo)
        recalled.update(run.recalled_ids())
        context, turn = run.user_messages()[0], run.user_messages()[-1]
        for i in range(start, min(start + 4, len(AWKWARD))):
            title = rf.title_of(AWKWARD[i])
            assert f"title: {_html(title)}\n" in turn, (AWKWARD[i], turn)
    for name, description in zip(names, AWKWARD, strict=True):
        data = (memory(rx, repo) / f"{name}.md").read_bytes()
        assert data == facts[name], f"Reasonix rewrote {name}: {data.decode()}"  # never a legacy- fact
        assert rf.fact_id("project", name) in recalled, description
        assert (
            f"({name}.md) — [project/project] {description}\n" in (memory(rx, repo) / "MEMORY.md").read_text()
        )
        # The session context lists every fact and every skill, read back as written.
        assert f"](project/{name}.md) — [project/project] {description}\n" in context, description
        assert f"\n- {name} — Lesson — {description}\n" in context, description
    assert "legacy-" not in "".join(p.read_text() for p in memory(rx, repo).glob("*.md"))


def _html(text: str) -> str:
    """The recall block's escaping (Go's html.EscapeString)."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    )


# -- 2. a lesson that went stale never reaches the next session --------------------------------------


def _test_runner_lesson(repo: Path) -> None:
    project(repo).store.add(
        "test-runner",
        description="Run the tests with `npm test` (node tests/run.js)",
        fingerprint=["package.json#scripts.test"],
        body="- STALE-MARKER `npm test` runs `node tests/run.js`; there is no vitest here.",
        extra={"triggers": {"keywords": ["tests", "npm test"]}},
    )


def test_a_lesson_made_stale_in_a_session_never_reaches_the_next_one(
    rx: Reasonix, model: MockModel, repo: Path
) -> None:
    _test_runner_lesson(repo)
    assert cli("export", "reasonix", "--skills", "--repo", repo) == 0  # the hooks keep skills in line too
    assert cli("install", "reasonix", "--repo", repo) == 0
    fact = memory(rx, repo) / "test-runner.md"
    assert fact.is_file()
    question = "how do I run the tests with npm test here?"
    before = rx.run(question, cwd=repo)
    assert "STALE-MARKER" in before.user_messages()[-1]  # fresh: recalled into the turn
    assert "\n- test-runner — Lesson — Run the tests with" in before.user_messages()[0]  # in the catalog

    model.plan("MOVE-TO-JEST", bash("""sed -i 's#node tests/run.js#jest#' package.json"""), say("Switched."))
    rx.run("MOVE-TO-JEST: switch the test script to jest", cwd=repo)
    # SessionEnd withdrew it in the background: nothing ran `export` by hand.
    skill = repo / ".reasonix" / "skills" / "test-runner.md"
    wait_for(
        lambda: not fact.exists() and not skill.exists(), what="the SessionEnd hook to withdraw the lesson"
    )
    assert "(test-runner.md)" not in (memory(rx, repo) / "MEMORY.md").read_text()
    assert list((memory(rx, repo) / ".archive").glob("*-test-runner.md"))
    assert list((repo / ".reasonix" / "skills" / ".archive").glob("*-test-runner.md"))

    after = rx.run(question, cwd=repo)
    assert "STALE-MARKER" not in after.prompt_text()
    assert "Run the tests with" not in after.prompt_text()  # not in memory, recall or the skill catalog
    assert rf.fact_id("project", "test-runner") not in after.recalled_ids()


def test_a_file_changed_by_hand_is_caught_at_the_next_session_start(rx: Reasonix, repo: Path) -> None:
    _test_runner_lesson(repo)
    assert cli("install", "reasonix", "--repo", repo) == 0
    (repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "jest"}}\n')
    question = "how do I run the tests with npm test here?"
    first = rx.run(question, cwd=repo)
    # Reasonix loaded its memory before the hook ran: this session is told the lesson is out of date...
    context = HOOK_CONTEXT.match(first.user_messages()[-1])
    assert context is not None
    assert "Out of date, ignore if recalled: test-runner." in context.group(1)
    # ...and the fact was withdrawn before the next one starts.
    assert not (memory(rx, repo) / "test-runner.md").exists()
    assert "(test-runner.md)" not in (memory(rx, repo) / "MEMORY.md").read_text()
    assert "STALE-MARKER" not in rx.run(question, cwd=repo).prompt_text()


# -- 3. the session's brief, and its capture -----------------------------------------------------------


def test_hook_context_in_budget_and_a_candidate_from_the_sessions_failure(
    rx: Reasonix, model: MockModel, repo: Path
) -> None:
    store = project(repo).store
    store.add(
        "caution-lockfile", description="Never edit package-lock.json by hand", extra={"outcome": "failure"}
    )
    store.add(
        "test-command",
        description="`npm test` runs the tests (node tests/run.js)",
        fingerprint=["package.json#scripts.test"],
        extra={"triggers": {"commands": [r"\bnpm\s+test\b"]}},
    )
    for i in range(8):
        store.add(f"trivia-{i}", description=f"Trivia number {i} about this repository's history " * 2)
    assert cli("install", "reasonix", "--repo", repo) == 0
    model.plan(
        "RUN-TESTS",
        bash("vitest run"),
        bash("npm test"),
        bash("git status --short"),
        say("The tests pass with npm test."),
    )
    run = rx.run("RUN-TESTS: run the tests", cwd=repo)
    first_turn = run.user_messages()[-1]
    found = HOOK_CONTEXT.match(first_turn)
    assert found is not None, first_turn
    block = found.group(1)
    assert (len(block) + 3) // 4 <= 200  # the RFC's budget, in the tokens recall counts (chars / 4)
    lines = block.split("\n")
    assert lines[1] == "- Never edit package-lock.json by hand"  # cautions first
    assert lines[2] == "- `npm test` runs the tests (node tests/run.js)"  # then the repository's commands
    # Only the first real turn carries it: the model's later requests in the session hold it once.
    assert all(
        m["content"].count("<hook-context") <= 1 for m in run.chats[-1]["messages"] if m["role"] == "user"
    )

    candidates = repo / ".reasonix" / "lessons" / "_candidates"
    wait_for(lambda: any(candidates.glob("*.md")), what="the SessionEnd hook to capture a candidate")
    text = "\n".join(p.read_text() for p in candidates.glob("*.md"))
    assert "vitest: command not found" in text  # the output's words, not Reasonix's `exit status 127`
    assert "exit status 127" not in text


# -- 4. sessions wherever Reasonix filed them ---------------------------------------------------------


def test_sessions_from_a_subdirectory_and_under_reasonix_state_home_are_captured(
    rx: Reasonix, model: MockModel, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model.plan("SUBDIR", bash("vitest run"), bash("npm test"), bash("git status --short"), say("Done."))
    state = tmp_path / "state"
    rx.run("SUBDIR: run the tests", cwd=repo / "src" / "web")
    rx.run("SUBDIR: run the tests", cwd=repo, env={"REASONIX_STATE_HOME": str(state)})
    # Reasonix filed them under the subdirectory's slug, and under the other state root.
    sub = rx.home / "projects" / reasonix_slug(repo / "src" / "web") / "sessions-v4"
    moved = state / "projects" / reasonix_slug(repo) / "sessions-v4"
    assert [p for p in sub.iterdir() if re.fullmatch(r"[0-9a-f]{32}", p.name)]
    assert [p for p in moved.iterdir() if re.fullmatch(r"[0-9a-f]{32}", p.name)]

    env = {"REASONIX_STATE_HOME": str(state)}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        capsys.readouterr()
        assert cli("sources", "--json", "--repo", repo) == 0
        found = json.loads(capsys.readouterr().out)
        assert cli("capture", "--json", "--repo", repo) == 0
        report = json.loads(capsys.readouterr().out)
    origins = {(s["rule"], s["slug"]) for s in found if s["agent"] == "reasonix-v2"}
    assert origins == {
        ("REASONIX_HOME", reasonix_slug(repo / "src" / "web")),
        ("REASONIX_STATE_HOME", reasonix_slug(repo)),
    }
    assert report["sessions"] == 2
    assert any("vitest" in c["name"] for c in report["candidates"]), report


def test_the_hooks_capture_sessions_from_a_subdirectory_and_under_reasonix_state_home(
    rx: Reasonix, model: MockModel, repo: Path, tmp_path: Path
) -> None:
    assert cli("install", "reasonix", "--repo", repo) == 0
    model.plan("HOOKED", bash("vitest run"), bash("npm test"), bash("git status --short"), say("Done."))
    checkpoints = repo / ".reasonix" / "state" / "capture-checkpoints.json"

    def captured() -> set[str]:
        try:
            # Checkpoints are filed under a digest of the log's path; the entry keeps the path.
            entries = json.loads(checkpoints.read_text())["data"].values()
            return {Path(e["path"]).parts[-3] for e in entries if isinstance(e, dict) and "path" in e}
        except (OSError, ValueError):
            return set()

    rx.run("HOOKED: run the tests", cwd=repo / "src" / "web")
    wait_for(
        lambda: reasonix_slug(repo / "src" / "web") in captured(), what="the subdirectory session's capture"
    )
    rx.run("HOOKED: run the tests", cwd=repo, env={"REASONIX_STATE_HOME": str(tmp_path / "state")})
    wait_for(lambda: reasonix_slug(repo) in captured(), what="the REASONIX_STATE_HOME session's capture")


# -- install and uninstall ----------------------------------------------------------------------------------


def test_install_keeps_the_users_hooks_twice_changes_nothing_uninstall_removes_only_ours(
    rx: Reasonix, repo: Path, isolated_home: Path
) -> None:
    settings = repo / ".reasonix" / "settings.json"
    settings.parent.mkdir()
    mine = {"command": f"echo mine >> {isolated_home / 'mine.log'}", "timeout": 2000}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [mine], "Stop": [mine]}, "theme": "x"}))
    assert cli("install", "reasonix", "--repo", repo) == 0
    installed_once = settings.read_bytes()
    assert cli("install", "reasonix", "--repo", repo) == 0
    assert settings.read_bytes() == installed_once
    doc = json.loads(installed_once)
    assert doc["theme"] == "x"
    assert doc["hooks"]["SessionStart"][0] == mine
    assert doc["hooks"]["Stop"] == [mine]
    rx.run("hello", cwd=repo)
    assert (isolated_home / "mine.log").read_text().count("mine") == 2  # the user's hooks still run
    assert cli("uninstall", "reasonix", "--repo", repo) == 0
    assert json.loads(settings.read_text()) == {
        "hooks": {"SessionStart": [mine], "Stop": [mine]},
        "theme": "x",
    }
