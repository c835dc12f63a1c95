"""Benchmark: `reasonlessons capture` on >= 1 GB of generated session logs.

Generates logs in a temporary directory (Reasonix v1 event logs by default; `--agent claude-code`
or `--agent codex` for those formats): many sessions of realistic size, with file reads, test runs,
edits, failures and fixes. Then, in the same run:

1. a plain stdlib pass, `json.loads` on every line of the same files (the baseline);
2. `reasonlessons capture --agent <agent> --json <dir>` in a subprocess: wall time, peak RSS;
3. the same command again on the unchanged logs (subprocess wall time), and the library call
   `capture()` in-process on the unchanged logs.

    python tests/benchmarks/bench_capture.py [--gb 1.0] [--agent reasonix-v1] [--keep DIR]

Targets (docs/benchmarks.md): throughput >= 1.0x the json.loads pass, peak RSS < 200 MB whatever
the log size, re-run on unchanged logs < 0.2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FILE_BYTES = 16 * 1024 * 1024  # one log file; a session is about 150 KB, so ~100 per file
WORDS = [
    *("queue", "parser", "drain", "priority", "config", "loader", "cache", "index", "token", "stream"),
    *("buffer", "worker", "retry", "batch", "schema", "record", "export", "import", "handler", "router"),
    *("session", "client", "server", "module", "helper"),
]


def _text(rng: random.Random, lines: int) -> str:
    return "\n".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12))) + ";" for _ in range(lines)
    )


def _session(rng: random.Random) -> Iterator[tuple[str, dict[str, Any], str, bool]]:
    """(tool, args, output, failed) steps of one agent session."""
    for _ in range(rng.randint(20, 60)):
        roll = rng.random()
        if roll < 0.35:
            path = f"src/{rng.choice(WORDS)}.ts"
            yield "read_file", {"path": path}, _text(rng, rng.randint(40, 300)), False
        elif roll < 0.55:
            yield (
                "run_command",
                {"command": "npx vitest run"},
                ("$ npx vitest run\n[exit 0]\n\n" + _text(rng, rng.randint(10, 80))),
                False,
            )
        elif roll < 0.62:
            yield (
                "run_command",
                {"command": "npm test"},
                ("$ npm test\n[exit 127]\n\n> test\n> vitest run\n\nsh: 1: vitest: not found\n"),
                True,
            )
        elif roll < 0.67:
            yield (
                "run_command",
                {"command": "npx tsc --noEmit"},
                (
                    "$ npx tsc --noEmit\n[exit 2]\nsrc/a.ts(1,23): error TS2835: Relative import paths need "
                    "explicit file extensions in ECMAScript imports. Did you mean './b.js'?\n"
                ),
                True,
            )
        elif roll < 0.85:
            path = f"src/{rng.choice(WORDS)}.ts"
            args = {"path": path, "search": _text(rng, 2), "replace": _text(rng, 3)}
            yield "edit_file", args, f"edited {path} (+3 -2)", False
        else:
            yield "run_command", {"command": f"grep -rn {rng.choice(WORDS)} src"}, _text(rng, 30), False


def _v1_file(path: Path, rng: random.Random, size: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        written = 0
        while written < size:
            launch: list[dict[str, Any]] = []

            def event(kind: str, _launch: list[dict[str, Any]] = launch, **fields: Any) -> None:
                stamp = "2026-05-01T10:00:00.000Z"
                _launch.append({"id": len(_launch) + 1, "ts": stamp, "turn": 1, "type": kind, **fields})

            event("session.opened", name=path.stem, resumedFromTurn=0)
            for index, (tool, args, output, _) in enumerate(_session(rng), start=1):
                usage = {"prompt_tokens": 4000, "completion_tokens": 80, "prompt_cache_hit_tokens": 3500}
                event("model.final", content=_text(rng, 2), toolCalls=[], usage=usage, costUsd=0.0002)
                event("tool.intent", callId=f"tc-{index}", name=tool, args=json.dumps(args))
                event("tool.dispatched", callId=f"tc-{index}")
                event("tool.result", callId=f"tc-{index}", ok=True, output=output, durationMs=0)
                event("status", text="tool result uploaded · model thinking before next response…")
            event("model.final", content="Done.", toolCalls=[], usage={"prompt_tokens": 4000}, costUsd=0.0002)
            chunk = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in launch)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))


def _claude_file(path: Path, rng: random.Random, size: int) -> None:
    session = f"{rng.getrandbits(128):032x}"
    sid = f"{session[:8]}-{session[8:12]}-4{session[13:16]}-8{session[17:20]}-{session[20:32]}"
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/demo",
        "sessionId": sid,
        "version": "1.0.108",
    }
    with path.open("w", encoding="utf-8") as out:
        written = index = 0
        while written < size:
            lines = []
            for tool, args, output, failed in _session(rng):
                index += 1
                name = {"read_file": "Read", "run_command": "Bash", "edit_file": "Edit"}[tool]
                use = {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": args}
                message = {
                    "id": f"msg_{index}",
                    "role": "assistant",
                    "content": [use],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 10, "output_tokens": 50},
                }
                lines.append(
                    {
                        **base,
                        "type": "assistant",
                        "message": message,
                        "uuid": f"a{index}",
                        "requestId": f"r{index}",
                    }
                )
                result = {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{index}",
                    "content": output,
                    "is_error": failed,
                }
                lines.append(
                    {
                        **base,
                        "type": "user",
                        "message": {"role": "user", "content": [result]},
                        "uuid": f"u{index}",
                    }
                )
            chunk = "".join(json.dumps(line) + "\n" for line in lines)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
        end = {
            "id": "end",
            "role": "assistant",
            "content": [{"type": "text", "text": "Done."}],
            "stop_reason": "end_turn",
        }
        out.write(json.dumps({**base, "type": "assistant", "message": end, "uuid": "end"}) + "\n")


def _codex_file(path: Path, rng: random.Random, size: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        meta = {
            "id": path.stem[-36:],
            "cwd": "/work/demo",
            "originator": "codex_cli_rs",
            "cli_version": "0.77.0",
        }
        out.write(
            json.dumps({"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": meta}) + "\n"
        )
        written = index = 0
        while written < size:
            lines = []
            for _tool, args, output, failed in _session(rng):
                index += 1
                command = args.get("command") or f"cat {args['path']}"
                call = {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"c{index}",
                    "arguments": json.dumps({"command": ["bash", "-lc", command]}),
                }
                text = f"Exit code: {1 if failed else 0}\nWall time: 0.5 seconds\nOutput:\n{output}"
                result = {"type": "function_call_output", "call_id": f"c{index}", "output": text}
                lines += [
                    {"timestamp": "2026-05-01T10:00:01Z", "type": "response_item", "payload": p}
                    for p in (call, result)
                ]
            chunk = "".join(json.dumps(line) + "\n" for line in lines)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
        out.write(
            json.dumps(
                {
                    "timestamp": "2026-05-01T11:00:00Z",
                    "type": "event_msg",
                    "payload": {"type": "task_complete"},
                }
            )
            + "\n"
        )


GENERATORS = {
    "reasonix-v1": (_v1_file, "{n:04d}.events.jsonl"),
    "claude-code": (_claude_file, "{n:04d}.jsonl"),
    "codex": (_codex_file, "rollout-2026-05-01T10-00-00-{n:08d}-0000-4000-8000-000000000000.jsonl"),
}


def generate(folder: Path, agent: str, total: int) -> list[Path]:
    writer, pattern = GENERATORS[agent]
    rng = random.Random(20260505)
    files: list[Path] = []
    size = 0
    while size < total:
        path = folder / pattern.format(n=len(files))
        writer(path, rng, min(FILE_BYTES, total - size))
        files.append(path)
        size += path.stat().st_size
    return files


def baseline(files: list[Path]) -> float:
    """Seconds for a plain stdlib pass: json.loads on every line."""
    start = time.perf_counter()
    for path in files:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - start


def run_cli(repo: Path, logs: Path, agent: str) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "reasonlessons",
            "capture",
            "--repo",
            str(repo),
            "--agent",
            agent,
            "--json",
            str(logs),
        ],
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start, json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0, help="size of the generated logs in GiB")
    parser.add_argument("--agent", default="reasonix-v1", choices=sorted(GENERATORS))
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-capture-"))
    try:
        logs, repo = work / "logs", work / "repo"
        logs.mkdir(parents=True, exist_ok=True)
        repo.mkdir(exist_ok=True)
        (repo / "package.json").write_text('{"type": "module", "scripts": {"test": "vitest run"}}\n')
        files = sorted(logs.glob("*.jsonl")) or generate(logs, args.agent, int(args.gb * (1 << 30)))
        total = sum(p.stat().st_size for p in files)
        old = time.time() - 3600
        for path in files:
            os.utime(path, (old, old))  # finished sessions: no log is "still being written"
        print(f"logs: {len(files)} files, {total / (1 << 20):.0f} MiB ({args.agent})")
        base = baseline(files)
        shutil.rmtree(repo / ".reasonix", ignore_errors=True)
        first, report = run_cli(repo, logs, args.agent)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        base = min(base, baseline(files))  # the faster of two passes, one on each side of capture
        print(f"json.loads per line: {base:.1f} s ({total / base / (1 << 20):.0f} MiB/s)")
        speed = total / first / (1 << 20)
        print(
            f"capture: {first:.1f} s ({speed:.0f} MiB/s), ratio {base / first:.2f}x, peak RSS {peak:.0f} MiB"
        )
        print(
            f"  sessions {report['sessions']}, skipped {report['skipped']}, "
            f"candidates {len(report['candidates'])}, updated {len(report['updated'])}, "
            f"warnings {report['warnings']}"
        )
        again, report = run_cli(repo, logs, args.agent)
        print(f"re-run (CLI, unchanged logs): {again:.3f} s, unchanged files {report['unchanged_files']}")
        from reasonlessons.capture.pipeline import capture
        from reasonlessons.project import open_project

        start = time.perf_counter()
        capture(open_project(repo), [logs], agent=args.agent)
        print(f"re-run (library, unchanged logs): {time.perf_counter() - start:.3f} s")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
