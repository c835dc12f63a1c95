from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.capturesupport import copy_v1_logs
from tests.invoke import Invoke
from tests.paths import REPO_ROOT, RESOURCES


def test_capture_json_document(cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("capture-node")
    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found", "short")
    result = cli_invoke("capture", "--repo", repo, "--json", *logs)
    doc = result.json()
    assert isinstance(doc, dict)
    assert doc["sessions"] == 2
    assert doc["skipped"] == 1
    path = repo / ".reasonix" / "lessons" / "_candidates" / "npm-test-vitest-not-found.md"
    assert doc["candidates"] == [
        {"name": "npm-test-vitest-not-found", "path": str(path), "session": "vitest-not-found#1"}
    ]
    assert path.is_file()
    assert result.stderr == ""
    again = cli_invoke("capture", "--repo", repo, "--json", *logs).json()
    assert isinstance(again, dict)
    assert (again["sessions"], again["skipped"], again["candidates"]) == (0, 0, [])


def test_capture_summary_for_humans(
    cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found", "vitest-again", "short")
    result = cli_invoke("capture", "--repo", repo, *logs, "--agent", "reasonix-v1")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("new candidate npm-test-vitest-not-found  (")
    assert (
        "more evidence for candidate lesson npm-test-vitest-not-found (kept in its file)  from vitest-again#1"
        in lines
    )
    assert (
        lines[-1]
        == "3 session(s) read from 3 log(s) (0 unchanged); 1 skipped; 1 candidate(s) written, 1 updated"
    )
    assert "warning: skipped short#1: fewer than 3 tool calls (2)" in result.stderr
    assert "\x1b[" not in result.stderr  # no progress bar when stderr is not a terminal


def test_capture_counts_damaged_records_in_a_warning(
    cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    (log,) = copy_v1_logs(tmp_path / "logs", "vitest-not-found")
    with log.open("ab") as handle:
        handle.write(b"not json\n")
    result = cli_invoke("capture", "--repo", repo, log)
    assert "warning: 1 damaged or unusable log record(s) skipped (1 not-json)" in result.stderr


def test_capture_usage_errors(cli_invoke: Invoke, git_repo: Path) -> None:
    result = cli_invoke("capture", "--repo", git_repo, "--agent", "nope", expect=2)
    assert "unknown agent 'nope'" in result.stderr


def test_capture_with_nothing_to_read(cli_invoke: Invoke, git_repo: Path) -> None:
    result = cli_invoke("capture", "--repo", git_repo, "--json")
    assert result.json() == {
        "sessions": 0,
        "skipped": 0,
        "candidates": [],
        "updated": [],
        "skipped_items": [],
        "warnings": {},
        "files": 0,
        "unchanged_files": 0,
        "outcomes": [],
        "notes": [],
        "errors": [],
    }


@pytest.mark.parametrize("flags", [["--json"], []])
def test_the_fast_path_prints_what_the_typer_command_prints(
    flags: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from reasonlessons.__main__ import main
    from reasonlessons.cli import run
    from reasonlessons.cli.fast.capture import try_run

    outputs = []
    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found", "short")
    for entry in (main, run):
        target = tmp_path / entry.__name__
        shutil.copytree(RESOURCES / "repos" / "capture-node", target)
        capsys.readouterr()
        assert entry(["capture", "--repo", str(target), *flags, *map(str, logs)]) == 0
        out, err = capsys.readouterr()
        outputs.append((out.replace(str(target), "REPO"), err))
    assert outputs[0] == outputs[1]
    assert "npm-test-vitest-not-found" in outputs[0][0]
    assert try_run(["--help"]) is None
    assert try_run(["--agent"]) is None


def test_capture_explain_says_why_a_draft_was_not_written(
    cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    (repo / ".reasonix" / "lessons").mkdir(parents=True, exist_ok=True)
    (repo / ".reasonix" / "lessons" / "config.toml").write_text("[capture]\nmin-confidence = 0.8\n")
    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found")
    result = cli_invoke("capture", "--repo", repo, "--explain", *logs)
    assert (
        "not written: npm-test-vitest-not-found from vitest-not-found#1: "
        "confidence 0.75 is below the minimum 0.8 (capture.min-confidence)"
    ) in result.stdout
    assert not (repo / ".reasonix" / "lessons" / "_candidates").exists()
    doc = cli_invoke(
        "capture", "--repo", repo, "--json", "--explain", *copy_v1_logs(tmp_path / "more", "vitest-again")
    ).json()
    assert isinstance(doc, dict)
    reasons = [d["reason"] for d in doc["dropped"]]
    assert "confidence 0.75 is below the minimum 0.8 (capture.min-confidence)" in reasons
    assert "dropped" not in cli_invoke("capture", "--repo", repo, "--json", *logs).json()  # type: ignore[operator]


def test_a_named_log_that_is_missing_is_an_error_and_the_rest_is_kept(
    cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    (log,) = copy_v1_logs(tmp_path / "logs", "vitest-not-found")
    missing = tmp_path / "logs" / "nonexistent.jsonl"
    result = cli_invoke("capture", "--repo", repo, missing, log, expect=1)
    assert str(missing) in result.stderr
    assert "no such file or directory" in result.stderr
    assert "new candidate npm-test-vitest-not-found" in result.stdout  # the other log was captured
    assert (repo / ".reasonix" / "lessons" / "_candidates" / "npm-test-vitest-not-found.md").is_file()
    doc = cli_invoke("capture", "--repo", repo, "--json", missing, expect=1).json()
    assert doc["errors"] == [{"path": str(missing), "reason": "no such file or directory"}]  # type: ignore[index]
    alone = cli_invoke("capture", "--repo", repo, "nonexistent.jsonl", cwd=tmp_path, expect=1)
    assert "nonexistent.jsonl" in alone.stderr


@pytest.mark.skipif(__import__("os").geteuid() == 0, reason="root reads files whatever their mode")
def test_a_named_log_that_cannot_be_read_is_an_error(
    cli_invoke: Invoke, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    (log,) = copy_v1_logs(tmp_path / "logs", "vitest-not-found")
    log.chmod(0)
    try:
        result = cli_invoke("capture", "--repo", repo, log, expect=1)
    finally:
        log.chmod(0o644)
    assert str(log) in result.stderr
    assert "permission denied" in result.stderr


def test_a_rerun_on_unchanged_logs_loads_neither_the_readers_nor_the_secret_scanner(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    """The re-run after every session end must cost little more than starting Python: its report
    is counts only, so nothing reads, extracts or scans (docs/benchmarks.md#capture)."""
    repo = make_repo("capture-node")
    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found", "short")
    for log in tmp_path.joinpath("logs").iterdir():
        os.utime(log, (1_700_000_000, 1_700_000_000))  # ended long ago: nothing is left pending
    home = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HOME": str(home), "REASONIX_HOME": str(home / ".rx")}
    command = [sys.executable, "-X", "importtime", "-m", "reasonlessons", "capture", "--repo", str(repo)]
    command += ["--json", *map(str, logs)]
    runs = [subprocess.run(command, env=env, capture_output=True, text=True, check=False) for _ in range(2)]
    imported = [
        {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "import time:" in line}
        for run in runs
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[1].stderr
    assert json.loads(runs[0].stdout)["sessions"] == 2
    assert "reasonlessons.capture.reading" in imported[0]  # the first run reads: the check can fail
    assert json.loads(runs[1].stdout)["unchanged_files"] == 2
    assert not imported[1] & {
        "reasonlessons.capture.reading",
        "reasonlessons.safety.redact",
        "detect_secrets",
    }
