"""A bounded summary of one session's events, kept for the learning loop and `stats`.

Fed the same normalized events as the capture reducer, one at a time. It keeps only what outcome
evaluation and the cold-vs-warm comparison need: shell runs in order with their result, files
written, token usage (already normalized by the adapters, docs/log-formats.md#tokens), the words of the first
prompts, and when the session ran.
"""

from __future__ import annotations

import datetime as dt
import pickle
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reasonlessons.safety.redact import redact
from reasonlessons.sessions.edits import file_edits, relative
from reasonlessons.sessions.events import Event, Tokens, new_tokens
from reasonlessons.sessions.shell import Invocation, parse
from reasonlessons.sessions.signals import invocation_line, is_invocation_failure
from reasonlessons.support.tokens import GENERIC, STOPWORDS, tokenize
from reasonlessons.support.values import frozen

MAX_RUNS = 2000
MAX_PENDING = 64
MAX_FILES = 200
MAX_TERMS = 64
MAX_PROMPTS = 3
MAX_SNAPSHOTS = 20_000
MAX_MESSAGES = 32  # short user messages kept (the last ones), for corrections of a lesson
MAX_MESSAGE_CHARS = 600


@dataclass(frozen=True)
class ShellRun:
    """One shell command the agent ran, and how it ended (`ok` None when the log cannot tell)."""

    seq: int
    ts: dt.datetime | None
    command: str
    invocation: Invocation | None
    ok: bool | None
    sig: str | None = None
    cannot_run: bool = False  # the command itself could not run as written (not found, bad option)
    ref: str = ""


@dataclass(frozen=True)
class UserMessage:
    """A short message the user wrote (one that could correct the agent), and where it is."""

    ts: dt.datetime | None
    text: str
    ref: str = ""


