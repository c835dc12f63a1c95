"""Benchmark: `reasonlessons recall "<prompt>" --file <f>` over 10,000 lessons, against `python -c pass`.

Builds a small git repository with 10,000 project lessons (bodies drawn from a 2,000-word vocabulary;
file-glob, keyword and command triggers of mixed specificity; recorded fingerprints; a few stale,
expired and superseded ones), warms the recall index once, then reports, in the same run:

* the median wall time of the CLI (the console script) and of `python -c pass`, and their ratio;
* in-process `Recaller.recall()` time: warm (one Recaller kept across turns, as a hook daemon or MCP
  server would) and fresh (a new Recaller per call: index opened, fingerprint cache loaded); warm
  also over a rotation of different prompts (ROTATION), so that what a Recaller keeps between turns
  (an open image's dense rows of common words) is measured on a sequence of turns, not on one prompt
  repeated; wall and CPU (`time.process_time`) medians;
* the one-off costs: first index build, a full sweep (stat of every lesson file).

    python tests/benchmarks/bench_recall.py [--runs 31] [--lessons 10000] [--keep DIR]
        [--shared-vocabulary [--common-prompt-words]]

--shared-vocabulary draws half of every body from common engineering words (most lessons then
mention test, run, build and file); --common-prompt-words makes every word of the prompt common too.

Targets (docs/benchmarks.md): CLI <= 3x `python -c pass`, in-process <= 5 ms.
Subprocesses run with a private PYTHONPYCACHEPREFIX so both sides use cached bytecode, as an
installed package does, even when PYTHONDONTWRITEBYTECODE is set in the calling shell.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROMPT = "Add a unit test for the date parser and make sure it runs with the others"
FILE = "tests/foo.test.ts"
# Turns of one session, in the shared vocabulary and beside it (each is classified as code-gen).
ROTATION = (
    PROMPT,
    "Fix the failing build after the config update and run the tests again",
    "Add lint and format checks before the commit and make sure they pass",
    "Refactor the cache worker so the queue handler never drops a message",
    "Update the import path in the module and check the output type",
    "Write a migration for the schema and add tests for the router",
    "The install command fails with an error about the module path",
)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}
TECH = tuple(
    """
    build lint format deploy release migrate cache queue worker schema router handler parser logger config
    env docker compose kubernetes helm terraform eslint prettier tsconfig webpack vite rollup babel jest
    mocha pytest tox poetry pip npm pnpm yarn cargo rustfmt clippy gradle maven spring django flask fastapi
    express nest react vue svelte angular redux graphql grpc protobuf kafka redis postgres mysql sqlite
    mongo elastic s3 lambda auth oauth jwt session cookie cors csrf
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
AREAS = ("api", "web", "cli", "core", "infra", "docs", "ci", "db", "auth", "billing")
# The shared vocabulary (--shared-vocabulary, bench_scale.py): ordinary engineering words with their
# weights, so that most lessons mention test, run, build and file. Half of a body's words come from
# here. --common-prompt-words adds the benchmark prompt's other words at the rates an engineering
# text might have them ("unit" and "make sure" common, "date" and "parser" rare): a harder case, as
# every word of the prompt is then in hundreds of lessons.
SHARED = {
    "test": 10, "run": 8, "build": 8, "file": 8, "tests": 5, "error": 4, "check": 4, "config": 3,
    "command": 3, "script": 2, "make": 3, "add": 3, "update": 2, "before": 2, "after": 2, "always": 2,
    "never": 1, "use": 4, "when": 3, "first": 2, "fails": 2, "passes": 1, "import": 2, "module": 2,
    "path": 2, "type": 2, "output": 2, "install": 2, "version": 2, "release": 1, "deploy": 1, "lint": 1,
    "format": 1,
}  # fmt: skip
PROMPT_WORDS = {"unit": 2, "sure": 1.5, "runs": 1, "others": 0.3, "parser": 0.2, "date": 0.1}


