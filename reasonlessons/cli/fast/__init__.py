"""The per-turn command lines, parsed without Typer: importing Typer costs several times a bare start.

Takes argv of the commands that run around every agent turn or session end; gives the same output
and exit code as their Typer twins in reasonlessons/cli/, from one option table per command.

    options.py  Option, the table type; the quick parser and the argparse parser built from a table
    helps.py    every command's one-line summary, example and exit codes, for both front ends
    terminal.py colours (NO_COLOR, --no-color) and progress bars, on a terminal only
    recall.py   `recall`: before every agent turn
    stale.py    `stale`: before every agent turn; replays the last answer when nothing changed
    hook.py     `hook claude-code|reasonix`: around prompts, tool calls, session ends; never fails the agent
    capture.py  `capture`: at every session end (hooks, watch)
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from collections.abc import Sequence

GLOBAL_FLAGS = ("--version", "--no-color")


def global_options(args: Sequence[str]) -> tuple[list[str], int | None]:
    """Apply the options given before the command (`--no-color`; `--version` answers at once:
    an exit code instead of None); the rest of the command line."""
    import sys

    # A per-turn command line imports nothing more; terminal.py is loaded once something needs it.
    if "reasonlessons.cli.fast.terminal" in sys.modules:
        sys.modules["reasonlessons.cli.fast.terminal"].reset()
    rest = list(args)
    while rest and rest[0] in GLOBAL_FLAGS:
        flag = rest.pop(0)
        if flag == "--version":
            from reasonlessons import __version__

            sys.stdout.write(f"reasonlessons {__version__}\n")
            return rest, 0
        from reasonlessons.cli.fast import terminal

        terminal.disable_color()
    return rest, None


def dispatch(args: Sequence[str]) -> int | None:
    """The exit code of `args` run by a fast path, or None when the Typer application runs them."""
    args, answered = global_options(args)
    if answered is not None:
        return answered
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
