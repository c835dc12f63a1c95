"""Session logs under watch: their locations, and idle/ended tracking driven by a fake clock."""

from __future__ import annotations

from pathlib import Path

from reasonlessons.sessions.discovery import claude_slug, reasonix_slug
from reasonlessons.sessions.events import SessionRef
from reasonlessons.watch.plan import SESSION, Reason, build_plan, relevant
from reasonlessons.watch.sessions import RETRY_SECONDS, SessionTracker, session_roots


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_session_roots_follow_each_agents_environment(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    home = tmp_path / "home"
    projects = tmp_path / "claude" / "projects"
    (projects / f"{claude_slug(repo)}-sub").mkdir(parents=True)
    (repo / "web").mkdir()
    (tmp_path / "st" / "projects" / f"{reasonix_slug(repo)}-web").mkdir(parents=True)
    env = {
        "REASONIX_HOME": str(tmp_path / "rx"),
        "REASONIX_STATE_HOME": str(tmp_path / "st"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
    }
    roots = {(r.path, r.recursive) for r in session_roots(repo, env=env, home=home)}
    assert (str(home / ".reasonix" / "sessions"), False) in roots
    for state in (tmp_path / "rx", tmp_path / "st", home / ".reasonix"):  # every state-root rule
        assert (str(state / "projects" / reasonix_slug(repo) / "sessions-v4"), True) in roots
        assert (str(state / "projects"), False) in roots  # a first session in a new subdirectory
    assert (str(tmp_path / "st" / "projects" / f"{reasonix_slug(repo)}-web" / "sessions-v4"), True) in roots
    assert (str(projects), False) in roots  # a first session in a new subdirectory
    assert (str(projects / f"{claude_slug(repo)}-sub"), True) in roots
    assert (str(home / ".codex" / "sessions"), True) in roots
    assert (str(repo / ".aider.chat.history.md"), False) in roots  # one file: only it is a log


def test_only_the_aider_history_of_a_watched_folder_is_a_session_log(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    roots = session_roots(repo, env={}, home=tmp_path / "home")
    history = next(r for r in roots if r.path.endswith(".aider.chat.history.md"))
    plan = build_plan(
        str(repo), state_dir=str(repo / ".reasonix" / "state"), lessons={}, session_roots=[history]
    )
    assert relevant(history.path, plan) == {Reason(SESSION, history.path)}
    assert relevant(str(repo / "README.md"), plan) == set()


def make(
    tmp_path: Path, refs: list[SessionRef], ended: frozenset[Path] = frozenset()
) -> tuple[SessionTracker, Clock, list[int]]:
    clock = Clock()
    finds: list[int] = []

    def find() -> list[SessionRef]:
        finds.append(1)
        return list(refs)

    tracker = SessionTracker(
        idle_seconds=60, find=find, ended=lambda ref: ref.path in ended, clock=clock, wall=lambda: 0.0
    )
    return tracker, clock, finds


def test_a_log_is_captured_once_it_has_been_quiet_for_the_idle_window(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    tracker, clock, _ = make(tmp_path, [SessionRef("claude-code", log)])
    tracker.start()
    assert tracker.touched([str(log)]) == []
    assert tracker.next_deadline() == 1060.0
    clock.now = 1059.0
    assert tracker.due() == []
    tracker.touched([str(log)])  # still being written: the window restarts
    clock.now = 1100.0
    assert tracker.due() == []
    clock.now = 1119.0
    assert tracker.due() == [SessionRef("claude-code", log)]
    assert tracker.due() == []
    assert tracker.next_deadline() is None


def test_an_ended_session_is_captured_at_once(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    tracker, _, _ = make(tmp_path, [SessionRef("codex", log)], ended={log})
    tracker.start()
    assert tracker.touched([str(log)]) == [SessionRef("codex", log)]
    assert tracker.active == []


def test_companion_files_and_session_directories_map_to_their_session(tmp_path: Path) -> None:
    events = tmp_path / "s.events.jsonl"
    meta = tmp_path / "s.meta.json"
    v2 = tmp_path / "0123"
    refs = [SessionRef("reasonix-v1", events, (meta,)), SessionRef("reasonix-v2", v2)]
    tracker, _, _ = make(tmp_path, refs)
    tracker.start()
    tracker.touched([str(meta), str(v2 / "events.frames")])
    assert set(tracker.active) == set(refs)


def test_logs_of_other_repositories_are_looked_up_rarely(tmp_path: Path) -> None:
    tracker, clock, finds = make(tmp_path, [])
    tracker.start()
    other = str(tmp_path / "other.jsonl")
    for _ in range(10):
        assert tracker.touched([other]) == []
    assert len(finds) == 2  # start, then one look for the new path
    clock.now += RETRY_SECONDS
    tracker.touched([other])
    assert len(finds) == 3
    assert tracker.active == []
