"""`reasonlessons recall` without Typer: it runs before every agent turn, and importing Typer alone
costs several times a bare Python start. `dispatch` sends `recall` here; the Typer `recall` command
(reasonlessons/cli/recall.py, for `--help` listings and docs) is built from the same OPTIONS table and
calls `run()` too, so both paths accept the same options and print the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.cli.fast import options
from reasonlessons.cli.fast.options import FLAG, INT, JSON, PATH, REPO, Option
from reasonlessons.constants import DEFAULT_BUDGET, EXIT_OK, EXIT_USAGE, TASK_TYPES

if TYPE_CHECKING:
    import argparse

MAX_STDIN_CHARS = 16 << 20

OPTIONS = (
    Option("prompt", (), "The user's prompt; '-' reads it from stdin.", default="", metavar="PROMPT"),
    Option(
        "files",
        ("--file",),
        "A file the task touches (repeatable); repo-relative, or absolute inside the repo.",
        metavar="PATH",
        repeatable=True,
    ),
    Option(
        "cmd",
        ("--cmd",),
        "A shell command the task runs, matched against command-pattern triggers.",
        metavar="CMD",
    ),
    Option(
        "budget",
        ("--budget",),
        f"Token budget for the lessons (estimated as characters/4); default: config recall.budget "
        f"({DEFAULT_BUDGET}).",
        kind=INT,
        metavar="TOKENS",
    ),
    Option(
        "task_type", ("--task-type",), f"Skip the classifier: one of {', '.join(TASK_TYPES)}.", metavar="T"
    ),
    Option(
        "fmt",
        ("--format",),
        "text (a labelled block), json, or claude-code (UserPromptSubmit hook JSON).",
        default="text",
        metavar="FORMAT",
    ),
    Option(
        "session",
        ("--session",),
        "Agent session id: a lesson is injected at most once per session.",
        metavar="ID",
    ),
    Option(
        "agent",
        ("--agent",),
        "The agent asking (claude-code, codex, reasonix, ...): lessons limited to other agents are "
        "left out, and without it every lesson limited to some agent is.",
        metavar="AGENT",
    ),
    Option(JSON.name, JSON.flags, "The same as --format json.", kind=FLAG, default=False),
    Option(REPO.name, REPO.flags, REPO.help, kind=PATH, metavar="DIR"),
)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser: for `--help`, and for anything `quick_parse` does not accept."""
    return options.build_parser(OPTIONS, prog="reasonlessons recall", command="recall")


def quick_parse(argv: Sequence[str]) -> dict[str, Any] | None:
    """The options of a well-formed command line, or None to let argparse explain (or show help).

    Building an argparse parser costs more than a warm recall (gettext looks for catalogs on
    disk), so the common case is parsed from the table directly.
    """
    return options.quick_parse(OPTIONS, argv)


def main(argv: Sequence[str]) -> int:
    """Parse `recall`'s arguments, run it, and return the exit code."""
    opts = quick_parse(argv)
    if opts is None:
        try:
            opts = vars(build_parser().parse_args(list(argv)))
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from reasonlessons.errors import run_mapped
    from reasonlessons.safety.terminal import visible

    return run_mapped(lambda: run(**opts), show=visible)


def run(
    prompt: str,
    *,
    files: Sequence[str],
    cmd: str | None,
    budget: int | None,
    task_type: str | None,
    fmt: str,
    session: str | None,
    repo: Path | None,
    agent: str | None = None,
    as_json: bool = False,
) -> int:
    """Recall for the repository and print the result; errors raise ReasonLessonsError."""
    from reasonlessons.errors import UsageError
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.recall.api import recall
    from reasonlessons.recall.result import FORMATS
    from reasonlessons.safety.terminal import visible

    if as_json:
        if fmt not in ("text", "json"):
            raise UsageError(f"--json is --format json: give one of --json and --format {fmt}")
        fmt = "json"
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: use {', '.join(FORMATS)}")
    if prompt == "-":
        prompt = sys.stdin.read(MAX_STDIN_CHARS)
    loc = Locations.discover(repo).require_repository()
    result = recall(
        loc,
        prompt,
        files=files,
        cmd=cmd,
        budget=budget,
        task_type=task_type,
        session=session,
        agent=agent,
        # Reading never creates .reasonix/state/; remembering what a session was given does, in a
        # repository that has lessons (docs/commands.md#recall).
        create_state=session is not None and loc.project_dir.is_dir(),
    )
    for warning in result.warnings:
        sys.stderr.write(f"warning: {visible(warning)}\n")
    out = result.render(fmt)
    if out:
        sys.stdout.flush()
        sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
    return EXIT_OK
