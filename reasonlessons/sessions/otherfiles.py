"""Files the agents write beside their session logs, told apart so capture can say why it passes
over them: a folder named on the command line (`~/.reasonix`, a run's output directory) holds
usage logs, metrics and redacted streams that hold no events to learn from, and SWE-agent
trajectories, which no adapter reads yet (docs/log-formats.md#files-no-adapter-reads).

Only the head of a file is read, like the adapters' own format detection.
"""

from __future__ import annotations

from pathlib import Path

from reasonlessons.sessions.jsonl import head_objects, read_head

_HEAD = 8 * 1024
_NO_EVENTS = "it holds no events to learn from"
_METRICS_KEYS = ("prompt_tokens", "steps", "tool_calls")


def why_not_a_log(path: Path) -> str | None:
    """What a file no adapter reads is, when it is one the agents write; None for anything else."""
    try:
        head = read_head(path, _HEAD)
    except OSError:
        return None
    first = head_objects(head, limit=1)
    keys = set(first[0]) if first else set()
    if {"schema_version", "sequence", "kind"} <= keys:
        return (
            "a Reasonix v2 --events-jsonl stream: its tool names are pseudonymised and it keeps counts "
            "only (capture the --trajectory file or the session store instead)"
        )
    if {"session", "model", "promptTokens"} <= keys:
        return f"a Reasonix usage log (token counts per model call): {_NO_EVENTS}"
    if {"ts", "model", "usage_source"} <= keys or {"ts", "source", "turn"} <= keys:
        return f"a Reasonix v2 usage statistics file (token counts per request): {_NO_EVENTS}"
    if not head.lstrip().startswith(b"{"):
        return None
    # One pretty-printed JSON document: its head does not parse, so its keys are looked for as text.
    if all(f'"{key}"'.encode() in head for key in _METRICS_KEYS):
        return f"a Reasonix v2 run metrics file (totals of one run): {_NO_EVENTS}"
    if path.suffix == ".traj" or b'"trajectory_format"' in head or b'"trajectory"' in head:
        return "a SWE-agent trajectory: no adapter reads this format yet"
    return None
