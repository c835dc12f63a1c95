"""Was a lesson right? Judged by what it claims; one decision per lesson and session; unsure: none.

A lesson makes claims a later session can check (learning/advice.py): "`A` fails here" (with the
error it quotes), "run `B`", "`C` is the check", "files go in `tests/`". From the runs after the
lesson was injected (the whole session when the time is unknown; for a lesson that was not
injected, the runs after it was captured), each claim gives:

| claim            | confirmed                           | contradicted                                    |
|------------------|-------------------------------------|-------------------------------------------------|
| `A` fails here   | `A` failed the same way             | direct: `A` passed (and never failed that way)  |
|                  |                                     | soft: `A` ran and failed otherwise, where the   |
|                  |                                     | lesson says it cannot even run                  |
| run `B`          | `B` passed                          | direct: `B` could not run as written (not       |
|                  |                                     | found, missing script, bad option), never passed|
| `C` is the check | injected, and `C` passed in a       | -                                               |
|                  | session that ended well             |                                                 |
| files go there   | injected, files written there, and  | -                                               |
|                  | the session ended well              |                                                 |
| (any)            | -                                   | soft: injected, and a user message after it     |
|                  |                                     | rejects `B` or urges `A` (advice.says_otherwise)|

Anything else decides nothing: the advice was not followed, a test failed for an ordinary reason
(a bug is not the lesson's fault), the evidence is mixed. Only contradictions count against a
lesson; when a session gives several, the strongest decides (direct, soft, then confirmed).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reasonlessons.learning.advice import Advice, read_advice, same_command, same_error, says_otherwise
from reasonlessons.learning.trace import SessionTrace, ShellRun
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.match import glob_matches
from reasonlessons.sessions.shell import Invocation
from reasonlessons.store.outcomes import CONFIRMED, CONTRADICTED, DIRECT, SOFT, Decision, iso

__all__ = ["CONFIRMED", "CONTRADICTED", "DIRECT", "SOFT", "Outcome", "Recalled", "evaluate", "judge"]


@dataclass(frozen=True)
class Recalled:
    """A lesson to judge against a session, and since when (None: the whole session).

    `recalled` is False for a lesson that was not injected into the session: only its claims about
    the repository are checked then (what a session does says nothing about advice it never saw).
    """

    lesson: Lesson
    since: dt.datetime | None = None
    recalled: bool = True

    @property
    def key(self) -> str:
        return f"{self.lesson.scope}:{self.lesson.name}"


@dataclass(frozen=True)
class Outcome:
    """The decision on one lesson in one session, with the event that decided it."""

    key: str
    verdict: str  # confirmed | contradicted
    reason: str
    refs: tuple[str, ...] = ()
    weight: str = ""  # direct | soft, for a contradiction
    at: dt.datetime | None = None  # when the deciding event happened
    recalled: bool = True

    @property
    def success(self) -> bool:
        return self.verdict == CONFIRMED

    @property
    def rank(self) -> int:
        return self.decision().rank

    def decision(self, *, default_at: dt.datetime | None = None) -> Decision:
        when = self.at or default_at
        return Decision(
            self.verdict,
            self.weight,
            iso(when) if when else None,
            self.refs[0] if self.refs else "",
            self.reason,
        )

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"lesson": self.key, "outcome": self.verdict}
        if self.weight:
            out["weight"] = self.weight
        out.update(reason=self.reason, refs=list(self.refs), recalled=self.recalled)
        return out


def evaluate(
    trace: SessionTrace, recalled: Iterable[Recalled], *, successful: bool | None = None
) -> list[Outcome]:
    """Decisions for the lessons judged against a session (lessons without one are left out)."""
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


def _same_way(run: ShellRun, advice: Advice) -> bool:
    """A failure of a warned command is the one the lesson warns about (any, if it quotes none)."""
    return not advice.errors or any(same_error(sig, run.sig) for sig in advice.errors)


def _short(command: str) -> str:
    return command[:80]


def _claims_fail(item: Recalled, advice: Advice, runs: list[ShellRun]) -> list[Outcome]:
    """The claim "`A` fails here", for each warned-against command the session ran."""
    key, out = item.key, []
    for warned in advice.avoided:
        mine = [r for r in runs if r.ok is not None and _matches(r, (warned,))]
        same = [r for r in mine if r.ok is False and _same_way(r, advice)]
        passed = [r for r in mine if r.ok]
        other = [r for r in mine if r.ok is False and not _same_way(r, advice)]
        if passed and not same:
            run = passed[0]
            reason = f"`{_short(run.command)}` passed: the lesson says `{warned.base}` fails here"
            out.append(Outcome(key, CONTRADICTED, reason, (run.ref,), DIRECT, run.ts, item.recalled))
        elif same and not passed:
            run = same[0]
            reason = f"`{_short(run.command)}` failed as the lesson says ({run.sig or 'failed'})"
            out.append(Outcome(key, CONFIRMED, reason, (run.ref,), "", run.ts, item.recalled))
        elif other and not same and not passed and not any(r.cannot_run for r in other):
            run = other[0]
            reason = (
                f"`{_short(run.command)}` ran and failed otherwise ({run.sig or 'failed'}), "
                "not the way the lesson says"
            )
            out.append(Outcome(key, CONTRADICTED, reason, (run.ref,), SOFT, run.ts, item.recalled))
    return out


def _claims_run(item: Recalled, advice: Advice, runs: list[ShellRun]) -> list[Outcome]:
    """The claim "run `B`", for each advised command the session ran."""
    key, out = item.key, []
    for wanted in advice.advised:
        mine = [r for r in runs if r.ok is not None and _matches(r, (wanted,))]
        passed = [r for r in mine if r.ok]
        if passed:
            run = passed[-1]
            reason = f"`{_short(run.command)}` passed, as the lesson advises"
            out.append(Outcome(key, CONFIRMED, reason, (run.ref,), "", run.ts, item.recalled))
        elif mine and mine[-1].cannot_run:
            run = mine[-1]
            reason = f"the advised `{_short(run.command)}` could not run here ({run.sig or 'failed'})"
            out.append(Outcome(key, CONTRADICTED, reason, (run.ref,), DIRECT, run.ts, item.recalled))
    return out


def _followed(item: Recalled, advice: Advice, runs: list[ShellRun], trace: SessionTrace) -> list[Outcome]:
    """An injected lesson whose check passed, or whose files went where it says, in a good session."""
    key = item.key
    passed = [r for r in runs if r.ok and _matches(r, advice.verify)]
    if passed:
        run = passed[-1]
        reason = f"advice followed: `{_short(run.command)}` passed and the session ended well"
        return [Outcome(key, CONFIRMED, reason, (run.ref,), "", run.ts)]
    if advice.files and not (advice.advised or advice.verify or advice.avoided):
        written = [f for f in trace.files if any(glob_matches(g, f) for g in advice.files)]
        if written:
            reason = f"wrote {written[0]} as the lesson says; the session ended well"
            return [Outcome(key, CONFIRMED, reason, (), "", trace.ended)]
    return []


def _corrected(item: Recalled, advice: Advice, trace: SessionTrace) -> list[Outcome]:
    for message in trace.messages:
        if item.since is not None and message.ts is not None and message.ts < item.since:
            continue
        why = says_otherwise(message.text, advice)
        if why is not None:
            return [Outcome(item.key, CONTRADICTED, why, (message.ref,), SOFT, message.ts)]
    return []


def judge(item: Recalled, trace: SessionTrace, *, ended_well: bool) -> Outcome | None:
    """The decision for one lesson (see the module docstring), or None when the session says nothing."""
    advice: Advice = read_advice(item.lesson)
    if not advice.checkable:
        return None
    runs = _after(trace.runs, item.since)
    found = _claims_fail(item, advice, runs) + _claims_run(item, advice, runs)
    if item.recalled:
        found += _corrected(item, advice, trace)
        if ended_well:
            found += _followed(item, advice, runs, trace)
    if not found:
        return None
    return min(found, key=lambda o: -o.rank)  # the strongest; the first of equals
