"""Every command example in README.md and docs/ runs (as sqlite-utils guards its docs): a renamed
flag, a changed default or a broken example fails the build, not the reader.

* Lines of ```sh blocks, and `$ ` lines of ```console blocks, are run in order, page by page, with
  bash in a copy of the example repository (.reasonix-example/), and must exit 0. Commands that run
  until interrupted (`watch`) are stopped with Ctrl-C once they are ready and must exit 0 too.
* Installation lines (pip, pipx, uv, a venv) are not run here: tests/test_readme.py runs the README's
  in a fresh clone, and the rest are checked to install from the repository, not from PyPI.
* `reasonlessons ...` spans quoted in the prose are parsed by the command line they name.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli import build_app
from reasonlessons.cli.fast import hook, recall
from tests.paths import DOCS, EXAMPLE, REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
INSTALLERS = ("python3 -m venv", "pip ", "pipx ", "uv ")
UNTIL_INTERRUPTED = {"watch"}
# Placeholders of the prose, and a value each that the command lines accept.
PLACEHOLDERS = {
    "NAME": "testing",
    "ID": "abc",
    "DIR": ".",
    "PATH": "x",
    "FORMAT": "aip11",
    "AGENT": "claude-code",
    "COMMAND": "list",
}


def _blocks(page: Path) -> list[tuple[str, int, str]]:
    """(language, line number, body) of each fenced block."""
    text = page.read_text()
    return [
        (m.group(1), text[: m.start()].count("\n") + 2, m.group(2))
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
    ]


def examples(page: Path) -> list[tuple[int, str]]:
    """(line, command) of every example to run on a page, in order."""
    out: list[tuple[int, str]] = []
    for lang, start, body in _blocks(page):
        if lang not in ("sh", "console"):
            continue
        for offset, line in enumerate(body.splitlines()):
            if lang == "console":
                if line.startswith("$ "):
                    out.append((start + offset, line[2:]))
            elif line.strip() and not line.lstrip().startswith("#"):
                out.append((start + offset, line))
    return out


def _runnable(page: Path) -> list[tuple[int, str]]:
    return [(n, c) for n, c in examples(page) if not c.startswith(INSTALLERS)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_example_is_a_reasonlessons_command_or_an_install_from_the_repository(page: Path) -> None:
    for number, command in examples(page):
        where = f"{page.name}:{number}: {command}"
        if command.startswith(INSTALLERS):
            assert "pip install reasonlessons" not in command, f"{where}: not on PyPI (yet)"
            assert "pip install -q -e" in command or "./reasonlessons" in command or "git+" in command, where
        else:
            assert command.startswith("reasonlessons ") or "| reasonlessons " in command, where


def _shim(tmp_path: Path) -> dict[str, str]:
    """An environment whose `reasonlessons` is this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "reasonlessons"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m reasonlessons "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLAUDE_PROJECT_DIR")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", PYTHONPATH=str(REPO_ROOT))
    return env


def _until_ready(command: str, cwd: Path, env: dict[str, str]) -> int:
    """Run a daemon until its first line, then Ctrl-C it; its exit code."""
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline()
        assert first, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGINT)
        return proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: p.name)
def test_every_example_runs(page: Path, tmp_path: Path) -> None:
    sandbox = tmp_path / "sandbox"
    shutil.copytree(EXAMPLE, sandbox)  # as README's demo does: a plain folder with .reasonix/
    env = _shim(tmp_path)
    for number, command in _runnable(page):
        words = shlex.split(command, comments=True)
        if words[1] in UNTIL_INTERRUPTED:
            code = _until_ready(command, sandbox, env)
            assert code == 0, f"{page.name}:{number}: {command} exited {code} on Ctrl-C"
            continue
        run = subprocess.run(
            ["bash", "-c", command], cwd=sandbox, env=env, capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, (
            f"{page.name}:{number}: {command}\nexited {run.returncode}\n{run.stdout}\n{run.stderr}"
        )


def _prose_commands() -> list[tuple[str, str]]:
    """(page, command) of each `reasonlessons ...` quoted in the prose of a page."""
    out = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
        for span in re.findall(r"`(reasonlessons [^`]+)`", text):
            if "..." in span or "<" in span or "[" in span:
                continue  # a synopsis, not a command line
            out.append((page.name, span))
    return out


def _parse(words: list[str]) -> None:
    """Parse a command line as the command it names would, without running it."""
    import typer.main

    name, args = words[1], words[2:]
    if name in ("recall", "hook"):
        module: Any = recall if name == "recall" else hook
        module.build_parser().parse_args(args)
        return
    group: Any = typer.main.get_command(build_app())
    while args and args[0].startswith("--") and name.startswith("--"):
        name, args = args[0], args[1:]
    if name.startswith("--"):
        group.make_context("reasonlessons", [name, *args])
        return
    group.commands[name].make_context(name, args)


def _parse_code(words: list[str]) -> int:
    """0 when the command line parses (or answers --help/--version while parsing), else its code."""
    import typer

    try:
        _parse(words)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except SystemExit as exc:  # argparse explains and exits
        return exc.code if isinstance(exc.code, int) else 2
    return 0


@pytest.mark.parametrize(("page", "command"), _prose_commands())
def test_commands_quoted_in_the_prose_parse(page: str, command: str) -> None:
    words = [PLACEHOLDERS.get(word, word) for word in shlex.split(command)]
    assert _parse_code(words) == 0, f"{page}: `{command}` does not parse"
