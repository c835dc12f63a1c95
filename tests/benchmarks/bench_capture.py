"""Benchmark: `reasonlessons capture` on >= 1 GB of generated session logs.

Generates logs in a temporary directory (Reasonix v1 event logs by default; `--agent claude-code`
or `--agent codex` for those formats): many sessions of realistic size, with file reads, test runs,
edits, failures and fixes. Then, in the same run and on the same files, `--rounds` times (default 3),
interleaved so that load from other processes hits both sides alike:

1. a plain stdlib pass, `json.loads` on every line of the same files, in one process (the baseline);
2. `reasonlessons capture --agent <agent> --json <dir>` in a subprocess, from fresh state: wall
   time, CPU time and peak RSS of the child, and of the pool workers it starts (sampled from
   /proc every 50 ms: they are not children this process can wait for).

It reports the medians, the throughput ratio of the medians (the target) and the same ratio in CPU
seconds, all of capture's processes together (what the work costs, whatever the CPU count). Then the
same command again on the unchanged logs (median of 3 subprocess runs) and the library call
`capture()` in-process on them.
`--stages MIB` adds an in-process breakdown on the first MIB of the logs: `json.loads` per line, the
adapter alone, adapter + reducer, and the whole library `capture()`.

    python tests/benchmarks/bench_capture.py [--gb 1.0] [--agent reasonix-v1] [--rounds 3]
        [--stages 128] [--keep DIR] [--jobs N]

Targets (docs/benchmarks.md): throughput >= 1.0x the json.loads pass, peak RSS < 200 MB whatever
the log size, re-run on unchanged logs < 0.2 s. Subprocesses get a private HOME and REASONIX_HOME
(the user's lessons are neither read nor written) and a private PYTHONPYCACHEPREFIX, so they run
from cached bytecode as an installed package does, even when PYTHONDONTWRITEBYTECODE is set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

RESCAN = 10  # samples between two listings of /proc (_Descendants)
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


def baseline(files: list[Path]) -> tuple[float, float]:
    """Wall and CPU seconds of a plain stdlib pass: json.loads on every line."""
    wall, cpu = time.perf_counter(), time.process_time()
    for path in files:
        with path.open("rb") as handle:
            for line in handle:
                json.loads(line)
    return time.perf_counter() - wall, time.process_time() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Descendants:
    """Samples the processes below one pid (capture's pool workers and their fork server) from
    /proc: the CPU seconds and peak RSS of each, as last seen. Workers are not children the
    benchmark can wait for, so `getrusage(RUSAGE_CHILDREN)` never counts them."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.cpu: dict[int, float] = {}
        self.rss: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # Listing all of /proc costs about 5 ms: done every RESCAN samples only, to find new
        # processes; in between only the ones found are read. Sampled every 50 ms, a full listing
        # took a tenth of a CPU from the run it measures (2 CPUs: a twentieth of capture's wall).
        tick = os.sysconf("SC_CLK_TCK")
        rounds = 0
        while not self._stop.wait(0.05):
            if rounds % RESCAN == 0:
                self._discover()
            rounds += 1
            for pid in list(self.cpu):
                try:
                    stat = Path(f"/proc/{pid}/stat").read_text()
                except OSError:
                    continue
                fields = stat[stat.rindex(")") + 2 :].split()
                self.cpu[pid] = (int(fields[11]) + int(fields[12])) / tick
                self._peak(pid)

    def _discover(self) -> None:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
        for pid in parents:
            if pid not in self.cpu and self._below(pid, parents):
                self.cpu[pid] = 0.0

    def _below(self, pid: int, parents: dict[int, int]) -> bool:
        seen = 0
        while pid in parents and seen < 64:
            pid, seen = parents[pid], seen + 1
            if pid == self.root:
                return True
        return False

    def _peak(self, pid: int) -> None:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.rss[pid] = max(self.rss.get(pid, 0), int(line.split()[1]))
        except OSError:
            pass

    def stop(self) -> tuple[float, float]:
        """(CPU seconds of all descendants, the largest peak RSS of one, in MiB)."""
        self._stop.set()
        self._thread.join()
        return sum(self.cpu.values()), max(self.rss.values(), default=0) / 1024


def run_cli(
    repo: Path, logs: Path, agent: str, env: dict[str, str], jobs: int | None = None
) -> tuple[float, float, float, dict[str, Any]]:
    """Wall and CPU seconds of one `reasonlessons capture` subprocess and of all the processes it
    started, the largest peak RSS among its pool workers (MiB), and its JSON report. The CPU
    seconds of the main process alone are added to SPLIT."""
    wall, cpu = time.perf_counter(), _children_cpu()
    command = [sys.executable, "-m", "reasonlessons", "capture", "--repo", str(repo), "--agent", agent]
    command += ["--json", str(logs)] + (["--jobs", str(jobs)] if jobs else [])
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    below = _Descendants(child.pid)
    out, err = child.communicate()
    workers_cpu, workers_rss = below.stop()
    if child.returncode != 0:
        raise SystemExit(f"capture failed ({child.returncode}): {err.decode(errors='replace')}")
    main = _children_cpu() - cpu
    SPLIT.append((main, workers_cpu))
    spent = main + workers_cpu
    return time.perf_counter() - wall, spent, workers_rss, json.loads(out)


def stages(files: list[Path], agent: str, work: Path, rounds: int, env: dict[str, str]) -> None:
    """In-process breakdown on `files`: where capture's time goes, next to the baseline."""
    from reasonlessons.capture.pipeline import capture
    from reasonlessons.capture.reduce.reducer import SessionReducer
    from reasonlessons.sessions import adapters
    from reasonlessons.sessions.events import ReadStats
    from reasonlessons.store.project import open_project

    adapter = adapters.get(agent)

    def read(reduce: bool) -> None:
        for path in files:
            reducer: SessionReducer | None = None
            for event in adapter.read_session(path, stats=ReadStats()):
                if not reduce:
                    continue
                if reducer is None or reducer.obs.session_id != event.session_id:
                    if reducer is not None:
                        reducer.finish()
                    reducer = SessionReducer(adapter.name, event.session_id, root=str(work))
                reducer.feed(event)
            if reducer is not None:
                reducer.finish()

    def library() -> None:
        repo = work / "stage-repo"
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir()
        (repo / "package.json").write_text(PACKAGE_JSON)
        capture(open_project(repo, env=env), files, agent=agent)

    steps = {
        "json.loads per line": lambda: baseline(files),
        "adapter alone": lambda: read(False),
        "adapter + reducer": lambda: read(True),
        "library capture()": library,
    }
    library()  # imports and first-use costs out of the way
    timings: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            cpu = time.process_time()
            step()
            timings[name].append(time.process_time() - cpu)
    size = sum(p.stat().st_size for p in files) / (1 << 20)
    base = statistics.median(timings["json.loads per line"])
    print(f"stages, in-process on {len(files)} files ({size:.0f} MiB), median CPU seconds of {rounds}:")
    for name, values in timings.items():
        spent = statistics.median(values)
        print(f"  {name:22s} {spent:6.2f} s  {size / spent:5.0f} MiB/s  {base / spent:.2f}x")


SPLIT: list[tuple[float, float]] = []  # CPU seconds of each run_cli: (main process, the others)
PACKAGE_JSON = '{"type": "module", "scripts": {"test": "vitest run"}}\n'


class Rounds(NamedTuple):
    """Per-round figures of `interleave`: the json pass's and capture's wall and CPU seconds."""

    base_wall: list[float]
    base_cpu: list[float]
    cap_wall: list[float]
    cap_cpu: list[float]
    worker_rss: float  # MiB, the largest pool worker seen
    report: dict[str, Any]  # capture's --json report of the last round


def interleave(
    files: list[Path],
    repo: Path,
    logs: Path,
    agent: str,
    env: dict[str, str],
    rounds: int,
    jobs: int | None = None,
) -> Rounds:
    """`rounds` pairs of the json pass and a fresh-state capture, interleaved so that load from
    other work hits both alike."""
    base_wall: list[float] = []
    base_cpu: list[float] = []
    cap_wall: list[float] = []
    cap_cpu: list[float] = []
    worker_rss = 0.0
    report: dict[str, Any] = {}
    for _ in range(rounds):
        wall, cpu = baseline(files)
        base_wall.append(wall)
        base_cpu.append(cpu)
        shutil.rmtree(repo / ".reasonix", ignore_errors=True)  # fresh state: everything is read
        wall, cpu, rss, report = run_cli(repo, logs, agent, env, jobs)
        worker_rss = max(worker_rss, rss)
        cap_wall.append(wall)
        cap_cpu.append(cpu)
    return Rounds(base_wall, base_cpu, cap_wall, cap_cpu, worker_rss, report)


def _median_ratio(base: list[float], capture: list[float]) -> str:
    ratio = statistics.median(base) / statistics.median(capture)
    rounds = ", ".join(f"{b / c:.2f}" for b, c in zip(base, capture, strict=True))
    return f"{ratio:.2f}x (per round: {rounds})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0, help="size of the generated logs in GiB")
    parser.add_argument("--agent", default="reasonix-v1", choices=sorted(GENERATORS))
    parser.add_argument("--rounds", type=int, default=3, help="baseline/capture pairs (medians)")
    parser.add_argument("--stages", type=float, metavar="MIB", help="in-process breakdown on this much")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    parser.add_argument("--jobs", type=int, help="capture's --jobs (default: its own choice)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-capture-"))
    try:
        logs, repo, home = work / "logs", work / "repo", work / "home"
        logs.mkdir(parents=True, exist_ok=True)
        repo.mkdir(exist_ok=True)
        home.mkdir(exist_ok=True)
        (repo / "package.json").write_text(PACKAGE_JSON)
        files = sorted(logs.glob("*.jsonl")) or generate(logs, args.agent, int(args.gb * (1 << 30)))
        total = sum(p.stat().st_size for p in files)
        old = time.time() - 3600
        for path in files:
            os.utime(path, (old, old))  # finished sessions: no log is "still being written"
        env = dict(
            os.environ,
            HOME=str(home),
            REASONIX_HOME=str(home / ".reasonix"),
            PYTHONPYCACHEPREFIX=str(work / "pycache"),
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # else every run compiles all it imports
        mib = total / (1 << 20)
        print(f"logs: {len(files)} files, {mib:.0f} MiB ({args.agent}); {os.cpu_count()} CPUs")
        for path in files:  # read once, untimed: kept logs may not be in the page cache yet
            with path.open("rb") as handle:
                while handle.read(1 << 24):
                    pass
        base_wall, base_cpu, cap_wall, cap_cpu, worker_rss, report = interleave(
            files, repo, logs, args.agent, env, args.rounds, args.jobs
        )
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        base, first = statistics.median(base_wall), statistics.median(cap_wall)
        print(f"json.loads per line: {base:.1f} s ({mib / base:.0f} MiB/s), median of {args.rounds}")
        print(f"capture: {first:.1f} s ({mib / first:.0f} MiB/s), median of {args.rounds}")
        print(f"  peak RSS {peak:.0f} MiB main process, {worker_rss:.0f} MiB largest pool worker")
        print(f"  throughput ratio, wall: {_median_ratio(base_wall, cap_wall)}")
        print(f"  throughput ratio, CPU:  {_median_ratio(base_cpu, cap_cpu)} (all capture's processes)")
        main_cpu = statistics.median(main for main, _ in SPLIT)
        rest_cpu = statistics.median(rest for _, rest in SPLIT)
        print(
            f"  CPU: main process {main_cpu:.2f} s, pool (fork server and workers) {rest_cpu:.2f} s; "
            f"cores used {statistics.median(cap_cpu) / first:.2f}"
        )
        print(
            f"  sessions {report['sessions']}, skipped {report['skipped']}, "
            f"candidates {len(report['candidates'])}, updated {len(report['updated'])}, "
            f"warnings {report['warnings']}"
        )
        agains = []
        for _ in range(3):
            again, _, _, report = run_cli(repo, logs, args.agent, env, args.jobs)
            agains.append(again)
        print(
            f"re-run (CLI, unchanged logs): {statistics.median(agains):.3f} s median of 3, "
            f"unchanged files {report['unchanged_files']}"
        )
        from reasonlessons.capture.pipeline import capture
        from reasonlessons.store.project import open_project

        start = time.perf_counter()
        capture(open_project(repo, env=env), [logs], agent=args.agent)
        print(f"re-run (library, unchanged logs): {time.perf_counter() - start:.3f} s")
        if args.stages:
            chosen, size = [], 0
            for path in files:
                if size >= args.stages * (1 << 20):
                    break
                chosen.append(path)
                size += path.stat().st_size
            stages(chosen, args.agent, work, args.rounds, env)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
