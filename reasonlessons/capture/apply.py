"""From one ended session to candidates: extract drafts, gate them, write or add evidence."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from reasonlessons.capture import gates, notices
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.reading import SessionRead
from reasonlessons.capture.reduce.observations import SessionObservations
from reasonlessons.capture.report import CaptureReport, Item
from reasonlessons.capture.writer import CandidateWriter
from reasonlessons.learning.loop import SessionLearner
from reasonlessons.recall.match import agent_family
from reasonlessons.store.config import DEFAULTS, Config
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
        settings: Config = DEFAULTS,
    ) -> None:
        self.report = report
        self.project = project
        self.settings = settings
        self._writs: dict[str, list[str]] = {}
        self.writer = CandidateWriter(project)
        self.facts = RepoFacts(project.loc.root)
        self.extract = extractor or extract
        # Judges the lessons against each session before new ones are extracted (AIP-11 distill);
        # the writer's lessons include the candidates this run wrote.
        self.outcomes = SessionLearner(project, now=now or project.now(), lessons=lambda: self.writer.lessons)

    def save(self) -> None:
        """Write the evidence and learning counts gathered so far (a long run does, now and then)."""
        self.writer.flush()
        self.outcomes.save()

    def flush(self) -> None:
        """Write what is left at the end of a run, and note the warnings."""
        self.save()
        writs, self._writs = self._writs, {}
        for agent, names in writs.items():
            try:
                notices.record(str(self.project.loc.state_dir), agent, names, at_ns=time.time_ns())
            except OSError as exc:
                self.report.notes.append(f"could not note the writs for the agent to hear of: {exc}")
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
        reason = gates.session_skip_reason(obs, complete=complete, settings=self.settings)
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
            only_writs = gates.writs_only(obs, self.settings)
            drafts, dropped = gates.prepare(
                self.extract(obs, place), settings=self.settings, only_writs=only_writs
            )
        self.report.dropped.extend(Item(name, session=label, reason=why) for name, why in dropped)
        for offered in drafts:
            outcome = self.writer.offer(offered)
            draft = offered.draft if isinstance(offered, gates.Checked) else offered
            item = Item(outcome.name, label, str(outcome.path or ""), outcome.scope or "", outcome.reason)
            if outcome.action == "written":
                self.report.written.append(item)
                if draft.kind == gates.WRIT:  # its author hears of it next turn (capture/notices.py)
                    # By agent family: the hook that tells it (`reasonix`) reads every version's logs.
                    self._writs.setdefault(agent_family(obs.agent), []).append(outcome.name)
            elif outcome.action == "updated":
                self.report.updated.append(item)
                twin = outcome.lesson
                if twin is not None:  # one more session found it: its confidence rises
                    self.outcomes.repeated(twin, read.trace, [e.get("ref", "") for e in draft.evidence])
            elif outcome.action == "skipped":
                self.report.dropped.append(item)
        captured[label] = max(captured.get(label, -1), obs.last_seq)
