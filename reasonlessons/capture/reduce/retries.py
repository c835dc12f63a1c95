"""Retries: the same call failing the same way again and again (loops), and failures whose message
named the command that fixed them (suggested fixes).

A loop is counted by what was retried (`git commit`, whatever its message; `npm run build`; a tool and
its arguments) and the error's signature, so a commit rejected five times by the same check is one
loop however its message changed, `--no-verify` included. Failures that are the point of the work
(a test's assertion while fixing a bug) and exploration are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reasonlessons.capture.reduce.observations import Call, Failure, Loop, Step, SuggestedFix
from reasonlessons.sessions import signals
from reasonlessons.sessions.commands import command_form, git_subcommand
from reasonlessons.sessions.shell import Invocation, parse

LOOP_MIN = 3
_LOOPS_MAX = 256
_SUGGESTIONS_MAX = 8
_WINDOW = 12  # calls within which a suggestion must be followed, and the command re-run
_EXPLORATION_TOOLS = frozenset(
    {"read", "Glob", "Grep", "LS", "glob", "grep", "ls", "WebFetch", "WebSearch", "web_fetch", "TodoWrite"}
)
_EXPLORATION = frozenset(
    {"ls", "cat", "head", "tail", "grep", "rg", "find", "fd", "tree", "echo", "pwd", "which", "sed", "awk",
     "wc", "stat", "diff", "curl", "wget", "test", "["}
)  # fmt: skip
_ASSERTION = re.compile(
    r"assert|expected .{0,60}(?:to |but |received|got)|toBe|toEqual|Received|\bFAIL(?:ED)?\b|"
    r"\d+ (?:tests? )?fail(?:ed|ures?)|--- FAIL|panicked at",
    re.IGNORECASE,
)


def subject(call: Call, segments: tuple[Invocation, ...]) -> str:
    """What a retry retries: `git commit` (whatever the message), a command's general form, a tool."""
    for inv in segments:  # once per call: a plain loop, git_subcommand only for git
        if inv.tool == "git" and git_subcommand(inv) == "commit":
            return "git commit"
    if call.invocation is not None:
        return call.invocation.base
    return call.key


@dataclass
class _Count:
    first: Failure
    count: int = 0
    refs: list[str] = field(default_factory=list)
    resolved: bool = False
    bypass: set[str] = field(default_factory=set)


class LoopTracker:
    """Counts failures by (what was retried, the error's signature), in bounded memory."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], _Count] = {}
        # The same counts by what was retried: every successful call asks about its own subject,
        # and walking all 256 counts for it cost more than the rest of the tracker.
        self._by_subject: dict[str, dict[str, _Count]] = {}

    def failed(self, call: Call, failure: Failure, what: str, bypass: tuple[str, ...] = ()) -> None:
        if what != "git commit" and not _counts_for_loops(call, failure):
            return
        key = (what, failure.sig)
        count = self._counts.pop(key, None) or _Count(failure)
        self._counts[key] = count  # re-inserted: the least recent is dropped first
        self._by_subject.setdefault(what, {})[failure.sig] = count
        if len(self._counts) > _LOOPS_MAX:
            dropped, sig = next(iter(self._counts))
            del self._counts[dropped, sig]
            same = self._by_subject[dropped]
            del same[sig]
            if not same:
                del self._by_subject[dropped]
        count.count += 1
        count.resolved = False
        count.bypass.update(bypass)
        if len(count.refs) < 3:
            count.refs.append(failure.ref)
        elif count.refs[-1] != failure.ref:
            count.refs[-1:] = [failure.ref]  # keep the first two and the latest

    def succeeded(self, what: str) -> None:
        same = self._by_subject.get(what)
        if same:
            for count in same.values():
                count.resolved = True

    def finish(self, covered: set[str]) -> list[Loop]:
        """Loops, except those `covered` (call keys) already report: LOOP_MIN failures left
        unresolved or retried with a bypass (`--no-verify`), or one more even if fixed at last."""
        return [
            Loop(c.first, what, c.count, tuple(c.refs), c.resolved, tuple(sorted(c.bypass)))
            for (what, _), c in self._counts.items()
            if (c.count > LOOP_MIN or c.count == LOOP_MIN and (not c.resolved or c.bypass))
            and c.first.call.key not in covered
            and not _circumstance(c.first)
        ]


def _circumstance(failure: Failure) -> bool:
    """True for what the whole output shows to be no loop: no network on that machine, or failing
    tests behind a heading line (`==== FAILURES ====`). Checked on loops only: regexes over every
    failure's output cost more than the rest of the reducer."""
    if _NETWORK.search(failure.excerpt):
        return True
    inv = failure.call.invocation
    return inv is not None and inv.category == "test" and _ASSERTION.search(failure.excerpt) is not None


