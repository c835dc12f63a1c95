"""Error signatures and the shell-result headers the agents write (docs/log-formats.md#failures)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from reasonlessons.support import jsonio

SIG_MAX = 200

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TAGS = re.compile(r"</?(tool_use_error|error)>")
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"`<>]+")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|‘[^’\n]*’|“[^”\n]*”")
_PATH = re.compile(
    r"(?:[A-Za-z]:\\|\\\\|~/|\.{1,2}/|/)[^\s'\"`,;()\[\]{}<>|]*"  # absolute, home, ./ or drive
    r"|\b[\w@.+-]+(?:/[\w@.+-]+)+/?"  # relative with a slash
    r"|\b[\w.-]+\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|json|ya?ml|toml|md|txt|cfg|ini|lock|go|rs"
    r"|java|kt|c|h|cc|cpp|hpp|cs|rb|php|sh|css|scss|html|vue|svelte|sql|xml|gradle)\b"
)
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*")
_SPACE = re.compile(r"\s+")
_ERROR_LINE = re.compile(
    r"error|exception|fail|fatal|denied|not found|no such|cannot|can't|unable|invalid|refus"
    r"|panic|enoent|eacces|timed? ?out|killed|traceback|not allowed|permission|missing"
    r"|\bundefined:|\bundeclared\b|\bnot defined\b",  # Go's `undefined: x`, JS's `x is not defined`
    re.IGNORECASE,
)
_PY_EXC = re.compile(r"^[\w.]*(Error|Exception|Exit|Interrupt)\b")
# A line that only says how a process ended (Go's `exit status 127`, `[exit 1]`, `Exit code 2`, ...):
# true of every failure, so it never tells one failure from another.
_EXIT_ONLY = re.compile(
    r"(?:error:\s*)?(?:exit (?:status|code):? -?\d+|\[exit (?:-?\d+|\?)\]"
    r"|(?:process )?exited with (?:code|status) -?\d+|command failed(?: with exit code -?\d+)?"
    r"|signal: [\w ]+)\.?",
    re.IGNORECASE,
)

_V1_EXIT = re.compile(r"^\[exit (\d+|\?)\]$")
_V1_KILLED = "[killed after timeout]"
_V1_NOT_OK = re.compile(r'^(ERROR:|\[hook block\]|\{"error"\s*:)')
_CODEX_HEADER = re.compile(
    r"^Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?(?:Total output lines: \d+\n)?Output:\n?"
)
_PROCESS_EXITED = re.compile(r"Process exited with code (-?\d+)")
_PROCESS_RUNNING = re.compile(r"Process running with session ID (\d+)")
_UNIFIED_BODY = re.compile(r"^Output:\n?", re.MULTILINE)
_EXIT_PREFIX = re.compile(r"^(?:Error: )?Exit code:? (-?\d+)\b")


@dataclass(frozen=True, slots=True)
class ShellOutcome:
    """What a shell tool's result header says: the exit code (None if unknown) and the rest."""

    failed: bool
    exit_code: int | None
    timed_out: bool
    body: str
    command: str | None = None


def error_signature(text: str | None) -> str | None:
    """Reduce error text to a stable signature: the telling line, with variable parts replaced."""
    if not text:
        return None
    line = _pick_error_line(_TAGS.sub("", _ANSI.sub("", _unwrap_json_error(text))))
    if not line:
        return None
    sig = _UUID.sub("<uuid>", line[: SIG_MAX * 10])  # bounds the work on megabyte-long lines
    sig = _URL.sub("<url>", sig)
    sig = _QUOTED.sub("<str>", sig)
    sig = _PATH.sub("<path>", sig)
    sig = _HEX.sub("<hex>", sig)
    sig = _NUMBER.sub("<n>", sig)
    sig = _SPACE.sub(" ", sig).strip()
    return sig[:SIG_MAX] or None


def _unwrap_json_error(text: str) -> str:
    # Tools that answer `{"error": "..."}` keep the message inside a JSON string.
    if not text.lstrip().startswith("{") or len(text) > 64 * 1024:
        return text
    try:
        data = jsonio.loads(text)
    except ValueError:
        return text
    message = data.get("error") if isinstance(data, dict) else None
    if isinstance(message, dict):
        message = message.get("message")
    return message if isinstance(message, str) else text


