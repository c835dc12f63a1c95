"""What the text of an Aider history says: the edits an answer proposes, the edits Aider refused,
token reports, and whether a command's outcome, told only in words, was a failure."""

from __future__ import annotations

import re
from typing import NamedTuple

from reasonlessons.sessions.events import Tokens, new_tokens

# aider/coders/editblock_coder.py: HEAD, DIVIDER and UPDATED allow 5 to 9 marker characters.
# The sides are taken a whole line at a time (a lazy `.*?` would try the next marker at every
# character of the code they hold).
_SR_BLOCK = re.compile(
    r"^<{5,9} SEARCH>?[ \t]*\n((?:[^\n]*\n)*?)={5,9}[ \t]*\n((?:[^\n]*\n)*?)>{5,9} REPLACE[ \t]*$",
    re.MULTILINE,
)
# The lines of a unified diff that start, end or name a hunk; the lines between them are sorted in C.
_UDIFF_MARK = re.compile(r"^(?:\+\+\+ |--- |```|@@)[^\n]*", re.MULTILINE)
_FENCE = "```"
_EDITS_MAX = 64
_TOKENS = re.compile(
    r"^Tokens: ([\d.]+[kM]?) sent(?:, ([\d.]+[kM]?) cache write)?(?:, ([\d.]+[kM]?) cache hit)?, "
    r"([\d.]+[kM]?) received"
)
_SR_FAILED = re.compile(
    r"SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$"
)
_UDIFF_PATH = re.compile(r"^(.+?) (?:does not contain lines that match|contains multiple sets of lines)")
_OLD_FAILED = re.compile(r"^Failed to apply edit to (.+)$")
# A user's message that says the last command failed: Aider's own "What's wrong? Fix" placeholder
# (offered after a `/run` that exited non-zero), or pasted error output.
_ASKS_FIX = re.compile(r"^\s*what'?s wrong\b", re.IGNORECASE)
_PASTED_ERROR = re.compile(
    r"(?:\b(?:error|exception|traceback|fatal|panicked)\b[^\n]{0,24}?[:\[(]|"
    r"\b[A-Z]\w*(?:Error|Exception)\b|\bFAILED\b|\bfailed\b|command not found|"
    r"exit(?:ed with)? (?:code|status) [1-9])",
    re.IGNORECASE,
)
_OUTPUT_ERROR = re.compile(
    r"(?im)^(?:fatal|error|usage|[\w.]*(?:Error|Exception))\b|command not found|"
    r"\bno such file or directory\b|^FAILED\b|\b\d+ failed\b|^Traceback \(most recent call last\)"
)


class Proposed(NamedTuple):
    """One edit an answer proposes: `before` is None when it gives the whole file."""

    path: str
    before: str | None
    after: str


def clean_path(name: str) -> str:
    """A file name as Aider prints it, without the decoration models put around it."""
    name = name.strip().rstrip(":").strip()
    name = name.strip("*").strip("`").strip('"').strip("'").strip()
    name = name.removeprefix("# ").removeprefix("#").strip()
    return name.removeprefix("./").replace("\\", "/")


def _filename(text: str, at: int, previous: str | None) -> str | None:
    """The file name on the lines just above a SEARCH marker (fences skipped), as Aider finds it."""
    above = text[max(0, at - 1000) : at].split("\n")[-4:-1]
    for line in reversed(above):
        line = line.strip()
        if not line or line.startswith(_FENCE):
            continue
        name = clean_path(line)
        if name and " " not in name and len(name) < 300:
            return name
        break
    return previous


def search_replace(text: str) -> list[Proposed]:
    """The SEARCH/REPLACE blocks of an answer (diff, editor-diff and architect formats)."""
    found: list[Proposed] = []
    path: str | None = None
    for block in _SR_BLOCK.finditer(text):
        path = _filename(text, block.start(), path)
        if path:
            found.append(Proposed(path, block.group(1) or None, block.group(2)))
            if len(found) >= _EDITS_MAX:
                break
    return found


def unified_diff(text: str) -> list[Proposed]:
    """The hunks of the unified diffs in an answer (udiff format), one edit per hunk."""
    found: list[Proposed] = []
    path: str | None = None
    hunk = False  # after an `@@` line, until a `---`, `+++` or fence line
    pos = 0
    for mark in _UDIFF_MARK.finditer(text):
        if hunk:  # whole lines, each ending with a newline
            body = text[pos : mark.start()]
            _hunk(found, path, body[:-1].split("\n") if body else [])
        line = mark.group()
        pos = mark.end() + 1
        hunk = line.startswith("@@")
        if line.startswith("+++ "):
            path = clean_path(line[4:].split("\t")[0].removeprefix("b/"))
    if hunk:  # the last lines of the text (an empty one after a last newline)
        _hunk(found, path, text[pos:].split("\n") if pos <= len(text) else [])
    return found


