from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlessons.lessons.locations import Locations
from reasonlessons.sessions import workspaces
from reasonlessons.sessions.discovery import (
    aider_histories,
    claude_slug,
    discover,
    origin,
    reasonix_slug,
    reasonix_state_root,
    reasonix_state_roots,
    sources,
)
from reasonlessons.sessions.events import SessionRef


def _jsonl(path: Path, *records: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "my_app.v2"
    root.mkdir(parents=True)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def _agents(refs: list[SessionRef]) -> list[tuple[str, str]]:
    return [(ref.agent, ref.path.name) for ref in refs]


def test_slugs() -> None:
    assert claude_slug("/Users/me/my_app.v2") == "-Users-me-my-app-v2"
    assert claude_slug("C:\\src") == "C--src"
    assert claude_slug("/tmp/café") == "-tmp-caf-"
    assert reasonix_slug("/Users/me/proj") == "-Users-me-proj"
    assert reasonix_slug("C:\\src\\app") == "C--src-app"


def test_nothing_found_in_an_empty_home(repo: Path, home: Path) -> None:
    assert discover(repo, env={}, home=home) == []


def test_reasonix_v1_sessions_by_workspace(repo: Path, home: Path) -> None:
    sessions = home / ".reasonix" / "sessions"
    sessions.mkdir(parents=True)
    for name, workspace in (("code-mine", repo), ("code-other", repo.parent / "other"), ("no-log", repo)):
        (sessions / f"{name}.meta.json").write_text(json.dumps({"workspace": str(workspace)}))
    _jsonl(sessions / "code-mine.events.jsonl", {"id": 1})
    _jsonl(sessions / "code-mine.jsonl", {"role": "user"})
    _jsonl(sessions / "code-other.events.jsonl", {"id": 1})
    (sessions / "broken.meta.json").write_text("{not json")
    refs = discover(repo, env={"REASONIX_HOME": str(home / "elsewhere")}, home=home)
    assert refs == [
        SessionRef(
            "reasonix-v1",
            sessions / "code-mine.events.jsonl",
            (sessions / "code-mine.jsonl", sessions / "code-mine.meta.json"),
        )
    ]


def _store(state: Path, slug: str, session: str = "ab" * 16) -> Path:
    base = state / "projects" / slug / "sessions-v4"
    path = base / session
    path.mkdir(parents=True)
    (path / "events.frames").write_bytes(b"RX4F")
    return path


def test_reasonix_v2_store_under_each_root_variable(repo: Path, home: Path, tmp_path: Path) -> None:
    def store(root: Path) -> Path:
        session = _store(root, reasonix_slug(repo))
        base = session.parent
        (base / ".query-cache").mkdir()
        (base / ("cd" * 16)).mkdir()  # no events.frames
        (base / "not-a-session").mkdir()
        return session

    default = store(home / ".reasonix")
    custom = store(tmp_path / "rx-home")
    state = store(tmp_path / "rx-state")
    assert discover(repo, env={}, home=home) == [SessionRef("reasonix-v2", default)]
    # Every root a rule names is read: Reasonix writes under the first, older runs under the others.
    env = {"REASONIX_HOME": str(tmp_path / "rx-home"), "REASONIX_STATE_HOME": str(tmp_path / "rx-state")}
    found = {ref.path for ref in discover(repo, env=env, home=home)}
    assert found == {default, custom, state}
    env = {"REASONIX_STATE_HOME": str(tmp_path / "rx-state")}
    assert {ref.path for ref in discover(repo, env=env, home=home)} == {default, state}


def test_reasonix_state_roots_in_reasonix_precedence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"REASONIX_HOME": "/rx", "REASONIX_STATE_HOME": "~/state", "APPDATA": "C:/Users/me/AppData/Roaming"}
    assert reasonix_state_roots(env, home, windows=False) == [
        ("REASONIX_STATE_HOME", home / "state"),
        ("REASONIX_HOME", Path("/rx")),
        ("~/.reasonix", home / ".reasonix"),
    ]
    assert reasonix_state_roots({"APPDATA": "C:/AppData"}, home, windows=True) == [
        ("%APPDATA%", Path("C:/AppData") / "reasonix"),
        ("~/.reasonix", home / ".reasonix"),
    ]
    assert reasonix_state_root({"REASONIX_HOME": "/rx"}, home) == Path("/rx")
    assert reasonix_state_root({"REASONIX_HOME": "/rx", "REASONIX_STATE_HOME": "/st"}, home) == Path("/st")
    assert reasonix_state_root({}, home, windows=False) == home / ".reasonix"


