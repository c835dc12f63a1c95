"""The store commands end to end through the CLI: JSON shapes, exit codes, concurrency."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.invoke import Invoke


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "vitest run"}}\n')
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "a.test.ts").write_text("it('x', () => {})\n")
    return git_repo


def test_add_then_list_json(cli_invoke: Invoke, repo: Path) -> None:
    cli_invoke(
        "add",
        "testing",
        "--description",
        "Test runner",
        "--repo",
        repo,
        "--fingerprint",
        "package.json#scripts.test",
        "--fingerprint",
        "tests/",
        "--body",
        "- run via npm test",
    )
    listed = cli_invoke("list", "--json", "--repo", repo).json()
    assert isinstance(listed, list)
    assert len(listed) == 1
    item = listed[0]
    assert {k: item[k] for k in ("name", "scope", "status", "description")} == {
        "name": "testing",
        "scope": "project",
        "status": "active",
        "description": "Test runner",
    }
    assert item["fingerprint"] == ["package.json#scripts.test", "tests/"]
    assert item["path"] == str(repo / ".reasonix" / "lessons" / "testing.md")


def test_candidate_promote_reject_rm(cli_invoke: Invoke, repo: Path, isolated_home: Path) -> None:
    cli_invoke("add", "idea", "-d", "An idea", "--scope", "candidate", "--repo", repo)
    assert (
        cli_invoke("list", "--scope", "candidates", "--json", "--repo", repo).json()[0]["scope"]
        == "candidate"
    )
    cli_invoke("promote", "idea", "--repo", repo)
    assert [x["scope"] for x in cli_invoke("list", "--json", "--repo", repo).json()] == ["project"]

    cli_invoke("add", "habit", "-d", "A habit", "--scope", "candidate", "--repo", repo)
    cli_invoke("promote", "habit", "--global", "--repo", repo)
    assert (isolated_home / ".reasonix" / "lessons" / "habit.md").is_file()

    cli_invoke("add", "noise", "-d", "Noise", "--scope", "candidate", "--repo", repo)
    cli_invoke("reject", "noise", "--repo", repo)
    assert "noise" not in {x["name"] for x in cli_invoke("list", "--json", "--repo", repo).json()}

    cli_invoke("rm", "idea", "--repo", repo)
    cli_invoke("rm", "habit", "--global", "--repo", repo)
    assert cli_invoke("list", "--json", "--repo", repo).json() == []


def test_exit_codes(cli_invoke: Invoke, repo: Path) -> None:
    missing = cli_invoke("show", "nope", "--repo", repo, expect=1)
    assert "no lesson named 'nope'" in missing.stderr
    assert missing.stdout == ""
    bad_name = cli_invoke("add", "../x", "-d", "d", "--repo", repo, expect=2)
    assert "invalid lesson name" in bad_name.stderr
    cli_invoke("list", "--scope", "everything", "--repo", repo, expect=2)
    cli_invoke("promote", "--repo", repo, expect=2)
    cli_invoke("frobnicate", expect=2)


def test_list_reports_bad_files_on_stderr_and_keeps_going(cli_invoke: Invoke, repo: Path) -> None:
    cli_invoke("add", "good", "-d", "fine", "--repo", repo)
    lessons = repo / ".reasonix" / "lessons"
    (lessons / "broken.md").write_text("---\nname: [oops\n---\n")
    result = cli_invoke("list", "--json", "--repo", repo)
    assert [x["name"] for x in result.json()] == ["good"]  # type: ignore[union-attr]
    assert "broken.md" in result.stderr
    assert "malformed YAML" in result.stderr
    validated = cli_invoke("validate", "--json", "--repo", repo, expect=1).json()
    assert validated["ok"] is False  # type: ignore[index]
    assert [p["path"].endswith("broken.md") for p in validated["problems"]] == [True]  # type: ignore[index]


def test_show_json_has_body_and_drift(cli_invoke: Invoke, repo: Path) -> None:
    cli_invoke(
        "add", "testing", "-d", "T", "-f", "package.json#scripts.test", "--body", "- npm test", "--repo", repo
    )
    shown = cli_invoke("show", "testing", "--json", "--repo", repo).json()
    assert shown["body"] == "- npm test"  # type: ignore[index]
    assert shown["drift"] == []  # type: ignore[index]


def test_eight_concurrent_adds_leave_eight_valid_lessons(repo: Path) -> None:
    env = {**os.environ}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reasonlessons",
                "add",
                f"lesson-{i}",
                "-d",
                f"Lesson {i}",
                "-f",
                "package.json#scripts.test",
                "-f",
                "tests/",
                "--body",
                f"- fact {i}",
                "--repo",
                str(repo),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(8)
    ]
    results = [(p.wait(timeout=60), p.stderr.read() if p.stderr else b"") for p in procs]
    assert [code for code, _ in results] == [0] * 8, results
    check = subprocess.run(
        [sys.executable, "-m", "reasonlessons", "validate", "--json", "--repo", str(repo)],
        capture_output=True,
        env=env,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "reasonlessons", "list", "--json", "--repo", str(repo)],
        capture_output=True,
        env=env,
        check=True,
    )
    import json

    names = sorted(x["name"] for x in json.loads(listed.stdout))
    assert names == [f"lesson-{i}" for i in range(8)]
