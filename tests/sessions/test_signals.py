from __future__ import annotations

import pytest

from reasonlessons.sessions import signals
from reasonlessons.sessions.edits import changed_region
from reasonlessons.sessions.errorsig import error_signature
from reasonlessons.sessions.signals import (
    check_names,
    masked_failure,
    phrase,
    short,
    suggestions,
    telling_line,
    unescaped,
)

HOOK = r"Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\nRun 'mix format' to fix.\n\nDone."


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        (HOOK, ["mix format"]),
        ("go: updates to go.mod needed; to update it:\n\tgo mod tidy", ["go mod tidy"]),
        ('* jason (Hex package)\n  the dependency is not available, run "mix deps.get"', ["mix deps.get"]),
        ("The lockfile is out of date. Run `poetry lock` to fix it.", ["poetry lock"]),
        ("Error: Cannot find module 'x'. Try running npm install.", ["npm install"]),
        ("warning: run `cargo update` first", ["cargo update"]),
        (
            "To push the branch and set the remote as upstream, use\n\n    git push --set-upstream origin x",
            [],
        ),
        ("hint: Use -f if you really want to add them.", []),
        ("assert 'run `foo` here' == 'x'", []),  # not a command a reader is told to run
    ],
)
def test_suggestions_are_the_commands_an_error_tells_the_reader_to_run(
    text: str, commands: list[str]
) -> None:
    assert suggestions(text) == commands


def test_check_names_and_escaped_lines() -> None:
    assert check_names(HOOK) == ["FORMAT"]
    assert check_names("black....................Failed\n- hook id: black\nruff.........Passed") == ["black"]
    assert unescaped(HOOK).splitlines()[2] == "[FORMAT] Code is not formatted."
    assert unescaped("plain\ntext") == "plain\ntext"


TYPE_ERROR = "TypeError: Cannot read properties of undefined (reading 'map')"
TS2304 = "src/a.ts(3,1): error TS2304: Cannot find name 'x'."


@pytest.mark.parametrize(
    ("command", "category", "output", "line"),
    [
        ("mix test 2>&1 | tail -5", "test", "Finished in 0.4s\n8 tests, 1 failure", "8 tests, 1 failure"),
        ("mix test 2>&1 | tail -5", "test", "8 tests, 0 failures", None),
        ("mix test | tail", "test", "10:01 [error] logged on purpose\n8 tests, 0 failures", None),
        ("npx vitest run | tail", "test", " Tests  1 failed | 2 passed", "Tests  1 failed | 2 passed"),
        ("go test ./... 2>&1 | tail", "test", "--- FAIL: TestX (0.00s)\nFAIL", "--- FAIL: TestX (0.00s)"),
        ("npm run build 2>&1 | tail -20", "build", f"> vite build\n{TYPE_ERROR}", TYPE_ERROR),
        ("npm run build || true", "build", TS2304, TS2304),
        ("mix test", "test", "8 tests, 1 failure", None),  # no pipe: the exit code tells
        ("git log | head", None, "1 failed attempt", None),
    ],
)  # fmt: skip
def test_a_failure_a_pipe_hid_is_read_from_the_output(
    command: str, category: str | None, output: str, line: str | None
) -> None:
    assert masked_failure(command, category, output) == line


def test_a_linters_finding_is_the_telling_line_not_its_decoration() -> None:
    output = (
        "Exit code 2\nChecking 3 source files ...\n\n  Software Design\n┃ \n"
        "┃ [D] ↘ Nested modules could be aliased at the top of the invoking module.\n"
        "┃       lib/a.ex:135:5 #(A.check)\n\nPlease report incorrect results: https://example.com\n"
    )
    sig = error_signature(output)
    assert sig is not None
    assert telling_line(output, sig) == "Nested modules could be aliased at the top of the invoking module."
    assert phrase(sig, words=3) == "Nested modules could"


def test_the_telling_line_is_found_when_its_spaces_were_collapsed_in_the_signature() -> None:
    finding = "  4:7  error  'unused' is assigned a value but never used  @x/y"
    text = f"✖ eslint --fix:\n\nweb/src/date.ts\n{finding}\n"
    line = telling_line(text, error_signature(text))
    assert line == "4:7  error  'unused' is assigned a value but never used  @x/y"


def test_a_short_head_is_the_message_not_the_program_that_printed_it() -> None:
    long = "go: failed to initialize build cache at go-build: mkdir go-build: permission denied"
    assert short(long) == "failed to initialize build cache at go-build"
    assert short("pytest: command not found") == "pytest: command not found"  # short: kept whole
    typeerror = "TypeError: Cannot read properties of undefined (reading 'map') at renderList"
    assert short(typeerror) == "TypeError: Cannot read properties of undefined"  # not a program


def test_a_hooks_refusal_is_shortened_to_what_the_hook_said() -> None:
    said = "PreToolUse:Bash hook error: [~/.claude/hooks/bun.sh]: npm is not used here. Use bun instead."
    assert short(said) == "npm is not used here. Use bun instead."
    assert suggestions(said + " (e.g. `bun test`, `bun install`)") == ["bun test"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "error[E0425]: cannot find function `sleep` in this scope\n  |\nhelp: consider importing one of "
            "these functions\n  |\n1 + use std::thread::sleep;",
            "help: consider importing one of these functions",
        ),
        ("NameError: name 'lenght' is not defined. Did you mean: 'length'?", "Did you mean: 'length'?"),
        ("  = help: the trait `Send` is not implemented", "= help: the trait `Send` is not implemented"),
        ("AssertionError: assert 1 == 2", None),
        ("", None),
    ],
)
def test_a_suggested_fix_is_found_on_its_line(text: str, expected: str | None) -> None:
    assert signals.suggestion(text) == expected


def test_a_single_added_or_removed_line_is_a_changed_region() -> None:
    before = "use std::io;\nuse std::time::Duration;\n"
    after = "use std::io;\nuse std::thread::sleep;\nuse std::time::Duration;\n" + " " * 80
    assert changed_region(before, after) == ("", "use std::thread::sleep;")
    assert changed_region(after, before) == ("use std::thread::sleep;", "")
    assert changed_region("a\nb\nc\n" + "x" * 90, "a\nd\ne\n" + "x" * 90) is None
