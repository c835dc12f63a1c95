"""Claude Code rules and Cursor rules: fresh lessons out (scoped by their file triggers), rules in."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from reasonlessons.integrations.reasonix_export import fresh_lessons
from reasonlessons.interop import claude_rules, cursor_rules
from reasonlessons.interop.api import export_lessons, import_lessons
from reasonlessons.interop.common import InteropError
from reasonlessons.lessons.file import split_frontmatter
from reasonlessons.recall.globs import expand_braces
from reasonlessons.store.project import Project, open_project

NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)


def expanded(globs: list[str] | None) -> set[str]:
    return {g for glob in globs or [] for g in expand_braces(glob)}


def lessons(repo: Path) -> Project:
    project = open_project(repo, now=lambda: NOW)
    project.store.add(
        "testing",
        description="Test runner + file convention",
        body="- vitest, tests/**/*.test.ts, run via `npm test`\n- import style: .js suffix",
        extra={"triggers": {"files": ["tests/**/*.test.ts", "src/**/*.{ts,tsx}"], "keywords": ["vitest"]}},
    )
    project.store.add(
        "commits", description="Write commit messages in the imperative", body="- Add, not Added."
    )
    project.store.add(
        "old", description="An expired lesson", body="- x", extra={"expires-at": dt.date(2026, 1, 1)}
    )
    return project


@pytest.mark.parametrize(("fmt", "module"), [("claude-rules", claude_rules), ("cursor-rules", cursor_rules)])
def test_export_then_import_keeps_what_both_sides_express(
    git_repo: Path, tmp_path: Path, fmt: str, module: object
) -> None:
    project = lessons(git_repo)
    report = export_lessons(project, fmt)
    assert sorted(i.name for i in report.written) == ["commits", "testing"]
    assert [i.name for i in report.skipped] == ["old"]  # only active lessons become rules
    folder = git_repo / module.DEFAULT_DIR  # type: ignore[attr-defined]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = open_project(elsewhere, now=lambda: NOW)
    import_lessons(other, fmt, folder, scope="project")
    for name in ("testing", "commits"):
        back, original = other.store.find(name), project.store.find(name)
        assert back.description == original.description
        assert back.body == original.body
        assert expanded(back.triggers.get("files")) == expanded(original.triggers.get("files"))


def test_claude_rules_are_scoped_by_paths(git_repo: Path) -> None:
    export_lessons(lessons(git_repo), "claude-rules")
    meta, body = split_frontmatter((git_repo / ".claude/rules/testing.md").read_text())
    assert meta == {"paths": ["tests/**/*.test.ts", "src/**/*.{ts,tsx}"]}
    assert "# Test runner + file convention" in body
    unscoped = (git_repo / ".claude/rules/commits.md").read_text()
    assert not unscoped.startswith("---")  # no paths: Claude Code loads it for every file


def test_cursor_rules_use_comma_separated_globs(git_repo: Path) -> None:
    export_lessons(lessons(git_repo), "cursor-rules")
    text = (git_repo / ".cursor/rules/testing.mdc").read_text()
    assert text.startswith(
        "---\ndescription: Test runner + file convention\n"
        "globs: tests/**/*.test.ts,src/**/*.ts,src/**/*.tsx\nalwaysApply: false\n---\n"
    )
    assert "globs:\n" in (git_repo / ".cursor/rules/commits.mdc").read_text()


def test_cursor_import_reads_hand_written_rules(git_repo: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "React Components.mdc").write_text(
        "---\ndescription: React component conventions\nglobs: **/*.tsx, src/{ui,app}/**\n"
        "alwaysApply: false\n---\n- Use function components.\n"
    )
    (rules / "plain.mdc").write_text("Always run `npm run lint` before committing.\n")
    project = open_project(git_repo, now=lambda: NOW)
    report = import_lessons(project, "cursor-rules", rules)
    assert sorted(i.name for i in report.written) == ["plain", "react-components"]
    react = project.store.find("react-components", ("candidate",))
    assert react.triggers == {"files": ["**/*.tsx", "src/{ui,app}/**"]}
    assert react.description == "React component conventions"
    plain = project.store.find("plain", ("candidate",))
    assert plain.description == "Always run `npm run lint` before committing."


def test_exports_withdraw_their_own_files_and_leave_others_alone(git_repo: Path) -> None:
    project = lessons(git_repo)
    folder = git_repo / ".claude" / "rules"
    folder.mkdir(parents=True)
    (folder / "team.md").write_text("# Team rule\n\nBe kind.\n")
    (folder / "commits.md").write_text("# Our own commits rule\n")
    report = export_lessons(project, "claude-rules")
    assert [(i.name, i.reason) for i in report.skipped if i.name == "commits"] == [
        ("commits", "a rule reasonlessons did not write is there")
    ]
    assert (folder / "commits.md").read_text() == "# Our own commits rule\n"
    project.store.remove("testing")
    report = export_lessons(project, "claude-rules")
    assert [i.name for i in report.removed] == ["testing"]
    assert (folder / "team.md").exists()
    assert export_lessons(project, "claude-rules").removed == []


def test_rules_targets_must_be_folders(git_repo: Path, tmp_path: Path) -> None:
    project = lessons(git_repo)
    target = tmp_path / "file.md"
    target.write_text("x")
    with pytest.raises(InteropError, match="is a file"):
        export_lessons(project, "cursor-rules", target)
    with pytest.raises(InteropError, match="not a folder"):
        import_lessons(project, "claude-rules", target)


def test_rule_exports_carry_only_lessons_for_their_agent(git_repo: Path, tmp_path: Path) -> None:
    project = lessons(git_repo)
    project.store.add(
        "edit-tool", description="Edit wants an absolute path", extra={"agents": ["claude-code"]}
    )
    project.store.add(
        "apply-patch", description="apply_patch wants a unified diff", extra={"agents": ["codex"]}
    )
    claude = export_lessons(project, "claude-rules", tmp_path / "claude")
    cursor = export_lessons(project, "cursor-rules", tmp_path / "cursor")
    assert "edit-tool" in {i.name for i in claude.written}
    assert "apply-patch" not in {i.name for i in claude.written}
    assert {i.name for i in cursor.written}.isdisjoint({"edit-tool", "apply-patch"})
    skipped = {i.name: i.reason for i in cursor.skipped}
    assert skipped["edit-tool"] == "for claude-code only, not cursor"


def test_reasonix_export_leaves_out_lessons_for_other_agents(git_repo: Path) -> None:
    project = lessons(git_repo)
    project.store.add(
        "edit-tool", description="Edit wants an absolute path", extra={"agents": ["claude-code"]}
    )
    project.store.add("plan-first", description="Use /plan for big changes", extra={"agents": ["reasonix"]})
    names = {lesson.name for lesson in fresh_lessons(project, NOW)}
    assert "plan-first" in names
    assert "edit-tool" not in names
    assert "testing" in names
