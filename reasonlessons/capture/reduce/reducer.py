"""The reducer: one session's events in, observations out; deterministic, offline, bounded memory.

Events are fed one at a time and nothing of them is kept but a bounded summary: the calls awaiting
results, the recent failures still open (each remembers the edits and calls made since), a capped
table of failure counts, the passing verification commands and the files created. So a gigabyte of
log costs the same memory as a kilobyte.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace

from reasonlessons.capture.reduce import messages, pairing
from reasonlessons.capture.reduce.commits import CommitTracker, bypass_flags
from reasonlessons.capture.reduce.gitfacts import GitTracker
from reasonlessons.capture.reduce.observations import (
    ArgsFix,
    Call,
    CommandFix,
    Correction,
    CreatedFiles,
    EditFix,
    Failure,
    RepeatedFailure,
    SessionObservations,
    Step,
    ToolRuleSeen,
    Verification,
    WorkdirFix,
    Writ,
    new_call,
)
from reasonlessons.capture.reduce.retries import LoopTracker, SuggestionTracker, subject
from reasonlessons.capture.reduce.setup import SetupTracker
from reasonlessons.capture.reduce.toolrules import ToolRuleTracker
from reasonlessons.safety.redact import redact
from reasonlessons.sessions import signals, toolrules
from reasonlessons.sessions.commands import command_form, segments, subcommand
from reasonlessons.sessions.edits import Edit, Move, changed_region, file_edits, relative, shell_moves
from reasonlessons.sessions.errorsig import error_signature
from reasonlessons.sessions.events import Event
from reasonlessons.sessions.shell import Invocation, parse
from reasonlessons.support.values import frozen

_OPEN_MAX = 16
_PENDING_MAX = 64
_RUNNING_MAX = 16
_STATS_MAX = 256
_VERIFY_MAX = 32
_CREATED_MAX = 500
_MESSAGES_MAX = 10
_EXCERPT = 2000
_ARG_CAP = 200
_FIX_REACH = max(pairing.WINDOW, pairing.ARGS_WINDOW)
_TOLD_MAX = 256
_RULES_MAX = 32
_TOLD_TEXT = 16 * 1024
_SCALARS = (str, int, float, bool)
_COMMAND_CAP = 4000
_SHELL_CALLS_MAX = 1024
# The telling line of a failure text, per process: a pure function of its key, and the same
# command fails the same way in session after session (`vitest: not found`), not only within one.
_TOLD: dict[tuple[str, str, int | None, str | None], tuple[str | None, bool]] = {}
_SHELL_CALLS: dict[
    tuple[str, str | None, str | None, str | None, str | None],
    tuple[Invocation | None, str, tuple[Move, ...]],
] = {}


def _unreverted(edits: list[Edit]) -> list[Edit]:
    """Edits without those a later edit undid (a change tried and taken back is no fix)."""
    kept: list[Edit] = []
    for edit in edits:
        undone = next(
            (k for k in kept if k.path == edit.path and k.before == edit.after and k.after == edit.before),
            None,
        )
        if undone is not None and edit.before is not None:
            kept.remove(undone)
        else:
            kept.append(edit)
    return kept


def _shell_key(inv: Invocation) -> str:
    """What a shell call asked, for telling retries apart: the command and where it ran."""
    return f"shell:{inv.workdir}:{inv.text}" if inv.workdir else f"shell:{inv.text}"


@dataclass(eq=False)  # compared by identity: `deque.remove` must not compare failures field by field
class _Open:
    """A failure not yet resolved, and what happened since."""

    failure: Failure
    opened_at: int  # the session's call count when it failed
    edits: list[Edit] = field(default_factory=list)


@dataclass
class _Stat:
    count: int = 0
    streak: int = 0
    resolved: bool = False
    last: Failure | None = None
    refs: list[str] = field(default_factory=list)


@dataclass
class _RuleStat:
    """How one tool rule was broken in this session (for one file, when it is per file)."""

    rule: toolrules.ToolRule
    path: str | None
    line: str
    count: int = 0
    streak: int = 0
    longest: int = 0
    examples: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    matched: str | None = None


class SessionReducer:
    """Feed the events of one session in order, then call `finish()`."""

    def __init__(self, agent: str, session_id: str, *, root: str | None = None) -> None:
        self.obs = SessionObservations(agent=agent, session_id=session_id)
        self._root = root
        self._bases_of: tuple[str | None, tuple[str, ...]] | None = None  # (cwd, bases) once known
        self._pending: OrderedDict[str, Call] = OrderedDict()
        self._running: dict[str, Call] = {}  # commands whose first result said "still running"
        self._edits_of: dict[str, list[Edit]] = {}
        self._moves_of: dict[str, list[Move]] = {}
        self._open: deque[_Open] = deque(maxlen=_OPEN_MAX)
        self._open_keys: dict[str, int] = {}  # call key -> how many of `_open` failed with it
        self._calls = 0  # results seen: the clock failures and fixes are measured by
        self._recent: deque[tuple[int, str]] = deque(maxlen=8)  # (call number, tool) of recent calls
        self._stats: OrderedDict[str, _Stat] = OrderedDict()
        self._verified: OrderedDict[str, Verification] = OrderedDict()
        self._forms: dict[str, dict[str, int]] = {}  # verification key -> command form -> passes
        self._created: OrderedDict[str, str] = OrderedDict()
        self._touched: set[str] = set()
        self._last_key: str | None = None
        self._last_failed = False
        self._verify_ok: bool | None = None
        self._messages = 0
        # Workflow observations (docs/capture.md#observations): commits, retries, setup, git, tools.
        self._commits = CommitTracker()
        self._loops = LoopTracker()
        self._suggested = SuggestionTracker()
        self._setup = SetupTracker()
        self._git = GitTracker()
        self._rules = ToolRuleTracker(agent)
        self._workdir_fixes: list[WorkdirFix] = []
        # Aider's tool rules (sessions/toolrules.py), counted per rule and file.
        self._rule_stats: dict[tuple[str, str | None], _RuleStat] = {}

    # -- feeding -----------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Take one event (in `seq` order)."""
        obs = self.obs
        obs.events += 1
        if event.seq > obs.last_seq:
            obs.last_seq = event.seq
        if event.cwd and obs.cwd is None:
            obs.cwd = event.cwd
        kind = event.kind
        if kind == "tool_call":
            self._call(event)
        elif kind == "tool_result":
            self._result(event)
        elif kind == "text" and event.text and event.role in ("user", "assistant"):
            self._text(event)

    def _bases(self) -> tuple[str, ...]:
        cwd = self.obs.cwd
        if self._bases_of is None or self._bases_of[0] != cwd:
            self._bases_of = (cwd, tuple(b for b in (cwd, self._root) if b))
        return self._bases_of[1]

    def _call(self, event: Event) -> None:
        self.obs.tool_calls += 1
        tool = event.tool_name or "unknown"
        args = event.tool_args or {}
        invocation: Invocation | None = None
        short: tuple[tuple[str, str], ...] = ()
        command = ""
        moves: tuple[Move, ...] = ()
        if tool == "shell":
            raw = args.get("command")
            if isinstance(raw, str):
                command = raw[:_COMMAND_CAP]
                invocation, key, moves = self._shell_call(raw, args.get("workdir"), event.cwd)
            else:
                key = f"shell:{raw}"
        else:
            short = tuple(
                (str(k), v if isinstance(v, str) else repr(v))
                for k, v in sorted(args.items())
                if isinstance(v, _SCALARS) and len(v if v.__class__ is str else str(v)) <= _ARG_CAP
            )
            key = f"{tool}:{short!r}"
        call = new_call(event.seq, tool, key, event.raw_ref, invocation, short, command)
        call_id = event.call_id or f"#{event.seq}"
        self._pending[call_id] = call
        if len(self._pending) > _PENDING_MAX:
            self._pending.popitem(last=False)
        edits = file_edits(tool, args, event.raw_ref)
        if edits:
            self._edits_of[call_id] = edits
        elif moves:
            self._moves_of[call_id] = list(moves)

    def _shell_call(
        self, raw: str, workdir: object, cwd: str | None
    ) -> tuple[Invocation | None, str, tuple[Move, ...]]:
        """A shell command as the reducer keeps it: placed, keyed, and the files it moves.
        Remembered in the process (an agent runs the same few commands in every session), keyed
        by all it depends on: the command, where it ran and where the session started."""
        workdir = workdir if isinstance(workdir, str) else None
        memo = (raw, workdir, cwd, self.obs.cwd, self._root)
        known = _SHELL_CALLS.get(memo)
        if known is None:
            invocation = parse(raw)
            if invocation is not None:
                invocation = self._placed(invocation, workdir, cwd)
            key = _shell_key(invocation) if invocation is not None else f"shell:{raw}"
            known = (invocation, key, tuple(shell_moves(raw)))
            if len(raw) <= _COMMAND_CAP:  # a script pasted in a heredoc is not worth holding
                if len(_SHELL_CALLS) >= _SHELL_CALLS_MAX:
                    _SHELL_CALLS.clear()
                _SHELL_CALLS[memo] = known
        return known

    def _placed(self, inv: Invocation, workdir: object, cwd: str | None) -> Invocation:
        """`inv` with the directory it ran in, relative to where the session started: a leading
        `cd X &&`, the call's `workdir` argument (Codex), or the shell's cwd when it moved."""
        start = self.obs.cwd
        here = workdir if isinstance(workdir, str) and workdir else cwd
        moved = relative(here, (start,)) if here and start and here != start else None
        where = inv.workdir
        if where and (where.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", where)):
            where = relative(where, self._bases()) if start else None
            if where is None:
                return replace(inv, workdir=None)
        if moved and where:
            where = f"{moved}/{where}"
        elif moved:
            where = moved
        return inv if where == inv.workdir else replace(inv, workdir=where)

    def _match(self, event: Event) -> tuple[str, Call] | None:
        if event.call_id and event.call_id in self._pending:
            return event.call_id, self._pending.pop(event.call_id)
        if event.call_id and event.call_id in self._running:
            return event.call_id, self._running.pop(event.call_id)
        for call_id, call in self._pending.items():
            if event.call_id is None and (event.tool_name is None or call.tool == event.tool_name):
                del self._pending[call_id]
                return call_id, call
        return None

    def _result(self, event: Event) -> None:
        found = self._match(event)
        if found is None:
            return  # a result with no call: the adapter counted it already
        call_id, call = found
        edits = self._edits_of.pop(call_id, [])
        moves = self._moves_of.pop(call_id, [])
        masked = self._masked(call, event) if event.is_error is False else None
        if event.is_error or masked is not None:
            failure = self._failed(call, event, masked)
            if call.tool != "shell":
                self._rules.refused(call.tool, event.text, event.raw_ref)
            if failure is not None:
                self._flow_failed(call, failure)
        elif event.is_error is False:
            self._succeeded(call, event)
            if self._rule_stats and edits:
                self._rule_kept(call, edits)
            self._apply(edits)
            self._move(moves)
            self._flow_succeeded(call, event.text)
        elif call.tool == "shell" and event.call_id:
            self._running[event.call_id] = call  # still running: its outcome comes in a later result
            if len(self._running) > _RUNNING_MAX:
                self._running.pop(next(iter(self._running)))
        elif call.tool != "shell" and self._rules.refused(call.tool, event.text, event.raw_ref):
            pass  # unknown outcome, but the text is a refusal (e.g. Codex `apply_patch`)
        elif edits:
            self._apply(edits)  # unknown outcome (e.g. Codex patches): the change most likely happened
            self._rules.worked(call.tool)
        self._calls += 1
        self._recent.append((self._calls, call.tool))
        self._last_key, self._last_failed = call.key, bool(event.is_error)

    def _flow_failed(self, call: Call, failure: Failure) -> None:
        parts = segments(call.command) if call.command else ()
        what = subject(call, parts)
        self._loops.failed(call, failure, what, bypass_flags(parts))
        if call.tool != "shell":
            return
        if not self._commits.failed(failure, parts, self._calls):
            self._suggested.failed(failure, what, self._calls)
        self._setup.failed(failure, parts, self._calls)
        self._git.failed(failure, parts)

    def _flow_succeeded(self, call: Call, output: str | None = None) -> None:
        if call.tool != "shell":
            self._rules.worked(call.tool)
            self._loops.succeeded(call.key)
            return
        parts = segments(call.command) if call.command else ()
        what = subject(call, parts)
        self._loops.succeeded(what)
        self._commits.succeeded(call, parts, self._calls)
        self._suggested.succeeded(call, parts, what, self._calls)
        self._setup.succeeded(call, parts, self._calls)
        self._git.succeeded(call, parts, output)

    def _masked(self, call: Call, event: Event) -> str | None:
        """The failure line of a check whose exit code a pipe hid (`mix test | tail -5`)."""
        inv = call.invocation
        if inv is None or inv.category is None or "|" not in call.command and ";" not in call.command:
            return None
        return signals.masked_failure(call.command, inv.category, event.text)

    def _failed(self, call: Call, event: Event, masked: str | None = None) -> Failure | None:
        sig = event.error_sig or (f"exit {event.exit_code}" if event.exit_code else None)
        if masked is not None:
            sig = error_signature(masked)
        if not sig:
            return None
        text = event.text or ""
        call = self._attributed(call, text)
        line: str | None
        if masked is not None:
            line, invocation = masked, False
        else:
            line, invocation = self._tell(text, sig, event.exit_code, event.error_kind)
        if event.error_kind in ("harness", "tool"):
            rule = toolrules.match(self.obs.agent, call.tool, text, dict(call.args))
            if rule is not None:
                self._rule_broken(rule, call, text, line or sig, event.raw_ref)
        failure = Failure(
            call=call,
            sig=sig,
            ref=event.raw_ref,
            line=line,
            exit_code=event.exit_code,
            error_kind=event.error_kind or ("exit" if masked is not None else None),
            excerpt=text[:_EXCERPT] if masked is None else text[-_EXCERPT:],
            invocation=invocation,
        )
        stat = self._stats.pop(call.key, None) or _Stat()
        self._stats[call.key] = stat
        if len(self._stats) > _STATS_MAX:
            self._stats.popitem(last=False)
        stat.count += 1
        stat.streak = stat.streak + 1 if self._last_key == call.key and self._last_failed else 1
        stat.resolved, stat.last = False, failure
        if len(stat.refs) < 3:
            stat.refs.append(event.raw_ref)
        if len(self._open) == _OPEN_MAX:
            self._forget(self._open[0])  # the deque drops it on append
        self._open.append(_Open(failure, self._calls))
        self._open_keys[call.key] = self._open_keys.get(call.key, 0) + 1
        if call.invocation is not None and call.invocation.category:
            self._verify_ok = False
        return failure

    def _attributed(self, call: Call, text: str) -> Call:
        """`a && b` failed: the check whose name the output mentions failed (else the last one)."""
        if call.invocation is None or "&&" not in call.command:
            return call
        checks = [inv for inv in segments(call.command) if inv.category]
        if len(checks) < 2:
            return call
        head = text[:4000].lower()
        best = max(
            reversed(checks),
            key=lambda inv: sum(w.lower() in head for w in (inv.tool, subcommand(inv)) if w and len(w) > 2),
        )
        if best.text == call.invocation.text:
            return call
        placed = self._placed(best, None, None) if best.workdir else best
        if call.invocation.workdir and not best.workdir:
            placed = replace(best, workdir=call.invocation.workdir)
        return replace(call, invocation=placed, key=_shell_key(placed))

    def _tell(
        self, text: str, sig: str, exit_code: int | None, error_kind: str | None
    ) -> tuple[str | None, bool]:
        """The telling line of a failure, and whether the command itself could not run.

        Remembered per failure text (in the process, bounded): an agent retrying a command gets the
        same output again and again, and finding the line costs a signature per candidate line.
        """
        memo = len(text) <= _TOLD_TEXT
        key = (text, sig, exit_code, error_kind)
        if memo and (known := _TOLD.get(key)) is not None:
            return known
        line = signals.telling_line(text, sig)
        invocation = signals.is_invocation_failure(sig, exit_code, error_kind)
        if not invocation and (strong := signals.invocation_line(text)) is not None:
            invocation, line = True, strong  # e.g. a test run that could not import its package
        if memo:
            if len(_TOLD) >= _TOLD_MAX:
                _TOLD.clear()
            _TOLD[key] = line, invocation
        return line, invocation

    def _passed(self, call: Call) -> list[Invocation]:
        """Every command of a call that passed: all of an `a && b` chain, else the one it is about."""
        inv = call.invocation
        if inv is None:
            return []
        if "&&" not in call.command or "||" in call.command or ";" in call.command:
            return [inv]
        parts = [self._placed(p, None, None) if p.workdir else p for p in segments(call.command)]
        if inv.workdir:
            parts = [p if p.workdir else replace(p, workdir=inv.workdir) for p in parts]
        return parts or [inv]

    def _rule_broken(self, rule: toolrules.ToolRule, call: Call, text: str, line: str, ref: str) -> None:
        path = relative(dict(call.args).get("file_path", ""), self._bases()) if rule.per_file else None
        key = (rule.key, path)
        stat = self._rule_stats.get(key)
        if stat is None:
            if len(self._rule_stats) >= _RULES_MAX:
                return
            stat = self._rule_stats[key] = _RuleStat(rule, path, line.strip().lstrip("# ")[:_EXCERPT])
        stat.count += 1
        stat.streak += 1
        stat.longest = max(stat.longest, stat.streak)
        example = toolrules.example(rule, text, dict(call.args))
        if example and example not in stat.examples and len(stat.examples) < 4:
            stat.examples.append(example)
        if len(stat.refs) < 3:
            stat.refs.append(ref)

    def _rule_kept(self, call: Call, edits: list[Edit]) -> None:
        """An edit that applied after refused ones: the streak ends, and what matched is kept."""
        bases = self._bases()
        for edit in edits:
            for stat in self._rule_stats.values():
                if stat.path is None or call.tool not in stat.rule.tools:
                    continue
                if relative(edit.path, bases) != stat.path:
                    continue
                stat.streak = 0
                if stat.matched is None and edit.before:
                    stat.matched = next((ln.strip() for ln in edit.before.splitlines() if ln.strip()), None)

    def _succeeded(self, call: Call, event: Event) -> None:
        inv = call.invocation
        passed = self._passed(call)
        if not passed or len(passed) == 1 and passed[0] is inv:
            keys = {call.key}  # a shell call's key is its invocation's (_call, _attributed)
        else:
            keys = {call.key, *(_shell_key(p) for p in passed)}
        for key in keys:  # not `keys & self._stats.keys()`: that walks all 256 failing calls
            stat = self._stats.get(key)
            if stat is not None:
                stat.resolved = True
        checks = [p for p in passed if p.category]
        if checks:
            self._verify_ok = True
        for check in checks:
            self._verification(check, event.raw_ref)
        calls = self._calls
        bases = {p.base for p in checks if p.category in ("lint", "typecheck")} if checks else None
        open_keys = self._open_keys
        newest = self._open[-1] if self._open else None
        if (
            newest is None
            or calls - newest.opened_at > _FIX_REACH
            and not bases
            and keys.isdisjoint(open_keys)
        ):
            return  # what the loop below finds at its first item on most successes, without a copy
        for item in list(reversed(self._open)):
            failure = item.failure
            if calls - item.opened_at > _FIX_REACH and not bases and keys.isdisjoint(open_keys):
                # This one and all older ones are past reach, and none failed as this call: only
                # a same-call failure could still be closed here. Usually 15 of 16 open failures.
                break
            same = failure.call.key in keys
            if (
                same
                or bases
                and item.edits
                and (failed := failure.call.invocation) is not None
                and failed.base in bases
            ):
                self._close(item)
                if inv is not None and item.edits:
                    self._edit_fix(item, event.raw_ref)
                elif not same:
                    self._resolve(failure)
                continue  # an older failure of another command may be what this one fixes
            since = calls - item.opened_at
            if since > _FIX_REACH:
                continue  # too long ago for a fix of either kind (the pairing windows)
            if inv is not None and inv.workdir is not None and pairing.workdir_fix(failure, call):
                self._workdir_fixes.append(
                    WorkdirFix(failure, Step(command_form(inv), inv, event.raw_ref), inv.workdir or "")
                )
                self._close(item)
                self._resolve(failure)
                break
            if inv is not None:
                if failure.call.invocation is None or not pairing.command_fix(failure, call, since):
                    continue
                stat = self._stats.get(failure.call.key)
                self._add(CommandFix(failure, call, event.raw_ref, stat.count if stat else 1))
            elif failure.call.tool != call.tool or not pairing.args_fix(failure, call, since):
                continue
            else:
                self._add(ArgsFix(failure, call, event.raw_ref, self._via(item)))
            self._close(item)
            self._resolve(failure)
            break

    def _close(self, item: _Open) -> None:
        self._open.remove(item)
        self._forget(item)

    def _forget(self, item: _Open) -> None:
        key = item.failure.call.key
        left = self._open_keys[key] - 1
        if left:
            self._open_keys[key] = left
        else:
            del self._open_keys[key]

    def _via(self, item: _Open) -> tuple[str, ...]:
        """Other tools called between a failure and now (what the agent looked up to fix it)."""
        tools = [t for n, t in self._recent if n > item.opened_at and t != item.failure.call.tool]
        return tuple(dict.fromkeys(tools))[:4]

    def _edit_fix(self, item: _Open, rerun_ref: str) -> None:
        failure = item.failure
        self._resolve(failure)
        if failure.invocation or not pairing.convention(failure):
            return
        kept = _unreverted(item.edits)
        edits = [e for e in kept if changed_region(e.before, e.after) is not None]
        named = [e for e in edits if e.path.rsplit("/", 1)[-1] in failure.excerpt]
        if named and len(named) <= 6:
            self._add(EditFix(failure, tuple(named[:3]), rerun_ref))
        elif 1 <= len(edits) <= 3:
            self._add(EditFix(failure, tuple(edits), rerun_ref))
        elif kept and failure.call.invocation is not None and failure.call.invocation.category == "lint":
            # A linter's finding fixed by changes too tangled to quote: the finding is the lesson.
            touched = [e for e in kept if e.path.rsplit("/", 1)[-1] in failure.excerpt] or kept
            self._add(EditFix(failure, (Edit(touched[0].path, ref=touched[0].ref),), rerun_ref))

    def _resolve(self, failure: Failure) -> None:
        stat = self._stats.get(failure.call.key)
        if stat is not None:
            stat.resolved = True

    def _verification(self, inv: Invocation, ref: str) -> None:
        key = f"{inv.workdir or ''}\x00{inv.base}"
        old = self._verified.pop(key, None)
        if old is None and len(self._verified) >= _VERIFY_MAX:
            return
        examples = old.examples if old else ()
        if inv.text not in examples and len(examples) < 3:
            examples = (*examples, inv.text)
        refs = old.refs if old else ()
        if len(refs) < 3:
            refs = (*refs, ref)
        forms = self._forms.setdefault(key, {})
        form = command_form(inv)
        if form in forms or len(forms) < 8:
            forms[form] = forms.pop(form, 0) + 1  # re-inserted: the latest wins a tie
        shown = max(reversed(forms), key=forms.__getitem__)
        # Once per passing check of every log: built by its instance dict (support.values.frozen).
        self._verified[key] = frozen(
            Verification,
            {
                "invocation": inv,
                "count": (old.count if old else 0) + 1,
                "refs": refs,
                "examples": examples,
                "form": shown,
            },
        )

    def _apply(self, edits: list[Edit]) -> None:
        if not edits:
            return
        bases = self._bases()
        for edit in edits:
            path = relative(edit.path, bases)
            if path is None:
                continue
            if edit.created and path not in self._touched and len(self._created) < _CREATED_MAX:
                self._created.setdefault(path, edit.ref)
            self._touched.add(path)
            self._setup.edited(path, self._calls)
            takers = [item.edits for item in self._open if len(item.edits) < 6]
            if not takers:
                continue  # no open failure to follow it into: most edits, no copy of the edit made
            moved = frozen(
                Edit,
                {
                    "path": path,
                    "before": edit.before,
                    "after": edit.after,
                    "created": edit.created,
                    "ref": edit.ref,
                },
            )
            for edits_since in takers:
                edits_since.append(moved)

    def _move(self, moves: list[Move]) -> None:
        """Follow created files through `mv`/`git mv` and forget those removed again."""
        if not moves:
            return
        bases = self._bases()
        for move in moves:
            source = relative(move.source, bases)
            ref = self._created.pop(source, None) if source else None
            dest = relative(move.dest, bases) if move.dest else None
            if ref is not None and dest is not None:
                self._created[dest] = ref

    def _text(self, event: Event) -> None:
        text = event.text or ""
        if self._messages >= _MESSAGES_MAX:
            return
        # Stated lessons keep the user's words: redact them before they are held anywhere.
        for title, body in messages.writs(text):
            self._messages += 1
            self._add(Writ(redact(title).text, redact(body).text, event.raw_ref))
        if event.role == "user" and self.obs.tool_calls:
            rule = messages.correction(text)
            if rule is not None:
                self._messages += 1
                self._add(Correction(redact(rule).text, event.raw_ref))

    def _add(self, item: object) -> None:
        if len(self.obs.items) < 64:
            self.obs.items.append(item)  # type: ignore[arg-type]

    # -- finishing ---------------------------------------------------------------------------

    def finish(self) -> SessionObservations:
        """The observations of the session, in a stable order."""
        obs = self.obs
        unresolved = [s for s in self._stats.values() if not s.resolved and s.last is not None]
        obs.successful = self._verify_ok is True or (self._verify_ok is None and not unresolved)
        obs.items.extend(self._verified.values())
        for rule in self._rule_stats.values():
            obs.items.append(
                ToolRuleSeen(
                    rule.rule,
                    rule.path,
                    rule.count,
                    rule.longest,
                    rule.line,
                    tuple(rule.examples),
                    tuple(rule.refs),
                    rule.matched,
                )
            )
        for stat in unresolved:
            failure = stat.last
            assert failure is not None
            if (stat.streak >= 2 or stat.count >= 3) and failure.invocation:
                obs.items.append(RepeatedFailure(failure, stat.count, stat.streak, tuple(stat.refs)))
        covered = {
            item.failure.call.key
            for item in obs.items
            if isinstance(item, RepeatedFailure | CommandFix | EditFix)
        }
        gate = self._commits.finish()
        obs.items.extend([gate] if gate is not None else [])
        obs.items.extend(self._loops.finish(covered))
        obs.items.extend(self._suggested.found[:4])
        obs.items.extend(self._rules.finish())
        obs.items.extend(self._setup.found[:4])
        obs.items.extend(self._git.found[:4])
        obs.items.extend(self._workdir_fixes[:4])
        if obs.successful and self._created:
            paths = tuple(self._created)[:50]
            refs = tuple(dict.fromkeys(self._created[p] for p in paths))[:3]
            obs.items.append(CreatedFiles(paths, refs))
        return obs
