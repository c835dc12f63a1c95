"""Commit gates: what must run before `git commit` is accepted here.

A commit rejected by a check (a git hook, husky, lefthook, pre-commit, an agent's PreToolUse hook)
and accepted after other commands ran says "before committing, run A and B". The commands kept are
those the rejection asked for (`Run 'mix format' to fix`), those it names (`[CREDO]` and `mix credo
--strict`) and the checks and formatters that ran in between. With no rejection at all, the same
checks run before every commit of a session say the same, more weakly (a routine).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reasonlessons.capture.reduce.observations import Call, CommitGate, Failure, Step
from reasonlessons.sessions import signals
from reasonlessons.sessions.commands import command_form, git_subcommand, is_fixer, subcommand
from reasonlessons.sessions.shell import Invocation, parse

# git refusing for reasons of its own, not a check: no lesson about what to run first.
_PLUMBING = re.compile(
    r"nothing (?:added )?to commit|no changes added to commit|please tell me who you are|"
    r"author identity unknown|not a git repository|pathspec .* did not match|ignored by one of your "
    r"\.gitignore|beyond a symbolic link|index\.lock|unmerged files|empty commit message|"
    r"could not read|permission denied|nothing to commit|does not have any commits|"
    r"cannot do a partial commit|commit your changes or stash",
    re.IGNORECASE,
)
_BYPASS = ("--no-verify", "-n")
_MAX_REJECTIONS = 3
_MAX_STEPS = 4
_RECENT = 24  # checks remembered since the last commit


@dataclass
class _Pending:
    first: int  # the clock of the first rejection not yet followed by an accepted commit
    failures: list[Failure] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)  # commands the rejections named


class CommitTracker:
    """Follows commits, their rejections and the checks run in between (bounded)."""

    def __init__(self) -> None:
        self._checks: list[tuple[int, Step]] = []  # since the last accepted commit
        self._pending: _Pending | None = None
        self._gate: list[Step] = []
        self._rejections: list[Failure] = []
        self._rejected = 0
        self._accepted: list[str] = []
        self._before: list[list[str]] = []  # per accepted commit: the check forms run before it
        self._forms: dict[str, Step] = {}

    @staticmethod
    def is_commit(segments: tuple[Invocation, ...]) -> bool:
        # Once per call: git_subcommand only for git.
        return any(inv.tool == "git" and git_subcommand(inv) == "commit" for inv in segments)

    def failed(self, failure: Failure, segments: tuple[Invocation, ...], clock: int) -> bool:
        """Note a failed command; True when it was a commit rejected by a check."""
        if not self.is_commit(segments):
            return False
        text = signals.unescaped(failure.excerpt)
        if _PLUMBING.search(text[:3000]):
            return False
        if self._pending is None:
            self._pending = _Pending(clock)
        pending = self._pending
        if len(pending.failures) < _MAX_REJECTIONS:
            pending.failures.append(failure)
        for command in signals.suggestions(text):
            if command not in pending.asked:
                pending.asked.append(command)
        for name in signals.check_names(text):
            if name.lower() not in pending.asked:
                pending.asked.append(name.lower())
        self._rejected += 1
        return True

    def succeeded(self, call: Call, segments: tuple[Invocation, ...], clock: int) -> None:
        """Note a command that passed: a check to remember, or an accepted commit."""
        if self.is_commit(segments):
            self._commit(call, clock)
            return
        for inv in segments:
            if inv.category is None and not is_fixer(inv) or inv.tool == "git":
                continue
            step = Step(command_form(inv), inv, call.ref)
            self._checks.append((clock, step))
            del self._checks[:-_RECENT]

    def _commit(self, call: Call, clock: int) -> None:
        self._accepted.append(call.ref)
        self._before.append(list(dict.fromkeys(step.form for _, step in self._checks)))
        for _, step in self._checks:
            self._forms.setdefault(step.form, step)
        pending, self._pending = self._pending, None
        if pending is not None:
            for step in (s for n, s in self._checks if n > pending.first):
                if _wanted(step, pending.asked) and all(step.form != s.form for s in self._gate):
                    self._gate.append(step)
            if len(self._rejections) < _MAX_REJECTIONS:
                self._rejections.extend(pending.failures[: _MAX_REJECTIONS - len(self._rejections)])
        self._checks.clear()

    def finish(self) -> CommitGate | None:
        """The session's commit gate, when its commits showed one."""
        commits = len(self._before)
        routine: list[str] = []
        if commits >= 2:
            counts: dict[str, int] = {}
            for forms in self._before:
                for form in forms:
                    counts[form] = counts.get(form, 0) + 1
            routine = [f for f, n in counts.items() if n >= 2 and n * 2 >= commits and _checks_code(f)]
            if not any(_checks_style(f) for f in routine):
                routine = []  # running the tests before committing is what everyone does: no news
        if not self._gate and not routine:
            return None
        steps = list(self._gate)
        for form in routine:
            if all(form != s.form for s in steps):
                steps.append(self._forms[form])
        fixers = {(s.invocation.tool, subcommand(s.invocation)) for s in steps if is_fixer(s.invocation)}
        steps = [
            s
            for s in steps
            if is_fixer(s.invocation) or (s.invocation.tool, subcommand(s.invocation)) not in fixers
        ]
        steps.sort(key=_order)
        return CommitGate(
            steps=tuple(steps[:_MAX_STEPS]),
            rejections=tuple(self._rejections),
            rejected=self._rejected if self._gate else 0,
            accepted_refs=tuple(self._accepted[:3]),
            routine=tuple(routine),
            commits=commits,
        )


def _wanted(step: Step, asked: list[str]) -> bool:
    """A command the rejection asked for or named, or any check or formatter."""
    words = {w.lower() for w in step.form.split()}
    for wish in asked:
        wanted = parse(wish)
        if (
            wanted is not None
            and wanted.tool == step.invocation.tool
            and set(wanted.argv) <= set(step.form.split())
        ):
            return True
        if " " not in wish and (wish in words or any(wish in w for w in words if len(w) > 3)):
            return True
    return step.invocation.category in ("lint", "typecheck") or is_fixer(step.invocation)


def _checks_code(form: str) -> bool:
    inv = parse(form)
    return inv is not None and (inv.category is not None or is_fixer(inv))


def _checks_style(form: str) -> bool:
    """A linter, type checker or formatter: the kind of check a commit gate enforces."""
    inv = parse(form)
    return inv is not None and (inv.category in ("lint", "typecheck") or is_fixer(inv))


def _order(step: Step) -> int:
    """Fixers first, then lint, type checks, builds, tests: the order to run them in."""
    inv = step.invocation
    if is_fixer(inv):
        return 0
    return {"lint": 1, "typecheck": 2, "build": 3, "test": 4}.get(inv.category or "", 5)


def bypass_flags(segments: tuple[Invocation, ...]) -> tuple[str, ...]:
    """`--no-verify` (or `-n`) on a commit: an attempt to get past the check."""
    return tuple(
        flag for inv in segments if git_subcommand(inv) == "commit" for flag in _BYPASS if flag in inv.argv
    )
