"""`replay`: walk a repository's sessions oldest first, learning from each only after replaying it."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reasonlessons import capture
from reasonlessons.capture import sources
from reasonlessons.lessons.locations import Locations, reasonix_home
from reasonlessons.replay import timeline
from reasonlessons.replay.learn import Learner
from reasonlessons.replay.report import ReplayReport
from reasonlessons.replay.scratch import scratch_project
from reasonlessons.replay.simulate import Replayed, replay_session

Progress = Callable[[int, int], None]


def replay(
    root: Path,
    paths: Sequence[Path] | None = None,
    *,
    agent: str = "auto",
    since: dt.datetime | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    scratch: Path | None = None,
    progress: Progress | None = None,
) -> ReplayReport:
    """Replay every session of `root` (its logs found in each agent's place, or `paths`), oldest
    first: session n against the lessons learned from sessions 1..n-1, in a scratch store under
    `scratch` (the system's temporary folder by default) that is removed at the end. Sessions that
    start before `since` are learned from but not replayed. Nothing outside the scratch folder is
    written."""
    report = ReplayReport(str(root))
    chosen = None if agent == "auto" else capture.adapters.get(agent)
    env = os.environ if env is None else env
    if paths:
        found = sources.explicit(paths, chosen, lambda what, why: report.skipped.append((what, why)))
        logs = [(ref.path, adapter) for ref, adapter in found]
    else:
        refs = sources.discovered(root, agent, env=env, home=home)
        logs = [(ref.path, capture.adapters.get(ref.agent)) for ref in refs]
    order = timeline.spots(logs, report.skipped)
    real = Locations(root=root, home=reasonix_home(env, home or Path.home()))
    with scratch_project(root, scratch, settings_of=real) as project:
        learner = Learner(project)
        for done, spot in enumerate(order, start=1):
            events = timeline.events(spot)
            key = f"{spot.agent}:{spot.session_id}"  # recall's and the hook's session: unique across agents
            replayed: Replayed | None = None
            if since is None or spot.at >= since:
                replayed = replay_session(project, learner.lessons, spot.agent, key, events, now=spot.at)
                replayed.session = spot.session_id
                report.sessions.append(replayed)
            else:
                report.learned_only += 1
            learned = learner.learn(spot.agent, spot.session_id, events)
            if replayed is not None:
                replayed.learned = learned
            if progress is not None:
                progress(done, len(order))
        report.lessons = len(learner.lessons)
    for replayed in report.sessions:
        replayed.relocate(lambda raw: _ref(raw, root))
    return report


def _ref(raw: str, root: Path) -> str:
    """A log location as the report shows it: repository-relative, else the log's file name."""
    path, sep, line = raw.rpartition(":")
    if not sep or not line.isdigit():
        path, line = raw, ""
    try:
        shown = Path(path).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        shown = Path(path).name
    return f"{shown}:{line}" if line else shown
