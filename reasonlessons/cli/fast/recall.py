"""`reasonlessons recall` without Typer: it runs before every agent turn, and importing Typer alone
costs several times a bare Python start. `dispatch` sends `recall` here; the Typer `recall` command
(reasonlessons/cli/recall.py, for `--help` listings and docs) calls `run()` too, so both paths accept
the same options and print the same bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reasonlessons.constants import EXIT_OK, EXIT_USAGE, TASK_TYPES

DEFAULT_BUDGET = 200
MAX_STDIN_CHARS = 16 << 20

DESCRIPTION = (
    "Print the fresh, relevant lessons for a task, within a token budget. Stale, expired, "
    "superseded and deprecated lessons never come back; candidates are never recalled."
)
HELP = {
    "prompt": "The user's prompt; '-' reads it from stdin.",
    "--file": "A file the task touches (repeatable); repo-relative, or absolute inside the repo.",
    "--cmd": "A shell command the task runs, matched against command-pattern triggers.",
    "--budget": f"Token budget for the lessons (estimated as characters/4); default {DEFAULT_BUDGET}.",
    "--task-type": f"Skip the classifier: one of {', '.join(TASK_TYPES)}.",
    "--format": "text (a labelled block), json, or claude-code (UserPromptSubmit hook JSON).",
    "--session": "Agent session id: a lesson is injected at most once per session.",
    "--repo": "Repository root. Default: the git top-level of the current directory, else the current one.",
}


def build_parser() -> Any:
    """The argparse parser: for `--help`, and for anything `quick_parse` does not accept."""
    import argparse

    parser = argparse.ArgumentParser(prog="reasonlessons recall", description=DESCRIPTION, allow_abbrev=False)
    parser.add_argument("prompt", nargs="?", default="", metavar="PROMPT", help=HELP["prompt"])
    parser.add_argument(
        "--file", action="append", default=[], metavar="PATH", dest="files", help=HELP["--file"]
    )
    parser.add_argument("--cmd", metavar="CMD", help=HELP["--cmd"])
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="TOKENS", help=HELP["--budget"])
    parser.add_argument("--task-type", metavar="T", help=HELP["--task-type"])
    parser.add_argument("--format", default="text", dest="fmt", metavar="FORMAT", help=HELP["--format"])
    parser.add_argument("--session", metavar="ID", help=HELP["--session"])
    parser.add_argument("--repo", type=Path, metavar="DIR", help=HELP["--repo"])
    return parser


_VALUE_OPTIONS = {
    "--file": "files",
    "--cmd": "cmd",
    "--budget": "budget",
    "--task-type": "task_type",
    "--format": "fmt",
    "--session": "session",
    "--repo": "repo",
}


def quick_parse(argv: Sequence[str]) -> dict[str, Any] | None:
    """The options of a well-formed command line, or None to let argparse explain (or show help).

    Building an argparse parser costs more than a warm recall (gettext looks for catalogs on
    disk), so the common case is parsed here with argparse's rules for what it accepts.
    """
    opts: dict[str, Any] = {
        "prompt": "",
        "files": [],
        "cmd": None,
        "budget": DEFAULT_BUDGET,
        "task_type": None,
        "fmt": "text",
        "session": None,
        "repo": None,
    }
    positional: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--":
            positional.extend(args)
            break
        if arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            key = _VALUE_OPTIONS.get(name)
            if key is None:
                return None
            if not eq:
                following = next(args, None)
                if following is None or (following.startswith("-") and following != "-"):
                    return None
                value = following
            if key == "files":
                opts["files"].append(value)
            elif key == "budget":
                try:
                    opts["budget"] = int(value)
                except ValueError:
                    return None
            else:
                opts[key] = Path(value) if key == "repo" else value
        else:
            positional.append(arg)
    if len(positional) > 1:
        return None
    if positional:
        opts["prompt"] = positional[0]
    return opts


def main(argv: Sequence[str]) -> int:
    """Parse `recall`'s arguments, run it, and return the exit code (SPEC §5)."""
    opts = quick_parse(argv)
    if opts is None:
        try:
            opts = vars(build_parser().parse_args(list(argv)))
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from reasonlessons.errors import run_mapped

    return run_mapped(lambda: run(opts.pop("prompt"), **opts))


def run(
    prompt: str,
    *,
    files: Sequence[str],
    cmd: str | None,
    budget: int,
    task_type: str | None,
    fmt: str,
    session: str | None,
    repo: Path | None,
) -> int:
    """Recall for the repository and print the result; errors raise ReasonLessonsError."""
    from reasonlessons.errors import UsageError
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.recall.api import recall
    from reasonlessons.recall.result import FORMATS

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: use {', '.join(FORMATS)}")
    if prompt == "-":
        prompt = sys.stdin.read(MAX_STDIN_CHARS)
    result = recall(
        Locations.discover(repo),
        prompt,
        files=files,
        cmd=cmd,
        budget=budget,
        task_type=task_type,
        session=session,
    )
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    out = result.render(fmt)
    if out:
        sys.stdout.flush()
        sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))
        sys.stdout.flush()
    return EXIT_OK
