"""One Reasonix memory directory brought in line with the lessons that should be facts there.

`FactSync(directory).run(lessons)`: each lesson's fact written, kept or given a new revision; our
facts whose lessons are gone moved to `.archive/`; `MEMORY.md` lines of ours updated, every other
line kept; the directory's `.reasonlessons-export.json` updated only when something changed.
Files reasonlessons did not write are never touched (docs/integrations.md#what-the-export-writes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_files import KIND, MANIFEST, ExportReport, Item, archive, read_bytes
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked, write_atomic

LOCK = ".reasonlessons-export.lock"


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
        source = rf.source_digest(lesson)
        if record is not None and _kept(record, source, existing):
            self.report.unchanged.append(Item(lesson.name, self.scope, "fact", str(path), record["revision"]))
            self.report.descriptions[(self.scope, lesson.name)] = record["description"]
            return rf.index_line(name, record["title"], record["description"], self.scope)
        lesson = rf.redacted(lesson)
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
            "sha": rf.sha(data),
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


def _kept(record: dict[str, Any], source: str, existing: bytes | None) -> bool:
    """Whether the fact on disk is still the one made from this very source (nothing to redo)."""
    return (
        existing is not None
        and record.get("source") == source
        and record.get("sha") == rf.sha(existing)
        and isinstance(record.get("title"), str)
        and isinstance(record.get("description"), str)
        and isinstance(record.get("revision"), int)
    )
