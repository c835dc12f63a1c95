"""`reasonlessons capture`: read agent session logs and propose candidate lessons; `sources`: which."""

from __future__ import annotations

import os
from pathlib import Path

from reasonlessons import sessions
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, print_json, say, table
from reasonlessons.cli.fast.capture import OPTIONS, run
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.cli.tables import add_command

add_command(app, "capture", OPTIONS, run)


@app.command("sources", **typer_help("sources"))
def sources_command(json: JsonOption = False, repo: RepoOption = None) -> None:
    """List this repository's session logs that capture finds, and where each came from."""
    root = open_project(repo, require_repo=True).loc.root
    found = sessions.discovery.sources(root, env=os.environ, home=Path.home())
    if json:
        print_json(found)
    elif not found:
        say("no session logs of this repository found in any agent's standard place")
    else:
        rows = [
            [str(s["agent"]), str(s["path"]), f"{s['root']} ({s['rule']})", str(s.get("slug", ""))]
            for s in found
        ]
        table(["agent", "log", "root (rule)", "slug"], rows)
