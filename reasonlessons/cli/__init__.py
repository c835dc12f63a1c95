"""The command line: a thin Typer layer over the library; errors become exit codes here, and only here.

Takes argv; gives what the library returns, printed, and an exit code (docs/commands.md). Each
module registers its commands on the app of app.py:

    app.py           the Typer app, the shared options, printing helpers
    lessons.py       add, list, show, promote, reject, rm, validate
    capture.py       capture (built from fast/capture.py's option table), sources
    curation.py      prune, search, deprecate, merge, untrigger, edit
    recall.py        recall (built from fast/recall.py's option table)
    stale.py         stale (built from fast/stale.py's option table), refresh
    trust.py         trust
    watch.py         watch
    integrations.py  hook (built from fast/hook.py's option table), install, uninstall, export, mcp
    interop.py       import, stats, revive
    replay.py        replay
    tables.py        a Typer command generated from a fast path's option table
    triggers.py      the trigger options (--file-trigger, ...) of commands that write lessons
    fast/            the per-turn paths, without Typer: recall, capture, stale, hook
"""

from __future__ import annotations

import sys

from reasonlessons.cli import fast
from reasonlessons.constants import EXIT_ERROR, EXIT_OK

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    import typer


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code: a per-turn command through its fast path
    (reasonlessons/cli/fast/), anything else through the Typer application."""
    code = fast.dispatch(sys.argv[1:] if argv is None else argv)
    return code if code is not None else run(argv)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


def run(argv: list[str] | None = None) -> int:
    """Run one command line and return its exit code."""
    from reasonlessons.cli.fast import terminal
    from reasonlessons.errors import run_mapped
    from reasonlessons.safety.terminal import visible

    app = build_app()
    terminal.reset()  # `--no-color` holds for one command line

    def invoke() -> int:
        try:
            app(args=argv, prog_name="reasonlessons")
        except SystemExit as exc:
            return _code(exc.code)
        return EXIT_OK

    return run_mapped(invoke, show=visible)


def build_app() -> typer.Typer:
    """Import every command module (each registers itself) and return the app."""
    from reasonlessons.cli import (
        capture,  # noqa: F401
        curation,  # noqa: F401
        integrations,  # noqa: F401
        interop,  # noqa: F401
        lessons,  # noqa: F401
        recall,  # noqa: F401
        replay,  # noqa: F401
        stale,  # noqa: F401
        trust,  # noqa: F401
        watch,  # noqa: F401
    )
    from reasonlessons.cli.app import app

    return app


def _code(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return EXIT_ERROR
