"""A terminal gets colours and progress bars; a pipe, CI, NO_COLOR and --no-color do not; and the
per-turn paths never import rich or Typer for them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli.fast import terminal
from tests.invoke import Invoke
from tests.paths import REPO_ROOT

LESSON = "---\nname: {name}\ndescription: d\nfingerprint: [{entry}]\ncaptured-at: 2026-05-05\n---\n- x\n"


@pytest.fixture
def repo(git_repo: Path, cli_invoke: Invoke) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest"}}\n')
    cli_invoke("add", "fresh", "-d", "d", "-f", "package.json#scripts.test", "--repo", git_repo)
    (git_repo / ".reasonix" / "lessons" / "unrecorded.md").write_text(
        LESSON.format(name="unrecorded", entry="package.json")
    )
    return git_repo


@pytest.fixture
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "_isatty", lambda stream: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


@pytest.fixture
def bars(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    """Record the bars drawn instead of drawing them; every bar starts at once."""
    drawn: list[tuple[str, int, str]] = []

    class Bar:
        def update(self, task: object, **kwargs: Any) -> None:
            pass

        def stop(self) -> None:
            pass

    def start(label: str, total: int, unit: str) -> list[Any]:
        drawn.append((label, total, unit))
        return [Bar(), 0]

    monkeypatch.setattr(terminal, "_start", start)
    monkeypatch.setattr(terminal, "DELAY", 0.0)
    return drawn


def test_list_colours_statuses_on_a_terminal_only(cli_invoke: Invoke, repo: Path, a_terminal: None) -> None:
    out = cli_invoke("list", "--repo", repo).stdout
    assert "\x1b[32mactive\x1b[0m" in out
    assert "\x1b[31mstale\x1b[0m" in out
    assert "\x1b[" not in cli_invoke("--no-color", "list", "--repo", repo).stdout


def test_no_color_in_the_environment(
    cli_invoke: Invoke, repo: Path, a_terminal: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli_invoke("list", "--repo", repo).stdout
    monkeypatch.setenv("NO_COLOR", "")  # no-color.org: an empty value does not count
    assert "\x1b[" in cli_invoke("list", "--repo", repo).stdout


def test_a_pipe_gets_plain_text(cli_invoke: Invoke, repo: Path) -> None:
    result = cli_invoke("list", "--repo", repo)
    assert "\x1b[" not in result.stdout + result.stderr


def test_no_color_is_a_global_option_on_the_fast_paths_too(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from reasonlessons.cli import main

    assert main(["--no-color", "stale", "--repo", str(repo)]) == 0
    assert "unrecorded" in capsys.readouterr().out


def test_progress_is_drawn_on_a_terminal_for_long_work(
    cli_invoke: Invoke, repo: Path, a_terminal: None, bars: list[tuple[str, int, str]]
) -> None:
    cli_invoke("stale", "--repo", repo)  # cold: nothing stored to replay
    assert bars == [("checking lessons", 2, "")]
    bars.clear()
    cli_invoke("export", "reasonix", "--repo", repo)
    assert bars == [("export", 2, "")]


def test_capture_draws_its_progress_in_bytes(
    cli_invoke: Invoke, repo: Path, a_terminal: None, bars: list[tuple[str, int, str]], tmp_path: Path
) -> None:
    from tests.capturesupport import copy_v1_logs

    logs = copy_v1_logs(tmp_path / "logs", "vitest-not-found", "short")
    cli_invoke("capture", "--repo", repo, *logs)
    assert [(label, unit) for label, _, unit in bars] == [("capture", "bytes")]


@pytest.mark.parametrize("env", [{"CI": "true"}, {"TERM": "dumb"}])
def test_no_progress_under_ci(
    cli_invoke: Invoke,
    repo: Path,
    a_terminal: None,
    bars: list[tuple[str, int, str]],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    cli_invoke("stale", "--repo", repo)
    assert bars == []


def test_no_progress_in_a_pipe(cli_invoke: Invoke, repo: Path, bars: list[tuple[str, int, str]]) -> None:
    cli_invoke("stale", "--repo", repo)
    assert bars == []


def test_a_quick_run_never_draws_a_bar(a_terminal: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def start(*args: object) -> list[Any]:
        raise AssertionError("a bar was drawn")

    monkeypatch.setattr(terminal, "_start", start)
    with terminal.progress("x", delay=60) as tick:
        assert tick is not None
        tick(1, 10)


def _imports(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reasonlessons", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    return run, {
        line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "import time:" in line
    }


@pytest.mark.parametrize(
    "args", [["stale"], ["stale", "--json"], ["recall", "add a test", "--json"], ["--version"]]
)
def test_the_per_turn_paths_import_neither_rich_nor_typer(repo: Path, args: list[str]) -> None:
    for _ in range(2):  # cold, then warm
        run, imported = _imports(args, repo)
        assert run.returncode == 0, run.stderr
        assert not imported & {"typer", "click", "rich", "rich.progress", "reasonlessons.cli.app"}
