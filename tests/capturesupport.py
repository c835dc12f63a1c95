"""Helpers shared by the capture tests: resource paths, reading a log into observations and drafts."""

from __future__ import annotations

from pathlib import Path

from reasonlessons.capture.adapters import detect
from reasonlessons.capture.draft import CandidateDraft
from reasonlessons.capture.events import Event, ReadStats
from reasonlessons.capture.extract import extract
from reasonlessons.capture.fingerprint_infer import RepoFacts
from reasonlessons.capture.observations import SessionObservations
from reasonlessons.capture.reducer import SessionReducer
from reasonlessons.capture.textutil import Context

RESOURCES = Path(__file__).parent / "resources"
CAPTURE = RESOURCES / "capture"
NODE_REPO = RESOURCES / "repos" / "capture-node"
SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def events_of(path: Path) -> list[Event]:
    """Every event of a log, read through the adapter its format calls for."""
    adapter = detect(path)
    assert adapter is not None, path
    return list(adapter.read_session(path, stats=ReadStats()))


def observe(path: Path, *, root: Path = NODE_REPO) -> list[SessionObservations]:
    """The observations of each session of a log, in order."""
    out: list[SessionObservations] = []
    reducer: SessionReducer | None = None
    for event in events_of(path):
        if reducer is None or reducer.obs.session_id != event.session_id:
            if reducer is not None:
                out.append(reducer.finish())
            reducer = SessionReducer(event.agent, event.session_id, root=str(root))
        reducer.feed(event)
    if reducer is not None:
        out.append(reducer.finish())
    return out


def drafts_of(path: Path, *, root: Path = NODE_REPO) -> list[CandidateDraft]:
    """The extractor's drafts for every session of a log (before the gates)."""
    facts = RepoFacts(root)
    drafts: list[CandidateDraft] = []
    for obs in observe(path, root=root):
        drafts.extend(extract(obs, Context(obs.agent, obs.session_id, facts, cwd=obs.cwd)))
    return drafts
