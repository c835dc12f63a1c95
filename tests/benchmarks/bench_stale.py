"""Benchmark: `reasonlessons stale --json` (cold and warm cache) against `git status`, same repo.

Builds a synthetic git repository of 100,000 files in 200 packages with 1,000 lessons of 3 fingerprint
entries each (file, JSON/TOML/YAML field, dir/ and glob entries, mixed), two of them made stale by
committed changes, then reports the median wall time of each command over --runs runs, and its
median CPU time (user + system, with its children: the measure that holds on a loaded machine).

    python tests/benchmarks/bench_stale.py [--runs 7] [--keep DIR] [--packages 200] [--lessons 1000]

--packages scales the tree (500 files each: 2000 packages make the 1,000,000-file repository of
bench_scale.py); --lessons stays 1,000 by default whatever the size (5 per package, the first
packages). Each command's peak RSS is printed beside it, from one more, untimed round run under
GNU time (`/usr/bin/time -f %M`): a child's own wait4 figure would start from the image forked from
this process (about 40 MiB), so it is used, and marked as a floor, only when GNU time is missing.

Targets (docs/benchmarks.md, issue 19): warm <= 0.3x git status, cold <= 1.0x git status at 100,000
files; at 1,000,000 files (bench_scale.py --shape repo) cold <= 1.5x with peak RSS < 500 MB.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = 200
SRC_DIRS = ("a", "b", "c", "d", "e")
FILES_PER_SRC_DIR = 60
UNIT_TESTS = 100
E2E_TESTS = 50
DOCS = 47  # 5*60 + 100 + 50 + 47 + 3 config files = 500 files per package
LESSONS_PER_PACKAGE = 5

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def build_tree(root: Path, packages: int = PACKAGES) -> int:
    """Write 500 files per package (100,000 for the default 200); returns how many."""
    count = 0
    (root / ".gitignore").write_text("node_modules/\ndist/\n*.log\n")
    count += 1
    for p in range(packages):
        pkg = root / "packages" / f"pkg-{p:03d}"
        for sub in SRC_DIRS:
            d = pkg / "src" / sub
            d.mkdir(parents=True)
            for i in range(FILES_PER_SRC_DIR):
                (d / f"mod{i}.ts").write_text(f"export const x{i} = {i};\n")
        for sub, n, suffix in (("unit", UNIT_TESTS, ".test.ts"), ("e2e", E2E_TESTS, ".spec.ts")):
            d = pkg / "tests" / sub
            d.mkdir(parents=True)
            for i in range(n):
                (d / f"t{i}{suffix}").write_text("it('works', () => {})\n")
        (pkg / "docs").mkdir()
        for i in range(DOCS - (1 if p == 0 else 0)):
            (pkg / "docs" / f"d{i}.md").write_text("# doc\n")
        (pkg / "package.json").write_text(
            f'{{"name": "pkg-{p:03d}", "scripts": {{"test": "vitest run", "test:unit": "vitest unit"}}}}\n'
        )
        (pkg / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
        (pkg / "config.yaml").write_text("ci:\n  jobs:\n    - name: test\n      run: npm test\n")
        count += len(SRC_DIRS) * FILES_PER_SRC_DIR + UNIT_TESTS + E2E_TESTS + DOCS + 3
    # Ignored content git status skips as well.
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("\n")
    return count - 1  # pkg-000 has one doc fewer: exactly 100,000 with the .gitignore


def entries_for(p: int, j: int) -> list[str]:
    pkg = f"packages/pkg-{p:03d}"
    return [
        [f"{pkg}/package.json#scripts.test", f"{pkg}/src/", f"{pkg}/tests/**/*.test.ts"],
        [f"{pkg}/pyproject.toml#tool.pytest.ini_options.testpaths", f"{pkg}/tests/", f"{pkg}/package.json"],
        [f"{pkg}/config.yaml#ci.jobs.0.name", f"{pkg}/docs/", f"{pkg}/src/*/*.spec.ts"],
        [f"{pkg}/src/a/mod1.ts", f"{pkg}/tests/unit/", f'{pkg}/package.json#scripts."test:unit"'],
        [f"{pkg}/package.json#name", f"{pkg}/src/a/", f"{pkg}/docs/*.rst"],
    ][j]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, env={**os.environ, **GIT_ENV})


def build(root: Path, home: Path, packages: int = PACKAGES, lessons: int = 1000) -> None:
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.store.project import Project

    started = time.perf_counter()
    files = build_tree(root, packages)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "import")
    project = Project(Locations(root=root, home=home / ".reasonix"))
    for n in range(lessons):
        p, j = divmod(n, LESSONS_PER_PACKAGE)
        if p < packages:
            project.store.add(
                f"pkg-{p:03d}-lesson-{j}",
                description=f"Lesson {j} about package {p}",
                fingerprint=entries_for(p, j),
                body=f"- package {p}, fact {j}",
            )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add lessons")
    made = min(lessons, packages * LESSONS_PER_PACKAGE)
    print(f"built {files} files + {made} lessons in {time.perf_counter() - started:.1f}s at {root}")


def add_drifts(root: Path) -> None:
    """Two committed changes that make four lessons stale (so `stale` explains commits)."""
    pkg = root / "packages" / "pkg-000"
    text = (pkg / "package.json").read_text().replace("vitest run", "jest")
    (pkg / "package.json").write_text(text)
    git(root, "commit", "-q", "-am", "switch pkg-000 to jest")
    (pkg / "docs" / "guide.rst").write_text("Guide\n=====\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add an rst guide")


GNU_TIME = "/usr/bin/time"


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU: user + system of the command and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def peak_rss(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Peak RSS of one run of `cmd` (its largest process), as text."""
    if os.path.exists(GNU_TIME):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
            wrapped = [GNU_TIME, "-f", "%M", "-o", out.name, *cmd]
            subprocess.run(wrapped, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)
            return f"{int(out.read().split()[-1]) / 1024:6.1f} MiB"
    child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)  # counts the image forked from this process: a floor
    child.returncode = 0  # reaped above; keeps Popen from waiting again
    return f">={usage.ru_maxrss / 1024:4.0f} MiB"


