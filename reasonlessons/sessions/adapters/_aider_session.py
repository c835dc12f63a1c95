"""One Aider launch at a time: the blocks of a history (_aider_lines.py) -> normalized events.

The rules, as docs/log-formats.md#aider states them: a `/run`, `/test`, `/git` or `!` line, and a
`Running <command>` line (a command the model proposed), is a shell call; other `/` commands are
calls of the `aider` tool; `Applied edit to <file>` turns the blocks the model proposed for that
file into `edit`/`write` calls; `Commit <sha> <message>` is a `git commit`, rejected when the user's
next message (after commands that leave it as it is: `/diff`, `/run`, ...) is `/undo`; a refused
edit (SearchReplaceNoExactMatch, UnifiedDiffNoMatch, ...) is a failed `edit` call of its file; a
lint report is a failed lint call, and the next edit of its file a passing one. Aider writes no exit
codes and, since about v0.50, no command output: a command failed when Aider said so (`Added N lines
of output` after `/test` only happens on a non-zero exit), when the output it logged reads like an
error, or when the user answered with an error or with Aider's "What's wrong? Fix"; the model's
answer that follows is then the failure's text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from reasonlessons.sessions.adapters import _aider_text as text_of
from reasonlessons.sessions.adapters._aider_lines import Block
from reasonlessons.sessions.adapters._aider_text import Proposed
from reasonlessons.sessions.adapters._common import Emitter
from reasonlessons.sessions.events import ErrorKind, Event, Kind, Role

_STARTED = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})")
# Aider's messages the events are made of, told apart by one match per line.
_MESSAGE = re.compile(
    r"(?P<tokens>Tokens: )|(?P<applied>Applied edit to )|(?P<commit>Commit [0-9a-f]{7,40} )"
    r"|(?P<uncommitted>Unable to commit)"
    r"|(?P<nonconform>The LLM did not conform to the edit format|Malformed response #)"
    r"|(?P<edit_error>\# \d+ SEARCH/REPLACE blocks? failed|## SearchReplaceNoExactMatch|UnifiedDiffNo"
    r"|UnifiedDiffNotUnique|Failed to apply edit to )"
    r"|(?P<lint>\# Fix any errors below)|(?P<added>Added \d+ lines? of output to the chat)"
    r"|(?P<add_output>Add (?:[\d.]+k tokens of )?(?:command |the )?output to the chat\?)"
    r"|(?P<running>Running )|(?P<run_error>Error (?:running command|occurred while running command))"
    r"|(?P<reflections>Only \d+ reflections allowed)|(?P<model>(?:Main |Editor )?[Mm]odel: )"
    r"|(?P<workdir>(?:Git|Cur) working dir: )"
)
# The same messages at the start of a line of a run, and lines that may name the repository's place.
_MATTERS = re.compile(
    r"^(?:Tokens: |Applied edit to |Commit [0-9a-f]{7,40} |Unable to commit|The LLM did not conform"
    r"|Malformed response #|\# \d+ SEARCH/REPLACE|## SearchReplaceNoExactMatch|UnifiedDiffNo"
    r"|UnifiedDiffNotUnique|Failed to apply edit to |\# Fix any errors below|Added \d+ lines? of output"
    r"|Add (?:[\d.]+k tokens of )?(?:command |the )?output to the chat\?|Running "
    r"|Error (?:running|occurred while running) command|Only \d+ reflections allowed"
    r"|(?:Main |Editor )?[Mm]odel: |(?:Git|Cur) working dir: |\S*aider\S* .*--test-cmd)",
    re.MULTILINE,
)
_MAY_NAME_ROOT = re.compile(
    _MATTERS.pattern[:-1]
    + r"|No files matched|Added |Add |Dropping |Skipping |Repo-map can't include|/|[A-Z]:\\)",
    re.MULTILINE,
)
# The same after a newline: searched for by that byte in C, where `^` is tried at every position.
_NEXT_MATTERS = re.compile("\n" + _MATTERS.pattern[1:])
_NEXT_MAY_NAME_ROOT = re.compile("\n" + _MAY_NAME_ROOT.pattern[1:])
_EDIT_FORMAT = re.compile(r"^(?:Main |Editor )?[Mm]odel: .+? (?:with|using) ([\w-]+) edit format")
# Messages that name a file both ways, which tells where the repository was.
_NAMES_PATHS = (
    "No files matched",
    "Added ",
    "Add ",
    "Dropping ",
    "Skipping ",
    "Repo-map can't include",
    "/",
    "C:",
)
_ROOT_TRIES = 200
_NAMES_MAX = 64
_ADDED_NAME = re.compile(r"(?:to|Add) ([\w./\\-]+) to the chat")
_LAUNCH = re.compile(r"^\S*\baider(?:\.exe)?(?:\s|$)")
_CONFIRM_ECHO = re.compile(r"\(Y\)es/\(N\)o.*\]: ?\w*$")
_COMMAND_ERROR = re.compile(
    r"^(?:Invalid command|Ambiguous command|Error\b|Unable to|No git repository|Cannot|Can't|Can not|"
    r"The last commit was not made by aider|Please answer with|This is the first commit in the repository"
    r"|The last commit (?:\S+ has more than 1 parent|has already been pushed)"
    r"|The file .+ (?:has uncommitted changes|was not in the repository))|: file not found error$"
)  # the last three lines: `/undo` refusing to undo
_RUN_ERROR = re.compile(r"^Error (?:running command|occurred while running command)")
_LINT_START = "# Fix any errors below"
_LINT_END = re.compile(r"^(?:Attempt to fix lint errors\?|Fix lint errors in )")
_LINT_RUNNING = re.compile(r"^## Running: (.+)$", re.MULTILINE)
_LINT_FILE = re.compile(r"^([^\s:][^:\n]*?):\d+(?::\d+)?:", re.MULTILINE)
_BUILTIN_LINT = ("flake8 --select=E9,F821", "py_compile")
_ABSOLUTE = re.compile(r"(?:(?<=\s)|^|(?<=['\"]))(/[^\s'\"]+|[A-Za-z]:\\[^\s'\"]+)")
_NO_MATCH = re.compile(r"^No files matched '([^']+)'\. Do you want to create (.+?)\?")
_RUN_OUTPUT = "I ran this command:"
_CHATTER = ("You can use /undo", "Use /help", "Tokens: ")
_COMMANDS_RUN = ("run", "git", "shell", "test")
# Aider resolves a unique prefix of a command name (`/ru` is `/run`).
_COMMANDS = (
    "/add", "/architect", "/ask", "/chat-mode", "/clear", "/code", "/commit", "/context", "/copy",
    "/copy-context", "/diff", "/drop", "/edit", "/editor", "/editor-model", "/exit", "/git", "/help",
    "/lint", "/load", "/ls", "/map", "/map-refresh", "/model", "/models", "/multiline-mode", "/paste",
    "/quit", "/read-only", "/reasoning-effort", "/report", "/reset", "/run", "/save", "/settings",
    "/test", "/think-tokens", "/tokens", "/undo", "/voice", "/weak-model", "/web",
)  # fmt: skip
_ASKING = frozenset({"/ask", "/code", "/architect", "/context", "/help"})
# Commands that leave Aider's last commit as it is: an `/undo` after them still rejects it (a user
# looks at `/diff` or runs the tests, then undoes). Any other message settles the commit as kept.
_LEAVE_COMMIT = frozenset(
    {"/diff", "/run", "/test", "/ls", "/tokens", "/add", "/drop", "/read-only", "/map", "/settings"}
)
_UNDONE = "The user undid this commit (/undo)."
_TEXT_CAP = 64 * 1024
_OUTPUT_CAP = 16 * 1024
_PROPOSALS_MAX = 64
_UNPARSED_CAP = 1024 * 1024


def started_at(line: str) -> datetime | None:
    """The launch time of a `# aider chat started at` line: local time of the machine that wrote it,
    read as this machine's local time (the history records no zone), in UTC."""
    found = _STARTED.match(line)
    if found is None:
        return None
    try:
        local = datetime.fromisoformat(f"{found.group(1)}T{found.group(2)}")
    except ValueError:
        return None
    return local.astimezone().astimezone(UTC)


