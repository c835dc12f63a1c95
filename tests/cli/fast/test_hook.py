"""`python -m reasonlessons hook claude-code` as Claude Code runs it: a subprocess, JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.jsonshape import load_schema, problems
from tests.paths import RESOURCES

OUTPUT_SCHEMA = load_schema("claude-hook-output.schema.json")
CAPTURE = RESOURCES / "capture" / "claude-code"


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("recall-ts")


def hook(repo: Path, stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "REASONLESSONS_HOOK_DEBUG")}
    return subprocess.run(
        [sys.executable, "-m", "reasonlessons", "hook", "claude-code", *args],
        input=stdin,
        capture_output=True,
        cwd=repo,
        env=env,
        timeout=60,
        check=False,
    )


def payload(repo: Path, name: str, **fields: Any) -> bytes:
    doc = {"session_id": "sub-1", "transcript_path": "", "cwd": str(repo), "hook_event_name": name, **fields}
    return json.dumps(doc).encode()


def test_prompt_hook_prints_one_documented_json_object(repo: Path) -> None:
    done = hook(repo, payload(repo, "UserPromptSubmit", prompt="Add a unit test for tests/foo.test.ts"))
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.endswith(b"}\n")
    assert done.stdout.count(b"\n") == 1
    out = json.loads(done.stdout)
    assert problems(out, OUTPUT_SCHEMA) == []
    assert "## testing (project lesson)" in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("stdin", [b"", b"{oops", b"null", b"\x00" * 64])
def test_malformed_stdin_exits_0_silently(repo: Path, stdin: bytes) -> None:
    done = hook(repo, stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_empty_and_huge_prompts(repo: Path) -> None:
    assert hook(repo, payload(repo, "UserPromptSubmit", prompt="")).stdout == b""
    prompt = (
        "Add a unit test for tests/foo.test.ts\n" + "stack trace line at parse (src/index.ts:1)\n" * 25_000
    )
    started = time.perf_counter()
    done = hook(repo, payload(repo, "UserPromptSubmit", prompt=prompt))
    assert time.perf_counter() - started < 20
    assert (done.returncode, done.stderr) == (0, b"")
    assert problems(json.loads(done.stdout), OUTPUT_SCHEMA) == []


def test_repeated_failure_is_reported_as_a_loop(repo: Path) -> None:
    fail = payload(
        repo, "PostToolUseFailure", tool_name="Bash", tool_input={"command": "npm test"}, error="exit 1"
    )
    assert hook(repo, fail).stdout == b""
    out = json.loads(hook(repo, fail).stdout)
    assert problems(out, OUTPUT_SCHEMA) == []
    assert out["hookSpecificOutput"]["additionalContext"].startswith("[LOOP DETECTED]")


def test_session_end_captures_in_a_detached_process(repo: Path) -> None:
    transcript = repo / "session.jsonl"
    transcript.write_bytes((CAPTURE / "writ-and-correction.jsonl").read_bytes())
    checkpoints = repo / ".reasonix" / "state" / "capture-checkpoints.json"
    started = time.perf_counter()
    done = hook(
        repo, payload(repo, "SessionEnd", transcript_path=str(transcript), reason="prompt_input_exit")
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert time.perf_counter() - started < 10  # returned before the capture finished, or soon after
    deadline = time.monotonic() + 30
    while not checkpoints.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert checkpoints.exists(), "the detached capture never ran"


def test_session_end_with_wait_captures_before_exiting(repo: Path) -> None:
    transcript = repo / "session.jsonl"
    transcript.write_bytes((CAPTURE / "writ-and-correction.jsonl").read_bytes())
    done = hook(repo, payload(repo, "SessionEnd", transcript_path=str(transcript)), "--wait")
    assert (done.returncode, done.stdout) == (0, b"")
    assert (repo / ".reasonix" / "state" / "capture-checkpoints.json").exists()
