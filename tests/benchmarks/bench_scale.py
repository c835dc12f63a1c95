"""Benchmark: the big shapes of work, generated in the temp dir and deleted after (issue 19).

Each shape runs the benchmark that owns its measurement, at scale, in a subprocess (same Python):

* `lessons`: 50,000 lessons whose bodies share an ordinary engineering vocabulary
  (bench_recall.py --shared-vocabulary: most lessons mention test, run, build, file), then
  bench_hook.py on the same library: `recall` and `hook claude-code` against `python -c pass`,
  in-process warm recall, the index build;
* `repo`: a 1,000,000-file git repository (bench_stale.py --packages 2000; about 4.2 GB of disk,
  mostly one 4 KiB block per file) with 1,000 lessons: `stale --json` cold and warm against
  `git status`, with peak RSS;
* `logs`: 1 GiB of logs split across the agents (bench_capture.py per agent), throughput against
  the `json.loads` pass and peak RSS;
* `replay`: 1,000 generated Reasonix v1 sessions, timed through `reasonlessons replay` when this
  build has that command (`--replay-args` gives its arguments; `{dir}` is the sessions' folder);
  otherwise the shape says so and only generates.

    python tests/benchmarks/bench_scale.py [--shape lessons|repo|logs|replay|all] [--runs 15]
        [--lessons 50000] [--packages 2000] [--gb 1.0] [--sessions 1000]

Targets (docs/benchmarks.md#scale): recall and hook <= 3x `python -c pass` at 50,000 lessons, warm
in-process recall <= 5 ms, index build <= 30 s; cold stale <= 1.5x `git status` at 1,000,000 files
with peak RSS < 500 MB; capture >= 1.0x the `json.loads` pass with peak RSS < 200 MB.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
AGENTS = ("reasonix-v1", "claude-code", "codex")


def bench(script: str, *args: str) -> int:
    cmd = [sys.executable, str(HERE / script), *args]
    print(f"\n$ {shlex.join(cmd)}", flush=True)
    return subprocess.run(cmd, check=False).returncode


def lessons(tmp: Path, args: argparse.Namespace) -> int:
    keep = str(tmp / "lessons")
    common = ["--runs", str(args.runs), "--lessons", str(args.lessons), "--keep", keep, "--shared-vocabulary"]
    return bench("bench_recall.py", *common) or bench("bench_hook.py", *common)


def repo(tmp: Path, args: argparse.Namespace) -> int:
    keep = str(tmp / "repo")
    return bench("bench_stale.py", "--runs", str(args.runs), "--packages", str(args.packages), "--keep", keep)


def logs(tmp: Path, args: argparse.Namespace) -> int:
    share = f"{args.gb / len(AGENTS):.3f}"
    for agent in AGENTS:
        code = bench("bench_capture.py", "--gb", share, "--agent", agent, "--rounds", "3")
        if code:
            return code
    return 0


def replay(tmp: Path, args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    from bench_capture import _v1_file  # noqa: PLC0415 (only this shape needs the generators)

    folder = tmp / "sessions"
    folder.mkdir()
    rng = random.Random(19)
    started = time.perf_counter()
    for i in range(args.sessions):
        _v1_file(folder / f"session-{i:05d}.jsonl", rng, 1)  # one session (30-200 KB) a file
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(
        f"generated {args.sessions} sessions, {size / 2**20:.0f} MiB, in {time.perf_counter() - started:.1f}s"
    )
    script = Path(sys.executable).parent / "reasonlessons"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "reasonlessons"]
    probe = subprocess.run([*base, "replay", "--help"], capture_output=True, check=False)  # no state read
    if probe.returncode != 0:
        print("replay: this build has no `replay` command; sessions generated, nothing timed")
        return 0
    repo_dir = tmp / "replay-repo"  # replay answers for a repository: an empty one
    repo_dir.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo_dir, check=True)
    cmd = [*base, "replay", *shlex.split(args.replay_args.format(dir=folder))]
    started = time.perf_counter()
    home = tmp / "home"  # a private home: the user's lessons are neither read nor written
    env = {**os.environ, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
    done = subprocess.run(cmd, cwd=repo_dir, env=env, check=False, stdout=subprocess.DEVNULL)
    print(f"$ {shlex.join(cmd)}: exit {done.returncode}, {time.perf_counter() - started:.1f}s")
    return done.returncode


SHAPES = {"lessons": lessons, "repo": repo, "logs": logs, "replay": replay}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--shape", choices=[*SHAPES, "all"], default="all")
    parser.add_argument("--runs", type=int, default=15, help="interleaved runs per measure (medians)")
    parser.add_argument("--lessons", type=int, default=50_000)
    parser.add_argument("--packages", type=int, default=2000, help="500 files each")
    parser.add_argument("--gb", type=float, default=1.0, help="GiB of logs, split across the agents")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--replay-args", default="--agent reasonix-v1 {dir}", help="{dir}: the sessions")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env_note = f"{sys.executable}, load {os.getloadavg()[0]:.2f}"
    print(f"bench_scale: {args.shape} in {tmp} ({env_note})")
    try:
        for name, shape in SHAPES.items():
            if args.shape in (name, "all"):
                code = shape(tmp, args)
                if code:
                    return code
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
