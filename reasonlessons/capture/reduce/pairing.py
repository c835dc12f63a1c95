"""When a later call fixes an earlier failure, and which failures reflect a repo convention."""

from __future__ import annotations

import re

from reasonlessons.capture.reduce.observations import Call, Failure
from reasonlessons.sessions import signals
from reasonlessons.sessions.shell import Invocation

WINDOW = 12  # a fix must come within this many calls of the failure
ARGS_WINDOW = 6
# Commands that look around rather than do something: their failures teach nothing.
_EXPLORATION = frozenset(
    {
        "ls", "cat", "head", "tail", "grep", "rg", "ag", "find", "fd", "tree", "echo", "pwd", "which",
        "whereis", "type", "wc", "sed", "awk", "file", "stat", "du", "df", "git", "less", "more", "diff",
        "sort", "uniq", "cut", "tr", "xargs", "curl", "wget", "open", "env", "printenv", "man",
    }
)  # fmt: skip
# Tools whose failures with other arguments are just other requests (another file, URL or task).
_NO_ARGS_FIX = frozenset(
    {
        "read", "write", "edit", "Glob", "Grep", "LS", "glob", "grep", "ls", "list_dir", "WebFetch",
        "WebSearch", "web_fetch", "web_search", "fetch", "TodoWrite", "Task", "NotebookEdit",
        "NotebookRead", "search_files",
    }
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z0-9_]+")


def command_fix(failure: Failure, call: Call, calls_since: int) -> bool:
    """A command that could not run as written, then a similar command that worked: do B, not A."""
    failed, fix = failure.call.invocation, call.invocation
    if failed is None or fix is None or failed.text == fix.text or calls_since > WINDOW:
        return False
    if failed.tool in _EXPLORATION or fix.tool in _EXPLORATION or not failure.invocation:
        return False
    if failed.base == fix.base and not _changes_how_it_runs(failed, fix):
        return False  # the same command on fewer files passing says nothing about how to run it
    if failed.category and failed.category == fix.category:
        return True
    return failed.tool == fix.tool or _jaccard(_stems(failed), _stems(fix)) >= 0.5


def workdir_fix(failure: Failure, call: Call) -> bool:
    """The same command, failed in one directory, passed in another: it must run there."""
    failed, fix = failure.call.invocation, call.invocation
    if failed is None or fix is None or failed.workdir == fix.workdir or failed.argv != fix.argv:
        return False
    return fix.workdir is not None and failed.tool not in _EXPLORATION and failure.error_kind != "permission"


def args_fix(failure: Failure, call: Call, calls_since: int) -> bool:
    """A non-file tool refused with a stated rule, then the same tool worked with other arguments."""
    return (
        call.invocation is None
        and failure.call.tool == call.tool
        and call.tool not in _NO_ARGS_FIX
        and failure.error_kind == "tool"
        and calls_since <= ARGS_WINDOW
        and not signals.is_not_found(failure.sig)
        and signals.states_rule(failure.line or failure.sig)
    )


def convention(failure: Failure) -> bool:
    """An error that reflects a repo convention: a stated rule, a linter rule with its code, or a
    coded error whose output proposes the fix.

    Test failures only count with an import/module message or a tool error code: a failing
    assertion fixed by an edit is a bug fix, not a lesson.
    """
    inv = failure.call.invocation
    line = failure.line or failure.sig
    category = inv.category if inv is not None else None
    coded = signals.error_code(line) is not None
    if category == "test" and not (coded or re.search(r"\bimport|\bmodule", line, re.IGNORECASE)):
        return False
    if coded and category != "test" and signals.suggestion(failure.excerpt):
        return True  # a compiler error that names its fix (`help: consider importing ...`)
    # A linter's finding is the repository's convention, coded or not (`mix credo --strict`:
    # "Nested modules could be aliased at the top of the invoking module").
    return signals.states_rule(line) or category == "lint"


def _changes_how_it_runs(failed: Invocation, fix: Invocation) -> bool:
    """True when the working variant adds or drops an option or environment, not just paths."""
    before, after = set(failed.argv) | set(failed.env), set(fix.argv) | set(fix.env)
    return any(word.startswith("-") or "=" in word for word in before ^ after)


def _stems(inv: Invocation) -> set[str]:
    words: set[str] = set()
    for word in inv.argv:
        if word.startswith("-"):
            continue
        stem = word.rsplit("/", 1)[-1].split(".", 1)[0]
        # `python3` and `python` are the same tool for this comparison.
        words.update(re.sub(r"[\d.]+$", "", w.lower()) or w.lower() for w in _WORD.findall(stem))
    return words


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0
