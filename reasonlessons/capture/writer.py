"""Where a gated draft goes: a new candidate file, or more evidence on the lesson it duplicates.

New candidates go through LessonStore (locked, atomic, fingerprint recorded). A duplicate of an
existing candidate gets the new evidence appended in its file. A duplicate of a promoted lesson
(project or global scope) is not rewritten — committed files must not churn on every capture —
so its extra evidence is kept in local state (`capture-evidence.json`) instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.capture.dedupe import find_duplicate
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.gates import Checked, clean, clean_evidence, merge_evidence, merge_outcome
from reasonlessons.constants import SCOPE_CANDIDATE
from reasonlessons.errors import LessonFileError
from reasonlessons.fingerprint import record
from reasonlessons.lessons.file import read_lesson, render_lesson
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import SecretFoundError, assert_clean, find_secrets
from reasonlessons.store.project import Project
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support import jsonio

EVIDENCE_STATE = "capture-evidence.json"
_KIND = "capture-evidence"


@dataclass(frozen=True)
class Outcome:
    """What happened to one draft: 'written', 'updated', 'unchanged' or 'skipped' (with a reason)."""

    action: str
    name: str
    scope: str | None = None
    path: Path | None = None
    reason: str = ""
    lesson: Lesson | None = field(default=None, compare=False, repr=False)  # the one updated


class CandidateWriter:
    """Offers drafts to one project's store, remembering what exists across a capture run."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._lessons: list[Lesson] | None = None
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._state: dict[str, Any] | None = None

    @property
    def lessons(self) -> list[Lesson]:
        if self._lessons is None:
            self._lessons = self.project.store.scan().lessons
        return self._lessons

    def offer(self, offered: CandidateDraft | Checked) -> Outcome:
        """Write a draft as a candidate, or add its evidence to the lesson it duplicates.

        Everything written is redacted first: the whole draft for a new candidate, the evidence
        for a duplicate (the only part of it that is written). A `Checked` draft comes with both
        redactions done (capture/reading.py).
        """
        checked = offered if isinstance(offered, Checked) else None
        draft = offered.draft if isinstance(offered, Checked) else offered
        twin = find_duplicate(draft, self.lessons)
        cleaned: CandidateDraft | None = None
        if twin is None:
            cleaned, why = checked.cleaned if checked is not None else clean(draft)
            if cleaned is None:
                return Outcome("skipped", draft.name, reason=why)
            twin = find_duplicate(cleaned, self.lessons)  # redaction may reveal a twin
        if twin is not None:
            evidence = checked.evidence if checked is not None else clean_evidence(draft.evidence)
            if evidence is None:
                return Outcome("skipped", twin.name, reason="evidence could not be redacted (fail closed)")
            return self._add_evidence(twin, evidence, draft.outcome)
        assert cleaned is not None
        draft = cleaned
        if draft.update_only:
            return Outcome("skipped", draft.name, reason="plain command, nothing new to say")
        store = self.project.store
        probe = Lesson(meta={"name": draft.name, "description": draft.description}, body=draft.body)
        if store.is_rejected(probe):
            return Outcome("skipped", draft.name, reason="rejected before")
        name = self._free_name(draft.name)
        fingerprint = self._clean_fingerprint(draft.fingerprint)
        extra = draft.extra()
        try:
            self._check_rendering(name, draft, fingerprint, extra)
        except SecretFoundError as exc:
            return Outcome("skipped", name, reason=f"{exc} (dropped, fail closed)")
        lesson = store.add(
            name,
            description=draft.description,
            fingerprint=fingerprint,
            body=draft.body,
            scope=SCOPE_CANDIDATE,
            extra=extra,
        )
        self.lessons.append(lesson)
        return Outcome("written", name, SCOPE_CANDIDATE, lesson.path)

    def _free_name(self, name: str) -> str:
        taken = {lesson.name for lesson in self.lessons}
        if name not in taken:
            return name
        for n in range(2, 100):
            candidate = f"{name[:60]}-{n}"
            if candidate not in taken:
                return candidate
        raise RuntimeError(f"no free name for {name}")  # pragma: no cover (99 namesakes)

    def _clean_fingerprint(self, entries: list[str]) -> list[str]:
        """Drop entries whose current value looks secret: their short values get recorded in the file."""
        facts = RepoFacts(self.project.loc.root)
        kept = []
        for entry in entries:
            if "#" in entry:
                found, value = facts.value(entry)
                if found and find_secrets(value if isinstance(value, str) else jsonio.dumps(value).decode()):
                    continue
            kept.append(entry)
        return kept

    def _check_rendering(
        self, name: str, draft: CandidateDraft, fingerprint: list[str], extra: dict[str, Any]
    ) -> None:
        """Render the file as the store will (recorded values included) and refuse it if unclean."""
        meta: dict[str, Any] = {
            "name": name,
            "description": draft.description,
            "fingerprint": fingerprint,
            "captured-at": self.project.now().date(),
            "fingerprint-recorded": record(self.project.loc.root, fingerprint),
            **extra,
        }
        assert_clean(render_lesson(Lesson(meta=meta, body=draft.body)).decode("utf-8"))

    def _add_evidence(self, twin: Lesson, evidence: list[Any], found: str) -> Outcome:
        """Note more `evidence` for `twin` (and the outcome the draft `found`); written by `flush()`
        (once per run, not once per session)."""
        key = (twin.scope or "", twin.name)
        pending = self._pending.get(key)
        if pending is None:
            if twin.scope == SCOPE_CANDIDATE:
                old = twin.meta.get("evidence")
            else:
                old = self._promoted().get(f"{twin.scope}:{twin.name}")
            seen = {_key(e) for e in old} if isinstance(old, list) else set()
            pending = self._pending[key] = _Pending(twin, [], None, seen)
        outcome = None
        changed_outcome = False
        if twin.scope == SCOPE_CANDIDATE:
            outcome = merge_outcome(pending.outcome or twin.meta.get("outcome"), found)
            changed_outcome = outcome != twin.meta.get("outcome")
        keyed = [(mark, item) for item in evidence if (mark := _key(item)) not in pending.seen]
        if not keyed and not changed_outcome:
            return Outcome("unchanged", twin.name, twin.scope, twin.path)
        pending.seen.update(mark for mark, _ in keyed)
        new = [item for _, item in keyed]
        pending.evidence = merge_evidence(pending.evidence, new)
        pending.outcome = outcome
        return Outcome("updated", twin.name, twin.scope, twin.path, lesson=twin)

    def _promoted(self) -> dict[str, Any]:
        if self._state is None:
            self._state = load_state(self.project.loc.state_dir / EVIDENCE_STATE, kind=_KIND)
        return self._state

    def flush(self) -> None:
        """Write the evidence noted since the last flush: candidate files, then local state."""
        pending, self._pending = self._pending, {}
        state_changed = False
        for (scope, name), item in sorted(pending.items()):
            if not item.evidence and item.outcome is None:
                continue
            if scope == SCOPE_CANDIDATE and item.lesson.path is not None:
                try:
                    current = read_lesson(item.lesson.path, scope=scope)  # it may have been edited meanwhile
                except LessonFileError:
                    continue
                old = current.meta.get("evidence")
                current.meta["evidence"] = merge_evidence(old if isinstance(old, list) else [], item.evidence)
                if item.outcome is not None:
                    current.meta["outcome"] = item.outcome
                self.project.store.save(current)
            elif scope != SCOPE_CANDIDATE:
                state = self._promoted()
                old_list = state.get(f"{scope}:{name}")
                state[f"{scope}:{name}"] = merge_evidence(
                    old_list if isinstance(old_list, list) else [], item.evidence
                )
                state_changed = True
        if state_changed and self._state is not None:
            self.project.loc.ensure_state_dir()
            save_state(self.project.loc.state_dir / EVIDENCE_STATE, self._state, kind=_KIND)


@dataclass
class _Pending:
    """Evidence (and outcome) to add to one lesson at the next flush."""

    lesson: Lesson
    evidence: list[Any]
    outcome: str | None
    seen: set[tuple[str, ...]]


def _key(item: object) -> tuple[str, ...]:
    return tuple(map(str, item.values())) if isinstance(item, dict) else (str(item),)


def recorded_evidence(project: Project, scope: str, name: str) -> list[Any]:
    """Evidence capture kept in local state for a promoted lesson."""
    value = load_state(project.loc.state_dir / EVIDENCE_STATE, kind=_KIND).get(f"{scope}:{name}")
    return value if isinstance(value, list) else []