def exit_status_only(text: str | None) -> bool:
    """True when `text` only says how a process ended, e.g. Reasonix v2's `err: "exit status 127"`."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return bool(lines) and all(_EXIT_ONLY.fullmatch(line) for line in lines)


def specific_error(err: str | None, output: str | None) -> str:
    """The text that says what went wrong with a failed call: `err`, unless it is empty or only an
    exit status; then the output without such lines (`bash: vitest: command not found` rather than
    `exit status 127`), falling back to whatever there is."""
    if err and err.strip() and not exit_status_only(err):
        return err
    lines = (output or "").splitlines()
    told = "\n".join(line for line in lines if not _EXIT_ONLY.fullmatch(line.strip())).strip()
    return told or err or output or ""


def _pick_error_line(text: str) -> str | None:
    every = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in every if not _EXIT_ONLY.fullmatch(line)] or every
    if not lines:
        return None
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        # A Python traceback names the failure on its last exception line.
        for line in reversed(lines):
            if _PY_EXC.match(line):
                return line
    for line in lines:
        if _ERROR_LINE.search(line) and not _BANNER.match(line):
            return line
    return _message_line(lines)


# pytest's section rules (`==== FAILURES ====`, `____ test_x ____`): headings, not the error.
_BANNER = re.compile(r"^[=_*-]{3,}[^=_*]*[=_*-]{3,}$")


# `lib/a.ex:135:5`, `┃       src/a.ts:3` — where a linter's finding is; the line before says what.
_LOCATION_LINE = re.compile(r"^[^\w./~-]*[\w./~-]+\.\w{1,6}:\d+(?::\d+)?(?:\s|$|:)")
_PROGRESS = re.compile(
    r"^(?:Exit code:? -?\d+|Checking \d+|Compiling|Generated |Running |Finished |Analysis took|"
    r"Please report|==>|\$ |# [\w./@-]+$)",  # `# example.com/pkg`: the package Go's errors follow
    re.IGNORECASE,
)


def _message_line(lines: list[str]) -> str:
    """With no line saying error: a finding placed by the location line after it, else the first
    line that is not a header or progress (`Exit code 2`, `Checking 3 source files ...`)."""
    for before, line in zip(lines, lines[1:], strict=False):
        if (
            _LOCATION_LINE.match(line)
            and not _LOCATION_LINE.match(before)
            and not _PROGRESS.match(before)
            and re.search(r"[A-Za-z]{3}", before)
        ):
            return before
    return next((line for line in lines if not _PROGRESS.match(line)), lines[0])


def reasonix_ok(output: str) -> bool:
    """Reasonix v1's own `ok` heuristic for a tool output (docs/log-formats.md#v1-tool-results)."""
    return not (
        _V1_NOT_OK.match(output) or "ConfirmationError:" in output or "NeedsConfirmationError" in output
    )


def parse_reasonix_shell(output: str) -> ShellOutcome | None:
    """Parse a Reasonix `$ cmd` / `[exit N]` result header; None when the output has none."""
    if not output.startswith("$ "):
        return None
    # Walk the lines by offset: the header is usually the second line of a long output.
    start = output.find("\n") + 1
    while start:
        end = output.find("\n", start)
        line = output[start:end] if end >= 0 else output[start:]
        match = _V1_EXIT.match(line) if line.startswith("[exit ") else None
        if match is not None or line == _V1_KILLED:
            command = output[2 : start - 1]
            body = output[end + 1 :] if end >= 0 else ""
            if match is None:
                return ShellOutcome(True, None, True, body, command)
            code = None if match.group(1) == "?" else int(match.group(1))
            return ShellOutcome(code != 0, code, False, body, command)
        start = end + 1
    return None


def parse_codex_header(output: str) -> ShellOutcome | None:
    """Parse Codex's `Exit code: N` / `Wall time` / `Output:` header; None when absent."""
    match = _CODEX_HEADER.match(output)
    if match is None:
        return None
    code = int(match.group(1))
    return ShellOutcome(code != 0, code, False, output[match.end() :])


def parse_process_exit(output: str) -> ShellOutcome | None:
    """Parse `Process exited with code N` (Codex exec_command); None if absent or still running."""
    match = _PROCESS_EXITED.search(output)
    if match is None:
        return None
    code = int(match.group(1))
    body = unified_exec(output)[2] if match.start() < 600 else output
    return ShellOutcome(code != 0, code, False, body)


def unified_exec(output: str) -> tuple[int | None, int | None, str]:
    """(session id while still running, exit code once exited, the output after the header) of a
    Codex unified exec answer: `Chunk ID`, `Wall time`, `Process running with session ID N` or
    `Process exited with code N`, `Original token count`, then `Output:` and the text."""
    head = output[:600]
    running = _PROCESS_RUNNING.search(head)
    exited = _PROCESS_EXITED.search(head)
    body = _UNIFIED_BODY.search(output)
    text = output[body.end() :] if body is not None and (running or exited) else output
    return (
        int(running.group(1)) if running and not exited else None,
        int(exited.group(1)) if exited else None,
        text,
    )


def is_still_running(output: str) -> bool:
    """True for exec_command output saying the process is still running (no outcome yet)."""
    return _PROCESS_RUNNING.search(output) is not None and _PROCESS_EXITED.search(output) is None


def parse_exit_prefix(output: str) -> int | None:
    """The N of an `Exit code N` first line (Claude Code Bash errors), else None."""
    match = _EXIT_PREFIX.match(output)
    return int(match.group(1)) if match else None
