"""Find a repository's sessions in each agent's standard location (docs/log-formats.md, each agent's files).

Everything environment-dependent comes in as arguments (`env`, `home`), so tests never touch the
real home directory. `origin(ref)` says where a found session came from (the root, the rule that
names it, the folder), for `reasonlessons sources`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from reasonlessons.sessions import workspaces
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
# A launch directory below the repository is at most this deep (bounds the walk that confirms it).
_MAX_DEPTH = 32


def discover(
    repo_root: Path, *, env: Mapping[str, str], home: Path, fold_case: bool | None = None
) -> list[SessionRef]:
    """Session logs of every supported agent that belong to `repo_root`, sorted by agent and path.

    `fold_case`: whether the disk compares names without case (default: found out by asking it)."""
    roots = workspaces.spellings(repo_root, env=env)
    fold = _case_insensitive(roots[0]) if fold_case is None else fold_case
    refs = [
        *_reasonix_v1(roots, home),
        *_reasonix_v2(roots, env, home, fold),
        *_claude_code(roots, env, home),
        *_codex(roots, env, home),
        *(
            SessionRef("aider", path)
            for path in aider_histories(repo_root, env=env, home=home)
            if path.is_file()
        ),
    ]
    return sorted(set(refs), key=lambda ref: (ref.agent, str(ref.path)))


def _case_insensitive(path: Path) -> bool:
    """Whether the disk holding `path` finds it under another letter case too (macOS, Windows)."""
    swapped = str(path).swapcase()
    return swapped != str(path) and workspaces.same_directory(path, swapped)


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


def reasonix_state_roots(
    env: Mapping[str, str], home: Path, *, windows: bool | None = None
) -> list[tuple[str, Path]]:
    """Every place a Reasonix v2 state root can be, as (rule, path), in Reasonix's precedence.

    Its docs/CONFIG_PATHS.md: `$REASONIX_STATE_HOME` moves the state (sessions, memory), else
    `$REASONIX_HOME` (which holds config and state), else the platform's Reasonix home:
    `%APPDATA%\\reasonix` on Windows, `~/.reasonix` elsewhere (and on Windows before v1.8.1). The
    first is where Reasonix reads and writes now; the others hold what it wrote under other settings.
    """
    windows = os.name == "nt" if windows is None else windows
    found = [(var, _env_path(env, var, home)) for var in ("REASONIX_STATE_HOME", "REASONIX_HOME")]
    if windows and env.get("APPDATA"):
        found.append(("%APPDATA%", Path(env["APPDATA"]) / "reasonix"))
    found.append(("~/.reasonix", home / ".reasonix"))
    out: dict[Path, str] = {}
    for rule, path in found:
        if path is not None and path not in out:
            out[path] = rule
    return [(rule, path) for path, rule in out.items()]


def reasonix_state_root(env: Mapping[str, str], home: Path, *, windows: bool | None = None) -> Path:
    """Where Reasonix v2 keeps sessions and memory now (the first of `reasonix_state_roots`)."""
    return reasonix_state_roots(env, home, windows=windows)[0][1]


def _reasonix_v2(roots: list[Path], env: Mapping[str, str], home: Path, fold: bool) -> Iterator[SessionRef]:
    for _, state in reasonix_state_roots(env, home):
        for project in reasonix_project_dirs(state, roots, fold=fold):
            store = project / "sessions-v4"
            try:
                sessions = sorted(store.iterdir())
            except OSError:
                continue
            for session in sessions:
                if _SESSION_DIR.fullmatch(session.name) and (session / "events.frames").is_file():
                    yield SessionRef("reasonix-v2", session)


def reasonix_project_dirs(state: Path, roots: list[Path], *, fold: bool = False) -> list[Path]:
    """The `<state>/projects/<slug>` folders of the repository spelled as `roots`: its own slug, and
    the slugs of directories inside it (Reasonix files a session under the directory it was started
    in, while memory and the workspace use the git root)."""
    try:
        names = sorted(entry.name for entry in os.scandir(state / "projects") if entry.is_dir())
    except OSError:
        return []
    key = str.casefold if fold else str
    out = []
    for name in names:
        for root in roots:
            slug = reasonix_slug(root)
            if key(name) == key(slug) or (
                key(name).startswith(key(slug) + "-") and _slug_below(root, name[len(slug) :], fold)
            ):
                out.append(state / "projects" / name)
                break
    return out


def _slug_below(base: Path, rest: str, fold: bool, depth: int = 0) -> bool:
    """Whether a directory below `base` has `rest` as the rest of its slug (`-sub-dir` for
    `base/sub/dir`): a slug is lossy (`-` stands for `/` and `-` alike), so the disk decides."""
    if not rest:
        return True
    if depth >= _MAX_DEPTH:
        return False
    try:
        children = [entry.name for entry in os.scandir(base) if entry.is_dir()]
    except OSError:
        return False
    key = str.casefold if fold else str
    for child in sorted(children):
        piece = "-" + reasonix_slug(child)
        if key(rest[: len(piece)]) != key(piece):
            continue
        if _slug_below(base / child, rest[len(piece) :], fold, depth + 1):
            return True
    return False


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
    `.aider.chat.history.md` (or `aider.chat.history.md`) at the root, and the files
    `AIDER_CHAT_HISTORY_FILE` (the environment or the root's `.env`) and `chat-history-file:`
    (`.aider.conf.yml` at home or at the root) name.
    Relative paths are relative to the root, where Aider is started."""
    return list(_aider_named(repo_root, env=env, home=home))


