"""Helpers shared by the capture tests: resource paths, copies of logs, reading a log into observations
and drafts."""

from __future__ import annotations

import shutil
from pathlib import Path

from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.reduce.observations import SessionObservations
from reasonlessons.capture.reduce.reducer import SessionReducer
from reasonlessons.sessions.adapters import detect
from reasonlessons.sessions.events import Event, ReadStats
from tests.paths import RESOURCES

CAPTURE = RESOURCES / "capture"
NODE_REPO = RESOURCES / "repos" / "capture-node"


def copy_v1_logs(into: Path, *names: str) -> list[Path]:
    """Copy Reasonix v1 logs `names` from tests/resources/capture (each an event log with its sidecar
    and meta file) into `into`; returns the event logs."""
    into.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        for suffix in (".events.jsonl", ".jsonl", ".meta.json"):
            shutil.copy(CAPTURE / "reasonix-v1" / f"{name}{suffix}", into / f"{name}{suffix}")
        out.append(into / f"{name}.events.jsonl")
    return out


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
        drafts.extend(extract(obs, SessionPlace(obs.agent, obs.session_id, facts, cwd=obs.cwd)))
    return drafts
