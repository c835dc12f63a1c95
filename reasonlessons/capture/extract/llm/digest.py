"""What the LLM is shown: a short, redacted digest of a session's observations, each with its ref.

Only observations go out (failed and fixed commands, verifications, stated lessons, corrections,
commit gates, loops, fixes an error named, setup steps, git facts, where commands run, the agent's
tool rules; a subagent's are marked so), never raw tool output beyond the one telling line capture
already keeps; paths are made relative or anonymized and secrets redacted. Every line names the log
location (`ref`) a lesson must cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.workflow import quote
from reasonlessons.capture.reduce.observations import (
    ArgsFix,
    Call,
    CommandFix,
    CommitGate,
    Correction,
    CreatedFiles,
    EditFix,
    Failure,
    GitFact,
    Loop,
    RepeatedFailure,
    SessionObservations,
    SetupStep,
    SuggestedFix,
    ToolRule,
    Verification,
    WorkdirFix,
    Writ,
)
from reasonlessons.safety.redact import redact

MAX_DIGEST_CHARS = 6000
_SUBAGENT = re.compile(r"(?:^|[\\/])agent-[\w-]+\.jsonl:")
MAX_LINES = 40

SYSTEM = """You distil short, durable lessons about one code repository from what a coding agent \
observed in one session. A lesson tells a future agent what to do (or avoid) in THIS repository: \
an exact command, file location or convention, never generic advice. Propose at most 3 lessons, \
or none when nothing durable was learned.

Answer with one JSON object and nothing else:
{"lessons": [{"name": "kebab-case-name", "description": "one line, at most 100 characters",
"body": "1-3 markdown bullets, each starting with '- '", "outcome": "success|failure|mixed",
"evidence": ["ref", ...], "commands": ["shell command", ...], "keywords": ["word", ...]}]}

Rules: cite in "evidence" only refs that appear in the observations below, exactly as written \
(at least one per lesson). "commands" and "keywords" are optional (at most 3 and 5). Do not invent \
facts that are not in the observations."""


@dataclass
class Digest:
    """The prompt text and the refs it shows (display ref -> raw log location)."""

    text: str = ""
    refs: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.refs


def _call(call: Call) -> str:
    return call.invocation.text if call.invocation is not None else call.key


def _failure(failure: Failure, place: SessionPlace) -> str:
    line = quote(failure, place, 200)
    code = f" (exit {failure.exit_code})" if failure.exit_code not in (None, 0) else ""
    where = " (in a subagent)" if _SUBAGENT.search(failure.ref) else ""
    return f"`{_call(failure.call)}` failed{where}: {line}{code}"


def _list(commands: list[str]) -> str:
    return ", ".join(f"`{c}`" for c in commands)


def _describe(item: object, place: SessionPlace) -> tuple[str, list[str]] | None:
    """(one line, raw refs) for an observation."""
    if isinstance(item, CommandFix):
        return f"{_failure(item.failure, place)}; then `{_call(item.fix)}` worked instead", [
            item.failure.ref,
            item.fix_ref,
        ]
    if isinstance(item, ArgsFix):
        return f"{_failure(item.failure, place)}; then the same tool worked as `{_call(item.fix)}`", [
            item.failure.ref,
            item.fix_ref,
        ]
    if isinstance(item, EditFix):
        files = ", ".join(sorted({e.path for e in item.edits}))
        return f"{_failure(item.failure, place)}; after editing {files} it passed", [
            item.failure.ref,
            item.rerun_ref,
        ]
    if isinstance(item, RepeatedFailure):
        return f"{_failure(item.failure, place)}; failed {item.count} times, never fixed", list(item.refs)
    if isinstance(item, Verification):
        return f"`{item.invocation.text}` passed ({item.count}x)", list(item.refs[:2])
    if isinstance(item, CreatedFiles):
        return "created and kept: " + ", ".join(item.paths[:8]), list(item.refs[:2])
    if isinstance(item, CommitGate):
        steps = _list([st.form for st in item.steps])
        if item.rejections:
            said = quote(item.rejections[0], place, 200)
            text = (
                f"`git commit` was rejected {item.rejected}x by a check ({said}); accepted after {steps} ran"
            )
        else:
            text = f"{steps} ran before each of the session's {item.commits} commits"
        return text, [*(r.ref for r in item.rejections[:2]), *item.accepted_refs[:1]]
    if isinstance(item, Loop):
        tried = f", also with {_list(list(item.bypass))}" if item.bypass else ""
        end = "fixed in the end" if item.resolved else "never fixed"
        said = quote(item.failure, place, 200)
        text = f"a loop: `{item.subject}` failed {item.count} times with: {said}{tried}; {end}"
        return text, list(item.refs)
    if isinstance(item, SuggestedFix):
        if item.replaces:  # the named command did the failed one's job
            return (
                f"{_failure(item.failure, place)}; the message named `{item.suggestion}` instead; "
                f"`{item.fix.form}` passed in its place",
                [item.failure.ref, item.fix.ref],
            )
        return (
            f"{_failure(item.failure, place)}; the message said to run `{item.suggestion}`; "
            f"after `{item.fix.form}` it passed",
            [item.failure.ref, item.fix.ref, item.rerun_ref],
        )
    if isinstance(item, ToolRule):
        where = " (in a subagent)" if any(_SUBAGENT.search(r) for r in item.refs) else ""
        return (
            f"the agent's own tool refused a call{where} ({item.rule}, {item.count}x), then worked: "
            f"a rule for {item.agent} in every repository",
            list(item.refs[:2]),
        )
    if isinstance(item, SetupStep):
        before = f"; without it: {quote(item.failed_before, place, 120)}" if item.failed_before else ""
        return (
            f"after {item.trigger or 'a failure'}, `{item.step.form}` ran and then `{item.check.form}` "
            f"passed{before}",
            [item.step.ref, item.check.ref],
        )
    if isinstance(item, GitFact):
        return f"git ({item.kind}): {item.subject} / {item.detail}; `{item.fix.form}` worked", [
            item.failure.ref,
            item.fix.ref,
        ]
    if isinstance(item, WorkdirFix):
        return f"{_failure(item.failure, place)}; `{item.fix.form}` passed in `{item.workdir}`", [
            item.failure.ref,
            item.fix.ref,
        ]
    if isinstance(item, Writ):
        return f"the user stated a lesson: {item.title}: {item.text[:400]}", [item.ref]
    if isinstance(item, Correction):
        return f"the user corrected the agent: {item.text[:400]}", [item.ref]
    return None


def build(obs: SessionObservations, place: SessionPlace) -> Digest:
    """The digest of one session (empty when there is nothing worth asking about)."""
    digest = Digest()
    lines: list[str] = []
    size = 0
    for item in obs.items:
        found = _describe(item, place)
        if found is None:
            continue
        text, raws = found
        pairs = [(raw, place.ref(raw)) for raw in raws if raw]
        shown = [ref for _, ref in pairs]
        line = redact(f"- [ref: {', '.join(shown)}] {' '.join(text.split())}").text
        if len(lines) >= MAX_LINES or size + len(line) > MAX_DIGEST_CHARS:
            break
        lines.append(line)
        size += len(line) + 1
        for raw, ref in pairs:
            digest.refs.setdefault(ref, raw)
    outcome = "ended well" if obs.successful else "did not end well"
    head = f"Agent: {obs.agent}. {obs.tool_calls} tool calls; the session {outcome}.\nObservations:\n"
    digest.text = head + "\n".join(lines)
    return digest


def messages(digest: Digest) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": digest.text}]
