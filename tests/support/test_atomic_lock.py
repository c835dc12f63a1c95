"""support.atomic.locked: one exclusive lock per file, shared with filelock's, and cheap to import.

On POSIX the lock is a `flock` taken directly (filelock's import is as long as the interpreter's
start, and a failing tool call in the Claude Code hook takes this lock): these tests hold it to
excluding both itself and filelock, to its errors, and to the hook path not importing filelock.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import filelock
import pytest

from reasonlessons.errors import StoreWriteError
from reasonlessons.support import atomic

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the flock path is POSIX's")


def test_a_lock_held_through_filelock_makes_locked_wait_then_report_who_holds_it(tmp_path: Path) -> None:
    path = tmp_path / "store.lock"
    held = filelock.FileLock(str(path))
    with held, pytest.raises(StoreWriteError, match="holds .*store.lock"), atomic.locked(path, timeout=0.2):
        pass
    with atomic.locked(path, timeout=0.2):  # released by filelock: taken at once
        pass


def test_while_locked_holds_the_file_filelock_cannot_take_it(tmp_path: Path) -> None:
    path = tmp_path / "store.lock"
    with atomic.locked(path):
        with pytest.raises(filelock.Timeout):
            filelock.FileLock(str(path), timeout=0.1).acquire()
        with pytest.raises(StoreWriteError), atomic.locked(path, timeout=0.1):  # nor a second `locked`
            pass
    lock = filelock.FileLock(str(path), timeout=0.1)
    lock.acquire()
    lock.release()


def test_the_lock_is_released_when_the_block_raises(tmp_path: Path) -> None:
    path = tmp_path / "state" / "store.lock"  # its folder is created
    with pytest.raises(RuntimeError), atomic.locked(path):
        raise RuntimeError("boom")
    with atomic.locked(path, timeout=0.1):
        pass
    assert path.exists()


def test_a_folder_that_cannot_hold_the_lock_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(StoreWriteError, match="cannot create"), atomic.locked(blocker / "store.lock"):
        pass
    (tmp_path / "dir.lock").mkdir()  # the lock's own name taken by a folder
    with pytest.raises(StoreWriteError, match="cannot lock"), atomic.locked(tmp_path / "dir.lock"):
        pass


def test_a_failing_tool_call_in_the_claude_code_hook_locks_without_importing_filelock(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    payload = {
        "session_id": "s1",
        "transcript_path": "",
        "cwd": str(repo),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test"},
        "error": "Command exited with non-zero status code 1",
    }
    script = (
        "import json, sys\n"
        "from reasonlessons.integrations import claude_hook\n"
        "claude_hook.handle(json.loads(sys.argv[1]), home=sys.argv[2])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'filelock')))\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", script, json.dumps(payload), str(home)],
        capture_output=True,
        text=True,
        check=True,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert json.loads(run.stdout.splitlines()[-1]) == []
    locks = list(tmp_path.rglob("claude-hook-calls.lock"))
    assert locks, "the failure was recorded under the lock (else this test proves nothing)"
