"""A newer candidate for the same fact supersedes the stale lesson when it is promoted.

"The same fact": the promoted lesson is stale, the candidate depends on a fingerprint entry that
drifted for it (so the candidate was recorded against the fact's new value), and the two are about
the same thing: the same name apart from a `-N` suffix, or a shared tag, trigger keyword or
command pattern. Then the candidate gets `supersedes: [old]` before it is promoted; the old lesson
stays on disk with status `superseded` (and out of recall), as AIP-11 asks.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE, STATUS_STALE
from reasonlessons.learning import lifecycle
from reasonlessons.lessons.model import Lesson

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

_SUFFIX = re.compile(r"-\d+$")


@dataclass
class Promotion:
    """A promoted lesson and the names it now supersedes."""

    lesson: Lesson
    superseded: list[str] = field(default_factory=list)


def _topic(lesson: Lesson) -> set[str]:
    triggers = lesson.triggers
    tags = lesson.meta.get("tags")
    out = {f"name:{_SUFFIX.sub('', lesson.name)}"}
    if isinstance(tags, list):
        out.update(f"tag:{t}" for t in tags if isinstance(t, str))
    out.update(f"kw:{k.lower()}" for k in triggers.get("keywords", []))
    out.update(f"cmd:{c}" for c in triggers.get("commands", []))
    return out


def superseded_by(project: Project, candidate: Lesson, *, scope: str) -> list[str]:
    """Names of stale `scope` lessons that `candidate` is the newer version of."""
    entries, _ = project.entries("global" if scope == SCOPE_GLOBAL else "project", check_drift=False)
    topic = _topic(candidate)
    wanted = set(candidate.fingerprint)
    out = []
    for entry in entries:
        old = entry.lesson
        # Drift is not checked yet (cheap first), so a stale lesson still reads as active here.
        if (
            old.scope != scope
            or old.name == candidate.name
            or entry.status not in (STATUS_ACTIVE, STATUS_STALE)
        ):
            continue
        if not wanted & set(old.fingerprint) or not topic & _topic(old):
            continue
        drifted = {d.input for d in project.drift(old)}
        if drifted & wanted:
            out.append(old.name)
    return sorted(out)


def promote(project: Project, name: str, *, to_global: bool = False) -> Promotion:
    """Promote a candidate, first marking the stale lessons it replaces as superseded by it."""
    store = project.store
    scope = SCOPE_GLOBAL if to_global else SCOPE_PROJECT
    candidate = store.find(name, (SCOPE_CANDIDATE,))
    replaced = superseded_by(project, candidate, scope=scope)
    if replaced:
        already = candidate.supersedes
        candidate.meta["supersedes"] = already + [n for n in replaced if n not in already]
        store.save(candidate)
    promoted = store.promote(name, to_global=to_global)
    # Its outcomes follow it: what sessions said about the candidate holds for the lesson.
    lifecycle.rename(
        project.loc.ensure_state_dir(),
        project.loc.lock_path(SCOPE_PROJECT),
        f"{SCOPE_CANDIDATE}:{name}",
        f"{promoted.scope}:{promoted.name}",
    )
    return Promotion(promoted, replaced)


def promote_auto(project: Project, after: dt.timedelta) -> list[Promotion]:
    """`promote --auto`: every candidate older than `after` that was not rejected or archived (later
    sessions contradicted it), superseding as above."""
    cutoff = project.now() - after
    out = []
    for entry in project.entries("candidates", check_drift=False)[0]:
        lesson = entry.lesson
        captured = lesson.captured_at
        if captured is None or captured > cutoff or entry.archived or project.store.is_rejected(lesson):
            continue
        out.append(promote(project, lesson.name))
    return out
