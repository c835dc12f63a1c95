from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlessons.sessions.discovery import aider_histories, claude_slug, discover, reasonix_slug
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


def test_reasonix_v2_store_under_each_root_variable(repo: Path, home: Path, tmp_path: Path) -> None:
    def store(root: Path) -> Path:
        base = root / "projects" / reasonix_slug(repo) / "sessions-v4"
        session = base / ("ab" * 16)
        session.mkdir(parents=True)
        (session / "events.frames").write_bytes(b"RX4F")
        (base / ".query-cache").mkdir()
        (base / ("cd" * 16)).mkdir()  # no events.frames
        (base / "not-a-session").mkdir()
        return session

    default = store(home / ".reasonix")
    custom = store(tmp_path / "rx-home")
    state = store(tmp_path / "rx-state")
    assert discover(repo, env={}, home=home) == [SessionRef("reasonix-v2", default)]
    env = {"REASONIX_HOME": str(tmp_path / "rx-home"), "REASONIX_STATE_HOME": str(tmp_path / "rx-state")}
    assert discover(repo, env=env, home=home) == [SessionRef("reasonix-v2", custom)]
    env = {"REASONIX_STATE_HOME": str(tmp_path / "rx-state")}
    assert discover(repo, env=env, home=home) == [SessionRef("reasonix-v2", state)]


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


def test_no_aider_history_no_aider_session(repo: Path, home: Path) -> None:
    (repo / ".aider.conf.yml").write_bytes(b"\xff\xfe not yaml at all")
    assert aider_histories(repo, env={}, home=home) == [repo / ".aider.chat.history.md"]
    assert discover(repo, env={}, home=home) == []
