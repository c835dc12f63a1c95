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
turns stale, expires, is superseded, deprecated or removed, to files we wrote and nobody replaced.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reasonlessons.constants import REASONIX_DIR, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.errors import UsageError
from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_files import KIND, MANIFEST, ExportReport, Item, read_bytes, unlink
from reasonlessons.integrations.reasonix_skills import sync_skills
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.safety.redact import redact_value
from reasonlessons.store.project import Project
from reasonlessons.store.state import load_state, save_state
from reasonlessons.store.trust import is_trusted, scan
from reasonlessons.support.atomic import locked, write_atomic

LOCK = ".reasonlessons-export.lock"
SCOPES = {"project": (SCOPE_PROJECT,), "global": (SCOPE_GLOBAL,), "all": (SCOPE_PROJECT, SCOPE_GLOBAL)}


def state_root(env: Mapping[str, str], home: Path) -> Path:
    """Where Reasonix keeps memory: `$REASONIX_STATE_HOME`, else `$REASONIX_HOME`, else its default.

    Reasonix's docs/CONFIG_PATHS.md: the state root (sessions, memory) defaults to Reasonix home
    and differs only when REASONIX_STATE_HOME is set."""
    for var in ("REASONIX_STATE_HOME", "REASONIX_HOME"):
        if env.get(var):
            return Path(env[var]).expanduser()
    if os.name == "nt" and env.get("APPDATA"):  # pragma: no cover (Windows)
        return Path(env["APPDATA"]) / "reasonix"
    return home / ".reasonix"


def workspace_slug(root: Path) -> str:
    """Reasonix v2's project slug: the absolute workspace path with `/`, `\\` and `:` replaced by `-`."""
    return str(root).replace("/", "-").replace("\\", "-").replace(":", "-")


def memory_dir(root: Path, scope: str, *, env: Mapping[str, str], home: Path) -> Path:
    base = state_root(env, home)
    if scope == SCOPE_GLOBAL:
        return base / "memory" / "global"
    return base / "projects" / workspace_slug(root) / "memory"


def export_reasonix(
    project: Project,
    *,
    scope: str = "all",
    skills: bool = False,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now: dt.datetime | None = None,
) -> ExportReport:
    """Write the fresh lessons of `scope` as memory facts, update changed ones, withdraw the rest."""
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r}: use project, global or all")
    project.loc.guard_writes()
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    now = now or project.now()
    fresh = fresh_lessons(project, now)
    report = ExportReport()
    for which in SCOPES[scope]:
        directory = memory_dir(project.loc.root, which, env=env, home=home)
        report.memory_dirs[which] = str(directory)
        lessons = [lesson for lesson in fresh if lesson.scope == which]
        FactSync(directory, which, now, report).run(lessons)
    if skills:
        lessons = [lesson for lesson in fresh if lesson.scope == SCOPE_PROJECT]
        lock = project.loc.ensure_state_dir() / "reasonix-skills.lock"
        sync_skills(project.loc.root / REASONIX_DIR / "skills", lessons, report, lock=lock)
    return report


def fresh_lessons(project: Project, now: dt.datetime) -> list[Lesson]:
    """Promoted lessons recall could return at `now`: active, not hidden by a project lesson, not
    flagged as hostile unless trusted (reasonlessons/store/trust.py); their text redacted (privacy.py)."""
    entries, _ = Project(project.loc, now=lambda: now).entries("all")
    out = []
    for e in entries:
        lesson = e.lesson
        if lesson.scope not in (SCOPE_PROJECT, SCOPE_GLOBAL) or e.status != STATUS_ACTIVE or e.shadowed:
            continue
        if scan(lesson) and not is_trusted(project.loc, lesson):
            continue
        pair: list[Any] = [lesson.meta, lesson.body]  # one scan for both
        meta, body = redact_value(pair)[0]
        out.append(Lesson(meta=meta, body=body, path=lesson.path, scope=lesson.scope))
    return out


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
                fact = self._one(name, lesson, owned)
                if fact is not None:
                    upserts[name] = rf.index_line(fact)
            removals = self._withdraw(set(owned) - set(wanted), owned)
            self._index(upserts, removals)
            if owned != before:
                save_state(self.dir / MANIFEST, {"facts": owned}, kind=KIND)

    def _one(self, name: str, lesson: Lesson, owned: dict[str, Any]) -> rf.Fact | None:
        path = self.dir / f"{name}.md"
        ident = rf.fact_id(self.scope, lesson.name)
        existing = read_bytes(path)
        if existing is not None and rf.file_id(existing) != ident:
            owned.pop(name, None)
            reason = "a Reasonix fact of that name exists that reasonlessons did not write; rename one"
            self.report.skipped.append(Item(lesson.name, self.scope, "fact", str(path), reason=reason))
            return None
        record = owned.get(name) if owned.get(name, {}).get("id") == ident else None
        fact = self._fact(name, lesson, ident, record or {}, revision=0)
        data = rf.render_fact(fact)
        if record is not None and record.get("digest") == fact.content_digest() and existing == data:
            self.report.unchanged.append(Item(lesson.name, self.scope, "fact", str(path), fact.revision))
            return fact
        # New, changed, or edited/removed behind our back: a new revision, stamped now.
        revision = max(int(record.get("revision", 0)) if record else 0, rf.file_revision(existing or b"")) + 1
        fact = self._fact(name, lesson, ident, record or {}, revision=revision, updated=rf.stamp(self.now))
        write_atomic(path, rf.render_fact(fact))
        owned[name] = {
            "lesson": lesson.name,
            "id": ident,
            "revision": fact.revision,
            "created_at": fact.created_at,
            "updated_at": fact.updated_at,
            "digest": fact.content_digest(),
        }
        self.report.written.append(Item(lesson.name, self.scope, "fact", str(path), fact.revision))
        return fact

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
        triggers = lesson.triggers.get("keywords", [])
        tags = meta.get("tags")
        tags = tags if isinstance(tags, list) else []
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
            keywords=rf.keywords_of([*triggers, *(str(t) for t in tags)]),
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
                unlink(path)
            drop.add(name)
            self.report.withdrawn.append(Item(lesson, self.scope, "fact", str(path)))
        return drop

    def _index(self, upserts: dict[str, str], removals: set[str]) -> None:
        path = self.dir / rf.INDEX_FILE
        old = (read_bytes(path) or b"").decode("utf-8", "replace")
        new = rf.update_index(old, upserts, removals)
        if new != old:
            write_atomic(path, new.encode("utf-8"))
