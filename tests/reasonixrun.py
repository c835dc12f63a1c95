"""The real Reasonix, installed from npm into a cache folder and run headless against tests/reasonixmock.py.

`installed()` gives the `reasonix` launcher of the npm package `reasonix@VERSION`, installing it
once into `$REASONLESSONS_E2E_CACHE` (default: `<tmp>/reasonlessons-e2e`) with npm's own cache
there too, or raises `Unavailable` saying why (no node or npm, no network, another platform).
`$REASONLESSONS_REASONIX` names a launcher to use instead. `Reasonix` writes a Reasonix home (a
`[[providers]]` entry in `config.toml` pointing at the mock, the key in `.env`) and runs
`reasonix run` in a directory with hooks able to find this checkout's `reasonlessons`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock

from tests.reasonixmock import MODEL, MockModel

VERSION = "1.38.11"
PACKAGE = f"reasonix@{VERSION}"
INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 120


class Unavailable(Exception):
    """Why the real Reasonix cannot run here (the e2e tests skip with this reason)."""


def cache_dir() -> Path:
    return Path(
        os.environ.get("REASONLESSONS_E2E_CACHE") or Path(tempfile.gettempdir()) / "reasonlessons-e2e"
    )


def installed() -> Path:
    """The `reasonix` launcher of `reasonix@VERSION`, installed on first use; or Unavailable."""
    given = os.environ.get("REASONLESSONS_REASONIX")
    if given:
        return _checked(Path(given))
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise Unavailable("node and npm are needed to install the reasonix npm package (not on PATH)")
    prefix = cache_dir() / f"reasonix-{VERSION}"
    launcher = prefix / "node_modules" / ".bin" / "reasonix"
    prefix.mkdir(parents=True, exist_ok=True)
    with FileLock(str(prefix) + ".lock", timeout=INSTALL_TIMEOUT):
        if not launcher.exists():
            env = {
                **os.environ,
                "npm_config_cache": str(cache_dir() / "npm-cache"),
                "npm_config_update_notifier": "false",
            }
            cmd = [
                npm,
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                PACKAGE,
            ]
            try:
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise Unavailable(f"`npm install {PACKAGE}` took over {INSTALL_TIMEOUT} s") from None
            if done.returncode != 0 or not launcher.exists():
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise Unavailable(f"`npm install {PACKAGE}` failed: {' / '.join(tail) or done.returncode}")
    return _checked(launcher)


def _checked(launcher: Path) -> Path:
    try:
        out = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{launcher} does not run here: {exc}") from None
    if out.returncode != 0 or VERSION not in out.stdout:
        raise Unavailable(
            f"{launcher} --version said {out.stdout.strip() or out.stderr.strip()!r}, not {VERSION}"
        )
    return launcher


@dataclass
class Run:
    """One `reasonix run`: its process, the chat requests it made, its trajectory, how long it took."""

    process: subprocess.CompletedProcess[str]
    chats: list[dict[str, Any]]
    trajectory: list[dict[str, Any]]
    seconds: float

    def user_messages(self) -> list[str]:
        """The text of every user message of the first chat request (the session context, the turn)."""
        return [str(m.get("content") or "") for m in self.chats[0]["messages"] if m.get("role") == "user"]

    def prompt_text(self) -> str:
        """Everything the model was sent in this run, as one string."""
        return json.dumps(self.chats, ensure_ascii=False)

    def recalled_ids(self) -> list[str]:
        hits = [
            r["memory_recall"].get("hits", [])
            for r in self.trajectory
            if isinstance(r.get("memory_recall"), dict)
        ]
        return [hit["id"] for batch in hits for hit in batch]


class Reasonix:
    """A Reasonix home wired to the mock model, and `reasonix run` in it."""

    def __init__(self, launcher: Path, model: MockModel, home: Path, tmp: Path) -> None:
        self.launcher = launcher
        self.model = model
        self.home = home  # $REASONIX_HOME
        self.tmp = tmp
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            "config_version = 1\n"
            f'default_model = "mock/{MODEL}"\n\n'
            "[[providers]]\n"
            'name = "mock"\n'
            'kind = "openai"\n'
            f'base_url = "{model.base_url}"\n'
            f'models = ["{MODEL}"]\n'
            f'default = "{MODEL}"\n'
            'api_key_env = "MOCK_API_KEY"\n'
        )
        (home / ".env").write_text("MOCK_API_KEY=sk-loopback-test\n")
        self.runs = 0

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """This process's environment (the isolated home), with this checkout's `reasonlessons` on PATH."""
        env = dict(os.environ)
        env["REASONIX_HOME"] = str(self.home)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env.pop("REASONIX_STATE_HOME", None)
        env.update(extra or {})
        return env

    def run(self, prompt: str, *, cwd: Path, env: Mapping[str, str] | None = None) -> Run:
        """`reasonix run PROMPT` in `cwd` with full access (no sandbox on CI hosts), and a trajectory."""
        self.runs += 1
        trajectory = self.tmp / f"trajectory-{self.runs}.jsonl"
        since = len(self.model.received)
        cmd = [
            str(self.launcher),
            "run",
            "--permission-mode",
            "danger-full-access",
            "--trajectory",
            str(trajectory),
            prompt,
        ]
        env_all = self.env(env)
        env_all["PWD"] = str(cwd)
        started = time.monotonic()
        process = subprocess.run(
            cmd,
            cwd=cwd,
            env=env_all,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.monotonic() - started
        if process.returncode != 0:
            raise AssertionError(
                f"reasonix run exited {process.returncode}\n{process.stdout}\n{process.stderr}"
            )
        records = [json.loads(line) for line in trajectory.read_text().splitlines() if line.strip()]
        return Run(process, self.model.chats(since), records, seconds)


def wait_for(check: Callable[[], bool], *, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll `check` until it holds (background work of a hook), or fail saying what never happened."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)
