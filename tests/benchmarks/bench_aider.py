"""Benchmark: the Aider adapter on a 50 MB history, against the Claude Code adapter on 50 MB of transcript.

Builds, in a temporary directory, an Aider history of `--mb` megabytes by repeating real histories
(`../shared/quality/aider/sessions/`, else this repository's `tests/resources/aider/`), and a Claude
Code transcript of the same size from the real transcripts of `../shared/quality/sessions/` (else
the generator of bench_capture.py). Then, `--rounds` times, interleaved so that load from other
processes hits both alike:

1. each adapter's `read_session` over its file, in this process: MB per second of wall time and
   of this process's CPU time (steadier than the wall clock when other jobs share the cores);
2. the peak RSS of a child process reading the history through the adapter, and of
   `reasonlessons capture --agent aider --json` on it (the whole pipeline, private HOME);
3. instead, with `--instructions MB` (valgrind installed): the instructions each adapter's read
   executes per MB, under callgrind, on files of MB megabytes built the same way, a count that load
   from other processes does not change (a child reading the file, less a child that only imports
   the adapter; PYTHONHASHSEED fixed).

    python tests/benchmarks/bench_aider.py [--mb 50] [--rounds 3] [--keep DIR] [--instructions 2]

Targets (docs/benchmarks.md): peak RSS < 200 MB; Aider MB/s within 2x of Claude Code's.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reasonlessons.sessions.adapters import aider, claude_code
from reasonlessons.sessions.events import ReadStats

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SHARED = REPO.parent / "shared" / "quality"
READER = """
import sys
from pathlib import Path
from reasonlessons.sessions.adapters import aider
from reasonlessons.sessions.events import ReadStats
print(sum(1 for _ in aider.read_session(Path(sys.argv[1]), stats=ReadStats())))
"""
# argv: adapter module, file, and "read" to read it (else only the imports, the baseline)
COUNTED = """
import importlib, sys
from pathlib import Path
from reasonlessons.sessions.events import ReadStats
adapter = importlib.import_module("reasonlessons.sessions.adapters." + sys.argv[1])
if sys.argv[3:] == ["read"]:
    sum(1 for _ in adapter.read_session(Path(sys.argv[2]), stats=ReadStats()))
"""


def _repeat(sources: list[Path], into: Path, size: int) -> None:
    data = b"".join(p.read_bytes() for p in sources)
    with into.open("wb") as out:
        written = 0
        while written < size:
            out.write(data)
            written += len(data)


def build(folder: Path, size: int) -> tuple[Path, Path]:
    """(an Aider history, a Claude Code transcript), each about `size` bytes."""
    histories = sorted((SHARED / "aider" / "sessions").glob("*.md")) or [
        REPO / "tests" / "resources" / "aider" / "textkit.aider.chat.history.md"
    ]
    history = folder / "repo" / ".aider.chat.history.md"
    history.parent.mkdir(parents=True)
    _repeat(histories, history, size)
    transcript = folder / "claude.jsonl"
    transcripts = sorted((SHARED / "sessions").glob("*.jsonl"))
    if transcripts:
        _repeat(transcripts, transcript, size)
    else:
        sys.path.insert(0, str(HERE))
        import bench_capture  # the synthetic transcripts of the capture benchmark

        bench_capture._claude_file(transcript, random.Random(20261125), size)
    return history, transcript


def throughput(adapter: object, path: Path) -> tuple[float, float, int]:
    """(MB per second of wall time, MB per CPU second, events) of one full read."""
    start, cpu = time.perf_counter(), time.process_time()
    events = sum(1 for _ in adapter.read_session(path, stats=ReadStats()))  # type: ignore[attr-defined]
    mb = path.stat().st_size / 1e6
    return mb / (time.perf_counter() - start), mb / (time.process_time() - cpu), events


def peak_rss(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of a child process (Linux: ru_maxrss is in KiB)."""
    start = time.perf_counter()
    pid = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid
    _, status, usage = os.wait4(pid, 0)
    if status:
        raise SystemExit(f"{argv} failed with status {status}")
    return usage.ru_maxrss / 1024, time.perf_counter() - start


