"""`python -m reasonlessons` and the `reasonlessons` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "recall":
        # `recall` runs before every agent turn: argparse, no Typer (see recall/fastcli.py).
        from reasonlessons.cli.fast.recall import main as recall_main

        return recall_main(args[1:])
    if args and args[0] == "hook":
        # Agent hooks run around every prompt and tool call: no Typer (see integrations/hookcli.py).
        from reasonlessons.cli.fast.hook import main as hook_main

        return hook_main(args[1:])
    if args and args[0] == "capture":
        # `capture` runs at every session end (hooks, watch): no Typer (see capture/fastcli.py).
        from reasonlessons.cli.fast.capture import try_run as capture_run

        code = capture_run(args[1:])
        if code is not None:
            return code
    from reasonlessons.cli.fast.stale import try_run

    # `stale` runs before every agent turn: it skips building the Typer app (see fastpath.py).
    code = try_run(args)
    if code is not None:
        return code
    from reasonlessons.cli import run

    return run(argv)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
