"""From one ended session to candidates: extract drafts, gate them, write or add evidence."""

from __future__ import annotations

from reasonlessons.capture import gates
from reasonlessons.capture.extract import extract
from reasonlessons.capture.fingerprint_infer import RepoFacts
from reasonlessons.capture.reducer import SessionReducer
from reasonlessons.capture.report import CaptureReport, Item
from reasonlessons.capture.textutil import Context
from reasonlessons.capture.writer import CandidateWriter
from reasonlessons.project import Project


class Learner:
    """Learns from the sessions of one capture run, recording what it did in the report."""

    def __init__(self, project: Project, report: CaptureReport) -> None:
        self.report = report
        self.writer = CandidateWriter(project)
        self.facts = RepoFacts(project.loc.root)

    def flush(self) -> None:
        """Write the evidence gathered for existing lessons."""
        self.writer.flush()

    def session(self, reducer: SessionReducer, captured: dict[str, int], *, complete: bool) -> None:
        """Learn from one session (if it ended and passes the gates); note its last seq as captured."""
        obs = reducer.finish()
        label = obs.session_id
        if complete:
            self.report.sessions += 1
        reason = gates.session_skip_reason(obs, complete=complete)
        if reason is not None:
            self.report.skipped.append(Item(label, session=label, reason=reason))
            if complete:
                captured[label] = max(captured.get(label, -1), obs.last_seq)
            return
        ctx = Context(obs.agent, label, self.facts, cwd=obs.cwd)
        drafts, dropped = gates.prepare(extract(obs, ctx))
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
