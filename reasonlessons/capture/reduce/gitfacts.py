"""Git workflow facts of a repository, learned from a refusal and the command that then worked.

A tracked file under an ignored directory: `git add` refuses it ("The following paths are ignored by
one of your .gitignore files") and `git add -f` stages it. The default branch: `git log main..HEAD`
fails with "unknown revision" and the same with `master` works.
"""

from __future__ import annotations

import re

from reasonlessons.capture.reduce.observations import Call, Failure, GitFact, Step
from reasonlessons.sessions import signals
from reasonlessons.sessions.commands import command_form, git_subcommand
from reasonlessons.sessions.shell import Invocation

_IGNORED = re.compile(r"The following paths are ignored by one of your \.gitignore files:\n((?:[^\n]+\n?)+)")
_UNKNOWN = re.compile(
    r"(?:ambiguous argument|unknown revision|bad revision|couldn't find remote ref|invalid reference:?|"
    r"pathspec) '?([\w./~^-]+?)'?(?=[:\s]|$)",
    re.IGNORECASE,
)
_BRANCHES = frozenset({"main", "master", "develop", "development", "trunk", "dev"})
_FORCE = frozenset({"-f", "--force"})
_LISTED = re.compile(
    r"(?:^[*\s]+|origin/|HEAD branch: |refs/heads/)(main|master|develop|development|trunk|dev)\b",
    re.MULTILINE,
)


class GitTracker:
    """Git refusals of one session waiting for the command that got past them."""

    def __init__(self) -> None:
        self._ignored: tuple[Failure, list[str]] | None = None
        self._branch: tuple[Failure, str] | None = None
        self.found: list[GitFact] = []

    def failed(self, failure: Failure, segments: tuple[Invocation, ...]) -> None:
        if not any(inv.tool == "git" for inv in segments):
            return
        text = signals.unescaped(failure.excerpt)
        ignored = _IGNORED.search(text)
        if ignored is not None and any(git_subcommand(inv) == "add" for inv in segments):
            entries = []
            for line in ignored.group(1).splitlines():
                if line.startswith(("hint:", "Use -f")) or not line.strip():
                    break
                entries.append(line.strip().rstrip("/"))
            if entries:
                self._ignored = (failure, entries[:8])
        for found in _UNKNOWN.finditer(text[:2000]):
            name = found.group(1).split("..", 1)[0].removeprefix("origin/")
            if name in _BRANCHES:
                self._branch = (failure, name)
                break

    def succeeded(self, call: Call, segments: tuple[Invocation, ...], output: str | None = None) -> None:
        if self._ignored is None and self._branch is None:
            return  # nothing waits for a command to get past it: most sessions, most calls
        for inv in segments:
            if inv.tool != "git":
                continue
            if self._ignored is not None and git_subcommand(inv) == "add" and _FORCE & set(inv.argv):
                self._forced(call, inv)
            if self._branch is not None:
                self._branched(call, inv, output or "")

    def _forced(self, call: Call, inv: Invocation) -> None:
        assert self._ignored is not None
        failure, entries = self._ignored
        paths = [w for w in inv.argv[2:] if not w.startswith("-")]
        for entry in entries:
            under = [p for p in paths if p == entry or p.startswith(entry + "/")]
            if under:
                subject = entry + "/" if under[0] != entry else entry
                step = Step(command_form(inv), inv, call.ref)
                self.found.append(GitFact("force-add", subject, under[0], failure, step))
                self._ignored = None
                return

    def _branched(self, call: Call, inv: Invocation, output: str) -> None:
        assert self._branch is not None
        failure, missing = self._branch
        named = [p.removeprefix("origin/") for w in inv.argv[1:] for p in re.split(r"\.{2,3}", w)]
        if git_subcommand(inv) in ("branch", "remote", "symbolic-ref", "rev-parse", "show-ref"):
            # `git branch -a`, `git remote show origin`: the branches that do exist, in the output
            named += _LISTED.findall(output[:4000])
        for name in named:
            if name in _BRANCHES and name != missing:
                step = Step(command_form(inv), inv, call.ref)
                self.found.append(GitFact("default-branch", name, missing, failure, step))
                self._branch = None
                return
