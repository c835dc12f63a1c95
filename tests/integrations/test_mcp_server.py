"""`reasonlessons mcp`: the tools on the library API, the missing-SDK message, a real stdio round trip."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.errors import LessonNotFoundError, ReasonLessonsError, UsageError
from reasonlessons.integrations import mcp_server
from reasonlessons.integrations.mcp_server import LessonTools, MissingSDKError

HAS_SDK = importlib.util.find_spec("mcp") is not None
needs_sdk = pytest.mark.skipif(not HAS_SDK, reason="the optional MCP SDK is not installed")
TOOLS = ["recall", "list_lessons", "show_lesson", "add_candidate", "check_stale"]


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("recall-ts")


def test_recall_tool_returns_recalls_json_document(repo: Path) -> None:
    tools = LessonTools(repo)
    doc = tools.recall("Add a unit test for the parser", files=["tests/foo.test.ts"])
    assert list(doc) == ["task_type", "tokens", "lessons"]
    assert [lesson["name"] for lesson in doc["lessons"]] == ["testing"]
    again = tools.recall("Add a unit test for the parser", files=["tests/foo.test.ts"], session="a")
    assert [lesson["name"] for lesson in again["lessons"]] == ["testing"]
    assert (
        tools.recall("Add a unit test for the parser", files=["tests/foo.test.ts"], session="a")["lessons"]
        == []
    )
    with pytest.raises(UsageError, match="--budget"):
        tools.recall("x", budget=0)


def test_list_and_show(repo: Path) -> None:
    tools = LessonTools(repo)
    listed = {e["name"]: e for e in tools.list_lessons()["lessons"]}
    assert listed["testing"]["status"] == "active"
    assert listed["expired-tip"]["status"] == "expired"
    assert listed["proposed-tip"]["scope"] == "candidate"
    assert json.dumps(listed)  # JSON-ready: dates and paths are strings
    assert [e["name"] for e in tools.list_lessons("candidates")["lessons"]] == ["proposed-tip"]
    with pytest.raises(UsageError):
        tools.list_lessons("nope")
    shown = tools.show_lesson("testing")
    assert shown["body"].startswith("- vitest")
    assert shown["drift"] == []
    with pytest.raises(LessonNotFoundError):
        tools.show_lesson("missing")


def test_add_candidate_then_check_stale(repo: Path) -> None:
    tools = LessonTools(repo)
    added = tools.add_candidate("use-npm", "Use npm, not yarn", body="- npm ci", fingerprint=["package.json"])
    assert added["scope"] == "candidate"
    assert Path(added["path"]) == repo.resolve() / ".reasonix" / "lessons" / "_candidates" / "use-npm.md"
    with pytest.raises(ReasonLessonsError):
        tools.add_candidate("Bad Name", "x")
    assert tools.check_stale() == {"stale": []}
    lessons = repo / ".reasonix" / "lessons"
    (lessons / "runner.md").write_text(
        "---\nname: runner\ndescription: Test runner\nfingerprint: [package.json#scripts.test]\n"
        "captured-at: 2026-05-05\n---\n- vitest\n"
    )
    stale = tools.check_stale()["stale"]  # never recorded: stale until refreshed
    assert [(s["name"], s["drift"][0]["reason"]) for s in stale] == [("runner", "unrecorded")]


def test_a_bad_repo_fails_early(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--repo"):
        LessonTools(tmp_path / "missing")


def test_missing_sdk_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, cli_invoke: Callable[..., Any], repo: Path
) -> None:
    def no_mcp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "mcp":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return importlib.import_module(name, *args, **kwargs)

    monkeypatch.setattr(mcp_server, "importlib", types.SimpleNamespace(import_module=no_mcp))
    with pytest.raises(MissingSDKError, match=r"mcp extra, or pip install 'mcp>=1.2'"):
        mcp_server.server_class()
    result = cli_invoke("mcp", "--repo", repo, expect=1)
    assert "pip install 'mcp>=1.2'" in result.stderr


@needs_sdk
def test_server_registers_the_five_tools_with_their_parameters(repo: Path) -> None:
    import anyio

    server = mcp_server.build_server(LessonTools(repo))
    tools = anyio.run(server.list_tools)
    assert [t.name for t in tools] == TOOLS
    schema = {t.name: t.inputSchema if hasattr(t, "inputSchema") else t.input_schema for t in tools}
    assert {"prompt", "files", "command", "budget", "task_type", "session"} <= set(
        schema["recall"]["properties"]
    )
    assert schema["show_lesson"]["required"] == ["name"]


@needs_sdk
def test_stdio_round_trip(repo: Path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "reasonlessons", "mcp", "--repo", str(repo)], env=env
    )

    async def session() -> tuple[list[str], Any, Any]:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                names = [t.name for t in (await client.list_tools()).tools]
                args = {"prompt": "Add a unit test", "files": ["tests/foo.test.ts"]}
                recalled = await client.call_tool("recall", args)
                missing = await client.call_tool("show_lesson", {"name": "missing"})
                listed = await client.call_tool("list_lessons", {})
                stale = await client.call_tool("check_stale", {})
                return names, recalled, missing, listed, stale

    names, recalled, missing, listed, stale = anyio.run(session)
    assert names == TOOLS
    assert not _is_error(recalled)
    assert [x["name"] for x in json.loads(recalled.content[0].text)["lessons"]] == ["testing"]
    # Every tool answers one JSON object in one text block (docs/integrations.md#mcp), the same as
    # its structured content: a list of lessons is not split into a block per lesson.
    for result, key in ((listed, "lessons"), (stale, "stale")):
        (block,) = result.content
        doc = json.loads(block.text)
        assert list(doc) == [key]
        structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
        assert structured == doc
    assert "testing" in [x["name"] for x in json.loads(listed.content[0].text)["lessons"]]
    assert json.loads(stale.content[0].text) == {"stale": []}
    assert _is_error(missing)
    assert "no lesson named 'missing'" in missing.content[0].text  # our message reaches the client


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))
