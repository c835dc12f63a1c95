"""Did a recalled lesson work? One deterministic verdict per lesson and session; unsure means none.

Only what happened after the lesson was first injected counts (the whole session when the time is
unknown). In order:

1. failure: a failure the lesson warns about happened anyway (a warned-against command failed, or
   a run failed with the error signature the lesson quotes);
2. failure: the lesson's advice failed (an advised command was run, never passed, and its last run
   could not run as written: not found, bad option, missing script);
3. success: an advised (or the lesson's verifying) command passed and the session ended well;
4. success: a lesson about where files go, files matching its globs were written, and the session
   ended well;
5. otherwise no verdict: the advice was not followed, or the evidence is ambiguous.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reasonlessons.learning.advice import Advice, read_advice, same_command, same_error
from reasonlessons.learning.trace import SessionTrace, ShellRun
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.match import glob_matches
from reasonlessons.sessions.shell import Invocation

SUCCESS = "success"
FAILURE = "failure"


@dataclass(frozen=True)
class Recalled:
    """A lesson recalled into a session, and when it was first injected (None: unknown)."""

    lesson: Lesson
    since: dt.datetime | None = None

    @property
    def key(self) -> str:
        return f"{self.lesson.scope}:{self.lesson.name}"


@dataclass(frozen=True)
class Outcome:
    """The verdict on one recalled lesson in one session, with the runs that decided it."""

    key: str
    verdict: str  # success | failure
    reason: str
    refs: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return self.verdict == SUCCESS

    def to_json(self) -> dict[str, object]:
        return {"lesson": self.key, "outcome": self.verdict, "reason": self.reason, "refs": list(self.refs)}


def evaluate(
    trace: SessionTrace, recalled: Iterable[Recalled], *, successful: bool | None = None
) -> list[Outcome]:
    """Verdicts for the lessons recalled into a session (lessons without one are left out)."""
    ended_well = trace.successful if successful is None else successful
    out = []
    for item in recalled:
        outcome = judge(item, trace, ended_well=ended_well)
        if outcome is not None:
            out.append(outcome)
    return out


def _after(runs: Sequence[ShellRun], since: dt.datetime | None) -> list[ShellRun]:
    if since is None:
        return list(runs)
    # Runs without a time stay: the formats that omit times omit them everywhere.
    return [r for r in runs if r.ts is None or r.ts >= since]


def _matches(run: ShellRun, wanted: Sequence[Invocation]) -> bool:
    inv = run.invocation
    return inv is not None and any(same_command(w, inv) for w in wanted)


def judge(item: Recalled, trace: SessionTrace, *, ended_well: bool) -> Outcome | None:
    """The verdict for one lesson (see the module docstring), or None when unsure."""
    advice: Advice = read_advice(item.lesson)
    if not advice.checkable:
        return None
    runs = _after(trace.runs, item.since)
    key = item.key
    for run in runs:
        if run.ok is not False:
            continue
        if _matches(run, advice.avoided):
            return Outcome(key, FAILURE, f"warned-against `{run.command[:80]}` failed anyway", (run.ref,))
        if any(same_error(sig, run.sig) for sig in advice.errors):
            return Outcome(key, FAILURE, f"the warned failure happened anyway: {run.sig}", (run.ref,))
    followed = [r for r in runs if _matches(r, advice.advised)]
    if followed and not any(r.ok for r in followed) and followed[-1].ok is False and followed[-1].cannot_run:
        last = followed[-1]
        return Outcome(key, FAILURE, f"the advised `{last.command[:80]}` could not run", (last.ref,))
    passed = [r for r in runs if r.ok and _matches(r, (*advice.advised, *advice.verify))]
    if passed and ended_well:
        return Outcome(
            key, SUCCESS, f"advice followed: `{passed[-1].command[:80]}` passed", (passed[-1].ref,)
        )
    if advice.files and not (advice.advised or advice.verify) and ended_well:
        written = [f for f in trace.files if any(glob_matches(g, f) for g in advice.files)]
        if written:
            return Outcome(key, SUCCESS, f"wrote {written[0]} as the lesson says; the session ended well")
    return None
