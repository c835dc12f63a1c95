"""replay on the public Aider histories of ../shared/quality/aider: the labelled recurrences (`recurs:`
quotes: where the same mistake comes back) must be addressed by a lesson or notice that fired before
them, at least half of them, with more hits than noise."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.replay.api import replay
from reasonlessons.support import yamlread
from tests.paths import REPO_ROOT
from tests.repos import git

AIDER = REPO_ROOT.parent / "shared" / "quality" / "aider"
HISTORY = ".aider.chat.history.md"


def _labels() -> list[dict[str, Any]]:
    if not AIDER.is_dir():
        pytest.skip("../shared/quality/aider is not beside this checkout")
    return [yamlread.safe_load(p.read_text()) for p in sorted((AIDER / "labels").glob("*.yaml"))]


def _replayed(label: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], list[str]]:
    repo = tmp_path / label["id"]
    repo.mkdir()
    with tarfile.open(AIDER / label["repo"]["tarball"]) as archive:
        archive.extractall(repo, filter="data")
    (name,) = label["sessions"]
    shutil.copyfile(AIDER / "sessions" / name, repo / HISTORY)
    git(repo, "init", "-q")
    report = replay(repo, env={}, home=tmp_path / "home", scratch=tmp_path)
    return report.to_json(), (repo / HISTORY).read_text().splitlines()


def _addressed(report: dict[str, Any], lines: list[str], quote: str) -> bool:
    """Whether the first failure at or after the quoted line, in its launch, was addressed."""
    at = next(n for n, line in enumerate(lines, start=1) if quote in line)
    launch = max(
        n for n, line in enumerate(lines[:at], start=1) if line.startswith("# aider chat started at")
    )
    for session in report["sessions"]:
        for failure in session["failures"]:
            line = int(failure["ref"].rsplit(":", 1)[1])
            if launch <= line and at <= line:
                return bool(failure["addressed_by"])
    return False


def test_recurrences_of_the_public_histories_are_hit(tmp_path: Path) -> None:
    labels = _labels()
    outcomes: list[tuple[str, str, bool]] = []
    hits = noise = 0
    for label in labels:
        report, lines = _replayed(label, tmp_path)
        hits += report["totals"]["hits"]
        noise += report["totals"]["noise"]
        for expected in label.get("expected") or []:
            for quote in expected.get("recurs") or []:
                outcomes.append((label["id"], quote, _addressed(report, lines, quote)))
    addressed = sum(ok for *_, ok in outcomes)
    assert len(outcomes) == 7
    assert addressed * 2 >= len(outcomes), outcomes
    assert hits > noise, (hits, noise)
