"""Every command that reports takes `--json`, and what it prints is the shape documented in
docs/schema/COMMAND.json (the same documents users can validate against)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.cli import build_app
from tests.invoke import Invoke
from tests.jsonshape import SCHEMAS, command_problems
from tests.paths import EXAMPLE
from tests.repos import commit_all, git

# Commands whose output is a protocol rather than a report: the hook answers Claude Code in its own
# JSON (tests/resources/integrations/), the MCP server speaks MCP.
NOT_REPORTS = {"hook", "mcp"}


def _commands_with_json() -> set[str]:
    import typer.main

    group = typer.main.get_command(build_app())
    return {
        name
        for name, command in group.commands.items()  # type: ignore[attr-defined]
        if any("--json" in param.opts for param in command.params)
    }


def _all_commands() -> set[str]:
    import typer.main

    return set(typer.main.get_command(build_app()).commands)  # type: ignore[attr-defined]


def test_every_reporting_command_takes_json_and_has_a_schema() -> None:
    assert _all_commands() - NOT_REPORTS - _commands_with_json() == set(), "commands without --json"
    schemas = {p.stem for p in SCHEMAS.glob("*.json")} - {"common"}
    assert schemas == _commands_with_json(), "docs/schema/ and the commands with --json differ"


def test_the_schemas_are_json_schema_documents() -> None:
    for path in SCHEMAS.glob("*.json"):
        doc = json.loads(path.read_text())
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema", path
        assert doc["$id"] == path.name, path


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    repo = tmp_path / "demo"
    shutil.copytree(EXAMPLE, repo)
    git(repo, "init", "-q")
    commit_all(repo, "the example repository")
    return repo


def _check(cli_invoke: Invoke, command: str, *args: str | Path, expect: int = 0) -> Any:
    result = cli_invoke(command, *args, "--json", expect=expect)
    doc = json.loads(result.stdout)  # one JSON document and nothing else on stdout
    assert command_problems(command, doc) == [], (command, args, doc)
    return doc


def test_every_command_prints_its_documented_shape(cli_invoke: Invoke, demo: Path) -> None:
    repo = ("--repo", demo)
    logs = sorted((demo / "sessions").glob("*.events.jsonl"))
    seen: set[str] = set()

    def check(command: str, *args: str | Path, expect: int = 0) -> Any:
        seen.add(command)
        return _check(cli_invoke, command, *args, *repo, expect=expect)

    sessions = Path.home() / ".reasonix" / "sessions"  # where Reasonix v1 keeps them: `sources` finds it
    sessions.mkdir(parents=True)
    for log in logs[:1]:
        shutil.copy(log, sessions / log.name)
        meta = log.name.replace(".events.jsonl", ".meta.json")
        (sessions / meta).write_text(json.dumps({"workspace": str(demo)}))
    assert check("sources")
    assert check("capture", *logs)["candidates"]
    assert "dropped" in check("capture", *logs, "--explain")
    assert check("capture", demo / "missing.jsonl", expect=1)["errors"]
    assert check("list")
    assert check("show", "esm-imports")["drift"] == []
    check(
        "add", "testing", "-d", "Test runner", "-f", "package.json#scripts.test", "--file-trigger", "tests/**"
    )
    check(
        "add",
        "vitest-global",
        "-d",
        "Vitest",
        "-f",
        "package.json#devDependencies.vitest",
        "--scope",
        "global",
    )
    check("add", "no-jest", "-d", "No jest", "-f", "jest.config.js", "--allow-absent", "--scope", "global")
    listed = check("list")
    assert {x["name"]: x.get("applies") for x in listed if x["scope"] == "global"} == {
        "no-jest": True,
        "vitest-global": True,
    }
    assert check("promote", "npm-test-vitest-not-found")["promoted"]
    assert check("reject", "build-output")["scope"] == "candidate"
    check("trust", "esm-imports")
    assert check("recall", "add a test for peek", "--file", "tests/queue.test.ts")["lessons"]
    (demo / "package.json").write_text(
        (demo / "package.json").read_text().replace('"vitest run"', '"vitest run --coverage"')
    )
    (demo / "jest.config.js").write_text("module.exports = {}\n")
    assert check("stale")
    assert check("show", "testing")["drift"]
    assert [x for x in check("list") if x["name"] == "no-jest"][0]["does_not_apply"]
    assert check("refresh", "--all", "--dry-run")["lessons"]
    assert check("refresh", "testing")["lessons"][0]["changes"]
    check("validate")
    assert check("search", "vitest")
    assert check("edit", "testing", "--keyword", "vitest", "--expires", "90d")["changed"]
    assert check("untrigger", "testing", "vitest", "--kind", "keywords")["removed"] == ["keywords"]
    check("add", "merge-a", "-d", "Alpha lesson", "--body", "- alpha one")
    check("add", "merge-b", "-d", "Beta lesson", "--body", "- beta two")
    assert check("merge", "merge-a", "merge-b", "--into", "merged")["supersedes"] == ["merge-a", "merge-b"]
    assert check("deprecate", "merged")["by"] is None
    assert "pruned" in check("prune", "--dry-run")
    check("install", "claude-code")
    assert check("install", "reasonix")["export"] is not None
    assert check("uninstall", "reasonix")["changed"] is True
    check("export", "reasonix")
    check("export", "claude-rules")
    check("import", "claude-rules", demo / ".claude" / "rules")
    check("stats")
    assert check("stats", "--replay")["replay"]["totals"]["sessions"] >= 1
    assert check("replay")["sessions"]
    assert check("revive", "testing")["revived"] is False
    assert check("rm", "testing")["scope"] == "project"
    check("rm", "vitest-global", "--global")
    assert seen | {"watch"} == _commands_with_json()  # watch: tests/cli/test_watch.py
