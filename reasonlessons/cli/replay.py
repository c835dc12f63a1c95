"""`reasonlessons replay`: what the lessons would have saved, on this repository's own sessions."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from reasonlessons import replay as replaying
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, print_json, say, table, warn
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.errors import UsageError

if TYPE_CHECKING:
    from reasonlessons.replay.report import ReplayReport, Totals


@app.command("replay", **typer_help("replay"))
def replay(
    logs: Annotated[
        list[Path] | None,
        typer.Argument(help="Logs or folders to replay instead of this repository's.", show_default=False),
    ] = None,
    agent: Annotated[
        str,
        typer.Option("--agent", help="Only this agent's logs: auto (all), aider, claude-code, codex, ..."),
    ] = "auto",
    since: Annotated[
        str | None,
        typer.Option(
            "--since", help="Replay sessions from this date (YYYY-MM-DD); earlier ones are only learned."
        ),
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Replay every session oldest first and report what lessons learned before it would have caught."""
    project = open_project(repo, require_repo=True)
    with progress_bar() as progress:
        report = replaying.api.replay(
            project.loc.root, logs or None, agent=agent, since=_date(since), progress=progress
        )
    if json:
        print_json(report.to_json())
        return
    show(report)


def _date(text: str | None) -> dt.datetime | None:
    if text is None:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--since {text!r}: use a date such as 2025-01-31") from None
    return when.astimezone(dt.UTC) if when.tzinfo is None else when


@contextmanager
def progress_bar() -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, per session, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    bar = Progress(
        "replay",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task: list[Any] = []

    def update(done: int, total: int) -> None:
        if not task:
            bar.start()
            task.append(bar.add_task("replay", total=total))
        bar.update(task[0], completed=done)

    try:
        yield update
    finally:
        if task:
            bar.stop()


def _line(totals: Totals) -> str:
    rate = f"{totals.hit_rate:.0%}" if totals.hit_rate is not None else "-"
    fires = f"{totals.fires} fires ({totals.tokens_injected:,} tokens)"
    verdicts = f"{totals.hits} hits, {totals.relevant} relevant, {totals.noise} noise"
    return (
        f"{fires}: {verdicts}; hit rate {rate}; {totals.misses} misses; "
        f"saved ~{totals.tokens_saved:,} tokens, {totals.turns_saved} turns"
    )


def show(report: ReplayReport) -> None:
    """The human report: each hit and miss, then the totals per agent and per kind."""
    for what, why in report.skipped:
        warn(f"skipped {what}: {why}")
    for session in report.sessions:
        for fire in session.fires:
            if fire.verdict == "hit":
                where = f"{fire.lesson} ({fire.kind}) at {Path(fire.ref).name}"
                what = f"{Path(fire.hit_ref or '').name} ({fire.hit_mark})"
                saved = f"~{fire.saved_tokens:,} tokens, {fire.saved_turns} turns"
                say(f"hit   {session.session}: {where} addressed {what}; {saved}")
        for miss in session.misses:
            where = f"{miss.lesson} ({miss.kind}) at {Path(miss.ref).name}"
            say(f"miss  {session.session}: {where}: {miss.reason}")
    totals = report.totals()
    say(
        f"replayed {len(report.sessions)} sessions ({report.learned_only} more learned from only), "
        f"{report.lessons} lessons learned; {totals.addressed} of {totals.failures} failures addressed"
    )
    say(f"all: {_line(totals)}")
    rows = [[f"agent {a}", str(t.sessions), *_cells(t)] for a, t in report.by_agent().items()]
    rows += [[f"kind {k}", str(t.sessions), *_cells(t)] for k, t in report.by_kind().items()]
    if rows:
        table(
            ["GROUP", "SESSIONS", "FIRES", "HITS", "NOISE", "MISSES", "HIT RATE", "INJECTED", "SAVED"], rows
        )


def _cells(totals: Totals) -> list[str]:
    rate = f"{totals.hit_rate:.0%}" if totals.hit_rate is not None else "-"
    return [
        str(totals.fires),
        str(totals.hits),
        str(totals.noise),
        str(totals.misses),
        rate,
        f"{totals.tokens_injected:,}",
        f"{totals.tokens_saved:,}",
    ]
