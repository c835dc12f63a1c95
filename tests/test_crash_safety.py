"""SIGKILL at random moments of capture, add, promote, refresh and export: nothing torn, nothing lost.

Each round starts one command as a real process and kills it after a delay drawn (seeded) from that
command's own measured run time, so most kills land while it reads, writes or renames. After every
kill the store must load whole, and every lesson seen so far must still be somewhere (a killed
promote may leave a lesson in both scopes, never in neither). At the end, `validate` is clean, a full
capture resumes from its checkpoints without writing duplicates, and a second one writes nothing.

REASONLESSONS_STRESS=1 runs the long version recorded in docs/benchmarks.md ("hardening").
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.lessons.locations import Locations
from tests import hardening as h

ROUNDS = h.scaled(ci=50, stress=250)
SEED = 20261121


def _timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True, timeout=120)
    return time.perf_counter() - started


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_tears_nothing(
    tmp_path: Path, make_repo: Callable[[str], Path]
) -> None:
    rng = random.Random(SEED)
    repo = make_repo("capture-node")
    loc = Locations.discover(repo)
    logs = tmp_path / "logs"
    n_logs = 0
    for _ in range(3):
        h.write_log(logs, n_logs)
        n_logs += 1
    for i in range(4):
        h.run("add", f"base-{i}", "-d", f"Base lesson {i}", "-f", "package.json#scripts.test",
              "--body", f"- base fact {i}", "--repo", repo)  # fmt: skip
    h.run(
        "capture", *sorted(logs.rglob("*.events.jsonl")), *sorted(logs.rglob("*-*-*.jsonl")), "--repo", repo
    )
    known = set(h.check_store(loc, set()))

    def log_paths() -> list[Path]:
        return [p for p in sorted(logs.rglob("*.jsonl")) if not (p.parent.name == "reasonix" and
                not p.name.endswith(".events.jsonl"))]  # fmt: skip

    def op(kind: str, n: int) -> list[str]:
        if kind == "capture":
            return h.command("capture", *log_paths(), "--repo", repo)
        if kind == "add":
            return h.command("add", f"k-{n}", "-d", f"Killed add {n}", "-f", "package.json#scripts.test",
                             "--body", f"- fact {n}", "--repo", repo)  # fmt: skip
        if kind == "promote":
            candidates = sorted(p.stem for p in loc.candidates_dir.glob("*.md"))
            if candidates:
                return h.command("promote", rng.choice(candidates), "--repo", repo)
            return h.command("promote", "--auto", "--after", "0s", "--repo", repo)
        if kind == "refresh":
            return h.command("refresh", "--all", "--yes", "--repo", repo)
        return h.command("export", "reasonix", "--repo", repo)

    kinds = ["capture", "add", "promote", "refresh", "export"]
    durations = {kind: _timed(op(kind, -1 - i)) for i, kind in enumerate(kinds)}
    known |= set(h.check_store(loc, known))
    killed = finished = 0
    started: dict[str, int] = dict.fromkeys(kinds, 0)
    failures: list[str] = []
    for n in range(ROUNDS):
        if n % 4 == 0:  # new sessions keep capture busy; a changed script keeps refresh busy
            h.write_log(logs, n_logs)
            n_logs += 1
        if n % 7 == 0:
            package = repo / "package.json"
            doc = json.loads(package.read_text())
            doc["scripts"]["test"] = f"vitest run --pool=threads{n}"
            package.write_text(json.dumps(doc, indent=2) + "\n")
        kind = rng.choice(kinds)
        started[kind] += 1
        delay = rng.uniform(0.4, 1.15) * durations[kind]
        proc = subprocess.Popen(op(kind, n), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        _, stderr = proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGKILL:
            killed += 1
        elif proc.returncode == 0:
            finished += 1
        elif proc.returncode != -signal.SIGKILL:
            failures.append(f"{kind} exited {proc.returncode}: {stderr[-2000:]}")
        failures.extend(h.tracebacks([stderr]))
        known |= set(h.check_store(loc, known))
    assert not failures, "\n\n".join(failures)
    assert killed >= ROUNDS // 3, (killed, finished)

    # A promote killed between writing the lesson and removing the candidate left both: finish it.
    for name, scopes in h.check_store(loc, known).items():
        if {"project", "candidate"} <= scopes:
            h.run("promote", name, "--repo", repo)
    first = json.loads(h.run("capture", *log_paths(), "--json", "--repo", repo).stdout)
    again = json.loads(h.run("capture", *log_paths(), "--json", "--repo", repo).stdout)
    assert again["candidates"] == [], again
    assert again["updated"] == [], again
    assert h.duplicates(loc) == [], first
    report = json.loads(h.run("validate", "--json", "--repo", repo).stdout)
    assert report["ok"], report
    assert not [p for p in report["problems"] if "same" in p["message"]], report
    h.check_store(loc, known)
    print(f"\ncrash safety: {ROUNDS} processes started {started}, {killed} SIGKILLed mid-run, {finished} "
          f"finished, {len(known)} lessons tracked, 0 lost")  # fmt: skip
