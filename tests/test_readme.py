"""The README's two "Try it" commands, in a fresh clone: the demo, then the tests, then both again.
Each passes and leaves the checkout exactly as cloned (`git status --porcelain` empty).

The installs (`python3 -m venv .venv && ... pip install`) are left out, and nothing is installed:
the clone runs in a bare virtual environment that sees this one's third-party packages (a `.pth`
line) but not its editable install of this checkout, with the clone on PYTHONPATH. The tests of
command 2 are those that read .reasonix-example/ (what command 1 used to change) rather than the
whole suite, which would run this test again inside itself; .ci/run runs command 2 verbatim.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT
from tests.repos import git

INSTALL = re.compile(r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install -q -e (\S+) && ")
# The tests that read the example repository and would fail after a demo that changed it.
EXAMPLE_TESTS = [
    "tests/capture/test_pipeline.py::test_the_readme_demo_on_the_example_repository",
    "tests/capture/test_scanner_missing.py",
    "tests/watch/test_daemon.py::test_a_session_that_ends_is_captured_by_the_pipeline",
    "tests/test_docs.py",
]


def readme_commands() -> tuple[str, str]:
    """The README's first two ```sh blocks (the demo, the tests), each one line."""
    text = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)
    demo, tests = (block.strip() for block in blocks[:2])
    assert "\n" not in demo
    assert "\n" not in tests
    return demo, tests


def _fresh_clone(target: Path) -> Path:
    """A clone of this checkout as it is now (committed or not): what a new user would clone."""
    git(target.parent, "clone", "-q", str(REPO_ROOT), target.name)
    listed = git(REPO_ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    deleted = set(git(REPO_ROOT, "ls-files", "-z", "--deleted").split("\0"))
    for name in filter(None, listed):
        source, copy = REPO_ROOT / name, target / name
        if name in deleted or not source.exists():
            copy.unlink(missing_ok=True)
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy)
    git(target, "add", "-A")
    git(target, "commit", "-q", "--allow-empty", "-m", "the working tree")
    assert git(target, "status", "--porcelain") == ""
    return target


def _run(command: str, clone: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=600
    )


def bare_python(where: Path) -> Path:
    """A venv's python that imports this environment's dependencies, but not reasonlessons."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # A plain path line: the directory joins sys.path, its own .pth files (the editable install's
    # import hook among them) are not run.
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.mark.slow
def test_readme_try_it_twice_in_a_fresh_clone_leaves_it_clean(tmp_path: Path) -> None:
    demo, tests = readme_commands()
    assert INSTALL.match(demo), "command 1 installs the package first"
    assert INSTALL.match(tests), "command 2 installs the test extras first"
    assert INSTALL.sub("", tests) == "pytest -q"
    clone = _fresh_clone(tmp_path / "clone")
    python = bare_python(tmp_path / "venv")
    where = subprocess.run(
        [str(python), "-c", "import reasonlessons; print(reasonlessons.__file__)"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(clone)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(clone)), where  # the clone's code, not this checkout's
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "reasonlessons").write_text(f'#!/bin/sh\nexec "{python}" -m reasonlessons "$@"\n')
    (bin_dir / "reasonlessons").chmod(0o755)
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", PYTHONPATH=str(clone), TMPDIR=str(tmp_path / "tmp")
    )
    suite = f"{python} -m pytest -q -p no:cacheprovider {' '.join(EXAMPLE_TESTS)}"
    for attempt in (1, 2):
        ran = _run(INSTALL.sub("", demo), clone, env)
        assert ran.returncode == 0, f"command 1, run {attempt}:\n{ran.stdout}\n{ran.stderr}"
        assert "session(s) read" in ran.stdout
        assert git(clone, "status", "--porcelain") == "", f"command 1, run {attempt}, changed the checkout"
        ran = _run(suite, clone, env)
        assert ran.returncode == 0, f"command 2, run {attempt}:\n{ran.stdout[-4000:]}\n{ran.stderr[-2000:]}"
        assert git(clone, "status", "--porcelain") == "", f"command 2, run {attempt}, changed the checkout"
