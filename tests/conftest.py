"""Shared fixtures: an isolated home, pinned git, a CLI runner, and real temporary git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import RESOURCES

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_AUTHOR_DATE": "2026-05-05T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-05-05T12:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every home-like variable at a temp dir, so no test can read or write the real $HOME."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("REASONIX_HOME", str(home / ".reasonix"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.delenv("REASONIX_STATE_HOME", raising=False)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    return home


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with the pinned identity and return stdout."""
    result = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env={**os.environ}
    )
    return result.stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """An empty git repository with one initial commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "initial")
    return repo


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], Path]:
    """Copy `tests/resources/repos/<name>` into a temp dir and commit it as a git repository."""

    def make(name: str) -> Path:
        repo = tmp_path / name
        shutil.copytree(RESOURCES / "repos" / name, repo, symlinks=True)
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"import {name}")
        return repo

    return make


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> object:
        import json

        return json.loads(self.stdout)


@pytest.fixture
def cli_invoke(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """Run the CLI in-process; on an unexpected exit code, show what it printed."""
    from reasonlessons.cli import run

    def invoke(*args: str | Path, cwd: Path | None = None, expect: int | None = 0) -> CliResult:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = run([str(a) for a in args])
        out, err = capsys.readouterr()
        result = CliResult(code, out, err)
        if expect is not None and code != expect:
            pytest.fail(
                f"reasonlessons {' '.join(map(str, args))} exited {code}, expected {expect}\n"
                f"--- stdout ---\n{out}\n--- stderr ---\n{err}"
            )
        return result

    return invoke