def session_id(line: str) -> str:
    """`aider-<date>T<time>` (local) of a launch line; the line's own text when it does not parse."""
    found = _STARTED.match(line)
    if found is None:
        return "aider-" + re.sub(r"[^\w.-]+", "-", line.removeprefix("# aider chat started at").strip())[:60]
    return f"aider-{found.group(1)}T{found.group(2).replace(':', '-')}"


@dataclass
class _Call:
    """A call whose outcome the following text has still to tell."""

    call_id: str
    tool: str
    args: dict[str, Any]
    kind: str  # run | test | shell | git | aider | commit
    output: list[str] = field(default_factory=list)
    added: bool | None = None  # its output was (or was not) added to the chat
    added_line: bool = False  # Aider said "Added N lines of output" for it
    failed: bool | None = None
    error_kind: ErrorKind = "exit"
    size: int = 0

    def note(self, line: str) -> None:
        if self.size < _OUTPUT_CAP:
            self.output.append(line)
            self.size += len(line) + 1


class History:
    """Turns the blocks of one history into events, one launch after another."""

    def __init__(self, out: Emitter) -> None:
        self.out = out
        self.prefix = f"{out.path}:"  # of every raw_ref: the path is formatted once
        self.events: list[Event] = []  # what the last block made; the reader hands them out
        self.ts: datetime | None = None
        self._last_ref = ""
        self._reset()

    def _reset(self) -> None:
        self.edit_format = "diff"
        self.test_cmd: str | None = None
        self.proposals: list[Proposed] = []  # edits the model proposed and Aider did not apply yet
        self.unparsed: list[str] = []  # answers whose edits are not read yet
        self.unparsed_size = 0
        self.pending: list[_Call] = []
        self.commit: _Call | None = None
        self.collect: _Call | None = None
        self.failing_edit = False
        self.explain: list[_Call] = []
        self.waiting_user: tuple[str, str] | None = None  # (ref, text) said after a failure
        self.lint: list[str] | None = None
        self.lint_ref = ""
        self.lint_failed: dict[str, tuple[str, dict[str, Any]]] = {}
        self.test_failed: tuple[str, dict[str, Any]] | None = None
        self.edited_since_test = False
        self.answer = ""  # the model's last answer, as written (its words are compared when needed)
        self.rels: list[str] = []
        self.absolutes: list[str] = []
        self.root_tries = 0

    # -- sessions ------------------------------------------------------------------------------

    def start(self, block: Block) -> None:
        out = self.out
        out.session_id = session_id(block.text)
        out.cwd = None
        self.ts = started_at(block.text)
        self._reset()
        self._emit(self._ref(block), "system", "meta", ts=self.ts, text=block.text.lstrip("# "))

    def finish(self) -> None:
        """Settle everything still open: the end of a launch tells no more."""
        ref = self._last_ref
        self._flush_lint()
        self._flush_failing_edit(ref)
        self._settle(ref, None)
        self._explained(ref, None)
        if self.commit is not None:
            self._result(self.commit, ref, failed=False, text="")
            self.commit = None

    def _ref(self, block: Block) -> str:
        return self._ref_at(block.line)

    def _ref_at(self, line: int) -> str:
        self._last_ref = ref = f"{self.prefix}{line}"
        return ref

    def feed(self, block: Block) -> None:
        if block.kind == "tools":
            self._tools(block.text, block.line)
            return
        ref = self._ref(block)
        if block.kind == "tool":
            self._tool(ref, block.text)
        elif block.kind == "user":
            self._flush_lint()
            self._flush_failing_edit(ref)
            self._user(ref, block.text)
        else:
            self._flush_lint()
            self._flush_failing_edit(ref)
            self._assistant(ref, block.text)

    # -- emitting --------------------------------------------------------------------------------

    def _emit(self, ref: str, role: Role, kind: Kind, **fields: Any) -> None:
        self.events.append(self.out.emit(ref, role, kind, **fields))

    def _call(self, ref: str, tool: str, args: dict[str, Any], kind: str) -> tuple[Event, _Call]:
        call = _Call(f"aider-{ref.rsplit(':', 1)[-1]}-{self.out.seq}", tool, args, kind)
        event = self.out.emit(
            ref, "assistant", "tool_call", ts=self.ts, tool_name=tool, tool_args=args, call_id=call.call_id
        )
        return event, call

    def _result(self, call: _Call, ref: str, *, failed: bool | None, text: str) -> None:
        self._emit(
            ref,
            "tool",
            "tool_result",
            ts=self.ts,
            text=text[:_TEXT_CAP],
            tool_name=call.tool,
            call_id=call.call_id,
            is_error=failed,
            error_kind=call.error_kind if failed else None,
        )

    def _done(
        self, ref: str, tool: str, args: dict[str, Any], *, failed: bool, text: str, kind: ErrorKind = "tool"
    ) -> None:
        event, call = self._call(ref, tool, args, "done")
        call.error_kind = kind
        self.events.append(event)
        self._result(call, ref, failed=failed, text=text)

    # -- the user's messages ---------------------------------------------------------------------

    def _user(self, ref: str, text: str) -> None:
        stripped = text.strip()
        if _CONFIRM_ECHO.search(stripped.rsplit("\n", 1)[-1]) and "\n" not in stripped:
            return  # Aider echoing a group answer ("Add file to the chat? ... skip")
        if stripped.startswith(_LINT_START):
            self._lint_failure(ref, stripped)  # older Aider sends lint output as a turn
            return
        if stripped.startswith(_RUN_OUTPUT):
            self._run_output(ref, stripped)
            return
        if self.answer and _same_words(stripped, self.answer):
            self.answer = ""
            return  # architect mode: Aider hands the architect's answer to the editor as a turn
        self._explained(ref, None)
        undo = bool(stripped) and stripped.split(None, 1)[0].lower() == "/undo"
        rejected = undo and self.commit is not None
        if self.commit is not None and (undo or not _leaves_commit(stripped)):
            self.commit.error_kind = "permission"
            self._result(self.commit, ref, failed=undo, text=_UNDONE if undo else "")
            self.commit = None
        self._settle(ref, stripped)
        self._tests_passed(ref)
        self.proposals, self.unparsed, self.unparsed_size = [], [], 0
        if self.waiting_user is not None or rejected:
            return  # a failure report (its text comes with the model's answer), or the rejection
        if stripped.startswith(("/", "!")):
            self._command(ref, stripped)
        elif stripped:
            self._emit(ref, "user", "text", ts=self.ts, text=text)

    def _settle(self, ref: str, said: str | None) -> None:
        """Decide the open calls, given what the user said next (None: the launch ended)."""
        self.collect = None
        pending, self.pending = self.pending, []
        for n, call in enumerate(pending):
            last = n == len(pending) - 1
            output = "\n".join(call.output)
            if call.failed is None and call.output and call.kind in _COMMANDS_RUN:
                call.failed = text_of.output_failed(output)  # older Aider logs the output
            if call.failed is None and last and said and call.added and text_of.reports_failure(said):
                call.failed = True
                if text_of.asks_for_fix(said) and not text_of.output_failed(said):
                    self.explain.append(call)
                    self.waiting_user = (ref, said)
                    continue
                output = said
            if call.failed and not output and call.kind in ("run", "test", "shell"):
                self.explain.append(call)  # its text comes with the model's answer
                continue
            if call.failed is None and call.added is False:
                self._result(call, ref, failed=None, text=output)  # nobody looked
            else:
                self._result(call, ref, failed=bool(call.failed), text=output)

    def _explained(self, ref: str, answer: str | None) -> None:
        """Failures whose output the history lacks, told by the model's answer that follows."""
        if self.explain:
            quoted = text_of.quoted_error(answer) if answer else None
            told = f"{quoted}\n\n{answer}" if quoted else answer  # the quoted error first: its signature
        for call in self.explain:
            self._result(call, ref, failed=True, text=told or "\n".join(call.output) or "failed")
        self.explain = []
        if self.waiting_user is not None:
            said_ref, said = self.waiting_user
            self.waiting_user = None
            self._emit(said_ref, "user", "text", ts=self.ts, text=said)

    def _command(self, ref: str, text: str) -> None:
        if text.startswith("!"):
            word, rest = "/run", text[1:].strip()
        else:
            parts = text.split(None, 1)
            word, rest = _resolve(parts[0].lower()), (parts[1].strip() if len(parts) > 1 else "")
        if word in _ASKING and rest:
            self._emit(ref, "user", "text", ts=self.ts, text=rest)
            return
        if word in ("/exit", "/quit"):
            self._emit(ref, "system", "meta", ts=self.ts, text=word)
            return
        if word in ("/run", "/test", "/git") and rest and "\n" not in rest:
            command = f"git {rest}" if word == "/git" else rest
            event, call = self._call(ref, "shell", {"command": command}, word[1:])
        else:
            kind = "test" if word == "/test" else "aider"  # `/test` alone runs the configured command
            event, call = self._call(ref, "aider", {"command": text}, kind)
            call.error_kind = "harness" if kind == "aider" else "exit"
        self.events.append(event)
        self.pending.append(call)
        self.collect = call

    def _run_output(self, ref: str, text: str) -> None:
        """Older Aider sends command output to the model as a turn: `I ran this command: ...`."""
        body = text.split("And got this output:", 1)
        output = body[1].strip() if len(body) > 1 else text
        failed = text_of.output_failed(output)
        call = self._last_shell()
        if call is not None:
            self.pending.remove(call)
            self._result(call, ref, failed=failed, text=output)
            return
        command = body[0].removeprefix(_RUN_OUTPUT).strip()
        if command and "\n" not in command:
            self._done(ref, "shell", {"command": command}, failed=failed, text=output, kind="exit")

    # -- Aider's own messages --------------------------------------------------------------------

    def _tools(self, text: str, line: int) -> None:
        """Aider's one-line messages in a row: each one that can matter, the rest passed over in C
        (all of them while a command's output, a lint report or the repository's place is read)."""
        pos, size = 0, len(text)
        while pos <= size:
            if self.lint is not None or self.collect is not None or self.failing_edit:
                found = None
                at = pos
            else:
                if self.out.cwd is None and self.root_tries < _ROOT_TRIES:
                    here, after = _MAY_NAME_ROOT, _NEXT_MAY_NAME_ROOT
                else:
                    here, after = _MATTERS, _NEXT_MATTERS
                if here.match(text, pos) is not None:  # `pos` starts a line
                    at = pos
                else:
                    found = after.search(text, pos)
                    if found is None:
                        return
                    at = found.start() + 1
                    line += text.count("\n", pos, at)
            end = text.find("\n", at)
            end = size if end < 0 else end
            self._tool(self._ref_at(line), text[at:end])
            line, pos = line + 1, end + 1

    def _tool(self, ref: str, text: str) -> None:
        if self.lint is not None:
            if not _LINT_END.match(text) and not text.startswith(("Tokens:", "Applied edit", "Commit ")):
                self.lint.append(text)
                return
            self._flush_lint()
        first = text.split("\n", 1)[0] if "\n" in text else text
        if self.failing_edit:
            if _is_edit_error(text):
                self.failing_edit = False
                self._failed_edits(ref, text)
                return
            if first.startswith("https://") or not first.strip():
                return
            self._flush_failing_edit(ref)
        if self.out.cwd is None and self.root_tries < _ROOT_TRIES and first.startswith(_NAMES_PATHS):
            self._learn_root(first)
        found = _MESSAGE.match(first)
        kind = found.lastgroup if found is not None else None
        if kind == "tokens":
            tokens = text_of.tokens(first)
            if tokens is not None:
                self._emit(ref, "assistant", "usage", ts=self.ts, tokens=tokens)
        elif kind == "applied":
            self._applied(ref, text_of.clean_path(first[len("Applied edit to ") :]))
        elif kind == "commit":
            self._committed(ref, first.split(" ", 2)[2].strip())
        elif kind == "uncommitted":
            self._done(ref, "shell", {"command": "git commit"}, failed=True, text=text)
        elif kind == "nonconform":
            self.failing_edit = True
        elif kind == "edit_error" and _is_edit_error(text):
            self._failed_edits(ref, text)
        elif kind == "lint":
            self.lint, self.lint_ref = [text], ref
        elif kind == "added":
            self._output_added(ref, text)
        elif kind == "add_output":
            self.collect = None
            target = self._last_shell()
            if target is not None:
                answer = first.rsplit(" ", 1)[-1].lower()
                target.added = answer.startswith(("y", "a"))
        elif kind == "running":
            event, call = self._call(ref, "shell", {"command": first[len("Running ") :].strip()}, "shell")
            self.events.append(event)
            self.pending.append(call)
            self.collect = call
        elif kind == "run_error":
            target = self._last_shell()
            if target is not None:
                target.failed = True
                target.note(text)
        elif kind == "reflections":
            self._emit(ref, "system", "meta", ts=self.ts, text=first)
        elif kind == "model" and (format_ := _EDIT_FORMAT.match(first)) is not None:
            if not first.startswith("Editor"):
                self.edit_format = format_.group(1)
        elif kind == "workdir":
            self.out.cwd = first.split(": ", 1)[1].strip()
        elif "--test-cmd" in first and _LAUNCH.match(first):
            self._launch(first)
        elif self.collect is not None and not first.startswith(_CHATTER):
            self.collect.note(text)
            if _COMMAND_ERROR.search(first):
                self.collect.failed = True

    def _last_shell(self) -> _Call | None:
        return next((c for c in reversed(self.pending) if c.kind in _COMMANDS_RUN), None)

    def _launch(self, line: str) -> None:
        try:
            argv = shlex.split(line)
        except ValueError:
            return
        for n, arg in enumerate(argv[:-1]):
            if arg == "--test-cmd":
                self.test_cmd = argv[n + 1]

    def _output_added(self, ref: str, text: str) -> None:
        self.collect = None
        call = next((c for c in reversed(self.pending) if c.kind in _COMMANDS_RUN and not c.added_line), None)
        if call is not None:
            call.added, call.added_line = True, True
            if call.kind == "test":
                call.failed = True  # `/test` adds its output only when the command exited non-zero
            return
        # Auto-test after an edit: only a failure is written.
        command = self.test_cmd
        tool, args = ("shell", {"command": command}) if command else ("aider", {"command": "/test"})
        event, call = self._call(ref, tool, args, "test")
        call.failed, call.added = True, True
        self.events.append(event)
        self.explain.append(call)
        self.test_failed = (tool, args)
        self.edited_since_test = False

    def _tests_passed(self, ref: str) -> None:
        """After an auto-test failure, edits followed by no new failure: the tests passed."""
        if self.test_failed is not None and self.edited_since_test:
            tool, args = self.test_failed
            self.test_failed = None
            self._done(ref, tool, args, failed=False, text="")

    # -- edits -----------------------------------------------------------------------------------

    def _assistant(self, ref: str, text: str) -> None:
        self.collect = None
        told = [c for c in self.pending if c.failed and not c.output]
        if told:  # `/test` said it failed: the model's answer says how
            self.pending = [c for c in self.pending if c not in told]
            self.explain.extend(told)
        self._explained(ref, text)
        self._emit(ref, "assistant", "text", ts=self.ts, text=text[:_TEXT_CAP])
        self.answer = text[:_TEXT_CAP]
        if "<<<<<<<" in text or "@@" in text or "whole" in self.edit_format:
            self.unparsed.append(text)  # read when Aider says what it did with them
            self.unparsed_size += len(text)
            while self.unparsed_size > _UNPARSED_CAP and len(self.unparsed) > 1:
                self.unparsed_size -= len(self.unparsed.pop(0))

    def _proposed(self) -> list[Proposed]:
        """Edits the model proposed that Aider did not apply or refuse yet."""
        if self.unparsed:
            for reply in self.unparsed:
                self.proposals.extend(text_of.proposed_edits(reply, self.edit_format))
            self.proposals = self.proposals[-_PROPOSALS_MAX:]
            self.unparsed, self.unparsed_size = [], 0
        return self.proposals

    def _applied(self, ref: str, path: str) -> None:
        proposals = self._proposed()
        mine = [
            p
            for p in proposals
            if p.path == path or p.path.endswith("/" + path) or path.endswith("/" + p.path)
        ]
        self.proposals = [p for p in proposals if p not in mine]
        if not mine:
            mine = [Proposed(path, "", "")]
        for edit in mine:
            tool, args = _edit_args(path, edit)
            self._done(ref, tool, args, failed=False, text=f"Applied edit to {path}")
        self._note_rel(path)
        self.edited_since_test = True
        lint = self.lint_failed.pop(path, None)
        if lint is not None:
            self._done(ref, lint[0], lint[1], failed=False, text="")

    def _failed_edits(self, ref: str, message: str) -> None:
        sections = text_of.failed_edits(message)
        proposals = self._proposed()
        failed_paths = {path for path, _ in sections}
        for path, section in sections:
            args = {"file_path": path} if path else {}
            self._done(ref, "edit", args, failed=True, text=section, kind="harness")
        if "were applied successfully" in message:
            for edit in proposals:
                if edit.path not in failed_paths:
                    tool, args = _edit_args(edit.path, edit)
                    self._done(ref, tool, args, failed=False, text="applied")
        self.proposals = []

    def _flush_failing_edit(self, ref: str) -> None:
        if self.failing_edit:
            self.failing_edit = False
            self._failed_edits(ref, "The LLM did not conform to the edit format.")

    def _committed(self, ref: str, message: str) -> None:
        if self.commit is not None:
            self._result(self.commit, ref, failed=False, text="")
        event, call = self._call(ref, "shell", {"command": f"git commit -m {shlex.quote(message)}"}, "commit")
        self.events.append(event)
        self.commit = call

    # -- lint --------------------------------------------------------------------------------------

    def _flush_lint(self) -> None:
        if self.lint is not None:
            report, self.lint = "\n".join(self.lint), None
            self._lint_failure(self.lint_ref, report)

    def _lint_failure(self, ref: str, report: str) -> None:
        running = _LINT_RUNNING.search(report)
        command = running.group(1).strip() if running else ""
        files = list(dict.fromkeys(m.group(1).replace("\\", "/") for m in _LINT_FILE.finditer(report)))[:8]
        if command and not any(mark in command for mark in _BUILTIN_LINT):
            tool, args = "shell", {"command": command}
        else:
            tool, args = "lint", {"files": " ".join(files)}  # Aider's own checks, not the project's
        self._done(ref, tool, args, failed=True, text=report, kind="exit" if tool == "shell" else "tool")
        for path in files:
            self.lint_failed[path] = (tool, args)

    # -- where the repository was ------------------------------------------------------------------

    def _note_rel(self, path: str) -> None:
        """A repo-relative file name Aider printed: paired with the absolute names seen so far."""
        if self.out.cwd is None and path not in self.rels and len(self.rels) < _NAMES_MAX:
            self.rels.append(path)
            for absolute in self.absolutes:
                if self._root_from(absolute, path):
                    return

    def _note_absolute(self, path: str) -> None:
        if self.out.cwd is None and path not in self.absolutes and len(self.absolutes) < _NAMES_MAX:
            self.absolutes.append(path)
            for rel in self.rels:
                if self._root_from(path, rel):
                    return

    def _learn_root(self, first: str) -> None:
        self.root_tries += 1
        if found := _NO_MATCH.match(first):
            self._root_from(found.group(2), found.group(1))
            return
        for found in _ABSOLUTE.finditer(first):
            self._note_absolute(found.group(1).rstrip(".,:;"))
        for rel in _ADDED_NAME.findall(first):
            self._note_rel(rel)

    def _root_from(self, absolute: str, rel: str) -> bool:
        windows = "\\" in absolute
        tail = rel.replace("/", "\\") if windows else rel
        sep = "\\" if windows else "/"
        if rel and not rel.startswith(("/", "\\")) and absolute.endswith(sep + tail):
            self.out.cwd = absolute[: -len(tail) - 1] or sep
            return True
        return False


