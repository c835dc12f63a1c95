from __future__ import annotations

import pytest

from reasonlessons.sessions.errorsig import (
    SIG_MAX,
    error_signature,
    exit_status_only,
    is_still_running,
    parse_codex_header,
    parse_exit_prefix,
    parse_process_exit,
    parse_reasonix_shell,
    reasonix_ok,
    specific_error,
)


def test_same_failure_on_different_files_compares_equal() -> None:
    a = error_signature("Error: ENOENT: no such file or directory, open '/home/a/proj/x.ts'")
    b = error_signature("Error: ENOENT: no such file or directory, open '/srv/other/y.tsx'")
    assert a == b == "Error: ENOENT: no such file or directory, open <str>"
    assert error_signature("src/a.py:12: error: bad") == error_signature("lib/b.py:7: error: bad")


def test_placeholders() -> None:
    text = (
        "failed 3f2a9c1e-0000-4000-8000-123456789abc at 0x7ffe1234 commit deadbeef12"
        " see https://x.io/a?b=1 in /tmp/run/out.log after 2.5s (12 tries)"
    )
    assert error_signature(text) == (
        "failed <uuid> at <hex> commit <hex> see <url> in <path> after <n>s (<n> tries)"
    )
    assert error_signature("C:\\Users\\me\\a.txt not found") == "<path> not found"
    assert error_signature("cannot open vitest.config.ts") == "cannot open <path>"


def test_picks_the_telling_line_and_collapses_whitespace() -> None:
    output = "\n> test\n> vitest run\n\nsh: 1: vitest:   not found\n"
    assert error_signature(output) == "sh: <n>: vitest: not found"
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/x/y.py", line 3, in <module>\n'
        "    import foo\n"
        "ModuleNotFoundError: No module named 'foo'\n"
    )
    assert error_signature(traceback) == "ModuleNotFoundError: No module named <str>"
    assert error_signature("all quiet\nnothing") == "all quiet"


def test_unwraps_json_errors_and_harness_tags() -> None:
    assert error_signature('{"error": "Error: EACCES: permission denied, open \'/a\'"}') == (
        "Error: EACCES: permission denied, open <str>"
    )
    assert error_signature("<tool_use_error>File has not been read yet.</tool_use_error>") == (
        "File has not been read yet."
    )
    assert error_signature("\x1b[31merror\x1b[0m: boom") == "error: boom"


def test_signature_is_capped_and_empty_is_none() -> None:
    sig = error_signature("error " + "word " * 200)
    assert sig is not None
    assert len(sig) == SIG_MAX
    assert error_signature("") is None
    assert error_signature("   \n\n") is None
    assert error_signature(None) is None


def test_reasonix_shell_header() -> None:
    failed = parse_reasonix_shell("$ npm test\n[exit 127]\n\nsh: 1: vitest: not found\n")
    assert failed is not None
    assert (failed.failed, failed.exit_code, failed.timed_out) == (True, 127, False)
    assert failed.command == "npm test"
    assert failed.body == "\nsh: 1: vitest: not found\n"

    ok = parse_reasonix_shell("$ ls\n[exit 0]\nREADME.md\n")
    assert ok is not None
    assert (ok.failed, ok.exit_code) == (False, 0)

    unknown = parse_reasonix_shell("$ x\n[exit ?]\n")
    assert unknown is not None
    assert (unknown.failed, unknown.exit_code) == (True, None)

    killed = parse_reasonix_shell("$ sleep 600\n[killed after timeout]\n")
    assert killed is not None
    assert (killed.failed, killed.timed_out, killed.exit_code) == (True, True, None)

    multiline = parse_reasonix_shell("$ python - <<EOF\nprint(1)\n[exit 0]\nEOF\n[exit 2]\n")
    assert multiline is not None
    assert multiline.command == "python - <<EOF\nprint(1)"
    assert multiline.exit_code == 0  # the first header line wins, as Reasonix writes it

    assert parse_reasonix_shell("no header") is None
    assert parse_reasonix_shell("$ echo\nno exit line") is None