# The machine had no network (a sandbox, a proxy): true of that run, not of the repository.
_NETWORK = re.compile(
    r"name resolution|getaddrinfo|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|Could not resolve "
    r"host|Failed to establish a new connection|Network is unreachable|network unreachable|dial tcp|"
    r"Connection refused|Connection timed out|TLS handshake timeout|proxyconnect",
    re.IGNORECASE,
)


def _counts_for_loops(call: Call, failure: Failure) -> bool:
    if failure.error_kind in ("permission", "harness"):
        return False  # the user or the agent's own tool refused: not a retry of the work
    if call.tool != "shell":
        return call.tool not in _EXPLORATION_TOOLS
    inv = call.invocation
    if inv is None or inv.tool in _EXPLORATION:
        return False
    if inv.category == "test" and _ASSERTION.search(failure.line or failure.sig):
        return False  # a failing test while its code is fixed is the work, not a loop
    return inv.tool != "git" or git_subcommand(inv) in ("commit", "push", "rebase", "merge")


@dataclass
class _Suggested:
    failure: Failure
    what: str
    wanted: Invocation
    text: str
    at: int
    fix: Step | None = None
    replaces: bool = False  # the suggestion is a check of the failed one's kind: it runs instead


class SuggestionTracker:
    """Failures whose message names a command, until that command ran and the failed one passed."""

    def __init__(self) -> None:
        self._open: list[_Suggested] = []
        self.found: list[SuggestedFix] = []

    def failed(self, failure: Failure, what: str, clock: int) -> None:
        for text in signals.suggestions(failure.excerpt):
            wanted = parse(text)
            if wanted is None or wanted.tool == "git" or wanted.base == what:
                continue
            failed = failure.call.invocation
            replaces = (
                failed is not None and failed.category is not None and wanted.category == failed.category
            )
            self._open.append(_Suggested(failure, what, wanted, text, clock, replaces=replaces))
            del self._open[:-_SUGGESTIONS_MAX]
            return

    def succeeded(self, call: Call, segments: tuple[Invocation, ...], what: str, clock: int) -> None:
        if not self._open:
            return  # no suggestion waits: most calls
        for item in list(self._open):
            if clock - item.at > _WINDOW:
                self._open.remove(item)
                continue
            if item.fix is None:
                done = next((inv for inv in segments if _runs(inv, item.wanted)), None)
                if done is not None:
                    item.fix = Step(command_form(done), done, call.ref)
                    if item.replaces:  # it did the failed command's job: nothing to re-run
                        self._open.remove(item)
                        self.found.append(SuggestedFix(item.failure, item.text, item.fix, call.ref, True))
                        continue
                    if what != item.what:
                        continue
            if item.fix is not None and what == item.what:
                self._open.remove(item)
                self.found.append(SuggestedFix(item.failure, item.text, item.fix, call.ref))


def _runs(inv: Invocation, wanted: Invocation) -> bool:
    """True when `inv` is the suggested command (with any extra arguments)."""
    if inv.tool != wanted.tool:
        return False
    words = list(inv.argv)
    return all(word in words for word in wanted.argv[1:]) or inv.base.startswith(wanted.base)
