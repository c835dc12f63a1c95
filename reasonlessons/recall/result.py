"""What recall returns: the lessons for a turn, and their rendering for each `--format`."""

from __future__ import annotations

from typing import Any, NamedTuple

from reasonlessons.errors import UsageError
from reasonlessons.recall import render

FORMATS = ("text", "json", "claude-code")


class RecalledLesson(NamedTuple):
    """One lesson as recall hands it out."""

    name: str
    scope: str
    text: str
    tokens: int
    caution: bool
    path: str
    score: float
    reasons: tuple[str, ...] = ()


class RecallResult:
    """What one recall found; `render(fmt)` gives the CLI output for `--format`."""

    def __init__(self, task_type: str | None) -> None:
        self.task_type = task_type
        self.lessons: list[RecalledLesson] = []
        self.warnings: list[str] = []

    @property
    def tokens(self) -> int:
        return sum(lesson.tokens for lesson in self.lessons)

    def to_json(self) -> dict[str, Any]:
        return render.as_json(self.task_type, self.tokens, self.lessons)

    def render(self, fmt: str = "text") -> str:
        if fmt == "json":
            return render.render_json(self.task_type, self.tokens, self.lessons)
        if fmt == "claude-code":
            return render.render_claude_code(self.lessons)
        if fmt == "text":
            return render.render_text(self.lessons)
        raise UsageError(f"--format {fmt!r}: use {', '.join(FORMATS)}")
