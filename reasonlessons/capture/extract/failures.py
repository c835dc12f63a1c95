"""Drafts from failures: a command that cannot run here, a tool argument that is refused, an error
whose message states a rule, a command that fails every time."""

from __future__ import annotations

import re

from reasonlessons.capture.extract import fingerprints as fpi
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft, code, command_pattern, one_line, slug
from reasonlessons.capture.reduce.observations import (
    ArgsFix,
    Call,
    CommandFix,
    EditFix,
    Failure,
    RepeatedFailure,
    ToolRuleSeen,
)
from reasonlessons.sessions import signals, toolrules
from reasonlessons.sessions.commands import command_form
from reasonlessons.sessions.edits import changed_region
from reasonlessons.sessions.shell import Invocation

_CLAUSE = re.compile(r"\s+(?:when|because|if|unless|since)\s+|[.;]\s")
_LISTING = re.compile(r"list|allowed|show|get|info|describe|status|help", re.IGNORECASE)
_GENERIC = frozenset({"npm", "pnpm", "yarn", "bun", "python", "python3", "node", "make", "sh", "bash"})


def _short(failure: Failure, place: SessionPlace) -> str:
    """The failure's line, cleaned, short enough for a description."""
    return signals.short(place.clean(failure.line or failure.sig))


def _exit(failure: Failure) -> str:
    if failure.error_kind == "timeout":
        return " (killed after a timeout)"
    return f" (exit {failure.exit_code})" if failure.exit_code not in (None, 0) else ""


def _display(inv: Invocation) -> str:
    """A check as it passed, flags and all (`go test ./...`); another command as it ran."""
    return command_form(inv) if inv.category else inv.text


def _keywords(*invocations: Invocation) -> list[str]:
    words: list[str] = []
    for inv in invocations:
        for word in (inv.tool, inv.script):
            if word and word not in _GENERIC and word not in words:
                words.append(word)
    return words[:3]


def command_fix(obs: CommandFix, place: SessionPlace) -> CandidateDraft | None:
    failed, fix = obs.failure.call.invocation, obs.fix.invocation
    if failed is None or fix is None:
        return None
    bad, good = failed.base, _display(fix)
    if bad == good:  # the difference is in the arguments: show the lines as run
        bad, good = failed.text, fix.text
    elif failed.argv[1:] == fix.argv[1:] and not failed.env and not fix.env:
        bad, good = failed.argv[0], fix.argv[0]  # `python3`, not `python`: the program is the lesson
    line = place.clean(obs.failure.line or obs.failure.sig)
    short = _short(obs.failure, place)  # once: the name and the description both quote it
    bullets = [
        f"- Run {code(good)}, not {code(bad)}: here {code(bad)} fails with {code(line)}{_exit(obs.failure)}."
    ]
    script = fpi.script_value(failed, place.facts, base=place.base)
    if script:
        bullets.append(f"- {code(bad)} runs the `{failed.script}` script of package.json: {code(script)}.")
    if fix.workdir:
        bullets.append(f"- Run it from `{fix.workdir}`.")
    if obs.repeats > 1:
        bullets.append(f"- The agent retried {code(bad)} {obs.repeats} times before switching.")
    return CandidateDraft(
        name=slug(short if bad in short else f"{bad} {short}"),
        description=_fix_description(bad, good, short),
        body="\n".join(bullets[:3]),
        kind="command-fix",
        fingerprint=fpi.merge(
            fpi.for_invocation(failed, place.facts, base=place.base, absent_ok=True),
            fpi.for_invocation(fix, place.facts, base=place.base),
        ),
        triggers={
            "commands": [
                command_pattern(failed.base.split()[-2:] if failed.script else [failed.tool]),
                command_pattern([fix.tool]),
            ],
            "keywords": _keywords(fix, failed),
        },
        evidence=place.evidence(obs.failure.ref, obs.fix_ref),
        outcome="mixed",
        tags=[failed.category] if failed.category else [],
        claims=[bad, good],
    )


def _fix_description(bad: str, good: str, short: str) -> str:
    long = f"{code(bad)} fails here with {code(short)}; run {code(good)} instead"
    return long if len(long) <= 100 else one_line(f"Run {code(good)}, not {code(bad)}: {short}")


def _arg_change(failed: Call, fix: Call) -> tuple[list[str], list[str]]:
    """(failed `key` `value` pairs, fixed ones) for the arguments that differ."""
    old, new = dict(failed.args), dict(fix.args)
    keys = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)][:2]
    return [f"`{k}` {code(old[k])}" for k in keys if k in old], [
        f"`{k}` {code(new[k])}" for k in keys if k in new
    ]


