"""Fixtures for the watch tests: no test may leave a thread running, and a project worth watching."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasonlessons.store.project import Project
from tests.watch.harness import seed_project


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Fail a test that leaves a thread alive (observers, debouncers, daemons must all stop)."""
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before]
    for thread in leaked:
        thread.join(5)
    assert [t.name for t in leaked if t.is_alive()] == []


@pytest.fixture
def project(git_repo: Path) -> Project:
    """A git repository with a test script and the `testing` and `sentinel` lessons (harness.seed_project)."""
    return seed_project(git_repo)
