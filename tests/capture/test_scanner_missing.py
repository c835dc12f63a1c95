"""A broken install (no secret scanner) aborts capture without losing what it would have learned."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reasonlessons.safety.secretscan import ScannerUnavailableError
from reasonlessons.store.project import open_project
from tests.paths import EXAMPLE


def test_missing_scanner_keeps_checkpoints_so_a_later_run_captures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonlessons.capture.pipeline import capture
    from reasonlessons.safety import redact, secretscan

    repo = tmp_path / "demo"
    shutil.copytree(EXAMPLE, repo)
    logs = sorted((repo / "sessions").glob("*.events.jsonl"))

    def unavailable(*_a: object, **_k: object) -> object:
        raise ScannerUnavailableError("the secret scanner is unavailable (test)")

    with monkeypatch.context() as patched:
        # Where a broken install fails: loading detect-secrets' detectors. Answers remembered
        # from earlier scans in this process would hide it, as they would not in a fresh one.
        redact._redact.cache_clear()
        patched.setattr(secretscan, "_detectors", unavailable)
        with pytest.raises(ScannerUnavailableError):
            capture(open_project(repo), logs)
    assert not list((repo / ".reasonix" / "lessons" / "_candidates").glob("npm-test*.md"))

    report = capture(open_project(repo), logs)
    names = {item.name for item in report.written}
    assert any(name.startswith("npm-test") for name in names), names
