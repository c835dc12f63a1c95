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
turns stale, expires, is superseded, deprecated, deactivated or removed, to files we wrote and
nobody replaced. A withdrawn file goes to `.archive/`, where Reasonix's own `forget` puts facts.

Reasonix files project memory under the slug of the workspace path as it was started there: a
repository reached through a symlink, or in another letter case, has a memory folder per spelling.
Each spelling recorded by the Reasonix hook (reasonlessons/sessions/workspaces.py) gets the same
facts, and loses them with the rest.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reasonlessons.constants import REASONIX_DIR, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.errors import UsageError
from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_files import KIND, MANIFEST, ExportReport, Item, archive, read_bytes
from reasonlessons.integrations.reasonix_skills import sync_skills
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.safety.redact import redact_value
from reasonlessons.sessions import workspaces
from reasonlessons.sessions.discovery import reasonix_slug, reasonix_state_root
from reasonlessons.store.project import Project
from reasonlessons.store.state import load_state, save_state
from reasonlessons.store.trust import is_trusted, scan
from reasonlessons.support import jsonio
from reasonlessons.support.atomic import locked, write_atomic

LOCK = ".reasonlessons-export.lock"
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
) -> ExportReport:
    """Write the fresh lessons of `scope` as memory facts, update changed ones, withdraw the rest.

    `skills`: True syncs project lessons as skills too, None only when an earlier `--skills` run
    left its manifest there (what the hooks do). `workspaces_seen`: other spellings of the
    repository's path Reasonix was started with; each is remembered, and every remembered one that
    still names the repository gets the project facts (one that no longer does loses them)."""
    now = now or project.now()
    fresh = fresh_lessons(project, now)
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
        sync_skills(
            skills_dir(project), lessons, report, lock=lock, now=now, clean=redacted, source=source_digest
        )
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


def fresh_lessons(project: Project, now: dt.datetime) -> list[Lesson]:
    """Promoted lessons recall could return at `now`: active, not hidden by a project lesson, not
    flagged as hostile unless trusted (reasonlessons/store/trust.py). Their text is as written:
    `redacted` makes it safe to write, and the sync calls it only for what it writes."""
    entries, _ = Project(project.loc, now=lambda: now).entries("all")
    out = []
    for e in entries:
        lesson = e.lesson
        if lesson.scope not in (SCOPE_PROJECT, SCOPE_GLOBAL) or e.status != STATUS_ACTIVE or e.shadowed:
            continue
        if scan(lesson) and not is_trusted(project.loc, lesson):
            continue
        out.append(lesson)
    return out


def redacted(lesson: Lesson) -> Lesson:
    """The lesson with secret-looking text in its frontmatter and body masked (safety/redact.py)."""
    pair: list[Any] = [lesson.meta, lesson.body]  # one scan for both
    meta, body = redact_value(pair)[0]
    return Lesson(meta=meta, body=body, path=lesson.path, scope=lesson.scope)


def source_digest(lesson: Lesson) -> str:
    """What a fact or skill is made from: the lesson as read, and the renderer's version. The same
    digest and untouched file bytes mean the file is already right, so nothing is redacted or
    rendered again (the secret scanner alone costs a SessionStart hook 0.4 s)."""
    doc = [rf.RENDER_VERSION, lesson.scope, lesson.name, lesson.meta, lesson.body]
    return hashlib.sha256(jsonio.dumps(doc, sort_keys=True)).hexdigest()[:32]


def fact_names(lessons: list[Lesson]) -> dict[str, Lesson]:
    """Fact name -> lesson: Reasonix's slug of the name; when two slugs meet, the renamed get a suffix."""
    by_slug: dict[str, list[Lesson]] = {}
    for lesson in lessons:
        by_slug.setdefault(rf.fact_slug(lesson.name) or "lesson", []).append(lesson)
    out: dict[str, Lesson] = {}
    for slug, group in by_slug.items():
        for lesson in group:
            clash = len(group) > 1 and lesson.name != slug
            name = f"{slug}-{hashlib.sha256(lesson.name.encode()).hexdigest()[:6]}" if clash else slug
            out[name] = lesson
    return out