def _collected(argv: list[str]) -> int:
    """Instructions callgrind counted for a child Python running `argv`."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *argv],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stderr.rsplit("Collected : ", 1)[1].split()[0])


def instructions(folder: Path, mb: float) -> None:
    """Instructions per MB of each adapter's read, on files of `mb` megabytes (callgrind)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind")
    small = folder / "instructions"
    small.mkdir(exist_ok=True)
    history, transcript = build(small, int(mb * 1e6))
    per_mb = {}
    for name, path in (("aider", history), ("claude_code", transcript)):
        base = _collected(["-c", COUNTED, name, str(path)])
        read = _collected(["-c", COUNTED, name, str(path), "read"])
        per_mb[name] = (read - base) / (path.stat().st_size / 1e6)
        size = path.stat().st_size / 1e6
        print(f"{name:12} {size:5.1f} MB {per_mb[name] / 1e6:7.1f} M instructions per MB")
    print(f"ratio aider / claude-code in instructions: {per_mb['aider'] / per_mb['claude_code']:.2f}x per MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the files here and keep them")
    parser.add_argument("--instructions", type=float, metavar="MB", help="count instructions (callgrind)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-aider-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if args.instructions:
            instructions(folder, args.instructions)
            return
        history, transcript = build(folder, int(args.mb * 1e6))
        home = folder / "home"
        home.mkdir(exist_ok=True)
        env = dict(os.environ, HOME=str(home), REASONIX_HOME=str(home / ".reasonix"), NO_COLOR="1")
        rates: dict[str, list[float]] = {"aider": [], "claude-code": []}
        cpu_rates: dict[str, list[float]] = {"aider": [], "claude-code": []}
        counts: dict[str, int] = {}
        for _ in range(args.rounds):
            for name, adapter, path in (("aider", aider, history), ("claude-code", claude_code, transcript)):
                rate, cpu_rate, counts[name] = throughput(adapter, path)
                rates[name].append(rate)
                cpu_rates[name].append(cpu_rate)
        reader_rss, reader_secs = peak_rss([sys.executable, "-c", READER, str(history)], env)
        shutil.rmtree(history.parent / ".reasonix", ignore_errors=True)
        old = time.time() - 3600
        os.utime(history, (old, old))
        rl = str(Path(sys.executable).with_name("reasonlessons"))
        capture_rss, capture_secs = peak_rss(
            [
                rl,
                "capture",
                "--repo",
                str(history.parent),
                "--agent",
                "aider",
                "--json",
                "--jobs",
                "1",
                str(history),
            ],
            env,
        )
        a, c = statistics.median(rates["aider"]), statistics.median(rates["claude-code"])
        sizes = {"aider": history.stat().st_size / 1e6, "claude-code": transcript.stat().st_size / 1e6}
        for name in rates:
            rate, shown = statistics.median(rates[name]), ", ".join(f"{r:.1f}" for r in rates[name])
            per_event = 1e6 * sizes[name] / rate / counts[name]
            print(f"{name:12} {sizes[name]:5.1f} MB {rate:6.1f} MB/s (rounds: {shown})", end=" ")
            print(f"{counts[name]} events, {per_event:.1f} us each")
        for name in cpu_rates:
            shown = ", ".join(f"{r:.1f}" for r in cpu_rates[name])
            print(f"{name:12} {statistics.median(cpu_rates[name]):6.1f} MB per CPU second (rounds: {shown})")
        print(f"ratio claude-code / aider: {c / a:.2f}x per MB (target <= 2x)")
        cpu_a, cpu_c = statistics.median(cpu_rates["aider"]), statistics.median(cpu_rates["claude-code"])
        print(f"ratio claude-code / aider in CPU time: {cpu_c / cpu_a:.2f}x per MB")
        print(f"peak RSS, adapter read in a child: {reader_rss:.0f} MB ({reader_secs:.1f} s)")
        print(
            f"peak RSS, capture --agent aider: {capture_rss:.0f} MB ({capture_secs:.1f} s) (target < 200 MB)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
