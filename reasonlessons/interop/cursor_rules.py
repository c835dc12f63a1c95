"""Cursor rules: `.cursor/rules/<name>.mdc` with `description`, `globs` and `alwaysApply`.

Cursor writes `globs` unquoted and comma-separated (`globs: src/**/*.ts,tests/**`), which is not
valid YAML when it starts with `*`, so the frontmatter is read line by line; `{a,b}` alternatives
are expanded on export, since their commas would split the list. A lesson with file
triggers is an auto-attached rule (its globs); one without is an agent-requested rule (the agent
reads the description and decides); `alwaysApply` is never set, recall-worthy lessons are not
meant for every request.
"""

from __future__ import annotations

from pathlib import Path

from reasonlessons.interop.common import Imported, Report, read_input
from reasonlessons.interop.rules import export_rules, marker, rule_files, to_lesson
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.globs import GlobError, expand_braces
from reasonlessons.store.project import Project

SUFFIX = ".mdc"
DEFAULT_DIR = Path(".cursor") / "rules"


def render(lesson: Lesson, body: str) -> bytes:
    description = " ".join(lesson.description.split())
    globs = ",".join(cursor_globs(lesson.triggers.get("files", [])))
    head = f"---\ndescription: {description}\nglobs:{' ' if globs else ''}{globs}\nalwaysApply: false\n---\n"
    return f"{head}{marker(lesson.name)}\n{body.strip()}\n".encode()


AGENT = "cursor"  # the agent that loads these files: lessons for other agents stay out


def export(project: Project, out: Path | None = None, *, scope: str = "project") -> Report:
    return export_rules(
        project, out or project.loc.root / DEFAULT_DIR, scope=scope, suffix=SUFFIX, render=render, agent=AGENT
    )


def parse(text: str) -> tuple[dict[str, str], str]:
    """(frontmatter fields, body) of an .mdc file, read the lenient way Cursor does."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    fields: dict[str, str] = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "#")):
            fields[key.strip()] = value.strip()
    return fields, text[end + 4 :].lstrip("\n")


def cursor_globs(globs: list[str]) -> list[str]:
    """Globs fit for a comma-separated list: `{a,b}` alternatives expanded (their commas would split)."""
    out: list[str] = []
    for glob in globs:
        try:
            expanded = expand_braces(glob) if "," in glob else [glob]
        except GlobError:
            expanded = [glob.replace(",", "")]
        out.extend(g for g in expanded if g not in out)
    return out


def split_globs(value: str) -> list[str]:
    """A Cursor `globs` value as a list; commas inside `{...}` do not split (hand-written rules)."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    parts: list[str] = []
    depth, current = 0, ""
    for ch in value:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth <= 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [g.strip().strip("'\"") for g in parts if g.strip().strip("'\"")]


def read_rules(directory: Path) -> list[Imported]:
    out = []
    for path in rule_files(directory, SUFFIX):
        fields, body = parse(read_input(path, "rule file"))
        description = fields.get("description", "").strip().strip("'\"") or None
        out.append(to_lesson(path, description, body, split_globs(fields.get("globs", ""))))
    return out
