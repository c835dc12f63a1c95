"""Replaying one session against what was learned before it: what recall and the loop hook would have
injected before each prompt and each call, and what came of it.

Before each user prompt recall gets the prompt (UserPromptSubmit); before each call with a file or a
command, that file or command (PreToolUse); after each result the loop detector sees it
(PostToolUse, integrations/claude_loops.py), and a `[LOOP DETECTED]` notice counts as a fire of kind
`loop`. A fire is a **hit** when a later failure of the session has one of the marks the lesson was
learned from (replay/marks.py), **relevant** when the session later touched one of its subjects
without that, else **noise**. A failure whose marks a lesson had that did not fire before it is a
**miss**, with why: `budget` (recall would have returned it with more room), `ranking` (it matched
the turn but was not picked) or `triggers` (nothing of the turn matched it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from reasonlessons.integrations import claude_loops
from reasonlessons.recall.api import MAX_BUDGET, Recaller
from reasonlessons.recall.match import Query, match_triggers
from reasonlessons.recall.rank import estimate_tokens
from reasonlessons.replay import marks
from reasonlessons.replay.learn import Learned
from reasonlessons.sessions.events import Event
from reasonlessons.store.project import Project

LOOP = "loop"
_FILE_KEYS = ("file_path", "path", "notebook_path")


@dataclass
class Fire:
    """One lesson (or loop notice) injected into the session."""

    lesson: str
    kind: str
    source: str  # recall | hook
    at: int  # the event it came before (recall) or after (hook)
    ref: str
    tokens: int
    failures: frozenset[str]
    subjects: frozenset[str]
    verdict: str = "noise"  # hit | relevant | noise
    hit_ref: str | None = None
    hit_mark: str | None = None
    saved_tokens: int = 0
    saved_turns: int = 0
    saved_span: tuple[int, int] | None = None  # the events from the failure hit to its fix


@dataclass
class Miss:
    """A failure an earlier lesson was about, which it was not injected before."""

    lesson: str
    kind: str
    ref: str
    mark: str
    reason: str  # budget | ranking | triggers


@dataclass(frozen=True)
class Failed:
    """A failure of the session, and the fires before it that were about it (it was addressed)."""

    ref: str
    addressed_by: tuple[str, ...]


@dataclass
class Replayed:
    """One session replayed: its failures, its fires (with their verdicts) and misses."""

    agent: str
    session: str
    started: dt.datetime | None
    events: int
    failures: list[Failed] = field(default_factory=list)
    fires: list[Fire] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)
    learned: list[str] = field(default_factory=list)
    # Tokens and turns the hits would have saved, all of them ("") and per lesson kind: each event
    # counted once, however many hits' spans cover it (a rule and a loop notice about one failure).
    saved: dict[str, tuple[int, int]] = field(default_factory=dict)

    def relocate(self, show: Callable[[str], str]) -> None:
        """Log locations as `show` writes them (the report's are repository-relative)."""
        self.failures = [Failed(show(f.ref), f.addressed_by) for f in self.failures]
        self.misses = [replace(m, ref=show(m.ref)) for m in self.misses]
        for fire in self.fires:
            fire.ref = show(fire.ref)
            fire.hit_ref = show(fire.hit_ref) if fire.hit_ref else None


@dataclass
class _Failure:
    at: int
    ref: str
    marks: frozenset[str]
    call: Event | None
    prompt: str


def replay_session(
    project: Project,
    known: dict[str, Learned],
    agent: str,
    session: str,
    events: Sequence[Event],
    *,
    now: dt.datetime,
) -> Replayed:
    """Replay `events` (one session) against the lessons of `project`; `known`: what each is about."""
    out = Replayed(agent, session, next((e.ts for e in events if e.ts is not None), None), len(events))
    recaller = Recaller(project)
    state = str(project.loc.state_dir)
    project.loc.ensure_state_dir()
    calls: dict[str, Event] = {}
    failures: list[_Failure] = []
    prompt = ""
    for at, event in enumerate(events):
        if event.kind == "text" and event.role == "user" and event.text:
            prompt = event.text
            _fired(out, recaller, known, at, event.raw_ref, now, session, prompt=prompt)
        elif event.kind == "tool_call":
            if event.call_id:
                calls[event.call_id] = event
            files, cmd = _query(event)
            if files or cmd:
                _fired(out, recaller, known, at, event.raw_ref, now, session, files=files, cmd=cmd)
        elif event.kind == "tool_result" and event.is_error is not None:
            call = calls.get(event.call_id or "")
            found = marks.failure(event, call)
            if found:
                failures.append(_Failure(at, event.raw_ref, found, call, prompt))
            _looped(out, state, session, at, event, call, found, now)
    out.failures = [
        Failed(
            f.ref, tuple(dict.fromkeys(x.lesson for x in out.fires if x.at < f.at and x.failures & f.marks))
        )
        for f in failures
    ]
    _judge(out, events, failures, calls)
    hits = [f for f in out.fires if f.saved_span is not None]
    for kind in sorted({""} | {f.kind for f in hits}):
        spans = [f.saved_span for f in hits if f.saved_span is not None and kind in ("", f.kind)]
        out.saved[kind] = _spent_over(events, spans)
    _misses(out, recaller, known, failures, now)
    return out


def _query(call: Event) -> tuple[list[str], str | None]:
    args = call.tool_args or {}
    files = [v for k in _FILE_KEYS if isinstance(v := args.get(k), str) and v.strip()]
    command = args.get("command")
    return files[:1], command if isinstance(command, str) and command.strip() else None


def _fired(
    out: Replayed,
    recaller: Recaller,
    known: dict[str, Learned],
    at: int,
    ref: str,
    now: dt.datetime,
    session: str,
    *,
    prompt: str = "",
    files: Sequence[str] = (),
    cmd: str | None = None,
) -> None:
    result = recaller.recall(prompt, files=files, cmd=cmd, session=session, now=now)
    for lesson in result.lessons:
        learned = known.get(lesson.name)
        out.fires.append(
            Fire(
                lesson.name,
                learned.kind if learned else "lesson",
                "recall",
                at,
                ref,
                lesson.tokens,
                frozenset(learned.failures) if learned else frozenset(),
                frozenset(learned.subjects) if learned else frozenset(),
            )
        )


def _looped(
    out: Replayed,
    state: str,
    session: str,
    at: int,
    result: Event,
    call: Event | None,
    found: frozenset[str],
    now: dt.datetime,
) -> None:
    tool = call.tool_name if call is not None else result.tool_name or "tool"
    args = call.tool_args if call is not None else {}
    refusal = result.error_sig if result.is_error and result.error_kind == "harness" else None
    streak, refused = claude_loops.observe_calls(
        state,
        session,
        claude_loops.call_key(tool or "tool", args),
        failed=bool(result.is_error),
        now=now.timestamp(),
        refusal=refusal,
    )
    if streak < 2:
        return
    notice = (
        claude_loops.refusal_notice(refusal or "", streak)
        if refused
        else claude_loops.loop_notice(tool or "tool", args, streak)
    )
    subjects = frozenset(s for s in (marks.subject(call),) if s) if call is not None else frozenset()
    looped = frozenset(m for m in found if m.startswith(("sig:", "rule:"))) if refused else found
    out.fires.append(Fire(LOOP, LOOP, "hook", at, result.raw_ref, estimate_tokens(notice), looped, subjects))


def _judge(out: Replayed, events: Sequence[Event], failures: list[_Failure], calls: dict[str, Event]) -> None:
    """Each fire's verdict: the first later failure it was about (a hit), else a later touch of its
    subject (relevant), else noise."""
    for fire in out.fires:
        later = next((f for f in failures if f.at > fire.at and f.marks & fire.failures), None)
        if later is not None:
            fire.verdict, fire.hit_ref = "hit", later.ref
            fire.hit_mark = sorted(later.marks & fire.failures)[0]
            fire.saved_span = span = (later.at, _fixed(events, later, calls))
            fire.saved_tokens, fire.saved_turns = _spent(events[span[0] : span[1]])
            continue
        touched = (
            any(e.kind == "tool_call" and marks.subject(e) in fire.subjects for e in events[fire.at + 1 :])
            if fire.subjects
            else False
        )
        fire.verdict = "relevant" if touched else "noise"


def _fixed(events: Sequence[Event], failure: _Failure, calls: dict[str, Event]) -> int:
    """Where the failure's span ends: after its fix (the same call succeeding), or at the session's
    end. What the session spent over it is what the lesson, heeded, would have saved."""
    subject = marks.subject(failure.call) if failure.call is not None else None
    for at in range(failure.at + 1, len(events)):
        event = events[at]
        if event.kind == "tool_result" and event.is_error is False and subject is not None:
            call = calls.get(event.call_id or "")
            if call is not None and marks.subject(call) == subject:
                return at + 1
    return len(events)


def _spent_over(events: Sequence[Event], spans: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Tokens and turns over the union of `spans`: overlapping spans merged, so nothing counts twice."""
    tokens = turns = 0
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in merged:
        spent = _spent(events[start:end])
        tokens, turns = tokens + spent[0], turns + spent[1]
    return tokens, turns


def _spent(span: Sequence[Event]) -> tuple[int, int]:
    """Tokens and model turns of some events: the model's own usage reports when the log has them,
    else the text of the answers and tool output (at least one turn)."""
    usage = [e.tokens.total for e in span if e.kind == "usage" and e.tokens is not None]
    if usage:
        return sum(usage), len(usage)
    texts = [e.text or "" for e in span if e.kind in ("text", "tool_result") and e.role != "user"]
    turns = sum(1 for e in span if e.kind == "text" and e.role == "assistant")
    return sum(estimate_tokens(t) for t in texts), max(turns, 1)


def _misses(
    out: Replayed, recaller: Recaller, known: dict[str, Learned], failures: list[_Failure], now: dt.datetime
) -> None:
    fired_at: dict[str, int] = {}
    for fire in out.fires:
        fired_at.setdefault(fire.lesson, fire.at)
    missed: set[str] = set()
    for failure in failures:
        for name, learned in sorted(known.items()):
            shared = failure.marks & learned.failures
            if not shared or name in missed:
                continue
            if fired_at.get(name, len(failures) + 10**9) < failure.at:
                continue
            missed.add(name)
            reason = _why(recaller, name, failure, now)
            out.misses.append(Miss(name, learned.kind, failure.ref, sorted(shared)[0], reason))


def _why(recaller: Recaller, name: str, failure: _Failure, now: dt.datetime) -> str:
    files, cmd = _query(failure.call) if failure.call is not None else ([], None)
    turns = [("", files, cmd), (failure.prompt, [], None)]
    matched = False
    for prompt, turn_files, turn_cmd in turns:
        if not (prompt or turn_files or turn_cmd):
            continue
        roomy = recaller.recall(
            prompt, files=turn_files, cmd=turn_cmd, budget=MAX_BUDGET, now=now, record=False
        )
        if any(lesson.name == name for lesson in roomy.lessons):
            return "budget"
        # Recall stops before opening the index when the settings serve no lessons to the turn's
        # task type: the triggers are matched all the same, on an index opened here.
        recaller.index.ensure()
        if recaller.index.empty:
            continue
        query = Query.build(prompt, turn_files, turn_cmd, root=str(recaller.loc.root))
        specificity, _ = match_triggers(recaller.index, query, now=now.timestamp())
        matched = matched or any(info.name == name for info in recaller.index.docs(specificity).values())
    return "ranking" if matched else "triggers"
