"""Observations: what the reducer noticed in one session, small and bounded, ready for the extractor."""

from __future__ import annotations

from dataclasses import dataclass, field

from reasonlessons.sessions.edits import Edit
from reasonlessons.sessions.shell import Invocation
from reasonlessons.sessions.toolrules import ToolRule


@dataclass(frozen=True)
class Call:
    """A tool call as the reducer remembers it (no outputs)."""

    seq: int
    tool: str
    key: str  # what was asked: the command for shell calls, tool + arguments otherwise
    ref: str
    invocation: Invocation | None = None
    args: tuple[tuple[str, str], ...] = ()  # short string arguments of non-shell tools


@dataclass(frozen=True)
class Failure:
    """A failed call: its signature, the line a human would quote, and a bounded excerpt."""

    call: Call
    sig: str
    ref: str
    line: str | None = None
    exit_code: int | None = None
    error_kind: str | None = None
    excerpt: str = ""
    invocation: bool = False  # the command itself could not run as written (signals.py)


@dataclass(frozen=True)
class Verification:
    """A test/build/lint/typecheck command that passed; `examples` are the exact lines run."""

    invocation: Invocation
    count: int
    refs: tuple[str, ...]
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandFix:
    """A command failed to run as written, and a similar command then worked: do B, not A."""

    failure: Failure
    fix: Call
    fix_ref: str
    repeats: int = 1


@dataclass(frozen=True)
class ArgsFix:
    """A (non-shell) tool call failed, and the same tool then worked with other arguments."""

    failure: Failure
    fix: Call
    fix_ref: str
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class EditFix:
    """A command failed with a message stating a rule; small edits made the same command pass."""

    failure: Failure
    edits: tuple[Edit, ...]
    rerun_ref: str


@dataclass(frozen=True)
class RepeatedFailure:
    """The same call (or signature) failed again and again without a fix."""

    failure: Failure
    count: int
    streak: int
    refs: tuple[str, ...]


@dataclass(frozen=True)
class ToolRuleSeen:
    """The agent's own tool layer refused calls for a reason that is a rule of that agent
    (sessions/toolrules.py): how often, what was refused, and what worked afterwards."""

    rule: ToolRule
    path: str | None  # the file, for rules learned one file at a time
    count: int
    longest: int  # the longest run of refusals in a row
    line: str  # the refusal, as the agent said it
    examples: tuple[str, ...]
    refs: tuple[str, ...]
    matched: str | None = None  # for edits: the first line of the edit that then applied


@dataclass(frozen=True)
class CreatedFiles:
    """Files the agent created (and kept) in a session that ended well."""

    paths: tuple[str, ...]
    refs: tuple[str, ...]


@dataclass(frozen=True)
class Writ:
    """An explicit `/lesson <title>: <text>` (or `/lesson <title> … /endlesson`) in a message."""

    title: str
    text: str
    ref: str


@dataclass(frozen=True)
class Correction:
    """A user message that corrects what the agent just did, stating a durable rule."""

    text: str
    ref: str


Observation = (
    Verification
    | CommandFix
    | ArgsFix
    | EditFix
    | RepeatedFailure
    | ToolRuleSeen
    | CreatedFiles
    | Writ
    | Correction
)


@dataclass
class SessionObservations:
    """Everything observed in one session (or one newly appended part of it)."""

    agent: str
    session_id: str
    tool_calls: int = 0
    events: int = 0
    last_seq: int = -1
    cwd: str | None = None
    successful: bool = False
    items: list[Observation] = field(default_factory=list)
