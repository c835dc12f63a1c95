"""Benchmark: `reasonlessons hook claude-code` per event over 10,000 lessons, against `python -c pass`.

Builds (or reuses, with --keep) the repository of bench_recall.py, warms the recall index once,
then times, interleaved in the same run, the hook as Claude Code runs it (the console script with
the hook input on stdin) for:

* UserPromptSubmit: the prompt of bench_recall.py (recall + render; a new session id per run, so
  per-session de-duplication never shortcuts the work);
* PreToolUse: an Edit of tests/foo.test.ts (recall on the file's triggers);
* PostToolUse: a successful Read (loop detection: one small state read, no write);
* PostToolUseFailure: a failing `npm test` (loop detection with a locked write);

and `python -c pass`, reporting medians and ratios. Target (docs/benchmarks.md): <= 3x.

    python tests/benchmarks/bench_hook.py [--runs 31] [--lessons 10000] [--keep DIR]
        [--shared-vocabulary [--common-prompt-words]]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_recall import FILE, GIT_ENV, PROMPT, build  # noqa: E402


def payloads(root: Path, run: int) -> dict[str, dict[str, object]]:
    # Unique per invocation too: a library kept with --keep holds the call rings of earlier runs, and a
    # PostToolUse following an old failure of the same session would take the write path.
    common = {"session_id": f"bench-{os.getpid()}-{run}", "transcript_path": "", "cwd": str(root)}
    return {
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT},
        "PreToolUse": {
            **common,
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(root / FILE), "old_string": "a", "new_string": "b"},
        },
        "PostToolUse": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / FILE)},
            "tool_response": {"type": "text", "file": {"filePath": str(root / FILE)}},
        },
        "PostToolUseFailure": {
            **common,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm test"},
            "error": "Command exited with non-zero status code 1",
        },
    }


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b"") -> tuple[float, bytes]:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, check=True)
    return (time.perf_counter() - started) * 1000, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="build in (or reuse) this directory and keep it")
    parser.add_argument(
        "--shared-vocabulary", action="store_true", help="bench_recall.py's library with common words"
    )
    parser.add_argument(
        "--common-prompt-words", action="store_true", help="with --shared-vocabulary: the prompt's words too"
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-hook-"))
    home = tmp / "home"
    home.mkdir()
    root = args.keep.resolve() if args.keep else tmp / "repo"
    env = {**os.environ, **GIT_ENV, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
    for var in ("PYTHONDONTWRITEBYTECODE", "CLAUDE_PROJECT_DIR", "REASONLESSONS_HOOK_DEBUG"):
        env.pop(var, None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    try:
        if not (root / ".git").exists():
            root.mkdir(parents=True, exist_ok=True)
            build(
                root, home, args.lessons, shared=args.shared_vocabulary, prompt_words=args.common_prompt_words
            )
        script = Path(sys.executable).parent / "reasonlessons"
        base = [str(script)] if script.exists() else [sys.executable, "-m", "reasonlessons"]
        hook = [*base, "hook", "claude-code"]
        started = time.perf_counter()
        subprocess.run(
            [*base, "recall", PROMPT, "--file", FILE], cwd=root, env=env, capture_output=True, check=True
        )
        print(f"index warmed in {time.perf_counter() - started:.1f}s")
        time.sleep(2.5)  # let every file age past the racy window, as on a real machine
        times: dict[str, list[float]] = {"python -c pass": []}
        answered: dict[str, str] = {}
        for run in range(args.runs):  # interleaved, so drift in machine load hits every command alike
            times["python -c pass"].append(timed([sys.executable, "-c", "pass"], root, env)[0])
            for event, payload in payloads(root, run).items():
                ms, out = timed(hook, root, env, json.dumps(payload).encode())
                times.setdefault(event, []).append(ms)
                if out:
                    answered[event] = json.loads(out)["hookSpecificOutput"]["additionalContext"][:60]
        base_ms = statistics.median(times["python -c pass"])
        version = sys.version.split()[0]
        print(f"date: {dt.date.today()}  lessons: {args.lessons}  runs: {args.runs}  python {version}")
        for name, values in times.items():
            ms = statistics.median(values)
            ratio = (
                "" if name.startswith("python") else f"   {ms / base_ms:.2f}x python -c pass (target <= 3x)"
            )
            print(f"{name:<22} {ms:7.1f} ms{ratio}")
        for event, text in sorted(answered.items()):
            print(f"  {event} answered: {text!r}...")
        return 0
    finally:
        if args.keep:
            shutil.rmtree(home, ignore_errors=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
