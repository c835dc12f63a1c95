"""Fixtures shared by the replay tests: local times read as UTC, and the calc repository."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import RESOURCES
from tests.repos import git

REPLAY = RESOURCES / "replay"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Aider's session headers are local times without a zone: pin the zone they are read in."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The calc repository, committed, with the three-session Aider history at its root."""
    root = tmp_path / "calc"
    shutil.copytree(REPLAY / "calc", root)
    shutil.copyfile(REPLAY / "three-sessions.aider.chat.history.md", root / ".aider.chat.history.md")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "calc")
    return root
