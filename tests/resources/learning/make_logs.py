"""Regenerate the Claude Code sessions of this folder: `python tests/resources/learning/make_logs.py`.

The logs are committed; this script documents how they were made. Each is one session in the repo
`/work/demo` where the lesson "run `npm test`, not `npx jest`" may have been recalled (README.md).
"""

# ruff: noqa: E501  (log data reads best one record per line)
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CWD = "/work/demo"
START = dt.datetime(2026, 5, 10, 9, 0, tzinfo=dt.UTC)
NPM_OK = "> demo@1.0.0 test\n> vitest run\n\n ✓ tests/queue.test.ts (3 tests) 4ms\n\n Test Files  1 passed (1)"
JEST_127 = "Exit code 127\nsh: 1: jest: not found"
NO_SCRIPT = 'Exit code 1\nnpm ERR! Missing script: "test"\nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run'
ASSERT_1 = "Exit code 1\n FAIL tests/queue.test.ts > drains\nAssertionError: expected 2 to be 3"
VITEST_127 = "Exit code 127\n> demo@1.0.0 test\n> vitest run\n\nsh: 1: vitest: not found"
VITEST_OK = " ✓ tests/queue.test.ts (3 tests) 4ms\n\n Test Files  1 passed (1)"

# name -> (session id, minutes after START, prompt, [(command, output, is_error)], tokens per model call)
SESSIONS: dict[str, tuple[str, int, str, list[tuple[str, str, bool]], int]] = {
    "followed-ok": ("aaaaaaaa-0001-4000-8000-000000000001", 0, "fix the queue drain test", [("ls tests", "queue.test.ts", False), ("npm test", NPM_OK, False), ("git status --short", " M src/queue.ts", False)], 1000),
    "warned-failure": ("aaaaaaaa-0002-4000-8000-000000000002", 60, "fix the queue drain test", [("npx jest tests/queue.test.ts", JEST_127, True), ("cat package.json", '{"scripts": {"test": "vitest run"}}', False), ("npm test", NPM_OK, False)], 1500),
    "advice-broken": ("aaaaaaaa-0003-4000-8000-000000000003", 120, "run the queue tests", [("npm test", NO_SCRIPT, True), ("cat package.json", "{}", False), ("npm test", NO_SCRIPT, True)], 1200),
    "tests-red": ("aaaaaaaa-0004-4000-8000-000000000004", 180, "fix the queue drain test", [("npm test", ASSERT_1, True), ("cat src/queue.ts", "export {}", False), ("npm test", ASSERT_1, True)], 1100),
    "warned-again": ("aaaaaaaa-0006-4000-8000-000000000006", 300, "fix the flaky queue test", [("npx jest tests/queue.test.ts", JEST_127, True), ("npx jest", JEST_127, True), ("git status --short", "", False)], 1400),
    "unrelated": ("aaaaaaaa-0005-4000-8000-000000000005", 240, "rename the drain helper", [("ls src", "queue.ts", False), ("git status --short", "", False), ("git diff --stat", "", False)], 800),
    "jest-passes": ("aaaaaaaa-0007-4000-8000-000000000007", 360, "fix the queue drain test", [("npx jest tests/queue.test.ts", NPM_OK, False), ("git status --short", "", False)], 900),
    "jest-passes-again": ("aaaaaaaa-0008-4000-8000-000000000008", 420, "fix the queue drain test", [("npx jest", NPM_OK, False), ("git diff --stat", "", False)], 900),
    # The story of issue 21: "`npm test` fails here (vitest not found); run `npx vitest run`".
    "vitest-1": ("bbbbbbbb-0001-4000-8000-000000000001", 1440, "fix the queue drain test", [("npm test", VITEST_127, True), ("cat package.json", '{"scripts": {"test": "vitest run"}}', False), ("npx vitest run", VITEST_OK, False)], 1000),
    "vitest-2": ("bbbbbbbb-0002-4000-8000-000000000002", 1500, "fix the flaky queue test", [("npm test", VITEST_127, True), ("npx vitest run", VITEST_OK, False), ("git status --short", " M src/queue.ts", False)], 1000),
    "vitest-3": ("bbbbbbbb-0003-4000-8000-000000000003", 1560, "add a test for drain", [("npm test", VITEST_127, True), ("npx vitest run", VITEST_OK, False), ("git diff --stat", "", False)], 1000),
    "vitest-fixed-1": ("bbbbbbbb-0004-4000-8000-000000000004", 2880, "fix the queue drain test", [("npm install", "added 1 package", False), ("npm test", NPM_OK, False), ("git status --short", "", False)], 1000),
    "vitest-fixed-2": ("bbbbbbbb-0005-4000-8000-000000000005", 2940, "add a test for drain", [("ls tests", "queue.test.ts", False), ("npm test", NPM_OK, False), ("git diff --stat", "", False)], 1000),
    # A `/lesson` writ in a session of one tool call.
    "writ-short": ("cccccccc-0001-4000-8000-000000000001", 3000, "/lesson pnpm only: Use `pnpm install`, never `npm install`; the lockfile is pnpm-lock.yaml", [("ls", "package.json pnpm-lock.yaml", False)], 500),
}


def record(session: str, kind: str, message: dict[str, Any], at: dt.datetime, n: int, **extra: Any) -> dict[str, Any]:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": session, "version": "1.0.108", "type": kind, "message": message, "uuid": f"u{n:03d}", "timestamp": stamp, **extra}


def session_log(session: str, start: dt.datetime, prompt: str, steps: list[tuple[str, str, bool]], tokens: int) -> str:
    lines = [record(session, "user", {"role": "user", "content": prompt}, start, 0)]
    at = start
    for i, (command, output, is_error) in enumerate(steps, start=1):
        at += dt.timedelta(seconds=20)
        usage = {"input_tokens": tokens, "output_tokens": 50, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        call = {"id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-sonnet-4", "content": [{"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": command}}], "stop_reason": "tool_use", "usage": usage}
        lines.append(record(session, "assistant", call, at, 2 * i, requestId=f"req_{i}"))
        at += dt.timedelta(seconds=5)
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": output, "is_error": is_error}]}
        lines.append(record(session, "user", result, at, 2 * i + 1))
    at += dt.timedelta(seconds=10)
    done = {"id": "msg_end", "type": "message", "role": "assistant", "model": "claude-sonnet-4", "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn", "usage": {"input_tokens": tokens, "output_tokens": 20}}
    lines.append(record(session, "assistant", done, at, 99, requestId="req_end"))
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


def main() -> None:
    for name, (session, minutes, prompt, steps, tokens) in SESSIONS.items():
        text = session_log(session, START + dt.timedelta(minutes=minutes), prompt, steps, tokens)
        (HERE / f"{name}.jsonl").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
