"""16 processes on one repository at once: capture, add, promote, refresh, recall and the watch daemon.

For a few seconds (30 with REASONLESSONS_STRESS=1) fifteen workers call the library in loops while
`reasonlessons watch` runs. Afterwards: no worker met an unexpected exception, the daemon stopped
cleanly on SIGTERM, every file loads, every lesson any worker wrote or promoted is there (no lost
update), capture never wrote the same lesson twice, and `validate` is clean.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.lessons.locations import Locations
from tests import hardening as h
from tests.paths import REPO_ROOT

SECONDS = h.scaled(ci=8, stress=30)
ROLES = ["add", "capture", "promote", "refresh", "recall"] * 3
ROOT = REPO_ROOT


@pytest.mark.slow
def test_sixteen_processes_mixing_every_writer(tmp_path: Path, make_repo: Callable[[str], Path]) -> None:
    repo = make_repo("capture-node")
    loc = Locations.discover(repo)
    logs = tmp_path / "logs"
    for n in range(3):
        h.write_log(logs, n)
    h.run("add", "testing", "-d", "Test runner", "-f", "package.json#scripts.test",
          "--body", "- run tests with `npx vitest run`", "--repo", repo)  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    watch = subprocess.Popen(
        h.command("watch", "--json", "--repo", repo),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.concurrency_worker",
                role,
                str(i),
                str(repo),
                str(logs),
                str(SECONDS),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )  # fmt: skip
        for i, role in enumerate(ROLES)
    ]
    results, stderr = [], []
    for proc in workers:
        out, err = proc.communicate(timeout=SECONDS + 180)
        stderr.append(err)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    watch.send_signal(signal.SIGTERM)
    _, watch_err = watch.communicate(timeout=60)
    assert watch.returncode == 0, watch_err
    assert h.tracebacks([*stderr, watch_err]) == []
    errors = [e for r in results for e in r["errors"]]
    assert errors == [], "\n".join(errors)

    where = h.check_store(loc, set())
    by_role: dict[str, list[str]] = {}
    for r in results:
        by_role.setdefault(r["role"], []).extend(r["names"])
    assert by_role["add"], results
    assert by_role["capture"], results
    lost = [n for n in by_role["add"] if "project" not in where.get(n, set())]
    lost += [n for n in by_role["promote"] if "project" not in where.get(n, set())]
    lost += [n for n in by_role["capture"] if n not in where]
    assert lost == [], lost
    assert h.duplicates(loc) == []
    report = json.loads(h.run("validate", "--json", "--repo", repo).stdout)
    assert report["ok"], report
    ops = {role: sum(r["ops"] for r in results if r["role"] == role) for role in sorted(set(ROLES))}
    races = sum(sum(r["expected"].values()) for r in results)
    print(f"\nconcurrency: 16 processes, {SECONDS}s, {ops} ops, {races} lost races, {len(where)} lessons")
