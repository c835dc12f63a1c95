"""`reasonlessons hook AGENT`: the command Claude Code runs around every prompt and tool call, and
Reasonix at each session's start and end.

`dispatch` sends it here before importing Typer (the Typer `hook` command, for `--help` listings
and docs, is built from the same OPTIONS table and calls `run()` too). The contract with both
agents (docs/integrations.md):

* read the hook input from stdin (at most 2 MiB; more, or anything that is not a JSON object,
  is ignored), print the answer (Claude Code: one JSON object; Reasonix: plain text) or nothing,
  and exit 0;
* any internal error is silent: exit 0 with nothing printed, because an exception here must never
  block or confuse the agent (set REASONLESSONS_HOOK_DEBUG=1 to see the traceback on stderr);
* never exit 2, which both read as "block this prompt / tool call": a usage error (an unknown
  agent, a bad `--repo`) exits 1, which they show as a non-blocking hook error;
* at session end, capture in a detached process and return at once, so the agent exits without
  waiting (`--wait` does the work in the foreground: that is what the detached process runs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from reasonlessons.cli.fast import options
from reasonlessons.cli.fast.options import FLAG, INT, Option
from reasonlessons.constants import DEFAULT_BUDGET, EXIT_ERROR, EXIT_OK

if TYPE_CHECKING:
    import argparse

AGENTS = ("claude-code", "reasonix")
DEBUG_ENV = "REASONLESSONS_HOOK_DEBUG"
OPTIONS = (
    Option(
        "agent",
        (),
        "The agent whose hook protocol to speak: claude-code or reasonix.",
        metavar="AGENT",
        required=True,
    ),
    Option(
        "budget",
        ("--budget",),
        "Token budget for lessons injected per event (estimated as characters/4); default: config "
        f"recall.budget ({DEFAULT_BUDGET}). Reasonix's SessionStart block takes at most 200 of it.",
        kind=INT,
        metavar="TOKENS",
    ),
    Option(
        "wait",
        ("--wait",),
        "On SessionEnd, capture the session before exiting instead of in a detached background "
        "process (Claude Code gives SessionEnd hooks 1.5 s; Reasonix waits for them before exiting).",
        kind=FLAG,
        default=False,
    ),
    Option(
        "repo",
        ("--repo",),
        "Repository root. Default: the git top-level of the hook's cwd (for Claude Code, of "
        "$CLAUDE_PROJECT_DIR first).",
        metavar="DIR",
    ),
)


def build_parser() -> argparse.ArgumentParser:
    return options.build_parser(OPTIONS, prog="reasonlessons hook", command="hook")


def main(argv: Sequence[str]) -> int:
    """Parse, answer the hook, return the exit code; nothing here may raise."""
    try:
        opts = options.quick_parse(OPTIONS, argv)
        if opts is None:
            try:
                opts = vars(build_parser().parse_args(list(argv)))
            except SystemExit as exc:  # --help (0), or a usage error: 1, never argparse's 2
                return EXIT_OK if exc.code in (0, None) else EXIT_ERROR
        return run(**opts)
    except BaseException:  # the contract: never fail the agent
        _debug()
        return EXIT_OK


def run(
    agent: str, *, budget: int | None, wait: bool, repo: str | None, stdin: IO[bytes] | None = None
) -> int:
    """Answer one hook invocation; usage errors return 1 with a message, anything else is silent."""
    if agent not in AGENTS:
        sys.stderr.write(f"reasonlessons hook: unknown agent {agent!r}; use {', '.join(AGENTS)}\n")
        return EXIT_ERROR
    if budget is not None and not 1 <= budget <= 100_000:
        sys.stderr.write(f"reasonlessons hook: --budget {budget}: use a whole number from 1 to 100000\n")
        return EXIT_ERROR
    try:
        data = read_bounded(sys.stdin.buffer if stdin is None else stdin)
        if agent == "reasonix":
            out = answer_reasonix(data, budget=budget, wait=wait, repo=repo)
        else:
            out = answer(data, budget=budget, wait=wait, repo=repo)
    except BaseException as exc:  # the contract: never fail the agent
        from reasonlessons.errors import UsageError

        if isinstance(exc, UsageError):
            from reasonlessons.safety.terminal import visible

            sys.stderr.write(f"reasonlessons hook: {visible(str(exc))}\n")
            return EXIT_ERROR
        _debug()
        return EXIT_OK
    if out:
        _write(out)
    return EXIT_OK


def answer(data: bytes, *, budget: int | None, wait: bool, repo: str | None) -> bytes:
    """The bytes to print for one hook input (empty: print nothing)."""
    import json

    from reasonlessons.integrations.claude_hook import handle, parse_input

    payload = parse_input(data)
    if payload is None:
        return b""
    out = handle(payload, repo=repo, budget=budget, spawn=None if wait else spawn_capture)
    if out is None:
        return b""
    # ASCII JSON: a lone surrogate from a prompt can never make the output unencodable.
    return json.dumps(out, ensure_ascii=True).encode("ascii") + b"\n"


def answer_reasonix(data: bytes, *, budget: int | None, wait: bool, repo: str | None) -> bytes:
    """The bytes to print for one Reasonix hook input: plain text (Reasonix wraps SessionStart's
    stdout in `<hook-context>`), or nothing."""
    from reasonlessons.integrations.claude_hook import parse_input
    from reasonlessons.integrations.reasonix_hook import handle

    payload = parse_input(data)
    if payload is None:
        return b""
    out = handle(payload, repo=repo, budget=budget, spawn=None if wait else spawn_reasonix)
    return out.encode("utf-8", "replace") + b"\n" if out else b""


def spawn_reasonix(root: str, payload: Mapping[str, Any]) -> None:
    """Run the Reasonix SessionEnd work (sync, capture) in a detached process; return at once."""
    _detach(["reasonix", "--wait", "--repo", root], root, dict(payload))


def read_bounded(stream: IO[bytes]) -> bytes:
    """At most MAX_INPUT_BYTES + 1 of stdin; the rest is drained so the writer never sees EPIPE."""
    from reasonlessons.integrations.claude_hook import MAX_INPUT_BYTES

    if stream.isatty():
        return b""  # run by hand without input: nothing to answer
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        while stream.read(1 << 20):
            pass
    return data


def spawn_capture(root: str, transcript: str, session: str) -> None:
    """Run the SessionEnd capture in a detached process that outlives Claude Code's hook timeout."""
    payload = {
        "hook_event_name": "SessionEnd",
        "session_id": session,
        "transcript_path": transcript,
        "cwd": root,
    }
    _detach(["claude-code", "--wait", "--repo", root], root, payload)


def _detach(args: list[str], root: str, payload: dict[str, Any]) -> None:
    """`reasonlessons hook ARGS` in a new session (it outlives the agent's hook timeout), fed `payload`."""
    import json
    import subprocess

    cmd = [sys.executable, "-m", "reasonlessons", "hook", *args]
    flags: dict[str, Any] = {"start_new_session": True}
    if os.name == "nt":  # pragma: no cover (Windows: no sessions; detach from the console instead)
        flags = {"creationflags": getattr(subprocess, "DETACHED_PROCESS", 0x8) | 0x200}
    child = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root, **flags
    )
    assert child.stdin is not None
    with child.stdin:
        child.stdin.write(json.dumps(payload).encode("utf-8"))


def _write(data: bytes) -> None:
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        # Point stdout at /dev/null so the interpreter's final flush cannot fail (exit 120).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass


def _debug() -> None:
    if os.environ.get(DEBUG_ENV):
        import traceback

        traceback.print_exc(file=sys.stderr)