@dataclass
class SessionTrace:
    """Feed a session's events in order; read the summary at any time."""

    agent: str
    session_id: str
    root: str | None = None
    cwd: str | None = None
    started: dt.datetime | None = None
    ended: dt.datetime | None = None
    first_seq: int = -1
    last_seq: int = -1
    tool_calls: int = 0
    runs: list[ShellRun] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    messages: list[UserMessage] = field(default_factory=list)
    _pending: OrderedDict[str, tuple[int, dt.datetime | None, str, str]] = field(default_factory=OrderedDict)
    _snapshots: dict[str, Tokens] = field(default_factory=dict)
    _loose: Tokens = field(default_factory=Tokens)
    _prompts: int = 0
    _commands: list[str] | None = None  # worked out by `seal`

    def __reduce__(self) -> tuple[Any, ...]:
        # A pool worker ships every session's trace to the main process, which reads the runs and
        # messages only when a lesson is judged against the session (rare): they travel as one
        # blob, unpickled on first use (_Shipped), instead of a ShellRun and an Invocation per
        # command rebuilt one session after another in the process every worker waits for.
        state = self.__dict__.copy()
        if "_packed" not in state:
            runs, messages = state.pop("runs"), state.pop("messages")
            state["_packed"] = pickle.dumps((runs, messages), pickle.HIGHEST_PROTOCOL)
            state["_ran"] = bool(runs)
        return (_shipped, (), state)

    @property
    def ran(self) -> bool:
        """Whether the session ran any shell command (known without unpacking a shipped trace)."""
        ran = self.__dict__.get("_ran")
        return bool(self.runs) if ran is None else bool(ran)

    def feed(self, event: Event) -> None:
        """Take one event (in `seq` order)."""
        # Once per event of every log: comparisons rather than min/max calls.
        seq, ts, kind = event.seq, event.ts, event.kind
        if self.first_seq < 0:
            self.first_seq = seq
        if seq > self.last_seq:
            self.last_seq = seq
        if self.cwd is None and event.cwd:
            self.cwd = event.cwd
        if ts is not None:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts
        if kind == "tool_call":
            self._call(event)
        elif kind == "tool_result":
            self._result(event)
        elif kind == "usage" and event.tokens is not None:
            self._usage(event)
        elif kind == "text" and event.role == "user" and event.text:
            if self._prompts < MAX_PROMPTS:
                self._prompts += 1
                self._add_terms(event.text)
            if len(event.text) <= MAX_MESSAGE_CHARS:
                self.messages.append(UserMessage(event.ts, event.text, event.raw_ref))
                if len(self.messages) > MAX_MESSAGES:
                    del self.messages[0]

    def _call(self, event: Event) -> None:
        self.tool_calls += 1
        args = event.tool_args or {}
        for edit in file_edits(event.tool_name, args, event.raw_ref):
            # Redacted as written: relativizing rewrites a path (`\` becomes `/`), and a secret in it
            # may then no longer read as one.
            path = relative(redact(edit.path).text, tuple(b for b in (self.cwd, self.root) if b))
            if path and path not in self.files and len(self.files) < MAX_FILES:
                self.files.append(path)
        command = args.get("command")
        if event.tool_name != "shell" or not isinstance(command, str):
            return
        key = event.call_id or f"#{event.seq}"
        self._pending[key] = (event.seq, event.ts, command, event.raw_ref)
        if len(self._pending) > MAX_PENDING:
            self._pending.popitem(last=False)

    def _result(self, event: Event) -> None:
        found = self._pending.pop(event.call_id, None) if event.call_id else None
        if found is None and event.call_id is None and event.tool_name in (None, "shell") and self._pending:
            found = self._pending.popitem(last=False)[1]
        if found is None:
            return
        seq, ts, command, ref = found
        ok = None if event.is_error is None else not event.is_error
        cannot = bool(event.is_error) and (
            is_invocation_failure(event.error_sig, event.exit_code, event.error_kind)
            or invocation_line(event.text) is not None
        )
        # Built with support.values.frozen: this runs for every shell result of every log.
        run = frozen(
            ShellRun,
            {
                "seq": seq,
                "ts": ts or event.ts,
                "command": command[:2000],
                "invocation": parse(command),
                "ok": ok,
                "sig": event.error_sig,
                "cannot_run": cannot,
                "ref": ref,
            },
        )
        self.runs.append(run)
        if len(self.runs) > MAX_RUNS:
            del self.runs[: len(self.runs) - MAX_RUNS]

    def _usage(self, event: Event) -> None:
        tokens = event.tokens
        assert tokens is not None
        # A snapshot key means "the latest figure for this response/counter": keep the last only.
        if event.call_id and (event.call_id in self._snapshots or len(self._snapshots) < MAX_SNAPSHOTS):
            self._snapshots[event.call_id] = tokens
        else:
            self._loose = _add(self._loose, tokens)

    def _add_terms(self, text: str) -> None:
        # Terms are kept (session-summaries.json): cut from the redacted prompt, never from its
        # words as typed, where a pasted password is just another term.
        for term in tokenize(redact(text[:20_000]).text):
            if term in GENERIC or term in STOPWORDS or term.isdigit() or term in self.terms:
                continue
            if len(self.terms) >= MAX_TERMS:
                return
            self.terms.append(term)

    def seal(self) -> None:
        """The session is over (no more events): fold the token snapshots into one figure. A long
        Claude Code session has one per model response, thousands, which a pool worker would
        otherwise pickle and the main process sum, one session after another."""
        self._loose, self._snapshots = self.tokens, {}
        self._commands = self.commands

    @property
    def tokens(self) -> Tokens:
        """Token usage of the whole session, as the agent's own records report it."""
        loose, snapshots = self._loose, self._snapshots.values()
        if not snapshots:
            return loose
        # Four sums in C rather than a Tokens built per snapshot (thousands in a long session).
        return Tokens(
            loose.in_ + sum(t.in_ for t in snapshots),
            loose.out + sum(t.out for t in snapshots),
            loose.cache_read + sum(t.cache_read for t in snapshots),
            loose.cache_write + sum(t.cache_write for t in snapshots),
        )

    @property
    def commands(self) -> list[str]:
        """The general forms of the commands run, first seen first (bounded)."""
        if self._commands is not None:
            return list(self._commands)
        seen: dict[str, None] = {}
        for run in self.runs:
            if run.invocation is not None and len(seen) < 40:
                seen.setdefault(run.invocation.base, None)
        return list(seen)

    @property
    def successful(self) -> bool:
        """The last verification (test/build/lint/typecheck) passed; with none, the last run did not fail."""
        checks = [
            r for r in self.runs if r.invocation is not None and r.invocation.category and r.ok is not None
        ]
        if checks:
            return bool(checks[-1].ok)
        known = [r for r in self.runs if r.ok is not None]
        return not known or bool(known[-1].ok)


class _Shipped(SessionTrace):
    """A trace as the main process receives it from a pool worker: `runs` and `messages` unpacked
    on first use. A class of its own because `__getattr__` slows every attribute read of the class
    that has it (CPython does not specialize them), and the worker's trace reads its own on every
    event."""

    if not TYPE_CHECKING:  # (typed as the fields they stand for)

        def __getattr__(self, name: str) -> Any:
            # Only called for an attribute not set: `runs` or `messages`, still packed.
            packed = self.__dict__.get("_packed")
            if packed is None or name not in ("runs", "messages"):
                raise AttributeError(name)
            del self._packed, self._ran
            self.runs, self.messages = pickle.loads(packed)
            return self.__dict__[name]


def _shipped() -> _Shipped:
    return _Shipped.__new__(_Shipped)


def _add(a: Tokens, b: Tokens) -> Tokens:
    # Once per usage event without a snapshot key (every model call of a Reasonix log).
    return new_tokens(
        a.in_ + b.in_, a.out + b.out, a.cache_read + b.cache_read, a.cache_write + b.cache_write
    )
