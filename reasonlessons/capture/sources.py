"""Which logs a capture run reads: the paths given (files or folders), or this repo's discovered logs."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons import capture, sessions
from reasonlessons.sessions.events import SessionRef

if TYPE_CHECKING:
    from reasonlessons.sessions.adapters import Adapter

_COMPANION_SUFFIXES = (".meta.json", ".pending.json", ".plan.json")
_SESSION_ID = re.compile(rb'"sessionId":\s*"([0-9A-Za-z-]{1,64})"')
_STORE_LOG = "events.frames"
_AIDER_HISTORY = ".aider.chat.history.md"  # the one hidden file that is a log


def discovered(
    root: Path, agent: str, *, env: Mapping[str, str] | None, home: Path | None
) -> list[SessionRef]:
    """This repository's logs in each agent's standard place, of the wanted agent (or all for auto)."""
    refs = sessions.discovery.discover(root, env=os.environ if env is None else env, home=home or Path.home())
    return [ref for ref in refs if _agent_matches(ref.agent, agent) and _not_special(ref.path) is None]


def _not_special(path: Path) -> str | None:
    """Why `path` must not be opened: a FIFO, socket or device blocks or never ends (None: a regular
    file or a folder). Decided from lstat/stat alone, never by opening it."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # missing or unreadable: reported where it is read
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"not a regular file ({kind}): never read"


def plain_files(paths: Iterable[Path]) -> list[Path] | None:
    """The logs `paths` stand for, found without reading any (folders expanded, companions left
    out); None when a path is missing or not a regular file, so that the full resolution reports it."""
    out: list[Path] = []
    for given in paths:
        path = Path(os.path.abspath(given))
        if _not_special(path) is not None:
            return None
        if path.is_dir() and not (path / _STORE_LOG).is_file():
            out.extend(_walk(path))
        elif path.exists() and not _companion(path):
            out.append(path)
        else:
            return None  # missing, or a companion named on its own: reported by the full way
    read_with = with_parents(out)
    return [path for path in out if path not in read_with]


def _agent_matches(found: str, wanted: str) -> bool:
    return wanted == "auto" or found == wanted or (wanted == "reasonix" and found.startswith("reasonix"))


def explicit(
    paths: Iterable[Path],
    chosen: Adapter | None,
    skip: Callable[[str, str], None],
    fail: Callable[[str, str], None] | None = None,
) -> list[tuple[SessionRef, Adapter]]:
    """Logs named on the command line; a folder stands for the logs under it. `fail(what, why)` a
    path that does not exist, `skip(what, why)` what is not a log."""
    found: list[tuple[SessionRef, Adapter]] = []
    for given in paths:
        path = Path(os.path.abspath(given))
        if not path.exists():
            (fail or skip)(str(given), "no such file or directory")
            continue
        if not os.access(path, os.R_OK | (os.X_OK if path.is_dir() else 0)):
            (fail or skip)(str(given), "permission denied: make it readable")
            continue
        special = _not_special(path)
        if special is not None:
            skip(str(given), special)
            continue
        adapter = chosen or capture.adapters.detect(path)
        if path.is_dir() and (adapter is None or not adapter.sniff(b"", path)):
            found.extend(explicit(_walk(path, skip), chosen, skip, fail))
        elif adapter is None:
            skip(str(given), _why_skipped(path))
        else:
            found.append((SessionRef(adapter.name, path), adapter))
    read_with = with_parents([ref.path for ref, _ in found if ref.agent == "claude-code"])
    kept = []
    for ref, adapter in found:
        if ref.path in read_with:
            skip(str(ref.path), "a subagent's log, read with its session's")
        else:
            kept.append((ref, adapter))
    return kept


def with_parents(paths: list[Path]) -> set[Path]:
    """The Claude Code subagent logs among `paths` whose session's log is there too: the adapter
    reads them where that log's Task result names them, so they are not read on their own."""
    agents = [p for p in paths if p.name.startswith("agent-") and p.suffix == ".jsonl"]
    if not agents:
        return set()
    given = set(paths)
    sessions: dict[str, Path] | None = None
    out: set[Path] = set()
    for agent in agents:
        if agent.parent.name == "subagents":
            if agent.parent.parent.with_suffix(".jsonl") in given:
                out.add(agent)
            continue
        session = _session_id(agent)
        if session is None:
            continue
        if agent.with_name(f"{session}.jsonl") in given:
            out.add(agent)
            continue
        if sessions is None:  # transcripts renamed by hand: match their session ids
            sessions = {sid: p for p in paths if p not in agents and (sid := _session_id(p))}
        if session in sessions and sessions[session].parent == agent.parent:
            out.add(agent)
    return out


def _session_id(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    found = _SESSION_ID.search(head)
    return found.group(1).decode() if found else None


def _why_skipped(path: Path) -> str:
    if _companion(path):
        return "a companion file, read with its event log"
    known = ", ".join(capture.adapters.names())
    return sessions.otherfiles.why_not_a_log(path) or f"not a session log of a known agent ({known})"


def _walk(folder: Path, skip: Callable[[str, str], None] | None = None) -> list[Path]:
    """The logs under `folder`, at any depth, in name order (Codex keeps its rollouts in
    `YYYY/MM/DD/` folders): files, and session-store folders as one log each. Hidden entries,
    companion files and symlinked folders (which may loop) are left out, and so are FIFOs, sockets
    and devices, which `skip(what, why)` hears about; an Aider history, hidden by its name, is not."""
    out: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return out  # unreadable: nothing found under it
    for entry in entries:
        if entry.name.startswith(".") and not entry.name.endswith(_AIDER_HISTORY):
            continue
        if entry.is_dir() and not entry.is_symlink():
            out.extend([entry] if (entry / _STORE_LOG).is_file() else _walk(entry, skip))
        elif entry.is_file() and not _companion(entry):
            out.append(entry)
        elif skip is not None and (special := _not_special(entry)) is not None:
            skip(str(entry), special)
    return out


def _companion(path: Path) -> bool:
    """A Reasonix v1 sidecar or meta file, which the event log's reader reads itself."""
    name = path.name
    if name.endswith(_COMPANION_SUFFIXES):
        return True
    events = path.with_name(name[: -len(".jsonl")] + ".events.jsonl")
    return name.endswith(".jsonl") and not name.endswith(".events.jsonl") and events.exists()
