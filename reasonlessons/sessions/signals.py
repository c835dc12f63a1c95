"""What a failure says: an environment/invocation problem, a stated rule, an error code, a telling line.

These decide which failures are worth a lesson. An invocation failure (`vitest: not found`, exit 127,
`Missing script`) means "this way of running it does not work here" — a fix by another command is a
lesson. A message that states a rule (`… need explicit file extensions … Did you mean './a.js'?`)
means a repo convention — a fix by an edit is a lesson. Test assertions and ordinary bugs are neither.
"""

from __future__ import annotations

import re

from reasonlessons.sessions.errorsig import error_signature

_INVOCATION = re.compile(
    r"command not found|: not found\b|not recognized as an internal or external command|"
    r"no such file or directory|cannot find module|module ?not ?found|no module named|"
    r"missing script|unknown (?:command|option|argument|flag|subcommand)|unrecognized (?:arguments?|option)|"
    r"no such (?:option|command)|invalid option|\benoent\b|\beacces\b|permission denied|"
    r"is not installed|not installed|could not find (?:a |an )?(?:executable|command|program|version)|"
    r"executable file not found|no tests? (?:ran|found|collected)|no test files? found|"
    r"unexpected argument|^usage:|could not determine executable|is not a (?:known|valid) (?:command|task)",
    re.IGNORECASE,
)
_NOT_FOUND_ONLY = re.compile(
    r"no such file or directory|\benoent\b|does not exist|not found|cannot find the (?:file|path)",
    re.IGNORECASE,
)
# "expected"/"missing" are left out on purpose: they also open most ordinary type and test errors.
_RULE = re.compile(
    r"\b(?:need|needs|must|required|requires|should|did you mean|not allowed|"
    r"outside (?:of )?(?:the )?allowed|only .{1,40} allowed|instead)\b",
    re.IGNORECASE,
)
_ASSERTION = re.compile(
    r"assert|expected .{0,60}(?:to |but |received)|toBe|toEqual|Received:|\bFAILED\b", re.IGNORECASE
)
_CODE = re.compile(r"\b(?:TS\d{4,5}|[A-Z]{1,4}\d{3,5}|[a-z]+(?:-[a-z]+)+(?=\]))\b")
# `src/a.ts(1,23): error TS2835:` / `a.py:3:1: F401` — where an error is, not what it says.
LOCATION = _LOCATION = re.compile(
    r"^[^\s:(]+?(?:\(\d+,\d+\)|:\d+(?::\d+)?):?\s*(?:-\s*)?(?:error|warning)?\s*:?\s*"
)
_PLACEHOLDER = re.compile(r"<(?:n|str|path|url|uuid|hex)>")
_LINE_CAP = 400
_SCAN_LINES = 400


def is_invocation_failure(sig: str | None, exit_code: int | None, error_kind: str | None) -> bool:
    """True when the command itself could not run as written (not found, bad option, timeout)."""
    if exit_code in (126, 127) or error_kind == "timeout":
        return True
    return bool(sig and _INVOCATION.search(sig))


# Unmistakable even deep inside other output (a test run that could not import its package).
_STRONG = re.compile(
    r"command not found|: not found$|no module named|cannot find module|missing script|"
    r"not recognized as an internal or external command|executable file not found",
    re.IGNORECASE | re.MULTILINE,
)


def invocation_line(text: str | None) -> str | None:
    """The first line of `text` (its head only) saying a command, module or script is missing."""
    if not text:
        return None
    head = text[:4000]
    match = _STRONG.search(head)
    if match is None:
        return None
    start = head.rfind("\n", 0, match.start()) + 1
    end = head.find("\n", match.end())
    line = head[start : end if end >= 0 else len(head)].strip()
    return re.sub(r"^E\s+", "", line)[:400] or None  # pytest marks error lines with `E`


def is_not_found(sig: str | None) -> bool:
    """True for a plain 'no such file' failure: usually the agent guessing a path, not a lesson."""
    return bool(sig and _NOT_FOUND_ONLY.search(sig))


def states_rule(text: str | None) -> bool:
    """True when an error message states a requirement or suggests the fix (and is no assertion)."""
    return bool(text and _RULE.search(text) and not _ASSERTION.search(text))


def short(line: str, limit: int = 48) -> str:
    """The head of an error line: `ERROR:`/`sh: 1:` prefixes dropped, cut before details."""
    text = _LOCATION.sub("", line.strip())
    text = re.sub(
        r"^(?:(?:\S*/)?(?:error|fatal|err!|sh|bash|zsh)\b:?\s*(?:line )?\d*:?\s*)+", "", text, flags=re.I
    )
    if len(text) <= limit:
        return text
    head = text.split(": ", 1)[0] if ": " in text[12:] else text
    if len(head) <= limit:
        return head
    return head[:limit].rsplit(" ", 1)[0]


# A compiler's or tool's own proposal of the fix, on a line of its own.
_SUGGESTION = re.compile(
    r"^[ \t=]*(?:help|hint): (.+)$|"
    r"\b(?:did you mean|perhaps you meant|consider (?:importing|using|adding))\b.*$",
    re.IGNORECASE | re.MULTILINE,
)


def suggestion(text: str | None) -> str | None:
    """The first line of `text` (its head) where the tool proposes a fix: `help: consider importing
    one of these functions`, `Did you mean 'x'?`."""
    if not text:
        return None
    found = _SUGGESTION.search(text[:4000])
    return found.group(0).strip()[:_LINE_CAP] if found else None


def error_code(text: str | None) -> str | None:
    """A tool's error code in the text: `TS2835`, `E0432`, `F401`, or a bracketed `[no-untyped-def]`."""
    if not text:
        return None
    match = _CODE.search(text)
    return match.group(0) if match else None


def telling_line(text: str | None, sig: str | None) -> str | None:
    """The original line of `text` whose signature is `sig` (what a human would quote), trimmed."""
    if not text or not sig:
        return None
    # Only lines holding the signature's longest literal piece can have produced it.
    piece = max((p.strip() for p in _PLACEHOLDER.split(sig)), key=len)
    lines = [line.strip() for line in text.splitlines()[:_SCAN_LINES] if piece in line]
    for line in lines:
        if error_signature(line) == sig:
            return line[:_LINE_CAP]
    return lines[0][:_LINE_CAP] if lines else None


def phrase(sig: str | None, *, words: int = 6) -> str:
    """The readable core of a signature: placeholders and punctuation dropped, a few words kept."""
    if not sig:
        return ""
    text = _PLACEHOLDER.sub(" ", sig)
    text = re.sub(r"^(?:error|fatal|err!?|sh|bash|zsh)\b\W*", "", text.strip(), flags=re.IGNORECASE)
    tokens = re.findall(r"[A-Za-z][A-Za-z0-9_.'-]*", text)
    return " ".join(tokens[:words])
