"""`reasonlessons capture`: read agent session logs and propose candidate lessons."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reasonlessons.cli.app import JsonOption, RepoOption, app
from reasonlessons.cli.fast.capture import run
from reasonlessons.constants import EXIT_OK


@app.command()
def capture(
    logs: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Session logs (files or folders). Default: the repo's sessions where each agent keeps them."
        ),
    ] = None,
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            help="Log format: auto (detect), reasonix, reasonix-v1, reasonix-v2, claude-code or codex.",
        ),
    ] = "auto",
    extractor: Annotated[
        str,
        typer.Option(
            "--extractor",
            help="heuristic (offline, default) or llm (an OpenAI-compatible API; falls back to heuristic).",
        ),
    ] = "heuristic",
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            min=1,
            help="Processes that read logs at once. Default: one per CPU (up to 4) when there is over "
            "32 MiB to read, else 1. Also $REASONLESSONS_CAPTURE_JOBS.",
        ),
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Read session logs and write new candidate lessons; re-running on the same logs writes nothing."""
    code = run(repo, list(logs or []), agent=agent, as_json=json, extractor=extractor, jobs=jobs)
    if code != EXIT_OK:
        raise typer.Exit(code)