def _same_words(said: str, answer: str) -> bool:
    """Whether two texts hold the same words; the first word is compared before splitting all of
    the answer (an answer can be long, and most turns are not the architect's answer handed on)."""
    words = said.split()
    if not words or answer.split(None, 1)[:1] != words[:1]:
        return False
    return words == answer.split()


def _leaves_commit(text: str) -> bool:
    """Whether a user's message is a command that leaves the last commit as it is (_LEAVE_COMMIT)."""
    if "\n" in text or not text.startswith(("/", "!")):
        return False
    if text.startswith("!"):
        word, rest = "/run", text[1:].strip()
    else:
        parts = text.split(None, 1)
        word, rest = _resolve(parts[0].lower()), (parts[1].strip() if len(parts) > 1 else "")
    return word in _LEAVE_COMMIT and not (word in ("/run", "/test") and rest.startswith("git "))


def _resolve(word: str) -> str:
    if word in _COMMANDS:
        return word
    matching = [c for c in _COMMANDS if c.startswith(word)]
    return matching[0] if len(matching) == 1 else word


def _is_edit_error(text: str) -> bool:
    head = text[:400]
    return (
        "SearchReplaceNoExactMatch" in head
        or "SEARCH/REPLACE block" in head
        and "failed to match" in head
        or head.startswith(("UnifiedDiffNoMatch", "UnifiedDiffNotUnique", "Failed to apply edit to"))
    )


def _edit_args(path: str, edit: Proposed) -> tuple[str, dict[str, Any]]:
    if edit.before is None:
        return "write", {"file_path": path, "content": edit.after}
    if not edit.before and not edit.after:
        return "edit", {"file_path": path}
    return "edit", {"file_path": path, "old_string": edit.before, "new_string": edit.after}
