"""Drafts from how work gets done here: commit gates, setup steps, loops, suggested fixes, where a
command must run, git facts and the agent's own tool rules (docs/capture.md#observations).

Each names the exact commands (in the form they passed with), quotes the message that taught it,
and depends on the files that define it: the hook config and the checks' configs for a commit gate,
the changed manifest or migrations directory for a setup step, `.gitignore` for an ignored path.
"""

from __future__ import annotations

import re

from reasonlessons.capture.extract import fingerprints as fpi
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft, code, command_pattern, one_line, slug
from reasonlessons.capture.reduce import toolrules
from reasonlessons.capture.reduce.observations import (
    CommitGate,
    Failure,
    GitFact,
    Loop,
    SetupStep,
    Step,
    SuggestedFix,
    ToolRule,
    WorkdirFix,
)
from reasonlessons.sessions import signals
from reasonlessons.sessions.commands import command_form

_HOOK_FILES = (
    ".pre-commit-config.yaml",
    ".husky/pre-commit",
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lintstagedrc",
    ".lintstagedrc.json",
    ".claude/settings.json",
)
_MIGRATION_DIRS = (
    "priv/repo/migrations/",
    "db/migrate/",
    "migrations/",
    "alembic/versions/",
    "prisma/migrations/",
    "db/migrations/",
    "src/migrations/",
)


def quote(failure: Failure, place: SessionPlace, limit: int = 140) -> str:
    """What a failure said, made one line: its first lines when the telling one is a header."""
    text = signals.unescaped(failure.excerpt)
    line = failure.line or failure.sig
    if "\\n" in line or line.rstrip(":").endswith(("failed", "Failed", "error", "Error")):
        lines = [x.strip() for x in text.splitlines() if x.strip() and not x.lower().startswith("exit code")]
        line = " ".join(lines[:3]) or line
    # pre-commit's `ruff.....Failed` leaders say nothing: three dots are enough.
    cleaned = re.sub(r"\.{4,}", "...", place.clean(signals.unescaped(line)))
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1].rsplit(" ", 1)[0] + "…"


def _commands(steps: list[str]) -> str:
    shown = [code(s) for s in steps]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _defining(steps: tuple[Step, ...], place: SessionPlace) -> list[str]:
    return fpi.merge(*(fpi.for_invocation(s.invocation, place.facts, base=place.base) for s in steps))


def commit_gate(obs: CommitGate, place: SessionPlace) -> CandidateDraft | None:
    forms = [s.form for s in obs.steps]
    if not forms:
        return None
    hooks = [h for h in _HOOK_FILES if place.facts.is_file(h)][:1]
    bullets: list[str] = []
    if obs.rejections:
        first = obs.rejections[0]
        times = f"commits {obs.rejected} times" if obs.rejected > 1 else "a commit"
        bullets.append(
            f"- Run {_commands(forms)} before `git commit`: the commit check rejected {times} here "
            f"with {code(quote(first, place))}."
        )
        description = f"Before `git commit`, run {_commands(forms)}; the commit check rejects it otherwise"
    else:
        description = f"Before committing, run {_commands(forms)}"
        bullets.append(f"- Run {_commands(forms)} before `git commit`.")
    if obs.routine:
        bullets.append(
            f"- This session ran {_commands(list(obs.routine)[:3])} before each of its {obs.commits} commits."
        )
    if hooks:
        bullets.append(f"- The check is set up in `{hooks[0]}`.")
    refs = [r.ref for r in obs.rejections] + [s.ref for s in obs.steps] + list(obs.accepted_refs)
    return CandidateDraft(
        name=slug(f"commit gate {forms[0]}"),
        description=one_line(description),
        body="\n".join(bullets[:3]),
        kind="commit-gate",
        fingerprint=fpi.merge(hooks, _defining(obs.steps, place)),
        triggers={
            "commands": [command_pattern(["git", "commit"])],
            "keywords": ["commit", *dict.fromkeys(s.invocation.tool for s in obs.steps)][:4],
        },
        evidence=place.evidence(*refs[:6]),
        outcome="mixed" if obs.rejections else "success",
        tags=["commit"],
        claims=["git commit", *forms],
    )


