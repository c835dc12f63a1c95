"""Find a repository's sessions in each agent's standard location (docs/log-formats.md, each agent's files).

Everything environment-dependent comes in as arguments (`env`, `home`), so tests never touch the
real home directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from reasonlessons.sessions.events import ReadStats, SessionRef
from reasonlessons.sessions.jsonl import iter_json_lines
from reasonlessons.support import jsonio

_SESSION_DIR = re.compile(r"[0-9a-f]{32}")
_CWD_TAG = re.compile(r"<cwd>([^<]+)</cwd>")
# Claude Code shortens very long project directory names; compare only this much of the slug.
_CLAUDE_SLUG_MAX = 200
_HEAD_RECORDS = 25
_HEAD_LINE_MAX = 4 * 1024 * 1024
AIDER_HISTORY = ".aider.chat.history.md"
# `chat-history-file: PATH` in .aider.conf.yml; `AIDER_CHAT_HISTORY_FILE=PATH` in .env. One key each:
# a line-based read, no YAML parser on the way.
_AIDER_CONF = re.compile(r"^chat-history-file\s*:\s*(.+?)\s*(?:#.*)?$", re.MULTILINE)
_AIDER_DOTENV = re.compile(r"^\s*(?:export\s+)?AIDER_CHAT_HISTORY_FILE\s*=\s*(.+?)\s*$", re.MULTILINE)
_CONF_MAX = 256 * 1024


def discover(repo_root: Path, *, env: Mapping[str, str], home: Path) -> list[SessionRef]:
    """Session logs of every supported agent that belong to `repo_root`, sorted by agent and path."""
    roots = _spellings(repo_root)
    refs = [
        *_reasonix_v1(roots, home),
        *_reasonix_v2(roots, env, home),
        *_claude_code(roots, env, home),
        *_codex(roots, env, home),
        *(
            SessionRef("aider", path)
            for path in aider_histories(repo_root, env=env, home=home)
            if path.is_file()
        ),
    ]
    return sorted(set(refs), key=lambda ref: (ref.agent, str(ref.path)))


def _spellings(repo_root: Path) -> list[Path]:
    """The root as given (made absolute) and with symlinks resolved; agents record either."""
    given = repo_root if repo_root.is_absolute() else repo_root.absolute()
    return list(dict.fromkeys((given, repo_root.resolve())))


def _env_path(env: Mapping[str, str], key: str, home: Path) -> Path | None:
    value = env.get(key)
    if not value:
        return None
    return home / value[2:] if value.startswith("~/") else Path(value)


def _belongs(cwd: str | None, roots: list[Path], *, inside: bool = True) -> bool:
    """True when `cwd` is one of the roots (or, with `inside`, a directory below one)."""
    if not cwd:
        return False
    path = Path(cwd)
    candidates = {path, path.resolve()}
    for root in roots:
        for candidate in candidates:
            if candidate == root or (inside and root in candidate.parents):
                return True
    return False


def _reasonix_v1(roots: list[Path], home: Path) -> Iterator[SessionRef]:
    sessions = home / ".reasonix" / "sessions"
    for meta in sorted(sessions.glob("*.meta.json")):
        try:
            data = jsonio.loads(meta.read_bytes()) if meta.stat().st_size < 1024 * 1024 else None
        except (OSError, ValueError):
            continue
        workspace = data.get("workspace") if isinstance(data, dict) else None
        if not isinstance(workspace, str) or not _belongs(workspace, roots, inside=False):
            continue
        base = meta.name.removesuffix(".meta.json")
        events = sessions / f"{base}.events.jsonl"
        if events.is_file():
            sidecar = sessions / f"{base}.jsonl"
            related = (sidecar, meta) if sidecar.is_file() else (meta,)
            yield SessionRef("reasonix-v1", events, related)


def reasonix_slug(path: Path | str) -> str:
    """Reasonix v2's project directory name: `/`, `\\` and `:` become `-`."""
    return re.sub(r"[/\\:]", "-", str(path))


def _reasonix_v2(roots: list[Path], env: Mapping[str, str], home: Path) -> Iterator[SessionRef]:
    state = (
        _env_path(env, "REASONIX_HOME", home)
        or _env_path(env, "REASONIX_STATE_HOME", home)
        or home / ".reasonix"
    )
    for root in roots:
        store = state / "projects" / reasonix_slug(root) / "sessions-v4"
        if not store.is_dir():
            continue
        for session in sorted(store.iterdir()):
            if _SESSION_DIR.fullmatch(session.name) and (session / "events.frames").is_file():
                yield SessionRef("reasonix-v2", session)


