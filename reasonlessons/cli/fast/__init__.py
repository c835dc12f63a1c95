"""The argparse fast paths: the per-turn commands (recall, hook, capture, stale) without Typer.

`dispatch` sends a command line to its fast path, which imports only what that command needs;
reasonlessons.cli.main gives anything else (and what a fast path does not recognise) to the Typer
application, whose import alone costs several times a bare Python start.
"""

from __future__ import annotations

from collections.abc import Sequence


def dispatch(args: Sequence[str]) -> int | None:
    """The exit code of `args` run by a fast path, or None when the Typer application runs them."""
    if args and args[0] == "recall":
        # `recall` runs before every agent turn: argparse, no Typer (see recall.py).
        from reasonlessons.cli.fast.recall import main as recall_main

        return recall_main(args[1:])
    if args and args[0] == "hook":
        # Agent hooks run around every prompt and tool call: no Typer (see hook.py).
        from reasonlessons.cli.fast.hook import main as hook_main

        return hook_main(args[1:])
    if args and args[0] == "capture":
        # `capture` runs at every session end (hooks, watch): no Typer (see capture.py).
        from reasonlessons.cli.fast.capture import try_run as capture_run

        code = capture_run(list(args[1:]))
        if code is not None:
            return code
    # `stale` runs before every agent turn: it skips building the Typer app (see stale.py).
    from reasonlessons.cli.fast.stale import try_run

    return try_run(list(args))