def loop(obs: Loop, place: SessionPlace, remedy: Step | None = None) -> CandidateDraft | None:
    said = quote(obs.failure, place, 100)
    bypass = f", even with {_commands(list(obs.bypass))}" if obs.bypass else ""
    bullets = [
        f"- {code(obs.subject)} failed {obs.count} times with {code(said)}{bypass}; "
        "retrying the same call did not help."
    ]
    if remedy is not None:
        bullets.append(f"- Run {code(remedy.form)} and fix what it reports before trying again.")
        short = f"run {code(remedy.form)} and fix it first"
    else:
        bullets.append(
            "- Stop after the second identical failure: read the whole error and fix its cause first."
        )
        short = "fix the cause, do not retry"
    if obs.resolved:
        bullets.append("- It passed in the end, once the cause was fixed.")
    names = signals.check_names(obs.failure.excerpt)
    head = f"[{names[0]}]" if names else signals.short(said, 40)
    inv = obs.failure.call.invocation
    entries = fpi.for_invocation(remedy.invocation, place.facts, base=place.base) if remedy else []
    if not entries and inv is not None and obs.subject != "git commit":
        entries = fpi.for_invocation(inv, place.facts, base=place.base)
    return CandidateDraft(
        name=slug(f"{obs.subject} {head} loop"),
        description=one_line(
            f"{code(obs.subject)} failed {obs.count} times on {code(head)}{bypass}: {short}"
        ),
        body="\n".join(bullets),
        kind="loop",
        fingerprint=entries,
        triggers={
            "commands": [command_pattern(obs.subject.split()[:3])] if inv is not None else [],
            "keywords": [w for w in (inv.tool if inv else obs.failure.call.tool,) if w][:2],
        },
        evidence=place.evidence(*obs.refs),
        outcome="mixed" if obs.resolved else "failure",
        tags=["loop"],
        claims=[obs.subject, signals.phrase(obs.failure.sig, words=3)],
    )


def suggested_fix(obs: SuggestedFix, place: SessionPlace) -> CandidateDraft | None:
    failed = obs.failure.call.invocation
    if failed is None:
        return None
    bad = command_form(failed)
    said = quote(obs.failure, place, 120)
    bullets = [
        f"- When {code(bad)} fails with {code(said)}, run {code(obs.fix.form)} as the message says, "
        f"then {code(bad)} again; it passed that way here."
    ]
    description = f"If {code(bad)} fails with {code(signals.short(said, 40))}, run {code(obs.fix.form)}"
    if obs.replaces:
        bullets = [f"- Run {code(obs.fix.form)}, not {code(bad)}: here {code(bad)} fails with {code(said)}."]
        first = re.split(r"(?<=[.!?])\s", signals.short(said, 60), maxsplit=1)[0]  # its first sentence
        description = f"Run {code(obs.fix.form)}, not {code(bad)}: {first}"
    where = place.directory(obs.fix.invocation.workdir)
    if where:
        bullets.append(f"- Run it from `{where}`.")
    return CandidateDraft(
        name=slug(f"{bad} needs {obs.fix.form}"),
        description=one_line(description),
        body="\n".join(bullets),
        kind="suggested-fix",
        fingerprint=fpi.merge(
            fpi.for_invocation(obs.fix.invocation, place.facts, base=place.base),
            fpi.for_invocation(failed, place.facts, base=place.base),
        ),
        triggers={
            "commands": [command_pattern(bad.split()[:3]), command_pattern(obs.fix.form.split()[:3])],
            "keywords": [failed.tool],
        },
        evidence=place.evidence(obs.failure.ref, obs.fix.ref, obs.rerun_ref),
        outcome="mixed",
        claims=[bad, obs.fix.form],
    )


def tool_rule(obs: ToolRule, place: SessionPlace) -> CandidateDraft | None:
    rule = toolrules.BY_ID.get(obs.rule)
    if rule is None:
        return None
    times = f"{obs.count} times" if obs.count > 1 else "once"
    return CandidateDraft(
        name=slug(f"{obs.agent} {rule.id}"),
        description=one_line(rule.title.format(detail=obs.detail or "the limit")),
        body="\n".join(
            [
                f"- {rule.advice}",
                f"- {obs.agent} refused this {times} in this session. The rule is the agent's, not the "
                "repository's: promote it with `--global`.",
            ]
        ),
        kind="tool-rule",
        fingerprint=[],
        triggers={"keywords": list(rule.keywords)},
        evidence=place.evidence(*obs.refs),
        outcome="mixed",
        tags=["tool-rule", obs.agent, "global"],
        claims=[obs.agent, rule.claim],
    )


