"""Benchmark: `reasonlessons watch --json` on the 100,000-file synthetic repo with 1,000 lessons.

Reuses bench_stale.py's builder (200 packages x 500 files, 5 lessons of 3 entries per package). It
starts the daemon and measures:

* drift-to-event latency over --edits edits (from the write returning to the `stale`/`fresh` line
  being read): field edits in place, field edits by atomic rename, and new file kinds in a
  fingerprinted directory, each waited for before the next;
* idle CPU of the daemon over --idle seconds (utime + stime from /proc);
* RSS (VmRSS and peak VmHWM);
* OS watches: `inotify wd:` lines in /proc/<pid>/fdinfo, against the directories the fingerprints
  cover and the directories in the repository; then again after removing 900 of the 1,000 lessons,
  to show the watch count follows the fingerprinted directories, not the repository.

    python tests/benchmarks/bench_watch.py [--edits 100] [--idle 60] [--keep DIR]

Targets (docs/benchmarks.md): p95 latency <= 1 s, idle CPU < 1 %, RSS < 100 MB. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_stale  # noqa: E402  (the shared 100k-file repository builder)

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Daemon:
    def __init__(self, root: Path, env: dict[str, str], extra: list[str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reasonlessons", "watch", "--json", "--repo", str(root), *extra],
            stdout=subprocess.PIPE,
            env=env,
        )
        self.events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.events.put((time.perf_counter(), json.loads(line)))

    def wait(self, match: Any, timeout: float = 30.0) -> tuple[float, dict[str, Any]]:
        deadline = time.perf_counter() + timeout
        while True:
            at, event = self.events.get(timeout=max(0.0, deadline - time.perf_counter()))
            if event["event"] == "error":
                print(f"  daemon error: {event['message']}")
            if match(event):
                return at, event

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def status(self, key: str) -> str:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
        return "?"

    def os_watches(self) -> int:
        count = 0
        for fd in Path(f"/proc/{self.proc.pid}/fdinfo").iterdir():
            try:
                count += fd.read_text().count("inotify wd:")
            except OSError:
                continue
        return count


def covered_dirs(root: Path, lessons: int) -> int:
    """Directories the first `lessons` lessons' fingerprints depend on (targets, their subtrees, parents)."""
    dirs: set[Path] = set()
    for index in range(lessons):
        entries = bench_stale.entries_for(index // bench_stale.LESSONS_PER_PACKAGE, index % 5)
        for entry in entries:
            path = entry.partition("#")[0]
            literal = path.split("*")[0].rstrip("/")
            target = root / literal
            if (entry.endswith("/") or "*" in entry) and target.is_dir():
                dirs.update(p for p in [target, *target.rglob("*")] if p.is_dir())
            target = target if target.is_dir() else target.parent
            dirs.update(p for p in [target, *target.parents] if p == root or root in p.parents)
    return len(dirs)


def all_dirs(root: Path) -> int:
    return sum(1 for _ in os.walk(root))


def edit(root: Path, i: int) -> tuple[str, str]:
    """Make lesson drift in package i; returns (lesson name, event kind awaited)."""
    pkg = root / "packages" / f"pkg-{i:03d}"
    mode = i % 4
    if mode in (0, 1):  # field edit in place
        path = pkg / "package.json"
        path.write_text(path.read_text().replace("vitest run", "jest"))
        return f"pkg-{i:03d}-lesson-0", "stale"
    if mode == 2:  # field edit by atomic rename, as editors and formatters write
        path = pkg / "package.json"
        tmp = pkg / ".package.json.bench.tmp"
        tmp.write_text(path.read_text().replace('"vitest unit"', '"jest unit"'))
        os.replace(tmp, path)
        return f"pkg-{i:03d}-lesson-3", "stale"
    (pkg / "tests" / "unit" / "new.snap.ts").write_text("// a new kind of file\n")  # dir shape
    return f"pkg-{i:03d}-lesson-3", "stale"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--keep", type=Path, help="build in (or reuse) this directory and keep it")
    parser.add_argument("--poll", action="store_true", help="run the daemon with --poll")
    parser.add_argument("--debounce", type=float, help="pass --debounce to the daemon")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    home = tmp / "home"
    home.mkdir()
    root = args.keep.resolve() if args.keep else tmp / "repo"
    try:
        if not (root / ".git").exists():
            root.mkdir(parents=True, exist_ok=True)
            bench_stale.build(root, home)
        env = {**os.environ, **bench_stale.GIT_ENV, "HOME": str(home)}
        env["REASONIX_HOME"] = str(home / ".reasonix")
        # A kept repository: undo the previous run's edits and lesson removals.
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
        subprocess.run(["git", "clean", "-qfd", "packages"], cwd=root, check=True)
        time.sleep(2.5)  # every file older than the racy window, as on a real machine
        extra = ["--poll"] if args.poll else []
        if args.debounce is not None:
            extra += ["--debounce", str(args.debounce)]
        daemon = Daemon(root, env, extra)
        at, ready = daemon.wait(lambda e: e["event"] == "ready", timeout=300)
        startup = at - daemon.started
        watches_full = daemon.os_watches()
        print(
            f"ready in {startup:.2f}s: {ready['lessons']} lessons, {len(ready['stale'])} stale, "
            f"{ready['watches']} watchdog watches, {watches_full} OS watches, "
            f"threads {daemon.status('Threads')}"
        )

        latencies = []
        for n in range(args.edits):
            i = 1 + n  # pkg-000 may hold bench_stale.add_drifts' commits in a shared --keep repo
            started = time.perf_counter()
            name, kind = edit(root, i)
            at, _ = daemon.wait(lambda e, name=name, kind=kind: e["event"] == kind and e.get("name") == name)
            latencies.append(at - started)
        cuts = statistics.quantiles(latencies, n=20)
        p50, p95 = statistics.median(latencies), cuts[18]
        rss_busy = daemon.status("VmRSS")

        time.sleep(3.0)  # let the last batch and its cache write finish
        cpu0, t0 = daemon.cpu_seconds(), time.perf_counter()
        time.sleep(args.idle)
        idle_cpu = (daemon.cpu_seconds() - cpu0) / (time.perf_counter() - t0)
        rss, hwm = daemon.status("VmRSS"), daemon.status("VmHWM")

        lessons_dir = root / ".reasonix" / "lessons"
        removing = time.perf_counter()
        removed = 0
        for p in range(20, bench_stale.PACKAGES):
            for j in range(bench_stale.LESSONS_PER_PACKAGE):
                (lessons_dir / f"pkg-{p:03d}-lesson-{j}.md").unlink()
                removed += 1
        at, _ = daemon.wait(lambda e: e["event"] == "lessons" and e["count"] == 1000 - removed, timeout=120)
        replanned = at - removing
        watches_small = daemon.os_watches()

        daemon.proc.send_signal(signal.SIGTERM)
        code = daemon.proc.wait(60)
        total_dirs = all_dirs(root) - sum(1 for _ in os.walk(root / ".git"))
        mode = ("polling" if args.poll else "native") + " " + " ".join(extra[1:] if args.poll else extra)
        print(f"date: {dt.date.today()}  {mode}  edits: {args.edits}  idle: {args.idle:.0f}s  exit: {code}")
        spread = f"min {min(latencies) * 1000:.0f}, max {max(latencies) * 1000:.0f}"
        print(f"latency p50     {p50 * 1000:7.0f} ms   ({spread})")
        print(f"latency p95     {p95 * 1000:7.0f} ms   (target <= 1000 ms)")
        print(f"idle CPU        {idle_cpu * 100:7.3f} %    (target < 1 %)")
        print(f"RSS             {rss:>10}   peak {hwm}, after the edits {rss_busy} (target < 100 MB)")
        print(f"startup         {startup:7.2f} s    (first full check of 1,000 lessons, watches scheduled)")
        full, small = covered_dirs(root, 1000), covered_dirs(root, 100)
        print(
            f"OS watches      {watches_full:7d}      1,000 lessons: {full} fingerprinted dirs"
            f" ({total_dirs} in the work tree)"
        )
        print(
            f"OS watches      {watches_small:7d}      100 lessons:   {small} fingerprinted dirs "
            f"({replanned:.1f}s from deleting 900 lesson files to the re-planned watch set)"
        )
        return 0 if code == 0 else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # with --keep the repository lives elsewhere
        if args.keep and (root / ".git").exists():  # leave it as bench_stale expects it
            subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=False)
            subprocess.run(["git", "clean", "-qfd", "packages"], cwd=root, check=False)


if __name__ == "__main__":
    sys.exit(main())