def _hunk(found: list[Proposed], path: str | None, lines: list[str]) -> None:
    """One hunk's lines: context lines (` ` or empty) are on both sides, `-` old, `+` new."""
    old = [line[1:] for line in lines if line[:1] in " -"]  # "" is in any string: a blank line
    new = [line[1:] for line in lines if line[:1] in " +"]
    if path and (old or new) and len(found) < _EDITS_MAX:
        found.append(Proposed(path, "\n".join(old) + "\n" if old else None, "\n".join(new) + "\n"))


def whole_files(text: str) -> list[Proposed]:
    """Fenced blocks under a file name line: whole files (whole and editor-whole formats)."""
    found: list[Proposed] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines) and len(found) < _EDITS_MAX:
        if lines[i].startswith(_FENCE) and i > 0 and lines[i - 1].strip():
            end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith(_FENCE)), None)
            if end is None:
                break
            name = clean_path(lines[i - 1])
            if name and " " not in name:
                found.append(Proposed(name, None, "\n".join(lines[i + 1 : end]) + "\n"))
            i = end + 1
            continue
        i += 1
    return found


def proposed_edits(text: str, edit_format: str) -> list[Proposed]:
    """Every edit an answer proposes, in the way its edit format writes them."""
    if "<<<<<<<" in text:
        return search_replace(text)
    if "@@" in text and "+++ " in text:
        return unified_diff(text)
    if "whole" in edit_format:
        return whole_files(text)
    return []


def failed_edits(message: str) -> list[tuple[str | None, str]]:
    """(file, what Aider said) for each edit it could not apply, from its error message."""
    lines = message.split("\n")
    starts = [
        i
        for i, line in enumerate(lines)
        if "SearchReplaceNoExactMatch" in line
        or line.startswith(("UnifiedDiffNoMatch", "UnifiedDiffNotUnique"))
    ]
    if not starts:
        old = _OLD_FAILED.match(lines[0])
        return [(clean_path(old.group(1)) if old else None, message)]
    sections: list[tuple[str | None, str]] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = [line for line in lines[start:end] if not line.startswith("# The other ")]
        path = None
        head = _SR_FAILED.search(lines[start])
        if head:
            path = clean_path(head.group(1))
        else:
            for line in body[1:6]:
                found = _UDIFF_PATH.match(line.strip())
                if found:
                    path = clean_path(found.group(1))
                    break
        sections.append((path, "\n".join(body).strip()))
    return sections


def _count(value: str | None) -> int:
    if not value:
        return 0
    scale = {"k": 1_000, "M": 1_000_000}.get(value[-1], 1)
    try:
        return round(float(value.rstrip("kM")) * scale)
    except ValueError:
        return 0


def tokens(message: str) -> Tokens | None:
    """A `Tokens: … sent, … received.` report; "sent" includes the cache writes, not the hits."""
    found = _TOKENS.match(message)
    if found is None:
        return None
    sent, write, hit, received = (_count(found.group(n)) for n in range(1, 5))
    return new_tokens(max(0, sent - write), received, hit, write)


_CODE_SPAN = re.compile(r"`([^`\n]{4,300})`")
_ERROR_LINE = re.compile(
    r"^ {0,4}((?:E |Error|[\w.]*(?:Error|Exception)\b|error(?:\[\w+\])?:|fatal:).{3,300})$", re.M
)
_ERRORISH = re.compile(r"Error|Exception|error\b|error\[|not found|failed|FAILED|fatal:|panicked")


def quoted_error(answer: str) -> str | None:
    """The error a model's answer quotes (a code span, else a line of pasted output)."""
    head = answer[:8000]
    span = next((m.group(1) for m in _CODE_SPAN.finditer(head) if _ERRORISH.search(m.group(1))), None)
    if span is None and (line := _ERROR_LINE.search(head)) is not None:
        span = line.group(1)
    return span.strip() if span else None


def asks_for_fix(text: str) -> bool:
    """The user accepted Aider's "What's wrong? Fix" after a failed `/run`."""
    return bool(_ASKS_FIX.match(text))


def reports_failure(text: str) -> bool:
    """A user's message right after a command that says it failed (pasted errors, "what's wrong")."""
    return asks_for_fix(text) or _PASTED_ERROR.search(text[:4000]) is not None


def output_failed(output: str) -> bool:
    """Command output in the history (older versions log it) that reads like a failure."""
    return _OUTPUT_ERROR.search(output[:8000]) is not None
