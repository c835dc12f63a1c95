"""Fixtures for every test: an isolated home, pinned git, real temporary git repositories, a later
clock, a scripted LLM API, and a CLI runner. Helpers that are not fixtures live in tests/*.py modules."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
import time_machine

from tests.invoke import CliResult, Invoke
from tests.llmserver import Script, serve
from tests.repos import GIT_ENV, git, resource_repo


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
    return partial(resource_repo, parent=tmp_path)


@pytest.fixture
def later() -> Iterator[None]:
    """The clock ten minutes ahead, and running: what the test wrote is past the racy window in
    which caches keyed on file times do not trust a stamp."""
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10), tick=True):
        yield


@pytest.fixture
def llm_server() -> Iterator[tuple[str, Script]]:
    """A scripted OpenAI-compatible API on localhost: its base URL, and the Script of its replies."""
    with serve() as running:
        yield running


@pytest.fixture
def cli_invoke(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Invoke:
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
