"""`trust`: accept a lesson that `validate` flagged, after reading it (see docs/security.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from reasonlessons import store
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, print_json, say, warn
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT


@app.command("trust", **typer_help("trust"))
def trust(
    name: Annotated[
        str, typer.Argument(help="The lesson to trust: project first, then global, then candidates.")
    ],
    from_global: Annotated[
        bool, typer.Option("--global", help="Trust the global lesson of that name.")
    ] = False,
    revoke: Annotated[bool, typer.Option("--revoke", help="Stop trusting it.")] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Let recall hand a flagged lesson to agents; any later change to its text revokes the trust."""
    scopes = (SCOPE_GLOBAL,) if from_global else (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE)
    outcome = store.trust.trust_lesson(open_project(repo), name, scopes=scopes, revoke=revoke)
    lesson = outcome.lesson
    if json:
        print_json(
            {
                "name": lesson.name,
                "scope": lesson.scope,
                "trusted": not revoke,
                "changed": outcome.changed,
                "flags": [{"code": f.code, "detail": f.detail} for f in outcome.flags],
            }
        )
        return
    if revoke:
        say(f"{lesson.name}: no longer trusted" if outcome.changed else f"{lesson.name} was not trusted")
        return
    for flag in outcome.flags:
        say(f"  accepted {flag}")
    what = "flagged" if outcome.flags else "unflagged"
    say(f"trusted {lesson.scope} lesson {lesson.name} ({what}); editing its text revokes the trust")


def trust_own(project: object, lesson: object) -> list[dict[str, str]]:
    """After `add`: the user's own words are trusted, flags and all (said on stderr); returns the
    flags as `--json` lists them."""
    flags = store.trust.accept_own(project, lesson)  # type: ignore[arg-type]
    for flag in flags:
        warn(f"{flag} (trusted: you wrote it; `reasonlessons trust --revoke` to undo)")
    return [{"code": f.code, "detail": f.detail} for f in flags]


def warn_untrusted(lesson: object) -> list[dict[str, str]]:
    """After `promote`: captured text is a third party's; flagged lessons wait for `trust` (said on
    stderr); returns the flags as `--json` lists them."""
    flags = store.trust.scan(lesson)  # type: ignore[arg-type]
    if flags:
        name = getattr(lesson, "name", "")
        reasons = "; ".join(map(str, flags))
        warn(f"{name} is flagged ({reasons}); recall skips it until `reasonlessons trust {name}`")
    return [{"code": f.code, "detail": f.detail} for f in flags]
