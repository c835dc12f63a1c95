"""Shared by the crash-safety and concurrency tests: scale, a repository with logs, and whole-store checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from reasonlessons.errors import LessonFileError
from reasonlessons.lessons.file import read_lesson
from reasonlessons.lessons.locations import Locations
from reasonlessons.store.scopes import LessonStore, content_key
from tests import sessionlogs

STRESS = os.environ.get("REASONLESSONS_STRESS", "") not in ("", "0")


def scaled(ci: int, stress: int) -> int:
    """`ci` in a normal run, `stress` with REASONLESSONS_STRESS=1 (docs/benchmarks.md, hardening)."""
    value = os.environ.get("REASONLESSONS_STRESS_SCALE")
    return int(value) if value else (stress if STRESS else ci)


def command(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "reasonlessons", *map(str, args)]


def run(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command(*args), capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def session_turns(tag: str) -> list[sessionlogs.Turn]:
    """A session that capture learns from: a failing command fixed by another, and a `/lesson` writ."""
    return [
        ("user", f"add the {tag} feature and run the tests"),
        ("tool", "cat package.json", '{"scripts": {"test": "vitest run"}}', 0),
        ("tool", f"npm run check-{tag}", f'npm ERR! Missing script: "check-{tag}"', 1),
        ("tool", f"npx tsc --noEmit -p tsconfig.{tag}.json", "", 0),
        ("tool", "npx vitest run", "Test Files  2 passed (2)", 0),
        ("user", f"/lesson note-{tag}: the {tag} module keeps its fixtures in `tests/fixtures/{tag}/`"),
        ("end", "Done."),
    ]


def write_log(folder: Path, n: int) -> Path:
    """Session log number `n`, in one of the three formats by turn."""
    tag = f"f{n:04d}"
    session = f"{n:08x}-1111-4222-8333-444444444444"
    if n % 3 == 0:
        return sessionlogs.claude_code(folder / "claude", session, session_turns(tag))
    if n % 3 == 1:
        return sessionlogs.codex(folder / "codex", session, session_turns(tag))
    return sessionlogs.reasonix_v1(folder / "reasonix", f"sess-{tag}", [session_turns(tag)])


def lesson_files(loc: Locations) -> list[tuple[str, Path]]:
    out = []
    for scope in ("project", "candidate", "global"):
        directory = loc.scope_dir(scope)
        if directory.is_dir():
            out.extend((scope, p) for p in sorted(directory.glob("*.md")) if not p.name.startswith("."))
    return out


def check_store(loc: Locations, known: set[str]) -> dict[str, set[str]]:
    """Every lesson file parses, every known name is still somewhere, state documents are whole JSON.

    Returns name -> scopes it is in."""
    where: dict[str, set[str]] = {}
    for scope, path in lesson_files(loc):
        try:
            lesson = read_lesson(path, scope=scope)
        except LessonFileError as exc:  # a torn or corrupt write
            raise AssertionError(f"{path} does not load: {exc}") from None
        where.setdefault(lesson.name, set()).add(scope)
    lost = known - where.keys()
    assert not lost, f"lessons lost: {sorted(lost)}"
    for state_dir in (loc.state_dir, loc.home / "state"):
        for doc in state_dir.glob("*.json") if state_dir.is_dir() else ():
            try:
                json.loads(doc.read_bytes())
            except ValueError:
                raise AssertionError(f"{doc} is not whole JSON") from None
    return where


def duplicates(loc: Locations) -> list[list[str]]:
    """Lessons that say the same thing under different names (what capture must never write)."""
    store = LessonStore(loc)
    by_key: dict[str, list[str]] = {}
    for lesson in store.scan(("project", "candidate")).lessons:
        names = by_key.setdefault(content_key(lesson), [])
        if lesson.name not in names:
            names.append(lesson.name)
    return [names for names in by_key.values() if len(names) > 1]


def tracebacks(stderr: Sequence[str]) -> list[str]:
    return [text for text in stderr if "Traceback (most recent call last)" in text]
