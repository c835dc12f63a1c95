"""Claude Code rules: `.claude/rules/<name>.md`, scoped by a `paths:` list of globs.

A lesson with file triggers becomes a rule with `paths:` (Claude Code loads it when it works on a
matching file); one without is an unconditional rule (no frontmatter). Import reads `paths:` (a
list, or one pattern) back into file triggers, the first `# heading` into the description.
"""

from __future__ import annotations

from pathlib import Path

from reasonlessons.interop.common import Imported, InteropError, Report, read_input
from reasonlessons.interop.rules import export_rules, marker, rule_files, to_lesson
from reasonlessons.lessons.file import dump_frontmatter, split_frontmatter
from reasonlessons.lessons.model import Lesson
from reasonlessons.store.project import Project

SUFFIX = ".md"
DEFAULT_DIR = Path(".claude") / "rules"


def render(lesson: Lesson, body: str) -> bytes:
    files = lesson.triggers.get("files", [])
    text = f"{marker(lesson.name)}\n# {lesson.description}\n\n{body.strip()}"
    return dump_frontmatter({"paths": list(files)} if files else None, text)


AGENT = "claude-code"  # the agent that loads these files: lessons for other agents stay out


def export(project: Project, out: Path | None = None, *, scope: str = "project") -> Report:
    return export_rules(
        project, out or project.loc.root / DEFAULT_DIR, scope=scope, suffix=SUFFIX, render=render, agent=AGENT
    )


def read_rules(directory: Path) -> list[Imported]:
    """Every rule file under `directory` (recursively, as Claude Code reads them) as a lesson."""
    out = []
    for path in rule_files(directory, SUFFIX):
        text = read_input(path, "rule file")
        try:
            meta, body = split_frontmatter(text)
        except ValueError as exc:
            raise InteropError(
                f"{path}: {exc}; fix the frontmatter (Claude rules take only `paths:`)"
            ) from None
        paths = (meta or {}).get("paths", [])
        globs = (
            [paths] if isinstance(paths, str) else [str(p) for p in paths] if isinstance(paths, list) else []
        )
        out.append(to_lesson(path, None, body, globs))
    return out
