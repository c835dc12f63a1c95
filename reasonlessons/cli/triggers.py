"""The options of the commands that write lessons (`add`, `edit`): every trigger flag and lesson
field flag is declared here, once, so a flag is spelled, explained and checked the same way
wherever it appears. `--cmd-trigger` and `--keyword` are the short spellings of the trigger flags.
A lesson's `triggers` (docs/lesson-format.md) tell recall when to consider it: any one that fires.
"""

from __future__ import annotations

from typing import Annotated

import typer

from reasonlessons.errors import UsageError
from reasonlessons.recall import globs
from reasonlessons.safety import linear_re

FileTriggers = Annotated[
    list[str] | None,
    typer.Option(
        "--file-trigger",
        metavar="GLOB",
        help="Recall the lesson when the task touches a file matching this glob, e.g. 'tests/**' "
        "(repeatable).",
    ),
]
CommandTriggers = Annotated[
    list[str] | None,
    typer.Option(
        "--command-trigger",
        "--cmd-trigger",
        metavar="PATTERN",
        help="Recall it when the task runs a shell command matching this pattern, e.g. '\\bvitest\\b' "
        "(repeatable).",
    ),
]
KeywordTriggers = Annotated[
    list[str] | None,
    typer.Option(
        "--keyword-trigger",
        "--keyword",
        metavar="PHRASE",
        help="Recall it when the prompt, a path or a command holds this phrase (repeatable).",
    ),
]

TaskTypes = Annotated[
    list[str] | None,
    typer.Option(
        "--task-type",
        metavar="TYPE",
        help="Recall it only for this kind of task: code-gen, exploration, qa or other (repeatable).",
    ),
]
Supersedes = Annotated[
    list[str] | None,
    typer.Option(
        "--supersedes",
        metavar="NAME",
        help="An older lesson this one replaces; recall drops it (repeatable).",
    ),
]
Expires = Annotated[
    str | None,
    typer.Option(
        "--expires",
        metavar="WHEN",
        help="Stop recalling it after this date (2027-01-01), span (90d) or never.",
    ),
]
Agents = Annotated[
    list[str] | None,
    typer.Option(
        "--agent",
        metavar="AGENT",
        help="The agent the lesson was learned with, kept as evidence (repeatable).",
    ),
]


def triggers_from(
    files: list[str] | None, commands: list[str] | None, keywords: list[str] | None
) -> dict[str, list[str]]:
    """The `triggers` mapping of the given flags (only the kinds given); UsageError on a glob or a
    pattern recall could never use."""
    for glob in files or []:
        problem = globs.check(glob)
        if problem:
            raise UsageError(f"--file-trigger {glob!r}: {problem}")
    for pattern in commands or []:
        problem = linear_re.problem(pattern)
        if problem:
            raise UsageError(f"--command-trigger {pattern!r}: {problem}")
    for phrase in keywords or []:
        if not phrase.strip():
            raise UsageError("--keyword-trigger: give a word or phrase, not an empty one")
    given = {"files": files, "commands": commands, "keywords": keywords}
    return {kind: list(dict.fromkeys(values)) for kind, values in given.items() if values}
