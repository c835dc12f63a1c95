"""Agent integrations on the command line: hook, install, uninstall, export, mcp.

`hook` is listed here for `--help` and docs only: `cli.fast.dispatch` sends it to the argparse fast path
(reasonlessons/cli/fast/hook.py) before Typer is imported, and this command, built from the same
option table, calls the same `run()`, so both print the same bytes and keep the same exit-code contract.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from reasonlessons import integrations
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, print_json, say, warn
from reasonlessons.cli.fast import hook as fast_hook
from reasonlessons.cli.fast import terminal
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.cli.interop import export_format
from reasonlessons.cli.tables import add_command
from reasonlessons.errors import UsageError
from reasonlessons.interop import EXPORT_FORMATS

add_command(app, "hook", fast_hook.OPTIONS, fast_hook.run)


AgentArgument = Annotated[
    str, typer.Argument(help="The agent to hook into: claude-code or reasonix.", show_default=False)
]
LocalOption = Annotated[
    bool,
    typer.Option(
        "--local", help="claude-code: .claude/settings.local.json (personal, not committed) instead."
    ),
]
GlobalOption = Annotated[
    bool,
    typer.Option(
        "--global",
        help="reasonix: <Reasonix home>/settings.json (yours, every project) instead of .reasonix/.",
    ),
]


@app.command("install", **typer_help("install"))
def install(
    agent: AgentArgument,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Remove our hooks instead.")] = False,
    local: LocalOption = False,
    global_: GlobalOption = False,
    command: Annotated[
        str | None,
        typer.Option("--command", help="Hook command to register; default: reasonlessons hook AGENT."),
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Merge the reasonlessons hooks into the agent's settings, keeping the rest; reasonix: export too."""
    _install(agent, uninstall=uninstall, local=local, global_=global_, command=command, json=json, repo=repo)


@app.command("uninstall", **typer_help("uninstall"))
def uninstall_command(
    agent: AgentArgument,
    local: LocalOption = False,
    global_: GlobalOption = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Remove the reasonlessons hooks from the agent's settings; every other hook stays."""
    _install(agent, uninstall=True, local=local, global_=global_, command=None, json=json, repo=repo)


def _install(
    agent: str,
    *,
    uninstall: bool,
    local: bool,
    global_: bool,
    command: str | None,
    json: bool,
    repo: Path | None,
) -> None:
    if agent == "claude-code":
        if global_:
            raise UsageError("--global is for reasonix; claude-code takes --local")
        report: Any = integrations.claude_install.install(
            open_project(repo).loc.root,
            command=command or integrations.claude_install.DEFAULT_COMMAND,
            local=local,
            uninstall=uninstall,
        )
    elif agent == "reasonix":
        if local:
            raise UsageError("--local is for claude-code; reasonix takes --global")
        report = integrations.reasonix_install.install(
            open_project(repo),
            command=command or integrations.reasonix_install.DEFAULT_COMMAND,
            global_=global_,
            uninstall=uninstall,
            env=os.environ,
            home=Path.home(),
        )
    else:
        raise UsageError(f"unknown agent {agent!r}; use claude-code or reasonix")
    if json:
        print_json(report.to_json())
        return
    if report.backup is not None:
        warn(f"{report.path} was not valid JSON; moved it to {report.backup}")
    if not report.changed:
        say(f"{report.path}: already {'clean' if uninstall else 'installed'}, nothing changed")
    elif uninstall:
        say(f"{report.path}: removed the reasonlessons hooks ({', '.join(report.removed) or 'none'})")
    else:
        say(f"{report.path}: hooks for {', '.join(report.added)}")
    exported = getattr(report, "export", None)
    if exported is not None:
        say(
            f"exported to Reasonix memory: {len(exported.written)} written, {len(exported.unchanged)} "
            f"unchanged, {len(exported.withdrawn)} withdrawn, {len(exported.skipped)} skipped"
        )


@app.command("export", **typer_help("export"))
def export(
    target: Annotated[
        str,
        typer.Argument(help="reasonix, agentsmesh, aip11, claude-rules or cursor-rules.", show_default=False),
    ],
    scope: Annotated[
        str | None,
        typer.Option("--scope", help="project, global or all (default: all for reasonix, else project)."),
    ] = None,
    skills: Annotated[
        bool, typer.Option("--skills", help="Also write project lessons as skills in .reasonix/skills/.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for aip11 (required), agentsmesh (default: the repo), claude-rules or cursor-rules.",
        ),
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Write fresh lessons where Reasonix v2 loads them (memory facts), or as an agentsmesh graph or
    AIP-11/Claude/Cursor files."""
    if target in EXPORT_FORMATS:  # reasonlessons/interop/, docs/interop.md
        export_format(target, out=out, scope=scope or "project", json=json, repo=repo)
        return
    if target != "reasonix":
        raise UsageError(
            f"unknown export target {target!r}; use reasonix, agentsmesh, aip11, claude-rules, cursor-rules"
        )
    with terminal.progress("export") as tick:
        report = integrations.reasonix_export.export_reasonix(
            open_project(repo), scope=scope or "all", skills=skills, progress=tick
        )
    if json:
        print_json(report.to_json())
        return
    for item in report.written:
        say(f"wrote {item.kind} {item.name} ({item.path})")
    for item in report.withdrawn:
        say(f"withdrew {item.kind} {item.name} ({item.path})")
    for item in report.skipped:
        warn(f"skipped {item.kind} {item.name}: {item.reason} ({item.path})")
    say(
        f"{len(report.written)} written, {len(report.unchanged)} unchanged, "
        f"{len(report.withdrawn)} withdrawn, {len(report.skipped)} skipped"
    )


@app.command("mcp", **typer_help("mcp"))
def mcp(repo: RepoOption = None) -> None:
    """Serve the lessons as MCP tools over stdio (needs the MCP SDK: the mcp extra)."""
    integrations.mcp_server.serve(repo)