def _aider_named(repo_root: Path, *, env: Mapping[str, str], home: Path) -> dict[Path, str]:
    """`aider_histories`, each with the rule that names it (the first one, when several do)."""
    root = repo_root if repo_root.is_absolute() else repo_root.absolute()
    named: list[tuple[str | None, str]] = [(env.get("AIDER_CHAT_HISTORY_FILE"), "AIDER_CHAT_HISTORY_FILE")]
    named += [(v, ".env AIDER_CHAT_HISTORY_FILE") for v in _config_values(root / ".env", _AIDER_DOTENV)]
    for conf, rule in ((home, "~/.aider.conf.yml"), (root, ".aider.conf.yml")):
        values = _config_values(conf / ".aider.conf.yml", _AIDER_CONF)
        named += [(v, f"{rule} chat-history-file") for v in values]
    # The default name, and the same without its dot (how some keep it visible or commit it).
    found = {root / AIDER_HISTORY: AIDER_HISTORY, root / AIDER_HISTORY[1:]: AIDER_HISTORY[1:]}
    for value, rule in named:
        if not value:
            continue
        path = home / value[2:] if value.startswith("~/") else Path(value)
        found.setdefault(path if path.is_absolute() else root / path, rule)
    return found


def _config_values(path: Path, pattern: re.Pattern[str]) -> list[str]:
    try:
        if not path.is_file() or path.stat().st_size > _CONF_MAX:
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [m.group(1).strip().strip("'\"") for m in pattern.finditer(text)]


def origin(
    ref: SessionRef, *, env: Mapping[str, str], home: Path, aider_rules: Mapping[Path, str] | None = None
) -> dict[str, str]:
    """Where a found session came from: `root` (the agent's folder), `rule` (what names that folder:
    an environment variable or the default) and, for agents that file sessions per project, `slug`.
    `aider_rules`: what names each Aider history (a setting of the repository, see `sources`)."""
    aider_rules = aider_rules or {}
    path = ref.path
    if ref.agent == "reasonix-v2" and path.parent.name == "sessions-v4":
        root = path.parents[3]
        rules = {p: rule for rule, p in reasonix_state_roots(env, home)}
        return {"root": str(root), "rule": rules.get(root, "?"), "slug": path.parents[1].name}
    if ref.agent == "claude-code" and path.parents[1].name == "projects":
        root = path.parents[2]
        rule = "CLAUDE_CONFIG_DIR" if root == _env_path(env, "CLAUDE_CONFIG_DIR", home) else "~/.claude"
        return {"root": str(root), "rule": rule, "slug": path.parent.name}
    if ref.agent == "codex":
        codex = _env_path(env, "CODEX_HOME", home)
        if codex is not None and codex in path.parents:
            return {"root": str(codex), "rule": "CODEX_HOME"}
        return {"root": str(home / ".codex"), "rule": "~/.codex"}
    if ref.agent == "reasonix-v1":
        return {"root": str(path.parent), "rule": "~/.reasonix/sessions"}
    if ref.agent == "aider":
        return {"root": str(path.parent), "rule": aider_rules.get(path, "?")}
    return {"root": str(path.parent), "rule": "?"}


def sources(repo_root: Path, *, env: Mapping[str, str], home: Path) -> list[dict[str, object]]:
    """Every session log `discover` finds, with its `origin` (`reasonlessons sources`)."""
    aider = _aider_named(repo_root, env=env, home=home)
    return [
        {
            "agent": ref.agent,
            "path": str(ref.path),
            "related": [str(p) for p in ref.related],
            **origin(ref, env=env, home=home, aider_rules=aider),
        }
        for ref in discover(repo_root, env=env, home=home)
    ]
