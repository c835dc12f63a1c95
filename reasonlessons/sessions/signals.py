"""What a failure says: an environment/invocation problem, a stated rule, an error code, a telling line.

These decide which failures are worth a lesson. An invocation failure (`vitest: not found`, exit 127,
`Missing script`) means "this way of running it does not work here" — a fix by another command is a
lesson. A message that states a rule (`… need explicit file extensions … Did you mean './a.js'?`)
means a repo convention — a fix by an edit is a lesson. Test assertions and ordinary bugs are neither.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
    return _invocation_sig(sig) if sig else False


@lru_cache(maxsize=1024)  # once per failed result of every log: a session repeats its few signatures
def _invocation_sig(sig: str) -> bool:
    return _INVOCATION.search(sig) is not None


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


_PROGRAM_PREFIX = re.compile(r"^[a-z][a-z0-9_.-]{0,11}: (?=\S)")


def short(line: str, limit: int = 48) -> str:
    """The head of an error line: `ERROR:`/`sh: 1:` prefixes dropped, cut before details."""
    text = _LOCATION.sub("", line.strip())
    text = re.sub(
        r"^(?:(?:\S*/)?(?:error|fatal|err!|sh|bash|zsh)\b:?\s*(?:line )?\d*:?\s*)+", "", text, flags=re.I
    )
    # A Claude Code hook's refusal: the message is what the hook said (`PreToolUse:Bash hook error: [x]: …`).
    text = re.sub(r"^\w+(?::\w+)? hook error:\s*(?:\[[^\]\n]{0,200}\]:?\s*)?", "", text)
    if len(text) <= limit:
        return text
    head = text.split(": ", 1)[0] if ": " in text[12:] else text
    if _PROGRAM_PREFIX.match(text) and " " not in head:  # `go: failed to …: …`: a program is no head
        return short(_PROGRAM_PREFIX.sub("", text), limit)
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
    # Signatures collapse runs of spaces (`4:7  error  'x' is …`): compare lines collapsed too.
    lines = [
        _undecorated(line) for line in text.splitlines()[:_SCAN_LINES] if piece in " ".join(line.split())
    ]
    for line in lines:
        if error_signature(line) == sig:
            return line[:_LINE_CAP]
    return lines[0][:_LINE_CAP] if lines else None


# Box drawing, bullets and a linter's category marker before the message (`┃ [D] ↘ Nested …`).
_DECORATION = re.compile(r"^[\s\u2500-\u257f\u2190-\u21ff|>*\u2022\u00b7-]*(?:\[[A-Z]\][\s\u2190-\u21ff]+)?")


def _undecorated(line: str) -> str:
    return _DECORATION.sub("", line.strip()).strip() or line.strip()


def phrase(sig: str | None, *, words: int = 6) -> str:
    """The readable core of a signature: placeholders and punctuation dropped, a few words kept."""
    if not sig:
        return ""
    text = _undecorated(_PLACEHOLDER.sub(" ", sig))
    text = re.sub(r"^(?:error|fatal|err!?|sh|bash|zsh)\b\W*", "", text.strip(), flags=re.IGNORECASE)
    tokens = re.findall(r"[A-Za-z][A-Za-z0-9_.'-]*", text)
    return " ".join(tokens[:words])


def unescaped(text: str) -> str:
    """Text whose lines came through as literal `\\n` escapes (a hook's message quoted as JSON) with
    real line breaks again; other text unchanged."""
    if "\\n" not in text[:4000]:
        return text
    return text.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "\t")


_PROGRAMS = (
    r"mix|npm|npx|pnpm|yarn|bun|bunx|deno|node|go|cargo|rustup|pip3?|uv|uvx|poetry|pipenv|pdm|python3?|"
    r"pytest|ruff|black|mypy|bundle|rails|rake|make|just|mise|task|dotnet|composer|php|gradle|mvn|"
    r"alembic|prisma|docker|terraform|brew|apt|apt-get|git|gofmt|rustfmt|prettier|eslint|tsc"
)
_OPEN = "[`'\"\u201c\u2018]"
_CLOSE = "[`'\"\u201d\u2019]"
# `Run 'mix format' to fix`, `did you mean "npm run test"?`, `try \`cargo update\``, `use "uv run"`.
_QUOTED_SUGGESTION = re.compile(
    r"\b(?:run|running|use|try|execute|did you mean|consider(?: running| using)?|please run|"
    r"(?:you )?(?:may|might|should|need to|must|can) (?:run|use))\b:?\s*"
    + _OPEN
    + r"([^`'\"\u201d\u2019\n]{2,100})"
    + _CLOSE,
    re.IGNORECASE,
)
# `go: updates to go.mod needed; to update it:\n\tgo mod tidy`, `run mix deps.get to fetch them`.
_BARE_SUGGESTION = re.compile(
    r"(?:\bto (?:fix|update|add|install|resolve|regenerate|fetch)\b[^\n:]{0,40}:\s*\n?\s*|"
    r"\b(?:run|try(?: running| to run)?)\s+)"
    r"((?:"
    + _PROGRAMS
    + r")(?: [^\s;,'\"`()<>]+){1,6}?)(?=\s+(?:to|first|before|and|then|again)\b|[.;,]?\s*$|\s*\()",
    re.IGNORECASE | re.MULTILINE,
)
# `Use bun instead (e.g. \`bun test\`, \`bun install\`)`, `use uv instead: \`uv run pytest\``: the
# commands given as examples of what to use instead.
_EXAMPLE_SUGGESTION = re.compile(
    r"\b(?:instead|e\.g\.|for example|such as)\b[^`\n]{0,24}?`([^`\n]{2,100})`", re.IGNORECASE
)
_PROGRAM_WORD = re.compile(r"^(?:" + _PROGRAMS + r")$")
# A word every suggestion pattern above needs (lower case).
_SUGGESTION_WORDS = (
    "run", "use", "try", "execute", "did you mean", "consider", "to fix", "to update", "to add",
    "to install", "to resolve", "to regen", "to fetch", "instead", "e.g.", "for example", "such as",
)  # fmt: skip


def suggestions(text: str | None) -> list[str]:
    """The commands an error message tells the reader to run, in order (at most 3)."""
    return list(_suggestions(text[:8000])) if text else []


@lru_cache(maxsize=256)  # the same failure text comes back with every retry
def _suggestions(text: str) -> tuple[str, ...]:
    head = unescaped(text)
    lowered = head.lower()
    if not any(word in lowered for word in _SUGGESTION_WORDS):
        return ()  # most failures suggest nothing: skip the regexes, which cost more than this
    found: list[str] = []
    for pattern in (_QUOTED_SUGGESTION, _BARE_SUGGESTION, _EXAMPLE_SUGGESTION):
        for match in pattern.finditer(head):
            command = " ".join(match.group(1).split()).rstrip(".")
            if _PROGRAM_WORD.match(command.split(" ", 1)[0]) and command not in found:
                found.append(command)
    return tuple(found[:3])


_TAG = re.compile(r"\[([A-Z][A-Z0-9_ -]{2,24})\]")
_HOOK_FAILED = re.compile(
    r"^([\w][\w .:/-]{1,60}?)\s*\.{3,}\s*(?:\(no files to check\))?\s*Failed\s*$", re.MULTILINE
)


def check_names(text: str | None) -> list[str]:
    """The checks a rejection names: `[FORMAT]`/`[DIALYZER]` tags, pre-commit hooks that `Failed`."""
    if not text:
        return []
    head = unescaped(text[:8000])
    names = [m.group(1).strip() for m in _TAG.finditer(head)]
    names += [m.group(1).strip() for m in _HOOK_FAILED.finditer(head)]
    return list(dict.fromkeys(names))[:6]


# A pipeline's exit code is its last command's: `mix test 2>&1 | tail -5` "passes" whatever the tests
# did, and so does `cmd || true`. Only a failure the output states beyond doubt is believed.
_MASKED = re.compile(
    r"\|\s*(?:tail|head|grep|egrep|tee|less|more|cat|sed|awk|cut|sort)\b|\|\|\s*(?:true|echo|:)|;\s*echo\b"
)
_TEST_FAILED = re.compile(
    r"^.*?(?<![\w.])(?:[1-9]\d*) (?:tests? )?(?:failed|failures?)\b.*$|^(?:FAIL|FAILED|--- FAIL)\b.*$|"
    r"^.*test result: FAILED.*$",
    re.MULTILINE,
)
_BUILD_FAILED = re.compile(
    r"^.*(?:error TS\d{4}|npm ERR!|error\[E\d{4}\]|Build failed|BUILD FAILED|ERROR in |\u2718 \[ERROR\]).*$|"
    r"^(?:\w+)?(?:Type|Reference|Syntax|Range)Error: .*$|^error: .*$|^\*\* \(\w+(?:\.\w+)*Error\) .*$",
    re.MULTILINE,
)


def masked_failure(command: str, category: str | None, text: str | None) -> str | None:
    """The line saying a check failed when the command line hid its exit code (`| tail`), or None."""
    if not text or not category or not _MASKED.search(command):
        return None
    found = (_TEST_FAILED if category == "test" else _BUILD_FAILED).search(text[-8000:])
    return found.group(0).strip()[:_LINE_CAP] if found else None
