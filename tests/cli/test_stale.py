"""`stale` and `refresh` end to end: JSON shape, exit codes, the Typer-free fast path and its replay cache."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import time_machine
import yaml

from reasonlessons.__main__ import main
from reasonlessons.stale import scan
from tests.invoke import CliResult, Invoke
from tests.paths import REPO_ROOT
from tests.repos import git

ROOT = REPO_ROOT


@pytest.fixture
def repo(git_repo: Path, cli_invoke: Invoke) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "a.test.ts").write_text("it()\n")
    cli_invoke(
        "add",
        "testing",
        "-d",
        "Test runner",
        "-f",
        "package.json#scripts.test",
        "-f",
        "tests/",
        "--repo",
        git_repo,
    )
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "add testing lesson")
    return git_repo


def fast(capsys: pytest.CaptureFixture[str], *args: str | Path) -> CliResult:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return CliResult(code, out, err)


def test_fresh_repo(cli_invoke: Invoke, repo: Path) -> None:
    assert cli_invoke("stale", "--json", "--repo", repo).json() == []
    assert cli_invoke("stale", "--check", "--repo", repo).stdout == "no stale lessons (1 checked)\n"


def test_stale_json_check_and_text(cli_invoke: Invoke, repo: Path) -> None:
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    git(repo, "commit", "-q", "-am", "switch to jest")
    sha = git(repo, "rev-parse", "HEAD").strip()
    result = cli_invoke("stale", "--json", "--check", "--repo", repo, expect=3)
    assert result.json() == [
        {
            "name": "testing",
            "scope": "project",
            "drift": [
                {
                    "input": "package.json#scripts.test",
                    "was": '"vitest run"',
                    "now": '"jest"',
                    "reason": "changed",
                    "kind": "field",
                    "commit": {"sha": sha[:10], "subject": "switch to jest"},
                }
            ],
        }
    ]
    assert result.stderr == ""
    text = cli_invoke("stale", "--repo", repo).stdout.splitlines()
    assert text[0].startswith("testing  [project]  ")
    assert text[1] == f'  package.json#scripts.test: "vitest run" → "jest" [{sha[:10]} switch to jest]'
    assert text[2].startswith("1 of 1 lesson(s) stale")
    listed = cli_invoke("list", "--json", "--repo", repo).json()
    assert [x["status"] for x in listed] == ["stale"]  # type: ignore[union-attr]
    shown = cli_invoke("show", "testing", "--json", "--repo", repo).json()
    assert shown["drift"][0]["now"] == '"jest"'  # type: ignore[index]
    assert "drift: package.json#scripts.test" in cli_invoke("show", "testing", "--repo", repo).stdout


def test_fast_path_prints_the_same_bytes_as_typer(
    cli_invoke: Invoke, capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    (repo / "tests" / "a.test.ts").rename(repo / "tests" / "a.spec.ts")
    for args in (("stale", "--json"), ("stale",), ("stale", "--check")):
        typer_run = cli_invoke(*args, "--repo", repo, expect=None)
        fast_run = fast(capsys, *args, f"--repo={repo}")
        assert (fast_run.code, fast_run.stdout, fast_run.stderr) == (
            typer_run.code,
            typer_run.stdout,
            typer_run.stderr,
        )
    assert fast(capsys, "stale", "--check", "--repo", repo).code == 3


def test_unknown_arguments_fall_through_to_typer(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    helped = fast(capsys, "stale", "--help")
    assert helped.code == 0
    assert "--check" in helped.stdout
    assert fast(capsys, "stale", "--bogus").code == 2
    assert fast(capsys, "stale", "--repo").code == 2
    missing = fast(capsys, "stale", "--repo", repo / "nope")
    assert missing.code == 2
    assert "not a directory" in missing.stderr


def test_replayed_answer_until_something_it_read_changes(
    capsys: pytest.CaptureFixture[str], repo: Path, later: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = fast(capsys, "stale", "--json", "--repo", repo)
    assert first.stdout == "[]\n"
    assert (repo / ".reasonix" / "state" / "stale-result.marshal").is_file()
    real_scan = scan.scan_stale
    calls: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(scan, "scan_stale", counting)
    assert fast(capsys, "stale", "--json", "--repo", repo).stdout == "[]\n"
    assert fast(capsys, "stale", "--repo", repo).stdout == "no stale lessons (1 checked)\n"
    assert calls == []
    changes = [
        lambda: (repo / "tests" / "b.spec.ts").write_text("x"),
        lambda: (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n'),
        lambda: (repo / ".reasonix" / "lessons" / "extra.md").write_text(
            "---\nname: extra\ndescription: d\nfingerprint: [docs/]\ncaptured-at: 2026-01-01\n---\n"
        ),
    ]
    for change in changes:
        change()
        fast(capsys, "stale", "--json", "--repo", repo)
        assert len(calls) == 1
        calls.clear()
    answer = yaml.safe_load(fast(capsys, "stale", "--json", "--repo", repo).stdout)
    assert calls == []
    assert sorted(r["name"] for r in answer) == ["extra", "testing"]


def test_replay_ends_when_an_expiry_passes(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    lesson = repo / ".reasonix" / "lessons" / "testing.md"
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    lesson.write_text(
        lesson.read_text().replace("captured-at:", f"expires-at: {soon.isoformat()}\ncaptured-at:")
    )
    (repo / "package.json").write_text("{}\n")
    with time_machine.travel(soon - dt.timedelta(minutes=10), tick=True):
        assert fast(capsys, "stale", "--check", "--repo", repo).code == 3
        assert fast(capsys, "stale", "--check", "--repo", repo).code == 3
    with time_machine.travel(soon + dt.timedelta(minutes=1), tick=True):
        assert fast(capsys, "stale", "--check", "--repo", repo).code == 0


def test_refresh_command(cli_invoke: Invoke, repo: Path) -> None:
    (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    cli_invoke("stale", "--check", "--repo", repo, expect=3)
    assert cli_invoke("refresh", "testing", "--repo", repo).stdout.startswith("refreshed testing (")
    cli_invoke("stale", "--check", "--repo", repo)
    assert cli_invoke("refresh", "--all", "--repo", repo).stdout == "0 lesson(s) refreshed\n"
    assert "NAME or --all" in cli_invoke("refresh", "--repo", repo, expect=2).stderr
    cli_invoke("refresh", "nope", "--repo", repo, expect=1)


def test_add_and_validate_reject_entries_that_escape(cli_invoke: Invoke, repo: Path) -> None:
    for entry in ("../x", "/etc/passwd"):
        result = cli_invoke("add", "bad", "-d", "d", "-f", entry, "--repo", repo, expect=2)
        assert "escapes the repository" in result.stderr
    assert not (repo / ".reasonix" / "lessons" / "bad.md").exists()
    (repo / ".reasonix" / "lessons" / "hand.md").write_text(
        "---\nname: hand\ndescription: d\nfingerprint: ['../secret', 'ok/']\ncaptured-at: 2026-01-01\n---\n"
    )
    validated = cli_invoke("validate", "--json", "--repo", repo, expect=1).json()
    messages = [p["message"] for p in validated["problems"]]  # type: ignore[index]
    assert any("'../secret'" in m and "escapes the repository" in m for m in messages)
    assert not any("'ok/'" in m for m in messages)


def test_pre_commit_hook_definition_runs_stale_check() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "reasonlessons-stale"
    assert hook["entry"] == "reasonlessons stale --check"
    assert hook["pass_filenames"] is False


def test_the_documented_pre_commit_rev_is_a_commit_that_ships_the_hook() -> None:
    """docs/fingerprints.md pins a commit id (no release is tagged yet): pre-commit installs the hook
    from it, so it must be a commit of this repository whose .pre-commit-hooks.yaml defines it."""
    (rev,) = re.findall(r"^\s*rev: (\S+)", (ROOT / "docs" / "fingerprints.md").read_text(), re.M)
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"pre-commit wants a full commit id, not {rev!r}"
    if git(ROOT, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone may not hold the documented commit")
    shown = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True, text=True
    )
    assert shown.returncode == 0, f"{rev} is not a commit here that has .pre-commit-hooks.yaml"
    assert yaml.safe_load(shown.stdout)[0]["id"] == "reasonlessons-stale"
