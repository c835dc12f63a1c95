"""What Claude Code and Cursor rule files share: one file per fresh lesson, marked as ours.

Only active lessons are exported (agents load rule files without asking reasonlessons, so a stale,
expired, superseded or deprecated lesson must not be there); a file we wrote for a lesson that is no
longer active is removed. Ours are the files that carry the marker line; any other file is left
alone. The marker also names the lesson, so importing our own export restores the name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from reasonlessons.capture.extract.draft import one_line, slug
from reasonlessons.constants import NAME_RE
from reasonlessons.interop.common import (
    Imported,
    InteropError,
    Item,
    Report,
    export_entries,
    read_input,
    remove_file,
    target_dir,
    write_file,
)
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import redact
from reasonlessons.store.project import Project

MARKER = (
    "<!-- reasonlessons:{name} generated from .reasonix/lessons/{name}.md; edit the lesson and re-export -->"
)
_MARKER_RE = re.compile(r"^<!-- reasonlessons:([a-z0-9][a-z0-9._-]{0,63}) [^\n]*-->\s*$", re.MULTILINE)
_HEADING = re.compile(r"\A\s*#\s+([^\n]+)\n?")

Render = Callable[[Lesson, str], bytes]


def marker(name: str) -> str:
    return MARKER.format(name=name)


def marked_name(text: str) -> str | None:
    """The lesson a rule file was generated from, when reasonlessons wrote it."""
    match = _MARKER_RE.search(text)
    return match.group(1) if match else None


def export_rules(
    project: Project, out: Path, *, scope: str, suffix: str, render: Render, agent: str
) -> Report:
    """Write each active lesson of `scope` for `agent` as `<out>/<name><suffix>` and remove our files
    for the others (a lesson limited to other agents is one of them)."""
    report = Report()
    directory = target_dir(out)
    written: set[str] = set()
    for entry in export_entries(project, scope, live_only=True, report=report, agent=agent):
        lesson = entry.lesson
        path = directory / f"{lesson.name}{suffix}"
        if path.exists() and not _ours(path, lesson.name):
            report.skipped.append(Item(lesson.name, str(path), "a rule reasonlessons did not write is there"))
            continue
        written.add(path.name)
        changed = write_file(path, render(lesson, redact(lesson.body).text))
        (report.written if changed else report.unchanged).append(Item(lesson.name, str(path)))
    for path in sorted(directory.glob(f"*{suffix}")):
        if path.name not in written and path.is_file() and _ours(path, None):
            remove_file(path)
            report.removed.append(Item(path.name[: -len(suffix)], str(path), "no longer an active lesson"))
    return report


def _ours(path: Path, name: str | None) -> bool:
    try:
        found = marked_name(read_input(path, "rule file"))
    except InteropError:
        return False
    return found is not None and (name is None or found == name)


def rule_files(directory: Path, suffix: str) -> list[Path]:
    if not directory.is_dir():
        raise InteropError(f"{directory}: not a folder; pass the rules folder (e.g. .claude/rules)")
    return sorted(p for p in directory.rglob(f"*{suffix}") if p.is_file() and not p.name.startswith("."))


def to_lesson(path: Path, description: str | None, body: str, globs: list[str]) -> Imported:
    """A lesson from a rule file: named by our marker or the file name, described by its heading."""
    name = marked_name(body)
    body = _MARKER_RE.sub("", body).strip("\n")
    heading = _HEADING.match(body)
    if heading and not description:
        description = heading.group(1).strip()
        body = body[heading.end() :].strip("\n")
    elif heading and heading.group(1).strip() == (description or "").strip():
        body = body[heading.end() :].strip("\n")
    if not description:
        first = next((line for line in body.splitlines() if line.strip()), path.stem)
        description = one_line(first.lstrip("-*# "))
    stem = path.stem
    if name is None:
        name = stem if NAME_RE.match(stem) else slug(stem, fallback="rule")
    extra = {"triggers": {"files": globs}} if globs else {}
    return Imported(name, description, body or description, [], extra, str(path))