def args_fix(obs: ArgsFix, place: SessionPlace) -> CandidateDraft | None:
    tool = obs.fix.tool
    before, after = _arg_change(obs.failure.call, obs.fix)
    if not after:
        return None
    before_text = " with " + place.clean(" and ".join(before)) if before else ""
    old_values = dict(obs.failure.call.args)
    new_values = dict(obs.fix.args)
    absolute = any(
        not _is_absolute(old_values.get(k, "")) and _is_absolute(v)
        for k, v in new_values.items()
        if k in old_values
    )
    hint = "pass an absolute path" if absolute else "change " + ", ".join(a.split(" ", 1)[0] for a in after)
    failed = place.clean(obs.failure.line or obs.failure.sig)
    bullets = [f"- {code(tool)}{before_text} fails: {code(failed)}."]
    lookups = [t for t in obs.via if _LISTING.search(t)]
    worked = place.clean(" and ".join(after))
    if absolute:  # the path itself is the machine's: say what kind it was, and where it ended
        worked = f"an absolute path (here one ending in {worked.split(' ', 1)[-1]})"
    if lookups:
        bullets.append(f"- Call {code(lookups[0])} first, then retry with {worked}.")
    else:
        bullets.append(f"- It worked with {worked}.")
    return CandidateDraft(
        name=slug(f"{tool} {signals.phrase(obs.failure.sig, words=5)}"),
        description=one_line(f"{code(tool)}: {_short(obs.failure, place)}; {hint}"),
        body="\n".join(bullets),
        kind="args-fix",
        fingerprint=[],
        triggers={"keywords": [tool]},
        evidence=place.evidence(obs.failure.ref, obs.fix_ref),
        outcome="mixed",
        claims=[tool, signals.error_code(obs.failure.sig) or signals.phrase(obs.failure.sig, words=3)],
    )


def _is_absolute(value: str) -> bool:
    return value.startswith(("/", "~")) or bool(re.match(r"^[A-Za-z]:[\\/]", value))


def _message(line: str, error_code: str | None) -> str:
    """The rule an error states: location and code prefix dropped, first clause kept."""
    text = signals.LOCATION.sub("", line)
    if error_code and error_code in text:
        text = text.split(error_code, 1)[1].lstrip(" :-]")
    first = _CLAUSE.split(text, maxsplit=1)[0].strip()
    return first if len(first) >= 12 else text


# Where a tool's message starts inside a line a user pasted with words of their own before it.
_MESSAGE_START = (
    re.compile(r"\b(?:error|warning)\[[A-Z]*\d+\]:", re.IGNORECASE),
    re.compile(r"\b(?:error|warning):", re.IGNORECASE),
)


def _from_message(line: str) -> str:
    for pattern in _MESSAGE_START:  # a coded message first: "an error:error[E0425]: ..." starts at the code
        found = pattern.search(line)
        if found is not None:
            return line[found.start() :]
    return line


def edit_fix(obs: EditFix, place: SessionPlace) -> CandidateDraft | None:
    inv = obs.failure.call.invocation
    if inv is None:
        return None
    line = _from_message(place.clean(obs.failure.line or obs.failure.sig))
    err = signals.error_code(line)
    changes = []
    for edit in obs.edits:
        region = changed_region(edit.before, edit.after)
        if region is not None and not region[0]:
            changes.append(f"in `{edit.path}`: add {code(region[1])}")
        elif region is not None and not region[1]:
            changes.append(f"in `{edit.path}`: remove {code(region[0])}")
        elif region is not None:
            changes.append(f"in `{edit.path}`: {code(region[0])} → {code(region[1])}")
    if changes:
        how = f"- Fix it as the agent did {'; '.join(changes[:2])}; the command then passed."
    elif inv.category == "lint":
        how = f"- Change the code it points at (here `{obs.edits[0].path}`) and run it again; it then passed."
    else:
        return None
    message = _message(line, err)
    head = f"{err}: " if err else (f"{code(command_form(inv))}: " if inv.category == "lint" else "")
    proposed = signals.suggestion(obs.failure.excerpt)
    shown = _display(inv)
    extension = obs.edits[0].path.rsplit(".", 1)[-1] if "." in obs.edits[0].path.rsplit("/", 1)[-1] else ""
    top = obs.edits[0].path.split("/", 1)[0] if "/" in obs.edits[0].path else ""
    glob = f"{top}/**/*.{extension}" if top and extension else (f"**/*.{extension}" if extension else "")
    keywords = [w for w in (err, "import" if "import" in line.lower() else None) if w]
    return CandidateDraft(
        name=slug(f"{inv.tool} {err or ''} {signals.phrase(message, words=5)}"),
        description=one_line(f"{head}{message}"),
        body="\n".join(
            [
                f"- {code(shown)} fails with {code(line)}{_exit(obs.failure)}.",
                *([f"- The output proposed the fix: {code(place.clean(proposed))}."] if proposed else []),
                how,
            ]
        ),
        kind="edit-fix",
        fingerprint=fpi.merge(
            fpi.for_error(line, inv, place.facts, base=place.base)
            or fpi.for_invocation(inv, place.facts, base=place.base)
        ),
        triggers={
            "commands": [command_pattern([inv.tool])],
            "files": [glob] if glob else [],
            "keywords": keywords,
        },
        evidence=place.evidence(obs.failure.ref, obs.edits[0].ref, obs.rerun_ref),
        outcome="mixed",
        claims=[inv.base, err or signals.phrase(obs.failure.sig, words=4)],
    )