class FactSync:
    """Bring one memory directory in line with the lessons that should be facts there."""

    def __init__(self, directory: Path, scope: str, now: dt.datetime, report: ExportReport) -> None:
        self.dir = directory
        self.scope = scope
        self.now = now
        self.report = report

    def run(self, lessons: list[Lesson]) -> None:
        wanted = fact_names(lessons)
        if not wanted and not (self.dir / MANIFEST).exists():
            return  # nothing to write, nothing of ours to withdraw: leave Reasonix's tree alone
        with locked(self.dir / LOCK):
            owned: dict[str, Any] = load_state(self.dir / MANIFEST, kind=KIND).get("facts", {})
            owned = {k: v for k, v in owned.items() if isinstance(v, dict)}
            before = dict(owned)
            upserts: dict[str, str] = {}
            for name, lesson in sorted(wanted.items()):
                line = self._one(name, lesson, owned)
                if line is not None:
                    upserts[name] = line
            removals = self._withdraw(set(owned) - set(wanted), owned)
            self._index(upserts, removals)
            if owned != before:
                save_state(self.dir / MANIFEST, {"facts": owned}, kind=KIND)

    def _one(self, name: str, lesson: Lesson, owned: dict[str, Any]) -> str | None:
        """Write or keep the fact of one lesson; its index line, or None when the name is taken."""
        path = self.dir / f"{name}.md"
        ident = rf.fact_id(self.scope, lesson.name)
        existing = read_bytes(path)
        if existing is not None and rf.file_id(existing) != ident:
            owned.pop(name, None)
            reason = "a Reasonix fact of that name exists that reasonlessons did not write; rename one"
            self.report.skipped.append(Item(lesson.name, self.scope, "fact", str(path), reason=reason))
            return None
        record = owned.get(name) if owned.get(name, {}).get("id") == ident else None
        source = source_digest(lesson)
        if record is not None and _kept(record, source, existing):
            self.report.unchanged.append(Item(lesson.name, self.scope, "fact", str(path), record["revision"]))
            self.report.descriptions[(self.scope, lesson.name)] = record["description"]
            return rf.index_line(name, record["title"], record["description"], self.scope)
        lesson = redacted(lesson)
        fact = self._fact(name, lesson, ident, record or {}, revision=0)
        data = rf.render_fact(fact)
        if record is None or record.get("digest") != fact.content_digest() or existing != data:
            # New, changed, or edited/removed behind our back: a new revision, stamped now.
            old = int(record.get("revision", 0)) if record else 0
            revision = max(old, rf.file_revision(existing or b"")) + 1
            fact = self._fact(
                name, lesson, ident, record or {}, revision=revision, updated=rf.stamp(self.now)
            )
            data = rf.render_fact(fact)
            write_atomic(path, data)
            self.report.written.append(Item(lesson.name, self.scope, "fact", str(path), fact.revision))
        else:
            self.report.unchanged.append(Item(lesson.name, self.scope, "fact", str(path), fact.revision))
        owned[name] = {
            "lesson": lesson.name,
            "id": ident,
            "revision": fact.revision,
            "created_at": fact.created_at,
            "updated_at": fact.updated_at,
            "digest": fact.content_digest(),
            "source": source,
            "sha": _sha(data),
            "title": fact.title,
            "description": fact.description,
        }
        self.report.descriptions[(self.scope, lesson.name)] = fact.description
        return rf.index_line(name, fact.title, fact.description, self.scope)

    def _fact(
        self,
        name: str,
        lesson: Lesson,
        ident: str,
        record: dict[str, Any],
        *,
        revision: int,
        updated: str = "",
    ) -> rf.Fact:
        meta = lesson.meta
        verified = as_datetime(meta.get("refreshed-at")) or lesson.captured_at
        description = rf.flat(lesson.description)
        created = str(record.get("created_at") or updated or rf.stamp(self.now))
        return rf.Fact(
            id=ident,
            revision=revision or int(record.get("revision", 1)),
            created_at=created,
            updated_at=updated or str(record.get("updated_at") or created),
            name=name,
            title=rf.title_of(lesson.description),
            description=description,
            keywords=rf.keywords_of(rf.recall_words(lesson)),
            subject_key=f"reasonlessons.{name}",
            expires_at=rf.day_stamp(lesson.expires_at) if lesson.expires_at else None,
            last_verified_at=rf.day_stamp(verified) if verified else None,
            scope=self.scope,
            body=rf.body_of(lesson),
        )

    def _withdraw(self, names: set[str], owned: dict[str, Any]) -> set[str]:
        """Delete our facts for lessons that are no longer fresh; return the index lines to drop."""
        drop: set[str] = set()
        for name in sorted(names):
            record = owned.pop(name)
            path = self.dir / f"{name}.md"
            lesson = str(record.get("lesson") or name)
            existing = read_bytes(path)
            if existing is not None and rf.file_id(existing) != record.get("id"):
                reason = "replaced outside reasonlessons; left in place"
                self.report.skipped.append(Item(lesson, self.scope, "fact", str(path), reason=reason))
                continue
            if existing is not None:
                archive(path, self.now)
            drop.add(name)
            self.report.withdrawn.append(Item(lesson, self.scope, "fact", str(path)))
        return drop

    def _index(self, upserts: dict[str, str], removals: set[str]) -> None:
        path = self.dir / rf.INDEX_FILE
        old = (read_bytes(path) or b"").decode("utf-8", "replace")
        new = rf.update_index(old, upserts, removals)
        if new != old:
            write_atomic(path, new.encode("utf-8"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _kept(record: dict[str, Any], source: str, existing: bytes | None) -> bool:
    """Whether the fact on disk is still the one made from this very source (nothing to redo)."""
    return (
        existing is not None
        and record.get("source") == source
        and record.get("sha") == _sha(existing)
        and isinstance(record.get("title"), str)
        and isinstance(record.get("description"), str)
        and isinstance(record.get("revision"), int)
    )
