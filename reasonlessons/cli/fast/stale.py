"""`reasonlessons stale` without Typer: it runs before every agent turn.

`dispatch` tries `try_run` first; anything it does not recognise (help, typos, other commands) goes to
the full CLI. The Typer `stale` command is built from the same OPTIONS table and calls `stale_main` too,
so both paths accept the same options and print the same bytes.
`stale_main` first asks `reasonlessons.stale.answer_cache` whether the last answer still holds; only when
it does not does it import the lesson and fingerprint machinery.
"""

from __future__ import annotations

import os
import sys

from reasonlessons.cli.fast.options import FLAG, JSON, REPO, Option, quick_parse
from reasonlessons.constants import (
    EXIT_OK,
    EXIT_STALE,
    LESSONS_DIR,
    REASONIX_DIR,
    STATE_DIR,
)

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from reasonlessons.stale.scan import StaleScan

    RepoArg = str | PathLike[str] | None


OPTIONS = (
    Option(
        "check",
        ("--check",),
        "Exit 3 when any lesson is stale (for CI and pre-commit).",
        kind=FLAG,
        default=False,
    ),
    JSON,
    REPO,
)


def try_run(argv: list[str]) -> int | None:
    """The exit code of `stale [--check] [--json] [--repo DIR]`, or None for anything else."""
    if not argv or argv[0] != "stale":
        return None
    opts = quick_parse(OPTIONS, argv[1:])
    if opts is None:
        return None
    from reasonlessons.errors import run_mapped

    return run_mapped(lambda: stale_main(**opts), show=_visible)


def _visible(text: str) -> str:
    # Only an error message needs it: compiling its patterns costs a replayed answer ~1 ms.
    from reasonlessons.safety.terminal import visible

    return visible(text)


def stale_main(repo: RepoArg, *, check: bool, as_json: bool) -> int:
    """Run `stale`, print its report, return the exit code (3 with --check when anything is stale)."""
    from reasonlessons.stale import answer_cache

    where = _locate(repo)
    answer = None if where is None else answer_cache.lookup(where[0], root=where[1], global_dir=where[2])
    if answer is None:
        answer = _check(repo)
    sys.stderr.write(answer["stderr"])
    sys.stdout.flush()
    sys.stdout.buffer.write(answer["json"] if as_json else answer["text"])
    sys.stdout.flush()
    return EXIT_STALE if check and answer["stale"] else EXIT_OK


def _locate(repo: RepoArg) -> tuple[str, str, str] | None:
    """(state dir, root, global lessons dir) as `Locations.discover` finds them, cheaply; None when
    unsure (the full path then decides, and reports any error)."""
    cwd = os.getcwd()
    if repo is not None:
        root = os.path.realpath(os.path.join(cwd, repo))
        if not os.path.isdir(root):
            return None
    else:
        here = root = os.path.realpath(cwd)
        while not os.path.exists(os.path.join(root, ".git")):
            parent = os.path.dirname(root)
            if parent == root:
                root = here
                break
            root = parent
    if not os.path.isdir(os.path.join(root, REASONIX_DIR, STATE_DIR)):
        return None  # nothing stored (or not a repository at all: the full path says so)
    from reasonlessons.lessons import statedir  # stdlib only: as Locations.state_dir decides

    base = statedir.reasonix_home(os.environ)
    state = statedir.resolve(root, os.path.normpath(base))
    return state, root, os.path.join(os.path.normpath(base), LESSONS_DIR)


def _check(repo: RepoArg) -> dict[str, Any]:
    """Check every lesson now, keep the answer for replay, and return it."""
    import gc
    import time
    from pathlib import Path

    from reasonlessons.cli.fast import terminal
    from reasonlessons.fingerprint.deps import Deps
    from reasonlessons.safety.terminal import json_bytes, visible
    from reasonlessons.stale import answer_cache
    from reasonlessons.stale.scan import scan_stale
    from reasonlessons.store.project import open_project
    from reasonlessons.support import jsonio

    project = open_project(Path(repo) if repo is not None else None)
    project.loc.require_repository()
    deps = Deps()
    started = time.time_ns()
    # A cold check allocates ~100,000 short-lived containers and no cycles worth collecting; the
    # collector's passes over them cost ~5% of it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with terminal.progress("checking lessons") as tick:
            result = scan_stale(project, deps=deps, progress=tick)
    finally:
        if collecting:
            gc.enable()
    answer = {
        "stderr": "".join(visible(f"warning: {bad.path}: {bad.message}") + "\n" for bad in result.bad),
        "json": json_bytes(jsonio.dumps([r.to_json() for r in result.reports], indent=True)),
        "text": "".join(f"{visible(line)}\n" for line in human_lines(result)).encode("utf-8"),
        "stale": bool(result.reports),
    }
    until = result.valid_until
    answer_cache.store(
        str(project.loc.state_dir),
        root=str(project.loc.root),
        global_dir=str(project.loc.global_dir),
        deps=deps,
        started_ns=started,
        until_ns=int(until.timestamp() * 1_000_000_000) if until is not None else None,
        outputs=answer,
    )
    return answer


def human_lines(result: StaleScan) -> list[str]:
    """The tidy text report: each stale lesson, then one line per drifted entry; then the global
    lessons that do not apply to this repository, and why."""
    lines: list[str] = []
    for report in result.reports:
        lines.append(f"{report.name}  [{report.scope}]  {report.path or ''}".rstrip())
        lines.extend(f"  {item.describe()}" for item in report.drift)
    for other in result.not_applying:
        lines.append(f"{other.name}  [global, does not apply here]  {other.path or ''}".rstrip())
        lines.extend(f"  {item.describe()}" for item in other.conditions)
    if not result.reports:
        lines.append(f"no stale lessons ({result.checked} checked)")
    else:
        lines.append(
            f"{len(result.reports)} of {result.checked} lesson(s) stale; when a lesson still holds, "
            "`reasonlessons refresh NAME` (or --all) records the repo as it is now"
        )
    if result.not_applying:
        lines.append(
            f"{len(result.not_applying)} global lesson(s) do not apply to this repository (not stale, "
            "not recalled here)"
        )
    return lines