def repeated_failure(obs: RepeatedFailure, place: SessionPlace) -> CandidateDraft | None:
    inv = obs.failure.call.invocation
    if inv is None or inv.category is None and inv.tool in _GENERIC and inv.script is None:
        return None
    line = place.clean(obs.failure.line or obs.failure.sig)
    how = f"{obs.streak} times in a row" if obs.streak >= 2 else f"{obs.count} times"
    return CandidateDraft(
        name=slug(f"{inv.base} {_short(obs.failure, place)}"),
        description=one_line(f"{code(inv.base)} cannot run here: {code(_short(obs.failure, place))}"),
        body="\n".join(
            [
                f"- {code(inv.base)} fails here with {code(line)}{_exit(obs.failure)}; "
                f"it failed {how} in one session and was never fixed.",
                "- Do not retry it unchanged: first find what it needs (a missing tool, script or option).",
            ]
        ),
        kind="repeated-failure",
        fingerprint=fpi.for_invocation(inv, place.facts, base=place.base, absent_ok=True),
        triggers={"commands": [command_pattern(inv.base.split()[:3])], "keywords": _keywords(inv)},
        evidence=place.evidence(*obs.refs),
        outcome="failure",
        tags=[inv.category] if inv.category else [],
        claims=[inv.base, signals.phrase(obs.failure.sig, words=3)],
    )


_LOOP = 3  # refusals of one rule in one session that make the lesson a loop caution
_TOOL_RULE_TEXT = {
    toolrules.EDIT_MUST_MATCH.key: (
        "- An Aider edit applies only when its SEARCH block (or diff hunk) matches the file exactly, "
        "whitespace, comments and docstrings included: re-read the file before editing it again "
        "(`/drop` and `/add` it), instead of resending the same edit."
    ),
    toolrules.NO_SUCH_COMMAND.key: (
        "- Run a shell command with `/run <command>` (or `!<command>`), e.g. `/run grep -rn <word> .`; "
        "`/help` lists Aider's commands; leave with `/exit` or `/quit`."
    ),
    toolrules.ONE_COMMAND_PER_MESSAGE.key: (
        "- Aider reads a message that starts with `/` as one command: the lines after the first become "
        "its arguments. Send one command per message, and put several files on one line (`/add a b`)."
    ),
}


def tool_rule(obs: ToolRuleSeen, place: SessionPlace) -> CandidateDraft | None:
    """A rule of the agent's own tool layer, in the session's words (sessions/toolrules.py)."""
    rule, line = obs.rule, place.clean(obs.line)
    advice = _TOOL_RULE_TEXT.get(rule.key)
    if advice is None:
        return None
    looped = obs.count >= _LOOP
    examples = [place.clean(e) for e in obs.examples]
    if rule is toolrules.EDIT_MUST_MATCH:
        if obs.path is None:
            return None
        where = code(obs.path)
        head = signals.short(line, 60)
        if looped:
            description = f"{code(head)} {obs.count} times on {where}: stop resending the edit"
        else:
            description = f"Aider edit to {where} failed ({code(head)}); re-read the file first"
        happened = f"- Here {where} refused an edit with {code(line)}"
        if examples:
            happened += f": it looked for {code(examples[0])}"
        if obs.matched:
            happened += f"; the file held {code(place.clean(obs.matched))}, which then matched"
        bullets = [advice, happened + "."]
        if looped:
            bullets.append(
                f"- It failed {obs.count} times in one session ({obs.longest} in a row): stop retrying; ask "
                "for a smaller change, switch the edit format (`--edit-format whole`) or edit it by hand."
            )
        name = slug(f"aider edit {obs.path} must match")
        fingerprint = fpi.for_paths([obs.path], place.facts)
        triggers = {"files": [obs.path]}
        claims = [obs.path, "matches the file exactly"]
    else:
        shown = ", ".join(code(e) for e in examples[:4]) or code(line)
        if rule is toolrules.NO_SUCH_COMMAND:
            description = f"Aider has no {shown} command ({code(line)}); use `/run <command>` instead"
            happened = f"- Aider answered {code(line)} to {shown}: not Aider commands."
            claims = ["Invalid command", "/run <command>"]
        else:
            description = f"One Aider command per message: {shown} in one message failed"
            happened = f"- {shown} sent in one message failed with {code(line)}."
            claims = ["one command per message"]
        bullets = [happened, advice]
        name = slug(rule.key)
        fingerprint = []
        triggers = {"commands": [rule.command_trigger] if rule.command_trigger else []}
    return CandidateDraft(
        name=name,
        description=one_line(description),
        body="\n".join(bullets),
        kind="tool-rule",
        fingerprint=fingerprint,
        triggers=triggers,
        evidence=place.evidence(*obs.refs),
        outcome="mixed" if obs.matched else "failure",
        tags=[rule.agent, "tool-rule"],
        claims=claims,
    )
