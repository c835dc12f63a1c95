"""`reasonlessons capture` without Typer: hooks and `watch` run it at the end of every session, and a
re-run on unchanged logs should cost little more than starting Python.

`dispatch` tries `try_run` first; anything it does not recognise (help, unknown options) goes to the
Typer command, which is built from the same OPTIONS table and calls `run` too, so both paths accept
the same options and print the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons.cli.fast import terminal
from reasonlessons.cli.fast.options import FLAG, INT, JSON, PATH, REPO, Option, quick_parse
from reasonlessons.constants import EXIT_OK

if TYPE_CHECKING:
    from reasonlessons.capture.report import CaptureReport


OPTIONS = (
    Option(
        "logs",
        (),
        "Session logs (files or folders). Default: the repo's sessions where each agent keeps them.",
        kind=PATH,
        repeatable=True,
        metavar="LOG",
    ),
    Option(
        "agent",
        ("--agent",),
        "Log format: auto (detect), reasonix, reasonix-v1, reasonix-v2, claude-code, codex or aider.",
        default="auto",
        metavar="FORMAT",
    ),
    Option(
        "extractor",
        ("--extractor",),
        "heuristic (offline, default) or llm (an OpenAI-compatible API; falls back to heuristic).",
        default="heuristic",
        metavar="NAME",
    ),
    Option(
        "jobs",
        ("--jobs",),
        "Processes that read logs at once. Default: one per CPU (up to 4) when there is over "
        "32 MiB to read, else 1. Also $REASONLESSONS_CAPTURE_JOBS.",
        kind=INT,
        minimum=1,
        metavar="N",
    ),
    Option(
        "explain",
        ("--explain",),
        "Also say why each draft was not written (confidence, gates, duplicates); with --json, "
        'adds "dropped": [{"name", "session", "reason"}].',
        kind=FLAG,
        default=False,
    ),
    JSON,
    REPO,
)


def try_run(argv: list[str]) -> int | None:
    """The exit code of `capture [LOG...] [--agent A] [--extractor E] [--jobs N] [--explain] [--json]
    [--repo DIR]`, None for anything else."""
    opts = quick_parse(OPTIONS, argv)
    if opts is None:
        return None  # help, typos and the like: the Typer command explains them
    from reasonlessons.errors import run_mapped
    from reasonlessons.safety.terminal import visible

    return run_mapped(lambda: run(**opts), show=visible)


def run(
    repo: Path | None,
    logs: list[Path],
    *,
    agent: str,
    as_json: bool,
    extractor: str = "heuristic",
    jobs: int | None = None,
    explain: bool = False,
) -> int:
    """Capture, then print the JSON document or the human summary; returns the exit code."""
    import os

    from reasonlessons.capture.pipeline import capture
    from reasonlessons.store.project import open_project

    extract_with = None
    if extractor != "heuristic":  # the LLM client is only imported when asked for
        from reasonlessons.capture.extract.llm.extractor import choose

        extract_with = choose(extractor, os.environ)
    project = open_project(repo)
    with terminal.progress("capture", unit="bytes") as tick:
        follow = None if tick is None else (lambda state: tick(state.bytes_done, state.bytes_total))
        report = capture(
            project, logs or None, agent=agent, progress=follow, extractor=extract_with, jobs=jobs
        )
    if as_json:
        from reasonlessons.safety.terminal import json_bytes
        from reasonlessons.support import jsonio

        # What capture says is read from logs too (skip reasons, log paths): redacted like its files.
        doc = report.to_json()
        if explain:
            doc["dropped"] = [
                {"name": i.name, "session": i.session, "reason": i.reason} for i in report.dropped
            ]
        if _quotes_anything(doc):
            from reasonlessons.safety.redact import redact_value

            doc = redact_value(doc, derived=True)[0]
        sys.stdout.flush()
        sys.stdout.buffer.write(json_bytes(jsonio.dumps(doc, indent=True)))
    else:
        _summary(report, explain=explain)
    sys.stdout.flush()
    if report.errors:
        from reasonlessons.errors import ReasonLessonsError

        named = "; ".join(f"{item.name} ({item.reason})" for item in report.errors)
        raise ReasonLessonsError(
            f"cannot read {len(report.errors)} named log(s): {named}; everything else was captured. "
            "Check the path, or leave it out"
        )
    return EXIT_OK


def _quotes_anything(doc: dict[str, object]) -> bool:
    """Whether the document holds any text besides its own keys. A re-run on unchanged logs says
    only counts: redacting them would load the secret scanner, several times the cost of the run."""

    def text(value: object) -> bool:
        if isinstance(value, dict):
            return bool(value)  # its keys come from logs too (`warnings`)
        if isinstance(value, list):
            return any(text(item) for item in value)
        return isinstance(value, str)

    return any(text(value) for value in doc.values())


def _summary(report: CaptureReport, *, explain: bool = False) -> None:
    from reasonlessons.safety.redact import redact
    from reasonlessons.safety.terminal import visible

    def show(line: str) -> str:
        """A line for the terminal: redacted (it quotes logs and their paths), controls shown."""
        return visible(redact(line, derived=True).text)

    def say(line: str) -> None:
        sys.stdout.write(show(line))

    def complain(line: str) -> None:
        sys.stderr.write(show(line))

    for item in report.written:
        say(f"new candidate {item.name}  ({item.path})  from {item.session}\n")
    sessions: dict[tuple[str, str], list[str]] = {}
    for item in report.updated:
        sessions.setdefault((item.scope, item.name), []).append(item.session)
    for (scope, name), found in sessions.items():
        where = "its file" if scope == "candidate" else "local state"
        origin = found[0] if len(found) == 1 else f"{len(found)} sessions"
        say(f"more evidence for {scope} lesson {name} (kept in {where})  from {origin}\n")
    if explain:
        for item in report.dropped:
            say(f"not written: {item.name} from {item.session}: {item.reason}\n")
    for learned in report.outcomes:  # what later sessions said about the lessons (docs/learning.md)
        for outcome in learned.outcomes:
            if not outcome.recalled and outcome.verdict == "confirmed":
                continue  # a lesson it never saw, holding as ever: news only in --json
            weight = f" ({outcome.weight})" if outcome.weight else ""
            say(f"lesson {outcome.key}: {outcome.verdict}{weight} by {learned.session} ({outcome.reason})\n")
        for key in learned.archived:
            say(f"lesson {key} archived: its confidence fell below the floor (`revive` restores it)\n")
    sys.stdout.flush()
    for note in report.notes:
        complain(f"warning: {note}\n")
    for item in report.skipped:
        complain(f"warning: skipped {item.name}: {item.reason}\n")
    for item in report.errors:
        complain(f"error: {item.name}: {item.reason}\n")
    if report.damage:
        parts = ", ".join(f"{n} {reason}" for reason, n in sorted(report.damage.items()))
        count = sum(report.damage.values())
        complain(f"warning: {count} damaged or unusable log record(s) skipped ({parts})\n")
    say(
        f"{report.sessions} session(s) read from {report.files - report.unchanged} log(s)"
        f" ({report.unchanged} unchanged); {len(report.skipped)} skipped; "
        f"{len(report.written)} candidate(s) written, {len(report.updated)} updated\n"
    )
