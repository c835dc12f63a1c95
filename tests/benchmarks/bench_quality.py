"""Benchmark: what capture learns from real sessions, scored against senior-written labels.

Runs the quality scorer of the shared corpus (`../shared/quality/score.py`: real Claude Code and
Codex sessions, the repositories they worked on, and per session the lessons a senior engineer would
keep, those that are fine to propose, text that must never appear, and whether silence is right)
with this checkout's `reasonlessons` command, for each label set given, and prints per session and in
total: recall (expected lessons found), clean (1 - candidates matching nothing / candidates),
fingerprints right, forbidden text and silence violations, plus capture's time.

    python tests/benchmarks/bench_quality.py [--labels DIR]... [--scorer PATH] [--check]

With `--check` it exits 1 unless every label set meets the targets of issue 15 (docs/benchmarks.md):
recall >= 0.80, clean >= 0.90, fingerprints right >= 0.80, no forbidden text, no silence violation.
Each run builds the repositories in temporary directories with a private HOME; nothing of the user's
is read or written.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
QUALITY = REPO.parent / "shared" / "quality"
TARGETS = {"recall": 0.80, "clean": 0.90, "fingerprints": 0.80}


def _command() -> str:
    """This checkout's console script: the one installed beside the running interpreter."""
    beside = Path(sys.executable).with_name("reasonlessons")
    return str(beside) if beside.exists() else shutil.which("reasonlessons") or "reasonlessons"


def score(scorer: Path, labels: Path) -> dict[str, Any]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(scorer), "--labels", str(labels), "--rl", _command(), "--json"],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    result["wall"] = time.perf_counter() - started
    return result


def _ratio(found: int, of: int) -> str:
    return f"{found}/{of} = {found / of:.2f}" if of else "-"


def report(name: str, result: dict[str, Any]) -> list[str]:
    """Print one label set's table; return the targets it misses."""
    total = result["total"]
    print(f"\n{name}: {total['sessions']} sessions, scored in {result['wall']:.1f} s")
    print(f"  {'session':28} {'cands':>5} {'found':>7} {'fp ok':>6} {'noise':>5} {'forb':>4} {'secs':>6}")
    for row in result["sessions"]:
        fp = f"{row['fingerprint_ok']}/{row['fingerprint_checked']}" if row["fingerprint_checked"] else "-"
        flag = " SILENCE!" if row["silence_violation"] else ""
        print(
            f"  {row['id'][:28]:28} {row['candidates']:>5} {len(row['found']):>3}/{row['expected']:<3} "
            f"{fp:>6} {len(row['noise']):>5} {len(row['forbidden']):>4} {row['seconds']:>6.2f}{flag}"
        )
    fp_ok, fp_n = total["fingerprint_ok"], total["fingerprint_checked"]
    print(
        f"  recall {_ratio(total['found'], total['expected'])}, clean {total['clean']} "
        f"({total['noise']} noise of {total['candidates']}), fingerprints {_ratio(fp_ok, fp_n)}, "
        f"forbidden {total['forbidden']}, silence violations {total['silence_violations']}, "
        f"errors {total['errors']}"
    )
    missed = []
    figures = {
        "recall": total["recall"],
        "clean": total["clean"],
        "fingerprints": fp_ok / fp_n if fp_n else None,
    }
    for key, target in TARGETS.items():
        value = figures[key]
        if value is not None and value < target:
            missed.append(f"{name}: {key} {value:.2f} < {target}")
    for key in ("forbidden", "silence_violations", "errors"):
        if total[key]:
            missed.append(f"{name}: {key} {total[key]}")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--labels", type=Path, action="append", help="a label folder (default: the corpus' and its aider/)"
    )
    parser.add_argument("--scorer", type=Path, default=QUALITY / "score.py")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    if not args.scorer.is_file():
        print(f"no scorer at {args.scorer}: the shared quality corpus is not available", file=sys.stderr)
        return 2
    missed: list[str] = []
    corpus = [args.scorer.parent / "labels", args.scorer.parent / "aider" / "labels"]
    for labels in args.labels or [d for d in corpus if d.is_dir()]:
        missed += report(str(labels), score(args.scorer, labels))
    if missed:
        print("\nmissed targets:\n  " + "\n  ".join(missed))
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