def test_reasonix_shell_header_edges() -> None:
    last = parse_reasonix_shell("$ make\n[exit 2]")  # header on the last line, no newline after it
    assert last is not None
    assert (last.exit_code, last.body, last.command) == (2, "", "make")
    assert parse_reasonix_shell("$ x\n [exit 1]\n[exit 1] \n[exit 1]\r\n") is None  # not exactly a header
    assert parse_reasonix_shell("$ \n[exit 0]\n") == parse_reasonix_shell("$ \n[exit 0]\n")
    empty = parse_reasonix_shell("$ \n[exit 0]\n")
    assert empty is not None
    assert (empty.command, empty.body) == ("", "")


@pytest.mark.parametrize(
    ("output", "ok"),
    [
        ("ERROR: Access denied", False),
        ("[hook block] nope", False),
        ('{"error": "x"}', False),
        ('{"error" : "x"}', False),
        ("fine, but NeedsConfirmationError later", False),
        ("x ConfirmationError: y", False),
        ("$ npm test\n[exit 127]\n", True),
        ("all good", True),
        ('{"errors": []}', True),
    ],
)
def test_reasonix_ok_heuristic(output: str, ok: bool) -> None:
    assert reasonix_ok(output) is ok


def test_codex_headers() -> None:
    header = parse_codex_header("Exit code: 1\nWall time: 0.8 seconds\nOutput:\nnpm ERR! x\n")
    assert header is not None
    assert (header.failed, header.exit_code, header.body) == (True, 1, "npm ERR! x\n")
    lines = parse_codex_header("Exit code: 0\nWall time: 1 seconds\nTotal output lines: 3\nOutput:\na\n")
    assert lines is not None
    assert (lines.failed, lines.body) == (False, "a\n")
    assert parse_codex_header("Output:\nExit code: 1") is None

    exited = parse_process_exit("Chunk ID: 1\nProcess exited with code 2\nOutput:\nE boom\n")
    assert exited is not None
    assert (exited.failed, exited.exit_code) == (True, 2)
    assert parse_process_exit("Process running with session ID 7") is None
    assert is_still_running("Process running with session ID 7\nOutput:\n")
    assert not is_still_running("Process exited with code 0")


def test_exit_prefix() -> None:
    assert parse_exit_prefix("Exit code 1\nnpm ERR!") == 1
    assert parse_exit_prefix("Error: Exit code 127\n") == 127
    assert parse_exit_prefix("no code here") is None


def test_go_compile_errors_are_named_by_their_message_not_the_package_header() -> None:
    undefined = error_signature("# example.com/x\n./main.go:12:2: undefined: config.Load")
    assert undefined is not None
    assert "undefined: config.Load" in undefined
    unused = error_signature("# example.com/x/internal\ninternal/a.go:3:2: declared and not used: y")
    assert unused is not None
    assert "declared and not used" in unused
    assert error_signature("ReferenceError: foo is not defined") == "ReferenceError: foo is not defined"


def test_pytests_section_rules_are_headings_not_the_error() -> None:
    text = (
        "collected 5 items\n\n==================== FAILURES ====================\n"
        "____________ test_parse_date ____________\n\n>       assert parse_date(x) == y\n"
        "E       AssertionError: assert None == 3\n"
    )
    assert error_signature(text) == "E AssertionError: assert None == <n>"


def test_an_exit_status_alone_tells_nothing() -> None:
    for text in ("exit status 127", "error: exit status 1", "[exit 2]", "Exit code 1", "signal: killed"):
        assert exit_status_only(text), text
    assert not exit_status_only("bash: vitest: command not found")
    assert not exit_status_only("")
    # Reasonix v2: `err` is Go's exit status, the output says what happened.
    output = "error: exit status 127\nbash: vitest: command not found\n"
    assert specific_error("exit status 127", output) == "bash: vitest: command not found"
    assert specific_error("ENOENT: no such file", output) == "ENOENT: no such file"  # a real message wins
    assert specific_error("exit status 1", "") == "exit status 1"  # nothing better to say
    assert specific_error(None, None) == ""
    assert error_signature(output) == "bash: vitest: command not found"
    assert error_signature("exit status 2") == "exit status <n>"  # alone, it is still the signature
