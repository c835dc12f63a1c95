"""`export reasonix --skills`: fresh project lessons as flat Reasonix skills.

What Reasonix reads: docs/integrations.md#what-reasonix-loads.

`<repo>/.reasonix/skills/<name>.md` with only `name` and `description` (reasonix_facts.render_skill).
The directory's `.reasonlessons-export.json`, committed with the skills so every clone knows them,
records the digest of each file we wrote: a file of ours that nobody edited is rewritten or
withdrawn (moved to `.archive/`, a dot directory Reasonix's skill discovery skips) freely; anything
else is reported and left alone.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from reasonlessons.constants import SCOPE_PROJECT
from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_files import KIND, MANIFEST, ExportReport, Item, archive, read_bytes
from reasonlessons.lessons.model import Lesson
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked, write_atomic

FOREIGN = "a skill file of that name exists that reasonlessons did not write (or it was edited)"


def sync_skills(
    directory: Path,
    lessons: list[Lesson],
    report: ExportReport,
    *,
    lock: Path,
    now: dt.datetime,
) -> None:
    """Flat `<name>.md` skills for fresh project lessons; withdraw ours that are no longer fresh.

    `lock` lives in the local state directory: the skills directory is usually committed. A skill
    made from the same lesson (rf.source_digest) is left as it is without redacting or rendering it
    again."""
    wanted = {lesson.name: lesson for lesson in lessons}
    if not wanted and not (directory / MANIFEST).exists():
        return
    with locked(lock):
        state = load_state(directory / MANIFEST, kind=KIND)
        owned: dict[str, Any] = {k: v for k, v in state.get("skills", {}).items() if isinstance(v, str)}
        sources: dict[str, Any] = {k: v for k, v in state.get("sources", {}).items() if k in owned}
        before = (dict(owned), dict(sources))
        for name, lesson in sorted(wanted.items()):
            path = directory / f"{name}.md"
            existing = read_bytes(path)
            digest = rf.source_digest(lesson)
            if existing is not None and sources.get(name) == digest and owned.get(name) == rf.sha(existing):
                report.unchanged.append(Item(name, SCOPE_PROJECT, "skill", str(path)))
                continue
            kept = rf.redacted(lesson)
            data = rf.render_skill(name, kept.description, rf.body_of(kept))
            if existing == data:
                owned[name], sources[name] = rf.sha(data), digest
                report.unchanged.append(Item(name, SCOPE_PROJECT, "skill", str(path)))
            elif existing is not None and owned.get(name) != rf.sha(existing):
                report.skipped.append(Item(name, SCOPE_PROJECT, "skill", str(path), reason=FOREIGN))
            else:
                write_atomic(path, data)
                owned[name], sources[name] = rf.sha(data), digest
                report.written.append(Item(name, SCOPE_PROJECT, "skill", str(path)))
        for name in sorted(set(owned) - set(wanted)):
            digest = owned.pop(name)
            sources.pop(name, None)
            path = directory / f"{name}.md"
            existing = read_bytes(path)
            if existing is not None and rf.sha(existing) != digest:
                reason = "edited by hand; left in place"
                report.skipped.append(Item(name, SCOPE_PROJECT, "skill", str(path), reason=reason))
                continue
            if existing is not None:
                archive(path, now)
            report.withdrawn.append(Item(name, SCOPE_PROJECT, "skill", str(path)))
        if (owned, sources) != before:
            save_state(directory / MANIFEST, {"skills": owned, "sources": sources}, kind=KIND)
