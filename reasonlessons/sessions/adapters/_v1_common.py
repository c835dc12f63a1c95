"""Rules shared by the Reasonix v1 event-log and transcript readers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons.sessions.errorsig import parse_reasonix_shell, reasonix_ok, specific_error
from reasonlessons.sessions.events import ErrorKind, Tokens, new_tokens
from reasonlessons.sessions.jsonl import MAX_LINE
from reasonlessons.sessions.normalize import as_int


class ToolOutcome(NamedTuple):
    """How a Reasonix tool result ended, per docs/log-formats.md#v1-tool-results (one per result line,
    hence a tuple: cheaper to build than a frozen dataclass)."""

    is_error: bool
    exit_code: int | None
    error_kind: ErrorKind | None
    error_text: str


def reasonix_result(output: str, ok: bool | None) -> ToolOutcome:
    """Classify a tool output: `ok` false (or the text heuristic when absent), or a failed shell."""
    if ok is None:
        ok = reasonix_ok(output)
    shell = parse_reasonix_shell(output)
    if shell is not None and shell.failed:
        kind: ErrorKind = "timeout" if shell.timed_out else "exit"
        return ToolOutcome(True, shell.exit_code, kind, specific_error(None, shell.body))
    exit_code = shell.exit_code if shell is not None else None
    if ok:
        return ToolOutcome(False, exit_code, None, output)
    denied = output.startswith("[hook block]") or "ConfirmationError" in output
    return ToolOutcome(True, exit_code, "permission" if denied else "tool", specific_error(None, output))


def v1_tokens(usage: dict[str, Any]) -> Tokens:
    """RawUsage (`prompt_cache_miss_tokens`, …) as Tokens (docs/log-formats.md#tokens)."""
    # Counts are plain ints in every log seen: `as_int` only for anything else (once per model call).
    hit, out = usage.get("prompt_cache_hit_tokens"), usage.get("completion_tokens")
    hit = hit if hit.__class__ is int else as_int(hit)
    if "prompt_cache_miss_tokens" in usage:
        miss = usage["prompt_cache_miss_tokens"]
        miss = miss if miss.__class__ is int else as_int(miss)
    else:
        prompt = usage.get("prompt_tokens")
        miss = max(0, (prompt if prompt.__class__ is int else as_int(prompt)) - hit)
    return new_tokens(miss, out if out.__class__ is int else as_int(out), hit, 0)


def prefix_counts(path: Path, end: int, needles: tuple[bytes, ...]) -> tuple[int, list[int]]:
    """Lines before byte `end`, and how many of them contain each needle (no JSON parsing)."""
    counts = [0] * len(needles)
    lines = 0
    if end <= 0:
        return 0, counts
    with path.open("rb") as handle:
        position = 0
        while position < end and (raw := handle.readline(min(MAX_LINE, end - position))):
            position += len(raw)
            if raw.endswith(b"\n"):
                lines += 1
            for index, needle in enumerate(needles):
                if needle in raw:
                    counts[index] += 1
    return lines, counts