def test_reasonix_v2_sessions_started_in_a_subdirectory(repo: Path, home: Path) -> None:
    state = home / ".reasonix"
    (repo / "pkg" / "web-app").mkdir(parents=True)
    mine = _store(state, reasonix_slug(repo))
    sub = _store(state, reasonix_slug(repo / "pkg" / "web-app"), "01" * 16)
    # `<repo>-tools` is a sibling repository with our slug as a prefix: the disk says it is not ours.
    (repo.parent / "my_app.v2-tools").mkdir()
    _store(state, reasonix_slug(repo.parent / "my_app.v2-tools"), "02" * 16)
    _store(state, reasonix_slug(repo) + "-gone", "03" * 16)  # no such directory inside the repository
    assert {ref.path for ref in discover(repo, env={}, home=home)} == {mine, sub}
    assert origin(SessionRef("reasonix-v2", sub), env={}, home=home) == {
        "root": str(state),
        "rule": "~/.reasonix",
        "slug": reasonix_slug(repo / "pkg" / "web-app"),
    }


def test_reasonix_v2_sessions_through_a_symlink_or_another_case(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    env = {"REASONIX_STATE_HOME": str(state)}
    link = tmp_path / "link"
    link.symlink_to(repo)
    via_link = _store(state, reasonix_slug(link / "src"), "04" * 16)
    (repo / "src").mkdir()
    assert discover(repo, env=env, home=home) == []  # nobody said the repository is reached that way
    # The shell's $PWD names the way in; so does a spelling the Reasonix hook recorded.
    assert discover(repo, env={**env, "PWD": str(link / "src")}, home=home) == [
        SessionRef("reasonix-v2", via_link)
    ]
    assert workspaces.remember(Locations(root=repo, home=home), link)
    assert discover(repo, env=env, home=home) == [SessionRef("reasonix-v2", via_link)]
    assert origin(SessionRef("reasonix-v2", via_link), env=env, home=home)["rule"] == "REASONIX_STATE_HOME"
    # On a case-insensitive disk (macOS, Windows) Reasonix may have been started as `.../MY_APP.V2`.
    upper = _store(state, reasonix_slug(str(repo).upper()), "05" * 16)
    assert SessionRef("reasonix-v2", upper) not in discover(repo, env=env, home=home, fold_case=False)
    assert SessionRef("reasonix-v2", upper) in discover(repo, env=env, home=home, fold_case=True)


def _claude_line(cwd: Path | str, session: str, kind: str = "user") -> dict[str, object]:
    return {"type": kind, "cwd": str(cwd), "sessionId": session, "uuid": "u1", "message": {}}


def test_claude_code_sessions_confirmed_by_cwd(repo: Path, home: Path, tmp_path: Path) -> None:
    projects = home / "claude-config" / "projects"
    slug_dir = projects / claude_slug(repo)
    mine = _jsonl(slug_dir / "aaaa.jsonl", {"type": "summary", "summary": "x"}, _claude_line(repo, "aaaa"))
    # Same slug, different directory (`my-app-v2` vs `my_app.v2`): rejected by the cwd check.
    twin = repo.parent / "my-app-v2"
    _jsonl(slug_dir / "bbbb.jsonl", _claude_line(twin, "bbbb"))
    sibling = _jsonl(slug_dir / "agent-1234.jsonl", _claude_line(repo, "aaaa"))
    nested = _jsonl(slug_dir / "aaaa" / "subagents" / "agent-5678.jsonl", _claude_line(repo, "aaaa"))
    sub = _jsonl(projects / f"{claude_slug(repo)}-src" / "cccc.jsonl", _claude_line(repo / "src", "cccc"))
    _jsonl(projects / f"{claude_slug(repo)}-extra" / "dddd.jsonl", _claude_line(f"{repo}-extra", "dddd"))
    link = tmp_path / "link"
    link.symlink_to(repo)
    via_link = _jsonl(projects / claude_slug(link) / "eeee.jsonl", _claude_line(link, "eeee"))

    refs = discover(repo, env={"CLAUDE_CONFIG_DIR": str(home / "claude-config")}, home=home)
    assert sorted(refs, key=lambda ref: ref.path.name) == [
        SessionRef("claude-code", mine, (sibling, nested)),
        SessionRef("claude-code", sub),
    ]
    # Started through the symlink: found when the repo is given by that path, confirmed by resolving.
    refs = discover(link, env={"CLAUDE_CONFIG_DIR": str(home / "claude-config")}, home=home)
    assert sorted(ref.path.name for ref in refs) == [mine.name, sub.name, via_link.name]
    assert discover(repo, env={}, home=home) == []  # default ~/.claude is empty


def test_codex_rollouts_confirmed_by_cwd(repo: Path, home: Path) -> None:
    codex = home / ".codex"

    def rollout(path: Path, cwd: Path, *, legacy: bool = False) -> Path:
        if legacy:
            context = f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"
            return _jsonl(
                path,
                {"id": "x", "timestamp": "2025-01-01T00:00:00Z", "instructions": None},
                {"record_type": "state"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": context}]},
            )
        meta = {"id": "x", "cwd": str(cwd), "instructions": "long " * 5000}
        return _jsonl(
            path,
            {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta},
            {"timestamp": "2026-01-01T00:00:01Z", "type": "turn_context", "payload": {"cwd": str(cwd)}},
        )

    mine = rollout(codex / "sessions" / "2026" / "05" / "03" / "rollout-2026-05-03T08-00-00-a.jsonl", repo)
    rollout(codex / "sessions" / "2026" / "05" / "03" / "rollout-2026-05-03T09-00-00-b.jsonl", repo.parent)
    old = rollout(codex / "sessions" / "rollout-2025-01-01T00-00-00-c.jsonl", repo / "sub", legacy=True)
    archived = rollout(codex / "archived_sessions" / "rollout-2026-04-01T00-00-00-d.jsonl", repo)
    (codex / "sessions" / "history.jsonl").write_text("{}\n")

    refs = discover(repo, env={}, home=home)
    assert refs == [SessionRef("codex", archived), SessionRef("codex", mine), SessionRef("codex", old)]
    assert discover(repo, env={"CODEX_HOME": str(home / "nowhere")}, home=home) == []


def test_results_are_sorted_and_unique(repo: Path, home: Path) -> None:
    sessions = home / ".reasonix" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "a.meta.json").write_text(json.dumps({"workspace": str(repo)}))
    _jsonl(sessions / "a.events.jsonl", {"id": 1})
    codex = _jsonl(
        home / ".codex" / "sessions" / "rollout-x.jsonl",
        {"type": "session_meta", "payload": {"cwd": str(repo)}},
    )
    refs = discover(repo, env={}, home=home)
    assert _agents(refs) == [("codex", codex.name), ("reasonix-v1", "a.events.jsonl")]


def test_aider_history_at_the_root_and_where_the_configuration_puts_it(repo: Path, home: Path) -> None:
    (repo / ".aider.chat.history.md").write_text("\n# aider chat started at 2025-01-01 10:00:00\n")
    (repo / "logs").mkdir()
    (repo / "logs" / "chat.md").write_text("\n# aider chat started at 2025-01-02 10:00:00\n")
    (repo / ".aider.conf.yml").write_text("model: gpt-4o\nchat-history-file: logs/chat.md  # kept\n")
    (home / ".aider.conf.yml").write_text("chat-history-file: '~/aider/all.md'\n")
    (home / "aider").mkdir()
    (home / "aider" / "all.md").write_text("\n# aider chat started at 2025-01-03 10:00:00\n")
    (repo / ".env").write_text("OPENAI_API_KEY=sk-test\nexport AIDER_CHAT_HISTORY_FILE=missing.md\n")
    env = {"AIDER_CHAT_HISTORY_FILE": str(repo / "from-env.md")}
    assert aider_histories(repo, env=env, home=home) == [
        repo / ".aider.chat.history.md",
        repo / "aider.chat.history.md",
        repo / "from-env.md",
        repo / "missing.md",
        home / "aider" / "all.md",
        repo / "logs" / "chat.md",
    ]
    refs = discover(repo, env=env, home=home)
    assert [(r.agent, r.path) for r in refs] == [
        ("aider", home / "aider" / "all.md"),
        ("aider", repo / ".aider.chat.history.md"),
        ("aider", repo / "logs" / "chat.md"),
    ]
    rules = {found["path"]: found["rule"] for found in sources(repo, env=env, home=home)}
    assert rules == {  # what `reasonlessons sources` says named each history
        str(home / "aider" / "all.md"): "~/.aider.conf.yml chat-history-file",
        str(repo / ".aider.chat.history.md"): ".aider.chat.history.md",
        str(repo / "logs" / "chat.md"): ".aider.conf.yml chat-history-file",
    }


def test_no_aider_history_no_aider_session(repo: Path, home: Path) -> None:
    (repo / ".aider.conf.yml").write_bytes(b"\xff\xfe not yaml at all")
    assert aider_histories(repo, env={}, home=home) == [
        repo / ".aider.chat.history.md",
        repo / "aider.chat.history.md",
    ]
    assert discover(repo, env={}, home=home) == []


def test_a_history_named_without_the_leading_dot(repo: Path, home: Path) -> None:
    (repo / "aider.chat.history.md").write_text("\n# aider chat started at 2025-01-01 10:00:00\n")
    refs = discover(repo, env={}, home=home)
    assert [(r.agent, r.path) for r in refs] == [("aider", repo / "aider.chat.history.md")]
    (rule,) = [found["rule"] for found in sources(repo, env={}, home=home)]
    assert rule == "aider.chat.history.md"
