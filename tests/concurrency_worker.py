"""One worker of tests/test_concurrency.py: `python -m tests.concurrency_worker ROLE ID REPO LOGS SECONDS`.

Calls the library in a loop for SECONDS (as the CLI, hooks and the watch daemon do) and prints one
JSON document: what it did, the errors a user could meet in such a race (another process promoted
the candidate first), and the traceback of anything else.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from reasonlessons.errors import LessonExistsError, LessonNotFoundError
from reasonlessons.store.project import open_project

# Losing a race is a clean, explained refusal; anything else is a bug.
EXPECTED = (LessonNotFoundError, LessonExistsError)


def main(role: str, ident: int, repo: Path, logs: Path, seconds: float) -> dict[str, Any]:
    rng = random.Random(ident)
    out: dict[str, Any] = {"role": role, "id": ident, "ops": 0, "expected": {}, "errors": [], "names": []}
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        n += 1
        try:
            _one(role, ident, n, repo, logs, rng, out)
            out["ops"] += 1
        except EXPECTED as exc:
            out["expected"][type(exc).__name__] = out["expected"].get(type(exc).__name__, 0) + 1
        except Exception:  # the test fails on any of these
            out["errors"].append(traceback.format_exc())
    return out


def _one(
    role: str, ident: int, n: int, repo: Path, logs: Path, rng: random.Random, out: dict[str, Any]
) -> None:
    project = open_project(repo)
    if role == "add":
        name = f"w{ident}-{n}"
        entries = ["package.json#scripts.test"]
        project.store.add(name, description=f"Worker {ident} lesson {n}", fingerprint=entries,
                          body=f"- fact {n} from worker {ident}")  # fmt: skip
        out["names"].append(name)
    elif role == "capture":
        from reasonlessons.capture.pipeline import capture
        from tests.hardening import write_log

        write_log(logs, ident * 10_000 + n)
        paths = [
            p for p in sorted(logs.rglob("*.jsonl")) if "reasonix" not in p.parts or ".events." in p.name
        ]
        report = capture(project, paths, now=dt.datetime.now(dt.UTC))
        out["names"].extend(item.name for item in report.written)
    elif role == "promote":
        candidates = sorted(p.stem for p in project.loc.candidates_dir.glob("*.md"))
        if not candidates:
            time.sleep(0.1)  # nothing captured yet; do not spin
            return
        out["names"].append(project.store.promote(rng.choice(candidates)).name)
    elif role == "refresh":
        from reasonlessons.stale.refresh import refresh

        if n % 3 == 0:
            package = repo / "package.json"
            doc = json.loads(package.read_text())
            doc["scripts"]["test"] = f"vitest run --worker={ident}-{n}"
            from reasonlessons.support.atomic import write_atomic

            write_atomic(package, (json.dumps(doc, indent=2) + "\n").encode())
        refresh(project, all=True)
    elif role == "recall":
        from reasonlessons.recall.api import recall

        recall(
            project, "Add a unit test for the queue", files=["tests/queue.test.ts"], session=f"s{ident}-{n}"
        )
        time.sleep(0.02)  # an agent turn, not a busy loop
    else:
        raise ValueError(role)


if __name__ == "__main__":
    role, ident, repo, logs, seconds = sys.argv[1:6]
    print(json.dumps(main(role, int(ident), Path(repo), Path(logs), float(seconds))))