def measure(root: Path, env: dict[str, str], runs: int, label: str) -> None:
    """Median wall times, the commands interleaved run by run so that machine noise hits all alike."""
    script = Path(sys.executable).parent / "reasonlessons"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "reasonlessons"]
    stale = [*base, "stale", "--json"]
    state = root / ".reasonix" / "state"

    def drop(*names: str) -> None:
        for name in names:
            (state / name).unlink(missing_ok=True)

    everything = ("fingerprint-cache.marshal", "lesson-meta.marshal", "stale-result.marshal")
    drop(*everything)
    out = subprocess.run(stale, cwd=root, env=env, capture_output=True, check=False)
    found = len(json.loads(out.stdout))
    print(f"\n{label}: `reasonlessons stale --json` exit {out.returncode}, {found} stale", flush=True)
    time.sleep(2.5)  # let every file age past the racy window, as on a real machine between turns
    # (label, state files dropped first, command), in the order of one round.
    steps = (
        ("git status", (), ["git", "status"]),
        ("stale, cold: no state at all", everything, stale),
        (
            "stale, cold facts (lesson meta cache kept)",
            ("fingerprint-cache.marshal", "stale-result.marshal"),
            stale,
        ),
        ("stale, warm facts, answer not replayable", ("stale-result.marshal",), stale),
        ("stale, warm", (), stale),
    )
    times: dict[str, list[float]] = {name: [] for name, _, _ in steps}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in steps}
    for _ in range(runs):
        for name, dropped, cmd in steps:
            drop(*dropped)
            wall, cpu = timed(cmd, root, env)
            times[name].append(wall)
            cpus[name].append(cpu)
    rss: dict[str, str] = {}
    for name, dropped, cmd in steps:
        drop(*dropped)
        rss[name] = peak_rss(cmd, root, env)
    git_status = statistics.median(times["git status"])
    git_cpu = statistics.median(cpus["git status"])
    print(f"  {'(wall median; CPU median: user + system)':<42} {'wall':>10}{'':<20}  {'CPU':>8}")
    for name, values in times.items():
        value, cpu = statistics.median(values), statistics.median(cpus[name])
        ratio = "" if name == "git status" else f"  {value / git_status:.2f}x git status"
        cpu_ratio = "" if name == "git status" else f"  {cpu / git_cpu:.2f}x"
        print(
            f"  {name:<42} {value * 1000:7.1f} ms{ratio:<20}  {cpu * 1000:6.1f} ms{cpu_ratio:<7}"
            f"  peak RSS {rss[name]}",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build in (or reuse) this directory and keep it")
    parser.add_argument("--packages", type=int, default=PACKAGES, help="500 files each (2000: 1,000,000)")
    parser.add_argument("--lessons", type=int, default=1000, help="5 per package, from the first")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-stale-"))
    home = tmp / "home"
    home.mkdir()
    root = args.keep.resolve() if args.keep else tmp / "repo"
    try:
        if not (root / ".git").exists():
            root.mkdir(parents=True, exist_ok=True)
            build(root, home, args.packages, args.lessons)
        env = {**os.environ, **GIT_ENV, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
        # Measure the program as installed, its bytecode cached (the first, untimed run writes it):
        # with PYTHONDONTWRITEBYTECODE set, every run would compile the modules changed since.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"{dt.date.today()}, median of {args.runs} runs, {sys.executable}")
        measure(root, env, args.runs, "all 1000 lessons fresh")
        if not (root / "packages" / "pkg-000" / "docs" / "guide.rst").exists():
            add_drifts(root)
        measure(root, env, args.runs, "4 lessons stale by 2 commits (explanations name the commits)")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # with --keep the repository lives outside it


if __name__ == "__main__":
    sys.exit(main())
