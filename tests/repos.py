"""Real temporary git repositories: the pinned identity, `git()`, and a resource tree committed as a repo."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.paths import RESOURCES

# The autouse `isolated_home` fixture sets these for every test, so commits (and their hashes) are
# the same on every machine.
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


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with the pinned identity and return stdout."""
    result = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env={**os.environ}
    )
    return result.stdout


def commit_all(repo: Path, message: str, *args: str) -> str:
    """Commit everything in the work tree (an empty commit if nothing changed); returns the commit id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", *args, "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def resource_repo(name: str, parent: Path) -> Path:
    """Copy `tests/resources/repos/<name>` to `parent/<name>` and commit it as a git repository."""
    repo = parent / name
    shutil.copytree(RESOURCES / "repos" / name, repo, symlinks=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"import {name}")
    return repo
