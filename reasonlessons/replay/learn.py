"""Learning one replayed session into the scratch store, as capture would, and remembering what each
lesson was learned from (the marks of the failures its evidence cites)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reasonlessons.capture.apply import CandidateMaker
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.gates import Checked
from reasonlessons.capture.reading import SessionRead
from reasonlessons.capture.reduce.reducer import SessionReducer
from reasonlessons.capture.report import CaptureReport
from reasonlessons.capture.writer import CandidateWriter, Outcome
from reasonlessons.constants import SCOPE_CANDIDATE
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.replay import marks
from reasonlessons.sessions.events import Event
from reasonlessons.store.project import Project


@dataclass
class Learned:
    """What replay knows of one lesson: its kind, and the marks of what it was learned from."""

    name: str
    kind: str
    session: str
    failures: set[str] = field(default_factory=set)  # marks of the failures its evidence cites
    subjects: set[str] = field(default_factory=set)  # commands and files its evidence touches


class _RecordingWriter(CandidateWriter):
    """The capture writer, noting which lesson each draft went to (a new one, or one it duplicates)."""

    def __init__(self, project: Project) -> None:
        super().__init__(project)
        self.offers: list[tuple[CandidateDraft, Outcome]] = []

    def offer(self, offered: CandidateDraft | Checked) -> Outcome:
        outcome = super().offer(offered)
        self.offers.append((offered.draft if isinstance(offered, Checked) else offered, outcome))
        return outcome


class Learner:
    """Learns sessions one by one into a scratch Project, promoting every candidate at once (the
    user who keeps everything capture proposes), and keeps what each lesson is about."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.maker = CandidateMaker(project, CaptureReport())
        self.writer = self.maker.writer = _RecordingWriter(project)
        self.lessons: dict[str, Learned] = {}

    def learn(self, agent: str, session_id: str, events: Sequence[Event]) -> list[str]:
        """Learn from one session; the names of the lessons it made or added evidence to."""
        root = str(self.project.loc.root)
        reducer = SessionReducer(agent, session_id, root=root)
        trace = SessionTrace(agent, session_id, root=root)
        for event in events:
            reducer.feed(event)
            trace.feed(event)
        obs = reducer.finish()
        self.writer.offers.clear()
        self.maker.session(SessionRead(obs, trace), {}, complete=True)
        self.maker.save()
        store = self.project.store
        for lesson in store.scan([SCOPE_CANDIDATE]).lessons:
            store.promote(lesson.name)
        place = SessionPlace(agent, session_id, self.maker.facts, cwd=obs.cwd)
        at_ref = _by_ref(events, place)
        touched: list[str] = []
        for draft, outcome in self.writer.offers:
            if outcome.action == "skipped":
                continue
            learned = self.lessons.setdefault(outcome.name, Learned(outcome.name, draft.kind, session_id))
            for entry in draft.evidence:
                for event, call in at_ref.get(entry.get("ref", ""), ()):
                    learned.failures |= marks.failure(event, call) if event.kind == "tool_result" else set()
                    if event.kind == "tool_call" and (subject := marks.subject(event)):
                        learned.subjects.add(subject)
            if outcome.name not in touched:
                touched.append(outcome.name)
        return touched


def _by_ref(events: Sequence[Event], place: SessionPlace) -> dict[str, list[tuple[Event, Event | None]]]:
    """The session's calls and results by the evidence reference a lesson would cite for them."""
    calls: dict[str, Event] = {}
    out: dict[str, list[tuple[Event, Event | None]]] = {}
    for event in events:
        if event.kind == "tool_call":
            if event.call_id:
                calls[event.call_id] = event
        elif event.kind != "tool_result":
            continue
        call = calls.get(event.call_id or "") if event.kind == "tool_result" else event
        out.setdefault(place.ref(event.raw_ref), []).append((event, call))
    return out
