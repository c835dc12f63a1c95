"""`import`, `export aip11|claude-rules|cursor-rules`, `stats`, `revive` on the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.invoke import Invoke
from tests.paths import RESOURCES

AIP11 = RESOURCES / "aip11" / "lessons"
MESH = RESOURCES / "agentsmesh"


def test_import_then_export_aip11(git_repo: Path, tmp_path: Path, cli_invoke: Invoke) -> None:
    result = cli_invoke("import", "aip11", AIP11, "--scope", "project", "--repo", git_repo)
    assert "3 imported" in result.stdout
    assert "ignored the success_count/failure_count" in result.stderr
    again = cli_invoke("import", "aip11", AIP11, "--scope", "project", "--json", "--repo", git_repo).json()
    assert isinstance(again, dict)
    assert (len(again["written"]), len(again["unchanged"])) == (0, 3)
    out = tmp_path / "package"
    doc = cli_invoke("export", "aip11", "--out", out, "--json", "--repo", git_repo).json()
    assert isinstance(doc, dict)
    assert len(doc["written"]) == 3
    assert (out / "_index.md").exists()
    cli_invoke("validate", "--repo", git_repo)


def test_import_defaults_to_candidates_and_refuses_to_overwrite(git_repo: Path, cli_invoke: Invoke) -> None:
    cli_invoke("import", "agentsmesh", MESH / "lessons.json", "--repo", git_repo)
    assert (git_repo / ".reasonix/lessons/_candidates/testing-call-jest-directly.md").exists()
    edited = git_repo / ".reasonix/lessons/_candidates/testing-call-jest-directly.md"
    edited.write_text(edited.read_text().replace("Call jest directly", "Call jest at once"))
    result = cli_invoke("import", "agentsmesh", MESH / "lessons.json", "--repo", git_repo)
    assert "use --replace to overwrite it" in result.stderr
    cli_invoke("import", "agentsmesh", MESH / "lessons.json", "--replace", "--repo", git_repo)
    assert "Call jest directly" in edited.read_text()


def test_bad_input_exits_1_and_writes_nothing(git_repo: Path, tmp_path: Path, cli_invoke: Invoke) -> None:
    result = cli_invoke("import", "agentsmesh", MESH / "cycle.json", "--repo", git_repo, expect=1)
    assert "supersession cycle" in result.stderr
    assert not (git_repo / ".reasonix" / "lessons").exists()
    target = tmp_path / "a-file"
    target.write_text("x")
    result = cli_invoke("export", "claude-rules", "--out", target, "--repo", git_repo, expect=1)
    assert "is a file" in result.stderr
    assert "--out DIR" in cli_invoke("export", "aip11", "--repo", git_repo, expect=2).stderr
    assert (
        "unknown import format" in cli_invoke("import", "yaml", target, "--repo", git_repo, expect=2).stderr
    )
    assert (
        "--scope"
        in cli_invoke("import", "aip11", AIP11, "--scope", "team", "--repo", git_repo, expect=2).stderr
    )


def test_export_rules_default_folders(git_repo: Path, cli_invoke: Invoke) -> None:
    cli_invoke("add", "testing", "-d", "Test runner", "--body", "- vitest", "--repo", git_repo)
    assert "1 wrote" in cli_invoke("export", "claude-rules", "--repo", git_repo).stdout
    assert (git_repo / ".claude/rules/testing.md").exists()
    cli_invoke("export", "cursor-rules", "--repo", git_repo)
    assert (git_repo / ".cursor/rules/testing.mdc").exists()
    copy = git_repo / "copy"
    shutil.copytree(git_repo / ".cursor/rules", copy)
    doc = cli_invoke("import", "cursor-rules", copy, "--json", "--repo", git_repo).json()
    assert isinstance(doc, dict)
    assert [i["name"] for i in doc["written"]] == ["testing"]
