"""`export reasonix`: fresh promoted lessons as Reasonix v2 memory facts (and skills), kept in sync.

No Reasonix version reads `.reasonix/lessons/` (docs/integrations.md#what-reasonix-loads), so
lessons reach it as background memory facts: project lessons in
`<state root>/projects/<slug>/memory/`, global lessons in `<state root>/memory/global/`, each listed
in that directory's MEMORY.md. Optionally, project lessons also become flat skills in
`<repo>/.reasonix/skills/`.

Each target directory holds a manifest, `.reasonlessons-export.json` (a dot file that is not
`.md`, so Reasonix never reads it), naming the files this module owns with their id, revision,
stamps and content digest. That is what makes a re-export byte-identical when nothing changed
(the revision moves only when what the fact says changes) and what limits withdrawal, when a lesson
turns stale, expires, is superseded, deprecated, archived by the learning loop or removed, to files
we wrote and nobody replaced. A withdrawn file goes to `.archive/`, where Reasonix's own `forget` puts facts.

Reasonix files project memory under the slug of the workspace path as it was started there: a
repository reached through a symlink, or in another letter case, has a memory folder per spelling.
Each spelling recorded by the Reasonix hook (reasonlessons/sessions/workspaces.py) gets the same
facts, and loses them with the rest.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reasonlessons.constants import REASONIX_DIR, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.errors import UsageError
from reasonlessons.integrations.reasonix_files import MANIFEST, ExportReport
from reasonlessons.integrations.reasonix_memory import FactSync
from reasonlessons.integrations.reasonix_skills import sync_skills
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.match import for_agent
from reasonlessons.sessions import workspaces
from reasonlessons.sessions.discovery import reasonix_slug, reasonix_state_root
from reasonlessons.store.project import Project
from reasonlessons.store.trust import is_trusted, scan

AGENT = "reasonix"  # lessons limited to other agents (`agents:`) never reach Reasonix
SCOPES = {"project": (SCOPE_PROJECT,), "global": (SCOPE_GLOBAL,), "all": (SCOPE_PROJECT, SCOPE_GLOBAL)}


def memory_dir(root: Path, scope: str, *, env: Mapping[str, str], home: Path) -> Path:
    """Where Reasonix reads `scope`'s facts for the workspace `root` (as spelled)."""
    base = reasonix_state_root(env, home)
    if scope == SCOPE_GLOBAL:
        return base / "memory" / "global"
    return base / "projects" / reasonix_slug(root) / "memory"


def skills_dir(project: Project) -> Path:
    return project.loc.root / REASONIX_DIR / "skills"


def export_reasonix(
    project: Project,
    *,
    scope: str = "all",
    skills: bool | None = False,
    workspaces_seen: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now: dt.datetime | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExportReport:
    """Write the fresh lessons of `scope` as memory facts, update changed ones, withdraw the rest;
    `progress(done, total)` follows the check of every lesson's staleness, the long part.

    `skills`: True syncs project lessons as skills too, None only when an earlier `--skills` run
    left its manifest there (what the hooks do). `workspaces_seen`: other spellings of the
    repository's path Reasonix was started with; each is remembered, and every remembered one that
    still names the repository gets the project facts (one that no longer does loses them)."""
    now = now or project.now()
    fresh = fresh_lessons(project, now, progress=progress)
    return sync_lessons(
        project,
        fresh,
        scope=scope,
        skills=skills,
        workspaces_seen=workspaces_seen,
        env=env,
        home=home,
        now=now,
    )


def sync_lessons(
    project: Project,
    fresh: list[Lesson],
    *,
    scope: str = "all",
    skills: bool | None = False,
    workspaces_seen: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now: dt.datetime,
) -> ExportReport:
    """`export_reasonix` for lessons already known to be fresh (`fresh_lessons`)."""
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r}: use project, global or all")
    project.loc.guard_writes()
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    root = project.loc.root
    for seen in workspaces_seen:
        workspaces.remember(project.loc, seen)
    report = ExportReport()
    for which in SCOPES[scope]:
        directory = memory_dir(root, which, env=env, home=home)
        report.memory_dirs[which] = str(directory)
        lessons = [lesson for lesson in fresh if lesson.scope == which]
        FactSync(directory, which, now, report).run(lessons)
        if which == SCOPE_PROJECT:
            for other, ours in _other_workspaces(root, directory, env=env, home=home):
                report.workspace_dirs.append(str(other))
                FactSync(other, which, now, report).run(lessons if ours else [])
    sync = skills if skills is not None else (skills_dir(project) / MANIFEST).is_file()
    if sync:
        lessons = [lesson for lesson in fresh if lesson.scope == SCOPE_PROJECT]
        lock = project.loc.ensure_state_dir() / "reasonix-skills.lock"
        sync_skills(skills_dir(project), lessons, report, lock=lock, now=now)
    return report


def _other_workspaces(
    root: Path, main: Path, *, env: Mapping[str, str], home: Path
) -> list[tuple[Path, bool]]:
    """(memory dir, still ours) of every other recorded spelling of `root`, and of the shell's."""
    live = workspaces.spellings(root, env=env)
    out: dict[Path, bool] = {}
    for spelling in (*live, *workspaces.recorded(root)):
        directory = memory_dir(spelling, SCOPE_PROJECT, env=env, home=home)
        if directory != main:
            out.setdefault(directory, spelling in live)
    return sorted(out.items())


def fresh_lessons(
    project: Project, now: dt.datetime, *, progress: Callable[[int, int], None] | None = None
) -> list[Lesson]:
    """Promoted lessons recall could return to Reasonix at `now`: active, for Reasonix (or every
    agent), not hidden by a project lesson, not flagged as hostile unless trusted
    (reasonlessons/store/trust.py). Their text is as written: `redacted` makes it safe to write,
    and the sync calls it only for what it writes."""
    entries, _ = Project(project.loc, now=lambda: now).entries("all", progress=progress)
    out = []
    for e in entries:
        lesson = e.lesson
        if lesson.scope not in (SCOPE_PROJECT, SCOPE_GLOBAL) or e.status != STATUS_ACTIVE or e.shadowed:
            continue
        if not for_agent(lesson.agents, AGENT):
            continue  # limited to other agents (`agents:`): never in Reasonix's memory or skills
        if scan(lesson) and not is_trusted(project.loc, lesson):
            continue
        out.append(lesson)
    return out
