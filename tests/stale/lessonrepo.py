"""Lessons in a test repository at a frozen time (shared by test_scan and test_prefetch)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reasonlessons.store.project import Project, open_project

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


def project_of(repo: Path, now: dt.datetime = NOW) -> Project:
    """The repository's Project with its clock stopped at `now`."""
    return open_project(repo, now=lambda: now)


def add(repo: Path, name: str, *entries: str, scope: str = "project", **extra: object) -> None:
    """Add lesson `name` fingerprinted on `entries`; `extra` goes into its frontmatter."""
    project_of(repo).store.add(
        name, description=f"about {name}", fingerprint=list(entries), scope=scope, extra=extra
    )
