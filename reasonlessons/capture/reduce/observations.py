"""Observations: what the reducer noticed in one session, small and bounded, ready for the extractor."""

from __future__ import annotations

from dataclasses import dataclass, field

from reasonlessons.sessions.edits import Edit
from reasonlessons.sessions.shell import Invocation
from reasonlessons.sessions.toolrules import ToolRule as AgentToolRule
from reasonlessons.support.values import frozen


@dataclass(frozen=True)
class Call:
    """A tool call as the reducer remembers it (no outputs)."""

    seq: int
    tool: str
    key: str  # what was asked: the command for shell calls, tool + arguments otherwise
    ref: str
    invocation: Invocation | None = None
    args: tuple[tuple[str, str], ...] = ()  # short string arguments of non-shell tools
    command: str = ""  # the whole command line of a shell call (capped), `cd x && a && b`


def new_call(
    seq: int,
    tool: str,
    key: str,
    ref: str,
    invocation: Invocation | None,
    args: tuple[tuple[str, str], ...],
    command: str,
) -> Call:
    """`Call(...)` with every field given, for the reducer's once-per-call path (support.values.frozen;
    equal, as frozen, and pickled the same: tests/capture/reduce/test_reducer.py)."""
    return frozen(
        Call,
        {
            "seq": seq,
            "tool": tool,
            "key": key,
            "ref": ref,
            "invocation": invocation,
            "args": args,
            "command": command,
        },
    )


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
    """A test/build/lint/typecheck command that passed; `examples` are the exact lines run, `form`
    the command with the flags it passed with most often (commands.command_form)."""

    invocation: Invocation
    count: int
    refs: tuple[str, ...]
    examples: tuple[str, ...] = ()
    form: str = ""


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

    rule: AgentToolRule
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


@dataclass(frozen=True)
class Step:
    """A command that ran in a workflow observation: its form for a lesson, where, and its log line."""

    form: str  # commands.command_form: `mix credo --strict`
    invocation: Invocation
    ref: str


@dataclass(frozen=True)
class SuggestedFix:
    """A command failed with a message naming another command (`Run 'mix format' to fix`); the agent
    ran it and the failed command then passed. Or the named command does the failed one's job
    (`Use bun instead (e.g. 'bun test')` after `npm test`) and passed in its place: `replaces`."""

    failure: Failure
    suggestion: str  # as the message put it
    fix: Step
    rerun_ref: str
    replaces: bool = False


@dataclass(frozen=True)
class CommitGate:
    """`git commit` was rejected by a check (a hook, a pre-commit validation) until other commands
    ran; or the same checks ran before every commit. `steps` are those commands, in order."""

    steps: tuple[Step, ...]
    rejections: tuple[Failure, ...] = ()  # the first few rejections, each with its telling line
    rejected: int = 0  # how many commits were rejected in all
    accepted_refs: tuple[str, ...] = ()
    routine: tuple[str, ...] = ()  # forms that ran before every (or most) accepted commits
    commits: int = 0


@dataclass(frozen=True)
class Loop:
    """The same call failed the same way three or more times (a loop), fixed in the end or not."""

    failure: Failure
    subject: str  # what was retried: `git commit`, `npm run build`, or a tool
    count: int
    refs: tuple[str, ...]
    resolved: bool = False
    bypass: tuple[str, ...] = ()  # flags tried to get past a check, e.g. `--no-verify`


@dataclass(frozen=True)
class ToolRule:
    """The agent's own harness refused a call for a reason that holds in every repository."""

    agent: str
    rule: str  # an id of toolrules.RULES
    tool: str
    count: int
    refs: tuple[str, ...]
    detail: str = ""  # e.g. the token limit the message named


@dataclass(frozen=True)
class SetupStep:
    """A command that prepared the project (dependencies, migrations, generated code) had to run
    after a change before the tests (or build) passed: `after changing X, run Y`."""

    kind: str  # deps | migrate | codegen
    step: Step
    trigger: str  # the changed file or directory (`mix.exs`, `priv/repo/migrations/`), or a command
    trigger_is_command: bool
    check: Step  # the test or build command that then passed
    failed_before: Failure | None = None


@dataclass(frozen=True)
class GitFact:
    """A fact about how git is used in this repository, learned from a refusal and what worked."""

    kind: str  # force-add | default-branch
    subject: str  # the ignored directory, or the default branch
    detail: str  # the tracked file staged with -f, or the branch that does not exist
    failure: Failure
    fix: Step


@dataclass(frozen=True)
class WorkdirFix:
    """The same command failed in one directory and passed in another: where it must run."""

    failure: Failure
    fix: Step
    workdir: str  # repository-relative, '' for the root


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
    | SuggestedFix
    | CommitGate
    | Loop
    | ToolRule
    | SetupStep
    | GitFact
    | WorkdirFix
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