def claude_slug(path: Path | str) -> str:
    """Claude Code's project directory name: every non-alphanumeric ASCII character becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def _claude_code(roots: list[Path], env: Mapping[str, str], home: Path) -> Iterator[SessionRef]:
    projects = (_env_path(env, "CLAUDE_CONFIG_DIR", home) or home / ".claude") / "projects"
    if not projects.is_dir():
        return
    slugs = {claude_slug(root) for root in roots}
    for directory in sorted(projects.iterdir()):
        if directory.is_dir() and any(_slug_matches(directory.name, slug) for slug in slugs):
            yield from _claude_dir(directory, roots)


def _slug_matches(name: str, slug: str) -> bool:
    # Sessions started in a subdirectory live under a longer slug; the cwd check decides.
    if len(slug) > _CLAUDE_SLUG_MAX:
        return name.startswith(slug[:_CLAUDE_SLUG_MAX])
    return name == slug or name.startswith(slug + "-")


def _claude_dir(directory: Path, roots: list[Path]) -> Iterator[SessionRef]:
    siblings: dict[str, list[Path]] = {}
    mains: list[Path] = []
    for file in sorted(directory.glob("*.jsonl")):
        if file.name.startswith("agent-"):
            parent = _first_field(file, ("sessionId",))
            if parent:
                siblings.setdefault(parent, []).append(file)
        else:
            mains.append(file)
    for file in mains:
        if not _belongs(_first_field(file, ("cwd",)), roots):
            continue
        nested = sorted((directory / file.stem / "subagents").glob("agent-*.jsonl"))
        yield SessionRef("claude-code", file, (*siblings.get(file.stem, []), *nested))


def _codex(roots: list[Path], env: Mapping[str, str], home: Path) -> Iterator[SessionRef]:
    codex_home = _env_path(env, "CODEX_HOME", home) or home / ".codex"
    files = [
        *sorted((codex_home / "sessions").rglob("rollout-*.jsonl")),
        *sorted((codex_home / "archived_sessions").rglob("rollout-*.jsonl")),
    ]
    for file in files:
        if _belongs(_codex_cwd(file), roots):
            yield SessionRef("codex", file)


def _head_records(path: Path) -> Iterator[dict[str, object]]:
    try:
        lines = iter_json_lines(path, stats=ReadStats(), max_line=_HEAD_LINE_MAX)
        for index, line in enumerate(lines):
            if index >= _HEAD_RECORDS:
                return
            yield line.obj
    except OSError:
        return


def _first_field(path: Path, keys: tuple[str, ...]) -> str | None:
    """The first string value of one of `keys` in the first records of a JSONL file."""
    for obj in _head_records(path):
        for key in keys:
            value = obj.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def _codex_cwd(path: Path) -> str | None:
    """`session_meta`/`turn_context` cwd, or the bare era's `<environment_context>` block."""
    for obj in _head_records(path):
        payload = obj.get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
            return str(payload["cwd"])
        content = obj.get("content") if obj.get("type") == "message" else None
        for block in content if isinstance(content, list) else ():
            text = block.get("text") if isinstance(block, dict) else None
            if isinstance(text, str) and (found := _CWD_TAG.search(text)):
                return found.group(1).strip()
    return None


def aider_histories(repo_root: Path, *, env: Mapping[str, str], home: Path) -> list[Path]:
    """Where Aider writes this repository's chat history, existing or not (docs/log-formats.md#aider-files):
    `.aider.chat.history.md` at the root, and the files `AIDER_CHAT_HISTORY_FILE` (the environment or
    the root's `.env`) and `chat-history-file:` (`.aider.conf.yml` at home or at the root) name.
    Relative paths are relative to the root, where Aider is started."""
    root = repo_root if repo_root.is_absolute() else repo_root.absolute()
    named = [env.get("AIDER_CHAT_HISTORY_FILE")]
    named += _config_values(root / ".env", _AIDER_DOTENV)
    for conf in (home / ".aider.conf.yml", root / ".aider.conf.yml"):
        named += _config_values(conf, _AIDER_CONF)
    found = [root / AIDER_HISTORY]
    for value in named:
        if not value:
            continue
        path = home / value[2:] if value.startswith("~/") else Path(value)
        found.append(path if path.is_absolute() else root / path)
    return list(dict.fromkeys(found))


def _config_values(path: Path, pattern: re.Pattern[str]) -> list[str]:
    try:
        if not path.is_file() or path.stat().st_size > _CONF_MAX:
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [m.group(1).strip().strip("'\"") for m in pattern.finditer(text)]
