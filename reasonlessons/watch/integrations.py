"""What the daemon calls into besides staleness: the capture pipeline and the Reasonix export."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reasonlessons.capture.pipeline import capture
from reasonlessons.integrations.reasonix_export import export_reasonix
from reasonlessons.sessions.events import SessionRef
from reasonlessons.store.project import Project
from reasonlessons.watch.daemon import CaptureFn, Resync
from reasonlessons.watch.lessons import Event


def pipeline_capture(
    project: Project, *, env: Mapping[str, str], home: Path, idle_seconds: float
) -> CaptureFn:
    """Capture through the capture pipeline, one session at a time; new and updated candidates."""

    def run(refs: Sequence[SessionRef]) -> list[dict[str, Any]]:
        report = capture(
            project,
            [ref.path for ref in refs],
            agent="auto",
            env=env,
            home=home,
            now=dt.datetime.now(dt.UTC),
            idle_seconds=idle_seconds,
        )
        found: list[dict[str, Any]] = []
        for items, updated in ((report.written, False), (report.updated, True)):
            found += [
                {"name": i.name, "path": i.path, "session": i.session, "updated": updated} for i in items
            ]
        return found

    return run


def reasonix_export(project: Project, *, env: Mapping[str, str], home: Path) -> Resync:
    """Keep `export reasonix` in sync: fresh lessons as Reasonix memory facts, stale ones withdrawn."""

    def run() -> Event | None:
        # A new Project each time: a Project's checker remembers facts for one command's lifetime.
        report = export_reasonix(Project(project.loc, now=project.now), env=env, home=home)
        if not (report.written or report.withdrawn):
            return None
        return {
            "event": "exported",
            "target": "reasonix",
            "written": [item.name for item in report.written],
            "withdrawn": [item.name for item in report.withdrawn],
        }

    return run