def vocabulary(rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ra", "te", "su", "no", "vi", "pe", "do", "zu", "qua", "ber", "tin"]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(2400)}
    return sorted(words)[:2000] + list(TECH)


def build_tree(root: Path) -> None:
    (root / "package.json").write_text('{"name": "bench", "scripts": {"test": "vitest run"}}\n')
    (root / "tests").mkdir()
    (root / "tests" / "foo.test.ts").write_text("it('works', () => {})\n")
    for area in AREAS:
        (root / "src" / area).mkdir(parents=True)
        (root / "src" / area / "index.ts").write_text("export {}\n")


def lesson_meta(
    i: int, rng: random.Random, words: list[str], records: dict[str, object]
) -> dict[str, object]:
    area = AREAS[i % len(AREAS)]
    entry_sets = [["package.json#scripts.test"], [f"src/{area}/"], ["tests/"], [f"src/{area}/index.ts"]]
    fingerprint = entry_sets[i % len(entry_sets)]
    kind = i % 10
    triggers: dict[str, list[str]] = {}
    if kind < 5:
        triggers["files"] = [
            [f"src/{area}/**/*.ts", f"src/{area}/mod{i % 97}/*.ts", "**/*.py", f"packages/p{i % 300}/**"][
                i % 4
            ]
        ]
    if kind in (3, 5, 6, 7):
        triggers["keywords"] = [rng.choice(words), f"{rng.choice(TECH)} {rng.choice(TECH)}"]
    if kind in (8, 9):
        triggers["commands"] = [f"\\b{rng.choice(TECH)} (run )?{rng.choice(words)}\\b"]
    meta: dict[str, object] = {
        "name": f"lesson-{i:05d}",
        "description": f"{rng.choice(TECH).capitalize()} {rng.choice(words)} convention for {area}",
        "fingerprint": fingerprint,
        "captured-at": dt.date(2026, 1, 1) + dt.timedelta(days=i % 300),
        "fingerprint-recorded": {e: records[e] for e in fingerprint},
        "triggers": triggers,
    }
    if i % 500 == 1:
        meta["expires-at"] = dt.date(2026, 2, 1)
    if i % 500 == 2:
        meta["status"] = "deprecated"
    return meta


def body_text(rng: random.Random, words: list[str], *, shared: bool, prompt_words: bool = False) -> str:
    """2-4 bullet lines of 6-14 words; with `shared`, half of the words from SHARED (and PROMPT_WORDS)."""
    table = {**SHARED, **PROMPT_WORDS} if prompt_words else SHARED
    common, weights = list(table), list(table.values())

    def word() -> str:
        if shared and rng.random() < 0.5:
            return rng.choices(common, weights)[0]
        return rng.choice(words)

    return "\n".join(
        f"- {' '.join(word() for _ in range(rng.randint(6, 14)))}" for _ in range(rng.randint(2, 4))
    )


def build(root: Path, home: Path, n: int, *, shared: bool = False, prompt_words: bool = False) -> None:
    from reasonlessons.fingerprint import record
    from reasonlessons.lessons.file import render_lesson
    from reasonlessons.lessons.model import Lesson

    started = time.perf_counter()
    build_tree(root)
    rng = random.Random(8)
    words = vocabulary(rng)
    entries = ["package.json#scripts.test", "tests/", *(f"src/{a}/" for a in AREAS)]
    entries += [f"src/{a}/index.ts" for a in AREAS]
    records = record(root, entries)
    lessons_dir = root / ".reasonix" / "lessons"
    lessons_dir.mkdir(parents=True)
    for i in range(n - 1):
        meta = lesson_meta(i, rng, words, records)
        body = body_text(rng, words, shared=shared, prompt_words=prompt_words)
        (lessons_dir / f"{meta['name']}.md").write_bytes(render_lesson(Lesson(meta=meta, body=body)))
    testing = {
        "name": "testing",
        "description": "Test runner + file convention",
        "fingerprint": ["package.json#scripts.test", "tests/"],
        "captured-at": dt.date(2026, 5, 5),
        "fingerprint-recorded": {e: records[e] for e in ("package.json#scripts.test", "tests/")},
        "triggers": {"files": ["tests/**/*.test.ts"], "keywords": ["vitest"]},
    }
    body = "- vitest, tests/**/*.test.ts, run via `npm test`\n- import style: .js suffix even for .ts source"
    (lessons_dir / "testing.md").write_bytes(render_lesson(Lesson(meta=testing, body=body)))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env={**os.environ, **GIT_ENV})
    print(f"wrote {n} lessons in {time.perf_counter() - started:.1f}s at {root}")


def median_ms(cmd: list[str], cwd: Path, env: dict[str, str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - started) * 1000)
    return out


