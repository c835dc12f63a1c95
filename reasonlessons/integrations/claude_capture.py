"""Claude Code's SessionEnd hook: capture the ended session's transcript (reasonlessons/capture/)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reasonlessons.capture import pipeline
from reasonlessons.integrations.claude_hook import Hook
from reasonlessons.store.project import Project


def on_session_end(hook: Hook) -> dict[str, Any] | None:
    transcript = hook.payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.strip():
        return None
    path = os.path.expanduser(transcript)
    if not os.path.isfile(path):
        return None
    if hook.spawn is not None:
        hook.spawn(hook.root, path, hook.session or "")
    else:
        capture_transcript(hook, path)
    return None  # Claude Code discards SessionEnd output


def capture_transcript(hook: Hook, path: str) -> Any:
    """Run the capture pipeline on one ended Claude Code session; returns its CaptureReport."""
    project = Project(hook.locations())
    # idle_seconds=0: the session has ended, so its last turn counts as complete.
    return pipeline.capture(
        project, [Path(path)], agent="claude-code", env=hook.env, now=hook.now, idle_seconds=0.0
    )
