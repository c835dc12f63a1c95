"""Commands of the learning loop and of interop: import, stats, revive."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from reasonlessons import curation, interop, learning, replay
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, print_json, say, table, warn
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.constants import SCOPE_GLOBAL, SCOPE_PROJECT

if TYPE_CHECKING:
    from reasonlessons.interop.common import Report
    from reasonlessons.learning.stats import Sample

FORMAT_HELP = (
    "aip11 (LESSON.md package folder), agentsmesh (lessons.json), claude-rules or cursor-rules (folder)."
)


@app.command("import", **typer_help("import"))
def import_(
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help=FORMAT_HELP, show_default=False)],
    path: Annotated[Path, typer.Argument(help="The file or folder to read.", show_default=False)],
    scope: Annotated[
        str, typer.Option("--scope", help="candidate (default: a human promotes them), project or global.")
    ] = "candidate",
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite a different lesson of the same name.")
    ] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Import lessons from AIP-11, agentsmesh, Claude Code or Cursor rules; bad input writes nothing."""
    report = interop.api.import_lessons(open_project(repo), fmt, path, scope=scope, replace=replace)
    if json:
        print_json(report.to_json())
        return
    show_report(report, verb="imported")


def show_report(report: Report, *, verb: str) -> None:
    """The human summary of an import or export report."""
    for item in report.written:
        say(f"{verb} {item.name} -> {item.path}")
    for item in report.removed:
        say(f"removed {item.name} ({item.path}): {item.reason}")
    for item in report.skipped:
        warn(f"skipped {item.name}: {item.reason}")
    for note in report.notes:
        warn(note)
    say(
        f"{len(report.written)} {verb}, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed, {len(report.skipped)} skipped"
    )


@app.command("stats", **typer_help("stats"))
def stats(
    json: JsonOption = False,
    with_replay: Annotated[
        bool,
        typer.Option(
            "--replay", help="Also replay this repository's sessions and add the totals (docs/replay.md)."
        ),
    ] = False,
    repo: RepoOption = None,
) -> None:
    """Per lesson: hits, injected tokens, successes and failures; tokens per session cold vs warm; and
    library health: no-match rate, injected tokens, break-even against preloading, reach, redundancy."""
    project = open_project(repo, require_repo=True)
    result = learning.stats.compute(project)
    replayed = replay.api.replay(project.loc.root) if with_replay else None
    health = curation.health.health(project).to_json()
    if json:
        doc = {**result.to_json(), "health": health}
        if replayed is not None:
            full = replayed.to_json()
            doc["replay"] = {key: full[key] for key in ("totals", "by_agent", "by_kind")}
        print_json(doc)
        return

    def median(sample: Sample) -> str:
        return f"{sample.median:,} ({sample.n})" if sample.n else "- (0)"

    rows = [
        [
            s.name,
            s.scope,
            s.status + (" (caution)" if s.caution and s.status == "active" else ""),
            str(s.hits),
            f"{s.injected_tokens:,}",
            f"{s.success}/{s.failure}",
            median(s.cold),
            median(s.warm),
        ]
        for s in result.lessons
    ]
    if rows:
        table(
            ["NAME", "SCOPE", "STATUS", "HITS", "INJECTED", "OK/FAIL", "COLD TOKENS (N)", "WARM TOKENS (N)"],
            rows,
        )
    else:
        say("no promoted lessons yet")
    say(f"sessions captured: {result.sessions} ({result.with_usage} with usage records)")
    say(f"all lessons: {learning.stats.verdict(result.cold, result.warm)}")
    if replayed is not None:
        totals = replayed.totals()
        rate = f"{totals.hit_rate:.0%}" if totals.hit_rate is not None else "-"
        fires = f"{totals.fires} fires ({totals.tokens_injected:,} tokens)"
        hits = f"{totals.hits} hits (rate {rate}), ~{totals.tokens_saved:,} tokens saved"
        rest = f"{totals.noise} noise, {totals.misses} misses"
        say(f"replay of {totals.sessions} sessions: {fires}, {hits}; {rest}")
    say(health_line(health))


def health_line(h: dict[str, Any]) -> str:
    """The library-health summary of `stats` (reasonlessons/curation/health.py) in a few lines."""
    tokens = h["injected_tokens"]
    rate = "-" if h["no_match_rate"] is None else f"{h['no_match_rate']:.0%}"
    return (
        f"library health: recall re-run on {h['queries']} captured turns, no match {rate}; "
        f"injected tokens p50 {tokens['p50'] if tokens['p50'] is not None else '-'}, p90 "
        f"{tokens['p90'] if tokens['p90'] is not None else '-'} vs {h['preload_tokens']:,} to preload every "
        f"active lesson (break-even at {h['break_even_lessons'] or '-'} lessons)\n"
        f"reachable {h['reachable']}, unreachable {h['unreachable']}, dead triggers {h['dead_triggers']}, "
        f"duplicates {h['duplicates']}, near-duplicates {h['near_duplicates']}, "
        f"high fan-out triggers {h['high_fanout_triggers']}"
    )


@app.command("revive", **typer_help("revive"))
def revive(
    name: Annotated[str, typer.Argument(help="The archived lesson.", show_default=False)],
    from_global: Annotated[bool, typer.Option("--global", help="The lesson is in the global scope.")] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Restore a lesson the learning loop archived (its confidence fell below the floor)."""
    scope = SCOPE_GLOBAL if from_global else SCOPE_PROJECT
    project = open_project(repo)
    record = learning.loop.revive(project, name, scope=scope)
    value = project.entry(name, scopes=(scope,)).confidence if record is not None else None
    if json:
        print_json({"name": name, "scope": scope, "revived": record is not None, "confidence": value})
        return
    if record is None:
        say(f"{name} is not archived; nothing to do")
        return
    say(f"revived {name}: confidence {value:g}; counts start over (`show` keeps the history)")


def export_format(fmt: str, *, out: Path | None, scope: str, json: bool, repo: Path | None) -> None:
    """`export aip11|claude-rules|cursor-rules` (the `export` command lives in cli/integrations.py)."""
    report = interop.api.export_lessons(open_project(repo), fmt, out, scope=scope)
    if json:
        print_json(report.to_json())
        return
    show_report(report, verb="wrote")
