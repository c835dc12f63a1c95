"""Regenerate the session logs of this folder: `python tests/resources/capture/make_logs.py`.

The logs are committed; this script only documents how they were made and keeps them consistent.
Each one pins a capture heuristic (see README.md next to it).
"""

# ruff: noqa: E501  (log data reads best one record per line)
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
WORKSPACE = "/work/demo"
VITEST_OK = (
    "$ npx vitest run\n[exit 0]\n\n RUN  v3.2.4 /work/demo\n\n ✓ tests/queue.test.ts (1 test) 2ms\n"
    " ✓ tests/parser.test.ts (1 test) 1ms\n\n Test Files  2 passed (2)\n      Tests  2 passed (2)\n"
)
NPM_TEST_127 = (
    "$ npm test\n[exit 127]\n\n> capture-node@1.0.0 test\n> vitest run\n\nsh: 1: vitest: not found\n"
)
Step = tuple[str, str, dict[str, Any], str, bool]


def _dump(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n" for obj in lines)


def reasonix_v1(name: str, start: dt.datetime, launches: list[list[tuple[str, list[Step], str]]]) -> None:
    """Write `<name>.events.jsonl`, the sidecar `<name>.jsonl` and `<name>.meta.json`."""
    events: list[dict[str, Any]] = []
    sidecar: list[dict[str, Any]] = []
    now = start
    for launch in launches:
        counter = 0

        def event(turn: int, kind: str, **fields: Any) -> None:
            nonlocal counter, now
            counter += 3 if kind == "model.final" else 1  # streamed deltas consume ids
            now += dt.timedelta(milliseconds=200)
            stamp = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
            events.append({"id": counter, "ts": stamp, "turn": turn, "type": kind, **fields})

        event(0, "session.opened", name=name, resumedFromTurn=0)
        calls = 0
        for turn, (prompt, steps, final) in enumerate(launch, start=1):
            sidecar.append({"role": "user", "content": prompt})
            event(
                turn,
                "model.turn.started",
                model="deepseek-v4-flash",
                reasoningEffort="max",
                prefixHash="0" * 16,
            )
            for say, tool, args, output, ok in steps:
                usage = {"prompt_tokens": 1000, "completion_tokens": 50, "prompt_cache_hit_tokens": 800}
                event(turn, "model.final", content=say, toolCalls=[], usage=usage, costUsd=0.0001)
                calls += 1
                call_id = f"tc-{calls}"
                arguments = json.dumps(args)
                event(turn, "tool.intent", callId=call_id, name=tool, args=arguments)
                event(turn, "tool.dispatched", callId=call_id)
                event(turn, "tool.result", callId=call_id, ok=ok, output=output, durationMs=0)
                sidecar.append(
                    {
                        "role": "assistant",
                        "content": say,
                        "tool_calls": [
                            {
                                "id": f"call_{calls}",
                                "type": "function",
                                "function": {"name": tool, "arguments": arguments},
                            }
                        ],
                    }
                )
                sidecar.append(
                    {"role": "tool", "tool_call_id": f"call_{calls}", "name": tool, "content": output}
                )
            event(
                turn,
                "model.final",
                content=final,
                toolCalls=[],
                usage={"prompt_tokens": 1000},
                costUsd=0.0001,
            )
            sidecar.append({"role": "assistant", "content": final})
    folder = HERE / "reasonix-v1"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.events.jsonl").write_text(_dump(events), encoding="utf-8")
    (folder / f"{name}.jsonl").write_text(_dump(sidecar), encoding="utf-8")
    (folder / f"{name}.meta.json").write_text(json.dumps({"workspace": WORKSPACE}), encoding="utf-8")


PACKAGE = json.dumps({"scripts": {"test": "vitest run", "typecheck": "tsc --noEmit"}}, indent=2)
VITEST_SESSION: list[Step] = [
    ("Checking the scripts.", "read_file", {"path": "package.json"}, PACKAGE, True),
    ("Running the tests.", "run_command", {"command": "npm test"}, NPM_TEST_127, True),
    ("vitest is not on PATH; using npx.", "run_command", {"command": "npx vitest run"}, VITEST_OK, True),
    (
        "Reading the queue test.",
        "read_file",
        {"path": "tests/queue.test.ts"},
        "import { it } from 'vitest';\n",
        True,
    ),
    ("Running again.", "run_command", {"command": "npx vitest run"}, VITEST_OK, True),
]
TS2835 = (
    "$ npx tsc --noEmit\n[exit 2]\nsrc/drain.ts(1,23): error TS2835: Relative import paths need explicit file "
    "extensions in ECMAScript imports when '--moduleResolution' is 'node16' or 'nodenext'. "
    "Did you mean './queue.js'?\n"
)
ESM_SESSION: list[Step] = [
    ("Reading the queue.", "read_file", {"path": "src/queue.ts"}, "export class Queue<T> {}\n", True),
    (
        "Writing drain.ts.",
        "write_file",
        {"path": "src/drain.ts", "content": 'import { Queue } from "./queue";\nexport const d = 1;\n'},
        "wrote 52 bytes to src/drain.ts",
        True,
    ),
    ("Type-checking.", "run_command", {"command": "npx tsc --noEmit"}, TS2835, True),
    (
        "NodeNext wants the .js suffix.",
        "edit_file",
        {"path": "src/drain.ts", "search": '"./queue"', "replace": '"./queue.js"'},
        "edited src/drain.ts (+1 -1)",
        True,
    ),
    (
        "Type-checking again.",
        "run_command",
        {"command": "npx tsc --noEmit"},
        "$ npx tsc --noEmit\n[exit 0]\n",
        True,
    ),
]
ASSERTION_SESSION: list[Step] = [
    ("Running the tests.", "run_command", {"command": "npm test"},
     "$ npm test\n[exit 1]\n\nFAIL tests/parser.test.ts > splits on commas\n"
     "AssertionError: expected [ 'a', ' b' ] to deeply equal [ 'a', 'b' ]\n", True),
    ("Fixing the trim.", "edit_file",
     {"path": "src/parser.ts", "search": "text.split(\",\")", "replace": "text.split(\",\").map((p) => p.trim())"},
     "edited src/parser.ts (+1 -1)", True),
    ("Running again.", "run_command", {"command": "npm test"}, "$ npm test\n[exit 0]\n\n 2 passed\n", True),
]  # fmt: skip


def claude_line(session: str, uuid: str, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": WORKSPACE,
        "sessionId": session,
        "version": "1.0.108",
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": f"2026-05-04T10:00:{int(uuid[1:]):02d}.000Z",
        **extra,
    }


def claude_session(name: str, session: str, turns: list[Any]) -> None:
    """Turns: ('user', text) | ('tool', name, input, output, is_error) | ('end', text)."""
    lines: list[dict[str, Any]] = []
    for index, turn in enumerate(turns, start=1):
        uid = f"u{index:03d}"
        if turn[0] == "user":
            lines.append(claude_line(session, uid, "user", {"role": "user", "content": turn[1]}))
        elif turn[0] == "tool":
            _, tool, tool_input, output, is_error = turn
            use = {"type": "tool_use", "id": f"toolu_{index}", "name": tool, "input": tool_input}
            message = {
                "id": f"msg_{index}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4",
                "content": [use],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            lines.append(claude_line(session, uid, "assistant", message, requestId=f"req_{index}"))
            result = {
                "type": "tool_result",
                "tool_use_id": f"toolu_{index}",
                "content": output,
                "is_error": is_error,
            }
            lines.append(
                claude_line(session, f"u{index + 100:03d}", "user", {"role": "user", "content": [result]})
            )
        else:
            message = {
                "id": f"msg_{index}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4",
                "content": [{"type": "text", "text": turn[1]}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            lines.append(claude_line(session, uid, "assistant", message, requestId=f"req_{index}"))
    folder = HERE / "claude-code"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.jsonl").write_text(_dump(lines), encoding="utf-8")


def codex_loop() -> None:
    """`npx eslint .` fails twice with exit 127 and is never fixed; `npx vitest run` passes."""
    session = "55555555-6666-4777-8888-999999999999"
    lines: list[dict[str, Any]] = [
        {"timestamp": "2026-05-05T08:00:00.000Z", "type": "session_meta",
         "payload": {"id": session, "cwd": WORKSPACE, "originator": "codex_cli_rs", "cli_version": "0.77.0"}},
        {"timestamp": "2026-05-05T08:00:01.000Z", "type": "event_msg", "payload": {"type": "task_started"}},
        {"timestamp": "2026-05-05T08:00:01.000Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "lint and test the project"}},
    ]  # fmt: skip
    calls = [
        ("npx eslint .", "Exit code: 127\nWall time: 0.2 seconds\nOutput:\nsh: 1: eslint: not found\n"),
        ("npx eslint .", "Exit code: 127\nWall time: 0.2 seconds\nOutput:\nsh: 1: eslint: not found\n"),
        ("npx vitest run", "Exit code: 0\nWall time: 1.1 seconds\nOutput:\n Test Files  2 passed (2)\n"),
    ]
    for index, (command, output) in enumerate(calls, start=1):
        stamp = f"2026-05-05T08:00:{10 + index:02d}.000Z"
        arguments = json.dumps({"command": ["bash", "-lc", command], "workdir": WORKSPACE})
        lines.append(
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": arguments,
                    "call_id": f"c{index}",
                },
            }
        )
        lines.append({"timestamp": stamp, "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": f"c{index}", "output": output}})  # fmt: skip
    lines.append(
        {"timestamp": "2026-05-05T08:01:00.000Z", "type": "event_msg", "payload": {"type": "task_complete"}}
    )
    folder = HERE / "codex"
    folder.mkdir(exist_ok=True)
    (folder / f"rollout-2026-05-05T08-00-00-{session}.jsonl").write_text(_dump(lines), encoding="utf-8")


def main() -> None:
    start = dt.datetime(2026, 5, 1, 10, 0, tzinfo=dt.UTC)
    reasonix_v1(
        "vitest-not-found", start, [[("add a queue test", VITEST_SESSION, "Done; `npx vitest run` passes.")]]
    )
    reasonix_v1("vitest-again", start, [[("run the tests", VITEST_SESSION[1:], "Tests pass with npx.")]])
    reasonix_v1("esm-fix", start, [[("add drainAll in src/drain.ts", ESM_SESSION, "Added src/drain.ts.")]])
    reasonix_v1("short", start, [[("run the tests", VITEST_SESSION[1:3], "Done.")]])
    reasonix_v1("assertion", start, [[("fix the parser test", ASSERTION_SESSION, "Fixed the trim.")]])
    test_file = 'import { expect, it } from "vitest";\nimport { parse } from "./parser.js";\n'
    vitest = "Test Files  3 passed (3)"
    claude_session(
        "writ-and-correction",
        "11111111-2222-4333-8444-555555555555",
        [
            ("user", "add a test for parse() with empty input"),
            ("tool", "Read", {"file_path": f"{WORKSPACE}/src/parser.ts"}, "1→export function parse", False),
            ("tool", "Write", {"file_path": f"{WORKSPACE}/src/parser.test.ts", "content": test_file},
             f"File created successfully at: {WORKSPACE}/src/parser.test.ts", False),
            ("tool", "Bash", {"command": "npx vitest run"}, vitest, False),
            ("end", "Added src/parser.test.ts."),
            ("user", "no, tests go in tests/ as <name>.test.ts, never next to the source in src/"),
            ("tool", "Bash", {"command": "git mv src/parser.test.ts tests/parser-empty.test.ts"}, "", False),
            ("tool", "Edit", {"file_path": f"{WORKSPACE}/tests/parser-empty.test.ts", "old_string": '"./parser.js"',
                              "new_string": '"../src/parser.js"'}, "The file has been updated.", False),
            ("tool", "Bash", {"command": "npx vitest run 2>&1 | tail -3"}, vitest, False),
            ("user", "/lesson changelog: Every user-facing change gets a line in `CHANGELOG.md` under "
                     "`## Unreleased`, written for users, not for developers."),
            ("end", "Moved the test to tests/parser-empty.test.ts."),
        ],
    )  # fmt: skip
    claude_session(
        "secrets",
        "22222222-3333-4444-8555-666666666666",
        [
            ("user", "deploy the preview"),
            ("tool", "Bash", {"command": "ls"}, "package.json\nsrc\ntests", False),
            ("tool", "Bash", {"command": "cat .env"}, "DEPLOY_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345", False),
            ("tool", "Bash", {"command": "npx vitest run"}, vitest, False),
            ("user", "/lesson deploy-preview: deploy previews with `DEPLOY_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345"
                     " npm run deploy -- --preview`; never deploy to production from a laptop."),
            ("end", "Deployed."),
        ],
    )  # fmt: skip
    collection_error = (
        "Exit code 2\n============================= test session starts ==============================\n"
        "collected 0 items / 1 error\n\n==================================== ERRORS ====================================\n"
        "_________________ ERROR collecting tests/test_parser.py _________________\n"
        "ImportError while importing test module '/work/demo/tests/test_parser.py'.\n"
        "tests/test_parser.py:1: in <module>\n    from mypkg.parser import parse\n"
        "E   ModuleNotFoundError: No module named 'mypkg'\n=========================== short test summary info ============================\n"
        "ERROR tests/test_parser.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
    )
    failing = "Exit code 1\nFAILED tests/test_parser.py::test_empty - AssertionError: assert [''] == []\n1 failed, 3 passed"
    claude_session(
        "python-fixes",
        "33333333-4444-4555-8666-777777777777",
        [
            ("user", "make parse('') return []"),
            ("tool", "Bash", {"command": "pytest -q"}, collection_error, True),
            ("tool", "Bash", {"command": "python -m pytest -q"}, failing, True),
            ("tool", "Bash", {"command": "python -m pytest -q tests/test_parser.py"}, failing, True),
            ("tool", "Edit", {"file_path": f"{WORKSPACE}/src/mypkg/parser.py", "old_string": "return text.split(',')",
                              "new_string": "return text.split(',') if text else []"}, "The file has been updated.", False),
            ("tool", "Bash", {"command": "python -m pytest -q tests/test_parser.py"}, "4 passed in 0.02s", False),
            ("tool", "Bash", {"command": "python scripts/gen.py"}, "Exit code 127\n/bin/bash: line 1: python: command not found", True),
            ("tool", "Bash", {"command": "python3 scripts/gen.py"}, "generated 3 files", False),
            ("end", "Fixed; run tests with `python -m pytest`."),
        ],
    )  # fmt: skip
    codex_loop()


if __name__ == "__main__":
    main()
