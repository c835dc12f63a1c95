"""`reasonlessons recall` on the command line: the Typer command and the fast path agree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.__main__ import main as entry_main
from reasonlessons.cli.fast import recall
from reasonlessons.lessons.locations import Locations
from reasonlessons.recall.render import CLOSE, OPEN
from tests.paths import REPO_ROOT

TEST_FILE = "tests/foo.test.ts"
PROMPT = "Add a unit test for the parser"


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("recall-ts")


def test_json_output(cli_invoke: Callable[..., object], repo: Path) -> None:
    result = cli_invoke("recall", PROMPT, "--file", TEST_FILE, "--format", "json", "--repo", repo)
    doc = result.json()  # type: ignore[attr-defined]
    assert list(doc) == ["task_type", "tokens", "lessons"]
    assert doc["task_type"] == "code-gen"
    assert [lesson["name"] for lesson in doc["lessons"]] == ["testing"]
    assert list(doc["lessons"][0]) == ["name", "scope", "text", "tokens", "caution"]
    assert doc["tokens"] == doc["lessons"][0]["tokens"]


def test_text_and_claude_code_output(cli_invoke: Callable[..., object], repo: Path) -> None:
    text = cli_invoke("recall", PROMPT, "--file", TEST_FILE, "--repo", repo).stdout  # type: ignore[attr-defined]
    assert text.startswith(OPEN + "\n")
    assert text.endswith(CLOSE + "\n")
    assert "## testing (project lesson)" in text
    hook = cli_invoke("recall", PROMPT, "--file", TEST_FILE, "--format", "claude-code", "--repo", repo)
    doc = json.loads(hook.stdout)  # type: ignore[attr-defined]
    assert doc == {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}


def test_nothing_to_recall_prints_nothing_and_exits_0(cli_invoke: Callable[..., object], repo: Path) -> None:
    result = cli_invoke("recall", "Explain the architecture", "--repo", repo, "--task-type", "other")
    assert result.stdout == ""  # type: ignore[attr-defined]


def test_session_de_duplication_on_the_command_line(cli_invoke: Callable[..., object], repo: Path) -> None:
    args = ("recall", PROMPT, "--file", TEST_FILE, "--format", "json", "--session", "abc", "--repo", repo)
    assert [x["name"] for x in cli_invoke(*args).json()["lessons"]] == ["testing"]  # type: ignore[attr-defined]
    assert cli_invoke(*args).json()["lessons"] == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xml"], "--format"),
        (["--task-type", "chat"], "--task-type"),
        (["--budget", "0"], "--budget"),
        (["--budget", "lots"], "--budget"),
        (["--repo", "/nonexistent/dir"], "--repo"),
    ],
)
def test_usage_errors_exit_2_on_both_paths(
    cli_invoke: Callable[..., object],
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    args: list[str],
    message: str,
) -> None:
    full = ["recall", PROMPT, *args] if "--repo" in args else ["recall", PROMPT, "--repo", str(repo), *args]
    typer_result = cli_invoke(*full, expect=2)
    assert message in typer_result.stderr  # type: ignore[attr-defined]
    capsys.readouterr()
    assert entry_main(full) == 2
    assert message in capsys.readouterr().err


def _typer_options() -> set[str]:
    import typer.main

    from reasonlessons.cli import build_app

    group = typer.main.get_command(build_app())
    command = group.commands["recall"]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in param.opts if opt.startswith("--")} - {"--help"}


def test_typer_and_fast_path_accept_the_same_options() -> None:
    parser = recall.build_parser()
    fast = {opt for action in parser._actions for opt in action.option_strings if opt.startswith("--")}
    assert fast - {"--help"} == _typer_options()
    assert {flag for option in recall.OPTIONS for flag in option.flags} == _typer_options()


@pytest.mark.parametrize(
    "extra",
    [
        ["--format", "json"],
        ["--format", "claude-code", "--budget", "5"],
        ["--format=text", "--file=src/index.ts", "--cmd", "npx tsc"],
        ["--task-type", "exploration", "--format", "json"],
        ["--budget", "40", "--format", "json"],
    ],
)
def test_typer_and_fast_path_print_the_same_bytes(
    cli_invoke: Callable[..., object],
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    extra: list[str],
) -> None:
    args = ["recall", PROMPT, "--file", TEST_FILE, "--repo", str(repo), *extra]
    typer_out = cli_invoke(*args).stdout  # type: ignore[attr-defined]
    capsys.readouterr()
    assert entry_main(args) == 0
    assert capsys.readouterr().out == typer_out


def test_the_fast_path_falls_back_to_argparse_for_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert entry_main(["recall", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(opt in out for opt in _typer_options())


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def test_fast_path_in_a_subprocess_skips_typer(repo: Path) -> None:
    Locations.discover(repo).ensure_state_dir()  # a repository where a write command ran before
    assert entry_main(["recall", PROMPT, "--repo", str(repo), "--task-type", "code-gen"]) == 0  # index built
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reasonlessons", "recall", PROMPT, "--file", TEST_FILE,
         "--format", "json"],
        cwd=repo, env=_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert [x["name"] for x in json.loads(run.stdout)["lessons"]] == ["testing"]
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "import time:" in line}
    assert "reasonlessons.cli.fast.recall" in imported
    # The fast path lives in the cli package, but the Typer app and its command modules stay unloaded.
    assert not imported & {"typer", "click", "yaml", "frontmatter", "orjson", "reasonlessons.cli.app"}


def test_console_script_and_stdin_prompt(repo: Path) -> None:
    script = Path(sys.executable).parent / "reasonlessons"
    if not script.exists():
        pytest.skip("the console script is not installed next to this interpreter")
    run = subprocess.run(
        [str(script), "recall", "-", "--file", TEST_FILE, "--format", "json"],
        cwd=repo, env=_env(), input="Add a unit test for the parser\n" * 50_000,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert [x["name"] for x in json.loads(run.stdout)["lessons"]] == ["testing"]


def test_a_prompt_that_starts_with_a_dash_follows_double_dash(
    cli_invoke: Callable[..., object], capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    args = ["recall", "--repo", str(repo), "--file", TEST_FILE, "--format", "json", "--", "-v: add a test"]
    typer_out = cli_invoke(*args).stdout  # type: ignore[attr-defined]
    capsys.readouterr()
    assert entry_main(args) == 0
    assert capsys.readouterr().out == typer_out
    assert json.loads(typer_out)["task_type"] == "code-gen"


def test_json_is_format_json_as_every_command_spells_it(
    cli_invoke: Callable[..., object], capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    base = ["recall", PROMPT, "--file", TEST_FILE, "--repo", str(repo), "--task-type", "code-gen"]
    as_format = cli_invoke(*base, "--format", "json").stdout  # type: ignore[attr-defined]
    assert cli_invoke(*base, "--json").stdout == as_format  # type: ignore[attr-defined]
    capsys.readouterr()
    assert entry_main([*base, "--json"]) == 0  # the fast path too
    assert capsys.readouterr().out == as_format
    clash = cli_invoke(*base, "--json", "--format", "claude-code", expect=2)
    assert "--json is --format json" in clash.stderr  # type: ignore[attr-defined]