def setup_step(obs: SetupStep, place: SessionPlace) -> CandidateDraft | None:
    step, check = obs.step.form, obs.check.form
    trigger = obs.trigger
    changed: list[str] = []
    if obs.trigger_is_command:
        when = f"After {code(trigger)}"
    elif trigger:
        path = place.base + trigger
        changed = fpi.for_paths([path], place.facts)
        what = "adding a migration in" if obs.kind == "migrate" else "changing"
        when = f"After {what} {code(path)}"
    elif obs.kind == "codegen":
        when = "When the generated code may be stale"
    else:
        when = "When the tests fail on a missing dependency"
    if obs.kind == "migrate" and not changed:
        changed = [d for d in (place.base + d for d in _MIGRATION_DIRS) if place.facts.is_dir(d)][:1]
    bullets = [f"- {when}, run {code(step)} before {code(check)}; the tests passed after it here."]
    if obs.failed_before is not None:
        bullets.append(
            f"- Without it {code(check)} failed with {code(quote(obs.failed_before, place, 100))}."
        )
    where = place.directory(obs.step.invocation.workdir)
    if where:
        bullets.append(f"- Run it from `{where}`.")
    files = [f"{changed[0]}**" if changed[0].endswith("/") else changed[0]] if changed else []
    return CandidateDraft(
        name=slug(f"{step} after {trigger or 'dependencies'}"),
        description=one_line(f"{when}, run {code(step)} before {code(check)}"),
        body="\n".join(bullets),
        kind="setup",
        fingerprint=fpi.merge(changed, fpi.for_invocation(obs.step.invocation, place.facts, base=place.base)),
        triggers={
            "commands": [command_pattern(check.split()[:2])],
            "files": files,
            "keywords": [w for w in (obs.kind, obs.step.invocation.tool) if w],
        },
        evidence=place.evidence(
            *(
                r
                for r in (obs.failed_before.ref if obs.failed_before else "", obs.step.ref, obs.check.ref)
                if r
            )
        ),  # fmt: skip
        outcome="mixed" if obs.failed_before else "success",
        tags=["setup"],
        claims=[step, check],
    )


def git_fact(obs: GitFact, place: SessionPlace) -> CandidateDraft | None:
    if obs.kind == "force-add":
        subject, tracked = place.base + obs.subject, place.base + obs.detail
        add = f"git add -f {tracked}"
        body = [
            f"- `{subject}` is git-ignored, but `{tracked}` is tracked: plain `git add` refuses it "
            '("The following paths are ignored by one of your .gitignore files").',
            f"- Stage it with {code(add)} when it changed.",
        ]
        description = f"`{tracked}` is tracked under the git-ignored `{subject}`: stage it with `git add -f`"
        entries = [e for e in (f"{place.base}.gitignore", ".gitignore") if place.facts.is_file(e)][:1]
        claims = ["git add -f", tracked]
    else:
        body = [
            f"- The default branch is `{obs.subject}`, not `{obs.detail}`: "
            f"{code(obs.failure.call.invocation.text if obs.failure.call.invocation else obs.detail)} failed "
            f"with {code(quote(obs.failure, place, 80))}.",
            f"- Compare and rebase against `{obs.subject}` (`{obs.subject}..HEAD`).",
        ]
        description = f"The default branch is `{obs.subject}` (not `{obs.detail}`)"
        entries, claims = [], [obs.subject, obs.detail]
    return CandidateDraft(
        name=slug(f"git {obs.kind} {obs.subject}"),
        description=one_line(description),
        body="\n".join(body),
        kind="git-workflow",
        fingerprint=entries,
        triggers={"commands": [command_pattern(["git"])], "keywords": ["git"]},
        evidence=place.evidence(obs.failure.ref, obs.fix.ref),
        outcome="mixed",
        tags=["git"],
        claims=claims,
    )


def workdir_fix(obs: WorkdirFix, place: SessionPlace) -> CandidateDraft | None:
    where = place.directory(obs.workdir) or "the repository root"
    form = obs.fix.form
    said = quote(obs.failure, place, 100)
    failed_in = place.directory(obs.failure.call.invocation.workdir if obs.failure.call.invocation else None)
    there = f"`{failed_in}`" if failed_in else "the repository root"
    label = f"`{where}`" if where != "the repository root" else where
    return CandidateDraft(
        name=slug(f"{form} from {where}"),
        description=one_line(f"Run {code(form)} from {label}; from {there} it fails"),
        body="\n".join(
            [
                f"- Run {code(form)} from {label} (`cd {where.rstrip('/')} && {form}`)."
                if where != "the repository root"
                else f"- Run {code(form)} from the repository root.",
                f"- From {there} it fails with {code(said)}.",
            ]
        ),
        kind="workdir-fix",
        fingerprint=fpi.for_invocation(obs.fix.invocation, place.facts, base=place.base),
        triggers={"commands": [command_pattern(form.split()[:2])], "keywords": [obs.fix.invocation.tool]},
        evidence=place.evidence(obs.failure.ref, obs.fix.ref),
        outcome="mixed",
        claims=[form, where],
    )