class Timings:
    """Wall and CPU milliseconds of repeated calls; medians."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def time(self, call: Callable[[], object]) -> object:
        wall, cpu = time.perf_counter(), time.process_time()
        out = call()
        self.cpu.append((time.process_time() - cpu) * 1000)
        self.wall.append((time.perf_counter() - wall) * 1000)
        return out

    def __str__(self) -> str:
        return f"{statistics.median(self.wall):7.2f} ms   (CPU {statistics.median(self.cpu):.2f} ms)"


def in_process(root: Path, home: Path, runs: int) -> tuple[Timings, Timings, Timings, str]:
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.recall.api import Recaller

    loc = Locations(root=root, home=home / ".reasonix")
    warm = Recaller(loc)
    warm.recall(PROMPT, files=[FILE])
    same, fresh, rotating = Timings(), Timings(), Timings()
    names = ""
    for _ in range(runs):
        result: Any = same.time(lambda: warm.recall(PROMPT, files=[FILE]))
        fresh.time(lambda: Recaller(loc).recall(PROMPT, files=[FILE]))
        names = ", ".join(lesson.name for lesson in result.lessons)
    turns = Recaller(loc)
    turns.recall(ROTATION[0], files=[FILE])
    for _ in range(runs):
        for prompt in ROTATION:
            rotating.time(lambda prompt=prompt: turns.recall(prompt, files=[FILE]))
    return same, fresh, rotating, names


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="build in (or reuse) this directory and keep it")
    parser.add_argument(
        "--shared-vocabulary", action="store_true", help="half of every body from common engineering words"
    )
    parser.add_argument(
        "--common-prompt-words", action="store_true", help="with --shared-vocabulary: the prompt's words too"
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-recall-"))
    home = tmp / "home"
    home.mkdir()
    root = args.keep.resolve() if args.keep else tmp / "repo"
    env = {**os.environ, **GIT_ENV, "HOME": str(home), "REASONIX_HOME": str(home / ".reasonix")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    try:
        if not (root / ".git").exists():
            root.mkdir(parents=True, exist_ok=True)
            build(
                root, home, args.lessons, shared=args.shared_vocabulary, prompt_words=args.common_prompt_words
            )
        script = Path(sys.executable).parent / "reasonlessons"
        base = [str(script)] if script.exists() else [sys.executable, "-m", "reasonlessons"]
        recall = [*base, "recall", PROMPT, "--file", FILE]
        state = root / ".reasonix" / "state"
        # A plain `recall` never creates the state folder (reading never writes); an agent's first
        # hook or capture does, and the index is kept there from then on: measure that steady state.
        state.mkdir(parents=True, exist_ok=True)
        for name in ("recall-index.sqlite", "fingerprint-cache.marshal"):
            (state / name).unlink(missing_ok=True)
        started = time.perf_counter()
        out = subprocess.run(
            [*recall, "--format", "json"], cwd=root, env=env, capture_output=True, check=True
        )
        build_s = time.perf_counter() - started
        doc = json.loads(out.stdout)
        print(f"first recall (index build): {build_s:.1f}s; returned {[x['name'] for x in doc['lessons']]}")
        time.sleep(2.5)  # let every file age past the racy window, as on a real machine
        os.utime(state / "recall-index.sqlite", ns=(0, 0))  # make the next recall sweep
        sweep = median_ms(recall, root, env, 1)[0]
        pass_times: list[float] = []
        recall_times: list[float] = []
        for _ in range(args.runs):  # interleaved, so drift in machine load hits both alike
            pass_times += median_ms([sys.executable, "-c", "pass"], root, env, 1)
            recall_times += median_ms(recall, root, env, 1)
        base_ms, recall_ms = statistics.median(pass_times), statistics.median(recall_times)
        warm, fresh, rotating, names = in_process(root, home, args.runs)
        print(f"date: {dt.date.today()}  lessons: {args.lessons}  runs: {args.runs}")
        print(f"command: reasonlessons recall {PROMPT!r} --file {FILE}")
        print(f"python -c pass          {base_ms:7.1f} ms")
        ratio = recall_ms / base_ms
        print(f"recall (CLI)            {recall_ms:7.1f} ms   {ratio:.2f}x python -c pass (target <= 3x)")
        print(
            f"recall (CLI, sweeping)  {sweep:7.1f} ms   (a stat of every lesson file, at most once a minute)"
        )
        print(f"in-process, warm        {warm}   (target <= 5 ms)  -> {names}")
        print(f"in-process, warm, turns {rotating}   ({len(ROTATION)} prompts in rotation, one Recaller)")
        print(f"in-process, fresh       {fresh}   (new Recaller: index opened, caches loaded)")
        return 0
    finally:
        if args.keep:
            shutil.rmtree(home, ignore_errors=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
