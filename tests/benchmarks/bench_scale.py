"""Benchmark: the big shapes of work, generated in the temp dir and deleted after (issue 19).

Each shape runs the benchmark that owns its measurement, at scale, in a subprocess (same Python):

* `lessons`: 50,000 lessons whose bodies share an ordinary engineering vocabulary
  (bench_recall.py --shared-vocabulary: most lessons mention test, run, build, file), then
  bench_hook.py on the same library: `recall` and `hook claude-code` against `python -c pass`,
  in-process warm recall, the index build;
* `repo`: a 1,000,000-file git repository (bench_stale.py --packages 2000; about 4.2 GB of disk,
  mostly one 4 KiB block per file; the shape refuses to start with less than 6 GB free) with 1,000
  lessons: `stale --json` cold and warm against `git status`, each with its peak RSS (GNU time);
  `--keep DIR` builds it there (or reuses it) and keeps it, since writing it takes long;
* `logs`: 1 GiB of logs, a third each of Reasonix v1, Claude Code and Codex sessions in one folder
  (bench_capture.py's generators and measures, imported): `capture --agent auto` against the
  `json.loads` pass of the same files, wall and CPU, interleaved, with the peak RSS of capture's
  main process and of its largest pool worker;
* `replay`: 1,000 generated Reasonix v1 sessions through `reasonlessons replay`, timed, with the
  peak RSS of the command (`--replay-args` gives its arguments; `{dir}` is the sessions' folder);
  a build without that command only generates.

Each shape runs alone with `--shape NAME`; `all` runs them one after the other.

    python tests/benchmarks/bench_scale.py [--shape lessons|repo|logs|replay|all] [--runs 15]
        [--lessons 50000] [--packages 2000] [--keep DIR] [--gb 1.0] [--sessions 1000]

Targets (docs/benchmarks.md#scale): recall and hook <= 3x `python -c pass` at 50,000 lessons, warm
in-process recall <= 5 ms, index build <= 30 s; cold stale <= 1.5x `git status` at 1,000,000 files
with peak RSS < 500 MB; capture >= 1.0x the `json.loads` pass with peak RSS < 200 MB.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
AGENTS = ("reasonix-v1", "claude-code", "codex")
GNU_TIME = "/usr/bin/time"  # its %M is the child's own peak RSS, not one starting from this process
REPO_DISK = 6e9  # bytes the 1,000,000-file tree may take, with git's objects and index


def bench(script: str, *args: str) -> int:
    cmd = [sys.executable, str(HERE / script), *args]
    print(f"\n$ {shlex.join(cmd)}", flush=True)
    return subprocess.run(cmd, check=False).returncode


def lessons(tmp: Path, args: argparse.Namespace) -> int:
    keep = str(tmp / "lessons")
    common = ["--runs", str(args.runs), "--lessons", str(args.lessons), "--keep", keep, "--shared-vocabulary"]
    return bench("bench_recall.py", *common) or bench("bench_hook.py", *common)


def repo(tmp: Path, args: argparse.Namespace) -> int:
    keep = args.keep or tmp / "repo"
    free = shutil.disk_usage(keep.parent if keep.parent.exists() else tmp).free
    if not (keep / ".git").exists() and free < REPO_DISK * args.packages / 2000:
        print(
            f"repo: {free / 1e9:.1f} GB free, the {args.packages * 500:,}-file tree needs about 6 GB: not run"
        )
        return 1
    return bench(
        "bench_stale.py", "--runs", str(args.runs), "--packages", str(args.packages), "--keep", str(keep)
    )


def _capture_bench() -> Any:
    sys.path.insert(0, str(HERE))
    import bench_capture  # noqa: PLC0415 (only the logs and replay shapes need its generators)

    return bench_capture


def logs(tmp: Path, args: argparse.Namespace) -> int:
    """1 GiB of mixed agents' logs in one folder: capture (detecting each format) vs json.loads."""
    bc = _capture_bench()
    folder, repo_dir, home = tmp / "logs", tmp / "logs-repo", tmp / "home"
    for path in (folder, repo_dir, home):
        path.mkdir(parents=True, exist_ok=True)
    (repo_dir / "package.json").write_text(bc.PACKAGE_JSON)
    started = time.perf_counter()
    share = int(args.gb * (1 << 30)) // len(AGENTS)
    files: list[Path] = []
    for agent in AGENTS:  # each agent's files in its own folder: their names would collide
        (folder / agent).mkdir()
        files += bc.generate(folder / agent, agent, share)
    size = sum(p.stat().st_size for p in files)
    old = time.time() - 3600
    for path in files:
        os.utime(path, (old, old))  # finished sessions: no log is "still being written"
    mib = size / 2**20
    print(
        f"generated {len(files)} log files, {mib:.0f} MiB, in {time.perf_counter() - started:.0f}s",
        flush=True,
    )
    env = {**os.environ, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # run from cached bytecode, as installed
    base_wall, base_cpu, cap_wall, cap_cpu, worker_rss, report = bc.interleave(
        files, repo_dir, folder, "auto", env, args.log_rounds
    )
    main_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    base, cap = statistics.median(base_wall), statistics.median(cap_wall)
    base_s, cap_s = statistics.median(base_cpu), statistics.median(cap_cpu)
    print(f"json.loads per line: {base:.1f} s ({mib / base:.0f} MiB/s), {base_s:.1f} s CPU")
    print(f"capture --agent auto: {cap:.1f} s ({mib / cap:.0f} MiB/s), {cap_s:.1f} s CPU (all its processes)")
    print(
        f"  throughput ratio, medians of {args.log_rounds}: wall {base / cap:.2f}x, CPU {base_s / cap_s:.2f}x"
    )
    print(f"  peak RSS {worker_rss:.0f} MiB largest pool worker, {main_rss:.0f} MiB main process", end="")
    print(" (wait4: counts the image forked from this process)")
    counts = ", ".join(f"{key} {report.get(key)}" for key in ("sessions", "skipped", "warnings"))
    print(f"  {counts}")
    return 0


def replay(tmp: Path, args: argparse.Namespace) -> int:
    bc = _capture_bench()
    folder = tmp / "sessions"
    folder.mkdir()
    rng = random.Random(19)
    started = time.perf_counter()
    for i in range(args.sessions):
        bc._v1_file(folder / f"session-{i:05d}.jsonl", rng, 1)  # one session (30-200 KB) a file
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
    home = tmp / "home"  # a private home: the user's lessons are neither read nor written
    env = {**os.environ, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
    rss_file = tmp / "replay.rss"
    timer = [GNU_TIME, "-f", "%M %U %S", "-o", str(rss_file)] if os.path.exists(GNU_TIME) else []
    started = time.perf_counter()
    done = subprocess.run([*timer, *cmd], cwd=repo_dir, env=env, check=False, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    extra = ""
    if timer:
        rss_kib, user, system = rss_file.read_text().split()[-3:]
        extra = f", {float(user) + float(system):.1f}s CPU, peak RSS {int(rss_kib) / 1024:.0f} MiB"
    print(f"$ {shlex.join(cmd)}: exit {done.returncode}, {wall:.1f}s wall{extra}")
    return done.returncode


SHAPES = {"lessons": lessons, "repo": repo, "logs": logs, "replay": replay}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--shape", choices=[*SHAPES, "all"], default="all")
    parser.add_argument("--runs", type=int, default=15, help="interleaved runs per measure (medians)")
    parser.add_argument("--lessons", type=int, default=50_000)
    parser.add_argument("--packages", type=int, default=2000, help="500 files each")
    parser.add_argument("--keep", type=Path, help="repo shape: build in (or reuse) this directory, keep it")
    parser.add_argument("--gb", type=float, default=1.0, help="GiB of logs, split across the agents")
    parser.add_argument("--log-rounds", type=int, default=3, help="logs shape: baseline/capture pairs")
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
