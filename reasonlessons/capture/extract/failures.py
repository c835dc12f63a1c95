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
)
from reasonlessons.sessions import signals
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
        text = text.split(error_code, 1)[1].lstrip(" :-")
    first = _CLAUSE.split(text, maxsplit=1)[0].strip()
    return first if len(first) >= 12 else text


def edit_fix(obs: EditFix, place: SessionPlace) -> CandidateDraft | None:
    inv = obs.failure.call.invocation
    if inv is None:
        return None
    line = place.clean(obs.failure.line or obs.failure.sig)
    err = signals.error_code(line)
    changes = []
    for edit in obs.edits:
        region = changed_region(edit.before, edit.after)
        if region is not None:
            changes.append(f"in `{edit.path}`: {code(region[0])} → {code(region[1])}")
    if changes:
        how = f"- Fix it as the agent did {'; '.join(changes[:2])}; the command then passed."
    elif inv.category == "lint":
        how = f"- Change the code it points at (here `{obs.edits[0].path}`) and run it again; it then passed."
    else:
        return None
    message = _message(line, err)
    head = f"{err}: " if err else (f"{code(command_form(inv))}: " if inv.category == "lint" else "")
    extension = obs.edits[0].path.rsplit(".", 1)[-1] if "." in obs.edits[0].path.rsplit("/", 1)[-1] else ""
    top = obs.edits[0].path.split("/", 1)[0] if "/" in obs.edits[0].path else ""
    glob = f"{top}/**/*.{extension}" if top and extension else (f"**/*.{extension}" if extension else "")
    keywords = [w for w in (err, "import" if "import" in line.lower() else None) if w]
    return CandidateDraft(
        name=slug(f"{inv.tool} {err or ''} {signals.phrase(message, words=5)}"),
        description=one_line(f"{head}{message}"),
        body="\n".join(
            [
                f"- {code(command_form(inv))} fails with {code(line)}{_exit(obs.failure)}.",
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
