"""From one ended session to candidates: extract drafts, gate them, write or add evidence."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from reasonlessons.capture import gates
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.reading import SessionRead
from reasonlessons.capture.reduce.observations import SessionObservations
from reasonlessons.capture.report import CaptureReport, Item
from reasonlessons.capture.writer import CandidateWriter
from reasonlessons.learning.loop import SessionLearner
from reasonlessons.store.project import Project

# The heuristic `extract`, or another with its signature (the LLM extractor in capture/extract/llm/).
Extractor = Callable[[SessionObservations, SessionPlace], list[CandidateDraft]]


class CandidateMaker:
    """Turns each ended session of one capture run into candidates (extract, gate, write), judges
    the lessons recalled into it (learning.loop.SessionLearner), and records both in the report."""

    def __init__(
        self,
        project: Project,
        report: CaptureReport,
        *,
        now: dt.datetime | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.report = report
        self.writer = CandidateWriter(project)
        self.facts = RepoFacts(project.loc.root)
        self.extract = extractor or extract
        # Judges the lessons recalled into each session before new ones are extracted (AIP-11 distill).
        self.outcomes = SessionLearner(project, now=now or project.now())

    def save(self) -> None:
        """Write the evidence and learning counts gathered so far (a long run does, now and then)."""
        self.writer.flush()
        self.outcomes.save()

    def flush(self) -> None:
        """Write what is left at the end of a run, and note the warnings."""
        self.save()
        self.report.notes.extend(self.outcomes.warnings)
        self.report.notes.extend(getattr(self.extract, "notes", []))

    def session(self, read: SessionRead, captured: dict[str, int], *, complete: bool) -> None:
        """Learn from one session (if it ended and passes the gates); note its last seq as captured."""
        obs = read.obs
        label = obs.session_id
        if complete:
            self.report.sessions += 1
            learned = self.outcomes.finish(read.trace, successful=obs.successful)
            if learned is not None and learned.outcomes:
                self.report.outcomes.append(learned)
        reason = gates.session_skip_reason(obs, complete=complete)
        if reason is not None:
            self.report.skipped.append(Item(label, session=label, reason=reason))
            if complete:
                captured[label] = max(captured.get(label, -1), obs.last_seq)
            return
        drafts: list[CandidateDraft] | list[gates.Checked]
        if read.drafts is not None:  # the heuristic extractor ran in the read phase
            drafts, dropped = read.drafts, read.dropped
        else:
            place = SessionPlace(obs.agent, label, self.facts, cwd=obs.cwd)
            drafts, dropped = gates.prepare(self.extract(obs, place))
        self.report.dropped.extend(Item(name, session=label, reason=why) for name, why in dropped)
        for draft in drafts:
            outcome = self.writer.offer(draft)
            item = Item(outcome.name, label, str(outcome.path or ""), outcome.scope or "", outcome.reason)
            if outcome.action == "written":
                self.report.written.append(item)
            elif outcome.action == "updated":
                self.report.updated.append(item)
            elif outcome.action == "skipped":
                self.report.dropped.append(item)
        captured[label] = max(captured.get(label, -1), obs.last_seq)
