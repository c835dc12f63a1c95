"""The full loop on a thread, with native and polling observers, against bad input.

Every wait is on an event with a timeout; `Harness.poke` is a barrier (a change to a second lesson's
file whose event proves everything before it was processed), so "no event" is checked without sleeps.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasonlessons.sessions.events import SessionRef
from reasonlessons.store.project import Project
from reasonlessons.watch.pidlock import WatchRunningError, read_holder
from tests.paths import EXAMPLE
from tests.repos import git
from tests.watch.harness import Harness, seed_project, write_json

VITEST = {"name": "demo", "scripts": {"test": "vitest run"}}
JEST = {"name": "demo", "scripts": {"test": "jest"}}


@pytest.fixture(params=["native", "polling"])
def running(request: pytest.FixtureRequest, project: Project) -> Iterator[Harness]:
    harness = Harness(project, poll=request.param == "polling")
    ready = harness.start()
    assert ready["mode"] == request.param
    assert ready["lessons"] == 2
    assert ready["stale"] == []
    yield harness
    harness.stop()


@pytest.fixture
def native(project: Project) -> Iterator[Harness]:
    harness = Harness(project)
    harness.start()
    yield harness
    harness.stop()


def test_stale_then_fresh_and_reformatting_is_silent(running: Harness) -> None:
    root = running.root
    write_json(root / "package.json", JEST)
    event = running.expect("stale", name="testing")
    assert event["input"] == "package.json#scripts.test"
    assert (event["was"], event["now"], event["status"]) == ('"vitest run"', '"jest"', "stale")
    assert running.status("testing") == "stale"  # `list` agrees with the daemon

    write_json(root / "package.json", VITEST)
    event = running.expect("fresh", name="testing")
    assert (event["input"], event["status"]) == ("package.json#scripts.test", "active")
    assert running.status("testing") == "active"

    (root / "package.json").write_text('{\n  "scripts": {"test": "vitest run"},\n    "name": "demo"\n}\n')
    assert running.poke() == []
    assert running.daemon.lessons.stale == ["project:sentinel"]


def test_reading_watched_files_never_wakes_the_daemon(native: Harness) -> None:
    for _ in range(50):
        (native.root / "package.json").read_bytes()
        list(os.scandir(native.root / "tests"))
    native.project.entries("all")  # a whole check, with its cache writes in the state dir
    assert native.daemon.debouncer.pending() == 0
    assert native.poke() == []


def test_state_file_and_pid_file(native: Harness) -> None:
    state = native.project.loc.state_dir
    assert read_holder(state)["pid"] == os.getpid()  # type: ignore[index]
    write_json(native.root / "package.json", JEST)
    native.expect("stale", name="testing")
    import json

    doc = json.loads((state / "watch.json").read_text())
    assert doc["kind"] == "watch"
    lesson = doc["data"]["lessons"]["project:testing"]
    assert lesson["status"] == "stale"
    assert lesson["drift"][0]["input"] == "package.json#scripts.test"


def test_a_second_daemon_is_refused(native: Harness) -> None:
    second = Harness(native.project)
    with pytest.raises(WatchRunningError, match=rf"already running .*pid {os.getpid()}"):
        second.daemon.run(lambda event: None)


def test_a_failed_batch_is_reported_and_the_daemon_carries_on(
    native: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = native.daemon.lessons.check
    failures: list[int] = []

    def flaky(keys: set[str] | None = None, *, announce: bool = True) -> list[dict[str, object]]:
        if not failures:
            failures.append(1)
            raise RuntimeError("disk on fire")
        return real(keys, announce=announce)

    monkeypatch.setattr(native.daemon.lessons, "check", flaky)
    write_json(native.root / "package.json", JEST)
    assert native.expect("error")["message"] == "RuntimeError: disk on fire"
    write_json(native.root / "package.json", {"name": "demo", "scripts": {"test": "mocha"}})
    native.expect("stale", name="testing", now='"mocha"')


def test_directory_deleted_and_recreated(running: Harness) -> None:
    tests = running.root / "tests"
    shutil.rmtree(tests)
    event = running.expect("stale", name="testing")
    assert (event["input"], event["reason"], event["now"]) == ("tests/", "removed", "absent")
    tests.mkdir()
    (tests / "b.test.ts").write_text("it('y', () => {})\n")
    running.expect("fresh", name="testing", input="tests/")
    # The new directory is watched again: a new naming convention inside it is noticed.
    (tests / "c.spec.ts").write_text("it('z', () => {})\n")
    event = running.expect("stale", name="testing", input="tests/")
    assert event["reason"] == "changed"


def test_file_replaced_by_rename(running: Harness) -> None:
    tmp = running.root / ".package.json.x1.tmp"
    write_json(tmp, JEST)
    os.replace(tmp, running.root / "package.json")
    event = running.expect("stale", name="testing")
    assert event["now"] == '"jest"'
    tmp.write_text('{"scripts": {"test": "vitest run"}, "name": "demo"}\n')
    os.replace(tmp, running.root / "package.json")
    running.expect("fresh", name="testing")


def test_a_burst_of_ten_thousand_events(native: Harness) -> None:
    tests = native.root / "tests"
    for i in range(5000):
        (tests / f"t{i}.test.ts").write_text("x\n")  # created + modified: 10,000 events
    for i in range(200):
        write_json(native.root / "package.json", JEST if i % 2 else VITEST)
    native.poke()
    assert native.daemon.lessons.stale == ["project:sentinel", "project:testing"]
    assert native.daemon.lessons.drift["project:testing"] == {
        "package.json#scripts.test": ("changed", '"vitest run"', '"jest"')
    }
    assert native.status("testing") == "stale"


def test_lesson_edited_into_invalid_yaml_and_back(native: Harness) -> None:
    path = native.project.loc.project_dir / "testing.md"
    good = path.read_text()
    path.write_text(good.replace("description: Test runner", "description: [unclosed"))
    event = native.expect("invalid")
    assert event["path"] == str(path)
    native.expect("lessons", removed=[{"scope": "project", "name": "testing"}])
    write_json(native.root / "package.json", JEST)  # the broken lesson is not checked meanwhile
    assert all(e.get("name") != "testing" for e in native.poke())
    path.write_text(good)
    native.expect("lessons", added=[{"scope": "project", "name": "testing"}])
    native.expect("stale", name="testing", now='"jest"')


def test_lessons_added_and_removed_replan_the_watches(native: Harness) -> None:
    (native.root / "docs").mkdir()
    native.project.store.add("docs", description="Docs", fingerprint=["docs/*.md"])
    native.expect("lessons", added=[{"scope": "project", "name": "docs"}])
    (native.root / "docs" / "a.md").write_text("# a\n")
    event = native.expect("stale", name="docs")
    assert (event["was"], event["now"], event["reason"]) == ("no match", "matches", "appeared")
    native.project.store.remove("docs")
    native.expect("lessons", removed=[{"scope": "project", "name": "docs"}])
    assert not any(w.path.endswith("/docs") for w in native.daemon._observer.watches)  # type: ignore[union-attr]


def test_git_rewritten_by_a_rebase(git_repo: Path) -> None:
    project = seed_project(git_repo)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "lessons")
    git(git_repo, "checkout", "-q", "-b", "feature")
    (git_repo / "README.md").write_text("feature\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "feature work")
    git(git_repo, "checkout", "-q", "main")
    write_json(git_repo / "package.json", JEST)
    git(git_repo, "commit", "-q", "-am", "switch to jest")
    git(git_repo, "checkout", "-q", "feature")
    harness = Harness(project)
    harness.start()
    try:
        git(git_repo, "rebase", "-q", "main")
        harness.expect("stale", name="testing", now='"jest"')
        git(git_repo, "checkout", "-q", "HEAD~2")
        harness.expect("fresh", name="testing")
        assert harness.status("testing") == "active"
    finally:
        harness.stop()


def test_a_session_log_truncated_while_being_read(project: Project, isolated_home: Path) -> None:
    from reasonlessons.sessions.discovery import claude_slug

    log_dir = isolated_home / ".claude" / "projects" / claude_slug(project.loc.root)
    log_dir.mkdir(parents=True)
    log = log_dir / "0a1b2c3d-0000-4000-8000-000000000000.jsonl"
    log.write_text("".join(f'{{"n": {i}}}\n' for i in range(100)))
    reading, truncated = threading.Event(), threading.Event()
    calls: list[int] = []

    def capture(refs: list[SessionRef]) -> list[dict[str, str]]:
        with refs[0].path.open() as handle:
            first = handle.readline()
            if not calls:
                reading.set()
                truncated.wait(10)  # the log is cut while this reader holds it open
            rest = handle.read().splitlines()
        calls.append(1 + len(rest))
        if first.strip() == "":
            raise ValueError("log shrank while being read")
        return [{"name": f"cand-{len(calls)}", "path": "x", "session": refs[0].path.stem}]

    harness = Harness(
        project,
        capture=capture,
        find_sessions=lambda: [SessionRef("claude-code", log)],
        idle_seconds=0.3,
    )
    harness.start()
    try:
        with log.open("a") as handle:
            handle.write('{"n": 100}\n')
        assert reading.wait(10)
        log.write_text('{"n": 0}\n')  # truncated in place while the capture reads it
        truncated.set()
        harness.expect("captured", name="cand-1")
        with log.open("a") as handle:
            handle.write('{"n": 1}\n')
        while calls[-1] != 2:  # the truncation itself may be captured once more first
            harness.expect("captured")
        assert harness.daemon.sessions.active == []
    finally:
        harness.stop()


def test_a_failing_capture_is_reported_and_the_daemon_carries_on(
    project: Project, isolated_home: Path
) -> None:
    log = isolated_home / ".claude" / "projects" / "x.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("{}\n")

    def capture(refs: list[SessionRef]) -> list[dict[str, str]]:
        raise OSError("log vanished")

    harness = Harness(
        project, capture=capture, find_sessions=lambda: [SessionRef("claude-code", log)], idle_seconds=0.2
    )
    harness.start()
    try:
        log.write_text("{}\n{}\n")
        assert "log vanished" in harness.expect("error")["message"]
        write_json(project.loc.root / "package.json", JEST)
        harness.expect("stale", name="testing")
    finally:
        harness.stop()


def test_stop_finishes_quickly_without_events(project: Project) -> None:
    harness = Harness(project)
    harness.start()
    harness.stop()
    assert [e["event"] for e in harness.seen] == ["ready", "stopped"]
    assert read_holder(project.loc.state_dir) is None


def test_watch_set_stays_small(native: Harness) -> None:
    watches = {(w.path, w.recursive) for w in native.daemon._observer.watches}  # type: ignore[union-attr]
    root = str(native.root)
    assert (root, False) in watches
    assert (f"{root}/tests", True) in watches
    assert (root, True) not in watches
    assert not any(p.startswith(f"{root}/.git/") and not p.endswith("/info") for p, _ in watches)
    assert not any(p.startswith(str(native.project.loc.state_dir)) for p, _ in watches)


@pytest.mark.skipif(not (EXAMPLE / "sessions").is_dir(), reason="needs the .reasonix-example tree")
def test_a_session_that_ends_is_captured_by_the_pipeline(git_repo: Path, isolated_home: Path) -> None:
    from reasonlessons.store.project import open_project
    from reasonlessons.watch.integrations import pipeline_capture

    for name in ("package.json", "tsconfig.json", "src", "tests"):
        source = EXAMPLE / name
        if source.is_dir():
            shutil.copytree(source, git_repo / name)
        else:
            shutil.copy(source, git_repo / name)
    (git_repo / "sentinel.txt").write_text("0\n")
    project = open_project(git_repo)
    project.store.add("sentinel", description="A file the tests poke", fingerprint=["sentinel.txt"])
    sessions = isolated_home / ".reasonix" / "sessions"
    sessions.mkdir(parents=True)
    env = dict(os.environ)
    real = pipeline_capture(project, env=env, home=isolated_home, idle_seconds=0.5)
    sizes: queue.Queue[int] = queue.Queue()

    def capture(refs: list[SessionRef]) -> list[dict[str, object]]:
        try:
            return real(refs)
        finally:
            sizes.put(refs[0].path.stat().st_size)

    harness = Harness(project, capture=capture, idle_seconds=0.5, env=env)
    harness.start()
    try:
        base = "code-tinyqueue-202611191010"
        for suffix in (".meta.json", ".jsonl", ".events.jsonl"):  # the events log last, as Reasonix does
            text = (EXAMPLE / "sessions" / f"{base}{suffix}").read_text()
            text = text.replace("/home/dev/tinyqueue-example", str(git_repo))
            (sessions / f"{base}{suffix}").write_text(text)
        event = harness.expect("captured")
        assert event["agent"] == "reasonix-v1"
        assert event["log"] == str(sessions / f"{base}.events.jsonl")
        assert Path(event["path"]).parent == project.loc.candidates_dir
        # Truncated under the daemon's feet: capture copes, the daemon keeps watching.
        cut = '{"id":1,"ts":"2026-11-19T10:10:05.040Z","tu'
        (sessions / f"{base}.events.jsonl").write_text(cut)
        while sizes.get(timeout=10) != len(cut):
            pass
        assert [e for e in harness.poke() if e["event"] == "captured"] == []
    finally:
        harness.stop()


def test_first_lesson_in_a_repo_without_lessons(git_repo: Path) -> None:
    from reasonlessons.store.project import open_project

    write_json(git_repo / "package.json", VITEST)
    project = open_project(git_repo)
    harness = Harness(project)
    assert harness.start()["lessons"] == 0
    try:
        project.store.add("testing", description="Test runner", fingerprint=["package.json#scripts.test"])
        harness.expect("lessons", added=[{"scope": "project", "name": "testing"}])
        write_json(git_repo / "package.json", JEST)
        harness.expect("stale", name="testing")
    finally:
        harness.stop()


def test_reasonix_export_follows_the_fresh_lessons(project: Project, isolated_home: Path) -> None:
    from reasonlessons.watch.integrations import reasonix_export

    env = dict(os.environ)
    harness = Harness(project, env=env)
    harness.daemon.resync = reasonix_export(project, env=env, home=isolated_home)
    harness.start()
    try:
        first = harness.expect("exported")
        assert sorted(first["written"]) == ["sentinel", "testing"]
        write_json(project.loc.root / "package.json", JEST)
        harness.expect("stale", name="testing")
        assert harness.expect("exported")["withdrawn"] == ["testing"]
        write_json(project.loc.root / "package.json", VITEST)
        harness.expect("fresh", name="testing")
        assert harness.expect("exported")["written"] == ["testing"]
    finally:
        harness.stop()


def test_refresh_records_the_new_value_and_the_lesson_turns_fresh(native: Harness) -> None:
    from reasonlessons.stale.refresh import refresh
    from reasonlessons.store.project import open_project

    write_json(native.root / "package.json", JEST)
    native.expect("stale", name="testing")
    refresh(open_project(native.root), "testing")
    native.expect("lessons", changed=[{"scope": "project", "name": "testing"}])
    event = native.expect("fresh", name="testing")
    assert event["status"] == "active"


def test_a_second_daemon_is_refused_after_the_state_folder_was_deleted(native: Harness) -> None:
    """`rm -rf .reasonix/state` takes the lock file with it; the lock on the repository stays."""
    import shutil

    from reasonlessons.watch.pidlock import daemon_lock

    shutil.rmtree(native.project.loc.state_dir)
    second = daemon_lock(native.project.loc.ensure_state_dir(), root=native.root)
    with pytest.raises(WatchRunningError, match="already running"), second:
        pass
