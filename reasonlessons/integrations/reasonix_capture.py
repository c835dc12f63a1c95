"""Reasonix's SessionEnd hook: the exports brought in line, then the ended session captured.

The payload names the session (`sessionId`, the folder name of its sessions-v4 store) but not
where the store is: Reasonix files it under the slug of the directory it was started in, under
its state root. `find_store` looks where discovery would (every state root a rule names, the
repository's own slug and those of its subdirectories) and then in every project folder. Reasonix
runs SessionEnd while it is still closing the store, so the capture waits (at most `WAIT_SECONDS`)
until the last batch is committed and ends the turn; a store still open then is captured as far
as it goes (a later capture, or `watch`, reads the rest).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reasonlessons.capture import pipeline
from reasonlessons.integrations.reasonix_export import export_reasonix
from reasonlessons.integrations.reasonix_hook import Hook
from reasonlessons.sessions import workspaces
from reasonlessons.sessions.adapters import reasonix_v2
from reasonlessons.sessions.discovery import reasonix_project_dirs, reasonix_state_roots
from reasonlessons.store.project import Project

WAIT_SECONDS = 20.0
_POLL = 0.2


def on_session_end(hook: Hook, *, sleep: Callable[[float], Any] = time.sleep) -> Any:
    """Sync the exports, then capture the session; returns the CaptureReport (None: no store found)."""
    now = hook.now or dt.datetime.now(dt.UTC)
    project = Project(hook.locations(), now=lambda: now)
    seen = [hook.workspace] if hook.workspace is not None else []
    export_reasonix(project, skills=None, workspaces_seen=seen, env=hook.env, home=hook.home, now=now)
    if hook.session is None:
        return None
    store = find_store(hook.session, Path(hook.root), env=hook.env, home=hook.home)
    if store is None:
        return None
    deadline = time.monotonic() + WAIT_SECONDS
    while not _closed(store) and time.monotonic() < deadline:
        sleep(_POLL)
    return pipeline.capture(
        Project(hook.locations()),
        [store],
        agent="reasonix-v2",
        env=hook.env,
        home=hook.home,
        idle_seconds=0.0,
    )


def find_store(session: str, root: Path, *, env: Mapping[str, str], home: Path) -> Path | None:
    """The sessions-v4 folder of `session` (a 32-hex id) of the repository at `root`, or None."""
    if len(session) != 32 or not all(c in "0123456789abcdef" for c in session):
        return None  # not a store id: never a path component we would follow
    spellings = workspaces.spellings(root, env=env)
    roots = [state for _, state in reasonix_state_roots(env, home)]
    for state in roots:
        for project in reasonix_project_dirs(state, spellings):
            if (project / "sessions-v4" / session / "events.frames").is_file():
                return project / "sessions-v4" / session
    for state in roots:
        for found in sorted((state / "projects").glob(f"*/sessions-v4/{session}/events.frames")):
            return found.parent
    return None


def _closed(store: Path) -> bool:
    try:
        return reasonix_v2.describe(store, now=dt.datetime.now(dt.UTC), idle_seconds=float("inf")).complete
    except (OSError, ValueError):
        return False
