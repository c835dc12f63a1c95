"""The heuristic extractor (offline, no network): observations -> candidate lesson drafts.

Each observation kind has one template (failures in extract_failures.py). A draft names the exact
command or file, says what to do in one to three bullets, cites its log lines, and depends on the
repo facts found by fingerprint_infer. Observations too weak to say something specific yield
nothing: writing no lesson beats writing a vague one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reasonlessons.capture.extract import failures, workflow
from reasonlessons.capture.extract import fingerprints as fpi
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft, code, command_pattern, one_line, slug
from reasonlessons.capture.reduce.observations import (
    ArgsFix,
    CommandFix,
    CommitGate,
    Correction,
    CreatedFiles,
    EditFix,
    GitFact,
    Loop,
    RepeatedFailure,
    SessionObservations,
    SetupStep,
    Step,
    SuggestedFix,
    ToolRule,
    ToolRuleSeen,
    Verification,
    WorkdirFix,
    Writ,
)
from reasonlessons.fingerprint.kinds import kind_of
from reasonlessons.sessions import signals
from reasonlessons.sessions.commands import narrows
from reasonlessons.sessions.shell import CATEGORY_VERBS, parse

# Running the default command of an ecosystem plainly is no news: such verifications only add
# evidence to an existing lesson, they never make a new one.
_PLAIN_TOOLS = frozenset(
    {"pytest", "cargo", "go", "make", "tox", "nox", "mvn", "gradle", "dotnet", "bun", "deno", "mix"}
)
_TEST_DIRS = ("tests", "test", "__tests__", "spec", "specs", "testing")
_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_PATHISH = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.*-]*|[\w-]+\.(?:json|toml|ya?ml|ts|js|py|go|rs|md|cfg|ini))(?![\w/])"
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_PROGRAM = re.compile(r"^[A-Za-z][\w.+-]*$")


def extract(session: SessionObservations, place: SessionPlace) -> list[CandidateDraft]:
    """Drafts for one session's observations, strongest first (not yet gated or de-duplicated)."""
    drafts: list[CandidateDraft] = []
    checks = _checks(session)
    for item in session.items:
        if isinstance(item, Loop):
            draft = workflow.loop(item, place, _remedy(item, checks))
        else:
            builder = _BUILDERS.get(type(item))
            draft = builder(item, place) if builder is not None else None
        if draft is not None:
            drafts.append(draft)
    best_verifications = _best_verifications([i for i in session.items if isinstance(i, Verification)])
    drafts.extend(d for v in best_verifications if (d := verification(v, place)) is not None)
    drafts.sort(key=lambda d: -d.strength)
    return drafts


def _checks(session: SessionObservations) -> list[Step]:
    """The checks that passed in a session, as steps a lesson can name (a loop's remedy)."""
    steps = [Step(v.form or v.invocation.base, v.invocation, v.refs[-1]) for v in session.items
             if isinstance(v, Verification) and v.refs]  # fmt: skip
    for item in session.items:
        if isinstance(item, CommitGate):
            steps.extend(item.steps)
    return steps


def _remedy(item: Loop, checks: list[Step]) -> Step | None:
    """The check that runs what a loop's failure named (`[DIALYZER]` and `mix dialyzer`)."""
    names = [n.lower() for n in signals.check_names(item.failure.excerpt)]
    for name in names:
        for step in checks:
            if any(name == w.lower() or len(name) > 3 and name in w.lower() for w in step.form.split()):
                return step
    return None


def _best_verifications(items: list[Verification]) -> list[Verification]:
    """One verification per category: the most often passing (the last one on ties)."""
    best: dict[str, Verification] = {}
    for item in items:
        category = item.invocation.category or ""
        if category not in best or item.count >= best[category].count:
            best[category] = item
    return list(best.values())


def verification(obs: Verification, place: SessionPlace) -> CandidateDraft | None:
    inv = obs.invocation
    if inv.category is None:
        return None
    shown = obs.form or inv.base  # the flags it passed with: `npx tsc --noEmit --skipLibCheck`
    bare = shown.split(" ", 1)[1] if inv.runner == "npx" and " " in shown else shown
    script = None
    if inv.manager is None:
        script = fpi.script_running(bare, place.facts, base=place.base) or fpi.script_running(
            inv.base.split(" ", 1)[1] if inv.runner == "npx" else inv.base, place.facts, base=place.base
        )
    value = fpi.script_value(inv, place.facts, base=place.base)
    bullets = [f"- {CATEGORY_VERBS[inv.category]} with {code(shown)}; it passed in this session."]
    definition = fpi.for_invocation(inv, place.facts, base=place.base)
    if script:
        bullets.append(f"- It is what the `{script}` script of package.json runs ({code(bare)}).")
        definition = fpi.merge([fpi.field_entry(f"{place.base}package.json", "scripts", script)], definition)
    elif value:
        bullets.append(f"- The `{inv.script}` script of package.json is {code(value)}.")
    where = place.directory(inv.workdir)
    if where:
        bullets.append(f"- Run it from `{where}` (relative to the repository root).")
    single = next(
        (e for e in obs.examples if (p := parse(e)) is not None and narrows(p) and len(e) <= 100), None
    )
    if single and len(bullets) < 3:
        bullets.append(f"- A narrower run looked like {code(single)}.")
    # Running the default command of an ecosystem plainly is no news (`npm test` is every Node
    # project's entry point), except for the tool that runs the tests elsewhere: `mix test`,
    # `go test ./...` or `pytest` is the first thing an agent needs to know about a repository.
    plain = (
        inv.runner is None
        and inv.workdir is None
        and not inv.env
        and (inv.manager is not None or inv.tool in _PLAIN_TOOLS and inv.category != "test")
    )
    suffix = f" (package.json `{script}` script)" if script else ""
    place_suffix = f" in `{where}`" if where else ""
    return CandidateDraft(
        name=f"{inv.category}-command",
        description=one_line(f"{CATEGORY_VERBS[inv.category]} with {code(shown)}{place_suffix}{suffix}"),
        body="\n".join(bullets[:3]),
        kind="verification",
        fingerprint=definition,
        triggers={
            "commands": [command_pattern([inv.tool] if inv.manager is None else shown.split()[:3])],
            "keywords": [
                w for w in dict.fromkeys((inv.category, inv.tool)) if w not in ("npm", "pnpm", "yarn")
            ],
        },
        evidence=place.evidence(*obs.refs),
        outcome="success",
        tags=[inv.category],
        claims=[inv.base],
        update_only=plain,
    )


def _test_pattern(name: str) -> tuple[str, Callable[[str], bool]] | None:
    """(`<name>.test.ts`-style pattern, matcher) when `name` is a test file name."""
    kind = kind_of(name)
    stem = name[: len(name) - len(kind)] if kind else name
    if re.search(r"^\.(?:test|spec)\.", kind):
        return f"<name>{kind}", lambda n, k=kind: kind_of(n) == k
    ext = kind.rsplit(".", 1)[-1] if kind else ""
    if stem.startswith("test_") and ext:
        return f"test_<name>.{ext}", lambda n, e=ext: n.startswith("test_") and n.endswith("." + e)
    if stem.endswith(("_test", "_spec")) and ext:
        tail = stem[-5:]
        return f"<name>{tail}.{ext}", lambda n, t=f"{tail}.{ext}": n.endswith(t)
    return None


def layout(obs: CreatedFiles, place: SessionPlace) -> CandidateDraft | None:
    groups: dict[tuple[str, str], list[str]] = {}
    matchers: dict[str, Callable[[str], bool]] = {}
    for path in obs.paths:
        parts = path.split("/")
        found = _test_pattern(parts[-1])
        if found is None:
            continue
        pattern, matcher = found
        matchers[pattern] = matcher
        top = next((i for i, p in enumerate(parts[:-1]) if p in _TEST_DIRS), None)
        directory = "/".join(parts[: top + 1]) + "/" if top is not None else ""
        groups.setdefault((directory, pattern), []).append(path)
    if len(groups) != 1:
        return None  # no test files, or several conventions at once: nothing clear to say
    (directory, pattern), paths = next(iter(groups.items()))
    where = place.base + directory
    if where and place.facts.count_kind(where, matchers[pattern]) < 2:
        return None  # the convention must be visible in the repository, not just in the log
    suffix = pattern.removeprefix("<name>") if pattern.startswith("<name>") else None
    example = ", ".join(f"`{p}`" for p in paths[:2])
    if where:
        description = f"Tests live in `{where}` as `{pattern}`"
        first = (
            f"- Put new tests in `{where}`, named `{pattern}` (like {example}, from a session that passed)."
        )
        entry, files = where, [f"{where}**/{'*' + suffix if suffix else pattern.replace('<name>', '*')}"]
    else:
        description = f"Tests sit next to the code as `{pattern}`"
        first = f"- Put each test next to the code it tests, named `{pattern}` (like {example})."
        glob = f"**/*{suffix}" if suffix else f"**/{pattern.replace('<name>', '*')}"
        entry, files = glob, [glob]
    return CandidateDraft(
        name="test-layout",
        description=description,
        body=first,
        kind="layout",
        fingerprint=[entry],
        triggers={"files": files, "keywords": ["test"]},
        evidence=place.evidence(*obs.refs),
        outcome="success",
        claims=[where or pattern, suffix or pattern],
    )


def _mentions(text: str, place: SessionPlace) -> tuple[list[str], list[str], list[str]]:
    """(fingerprint entries, command patterns, file globs) for what a stated lesson names."""
    spans = _CODE_SPAN.findall(text)
    invocations = [
        inv
        for span in spans
        if (inv := parse(span)) is not None and " " in span.strip() and _PROGRAM.match(inv.tool)
    ]
    paths = list(dict.fromkeys([*spans, *_PATHISH.findall(text)]))
    found = fpi.for_paths(paths, place.facts)
    # A directory named in passing ("not in src/") is no dependency: keep the first one only.
    dirs = [e for e in found if e.endswith("/")][:1]
    entries = fpi.merge(
        [e for e in found if not e.endswith("/") or e in dirs],
        *(
            fpi.for_invocation(inv, place.facts, base=place.base)
            for inv in invocations
            if inv.category or inv.script
        ),
    )
    commands = [command_pattern(inv.base.split()[-3:] if inv.manager else [inv.tool]) for inv in invocations]
    files = [f"{e}**" for e in entries if e.endswith("/")]
    return entries, list(dict.fromkeys(commands))[:3], files[:3]


def _bullets(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) == 1:
        lines = _SENTENCE.split(lines[0]) if len(lines[0]) > 160 else lines
    lines = [line[2:] if line.startswith(("- ", "* ")) else line for line in lines[:6]]
    return "\n".join(f"- {line[:1].upper()}{line[1:]}" for line in lines)


def writ(obs: Writ, place: SessionPlace) -> CandidateDraft | None:
    text = obs.text.strip()
    if len(text) < 8:
        return None
    first = _SENTENCE.split(text.splitlines()[0].lstrip("-* "))[0].rstrip(";")
    title = obs.title.strip()
    description = title if len(title.split()) >= 3 else first[:1].upper() + first[1:]
    entries, commands, files = _mentions(f"{title}\n{text}", place)
    return CandidateDraft(
        name=slug(title, fallback=slug(first)),
        description=one_line(description),
        body=_bullets(text),
        kind="writ",
        fingerprint=entries,
        triggers={"commands": commands, "files": files, "keywords": [title] if len(title) <= 40 else []},
        evidence=place.evidence(obs.ref),
        outcome="success",
        source="writ",
    )


def correction(obs: Correction, place: SessionPlace) -> CandidateDraft | None:
    entries, commands, files = _mentions(obs.text, place)
    first = _SENTENCE.split(obs.text)[0].rstrip(";")
    spans = _CODE_SPAN.findall(obs.text)
    claims = list(dict.fromkeys([*spans, *(e for e in entries if "#" not in e)]))[:3]
    return CandidateDraft(
        name=slug(" ".join(first.split()[:7])),
        description=one_line(first),
        body=_bullets(obs.text),
        kind="correction",
        fingerprint=entries,
        triggers={"commands": commands, "files": files},
        evidence=place.evidence(obs.ref),
        outcome="mixed",
        source="correction",
        claims=claims,
    )


_BUILDERS: dict[type[Any], Callable[[Any, SessionPlace], CandidateDraft | None]] = {
    CommandFix: failures.command_fix,
    ArgsFix: failures.args_fix,
    EditFix: failures.edit_fix,
    RepeatedFailure: failures.repeated_failure,
    ToolRuleSeen: failures.tool_rule,
    CreatedFiles: layout,
    Writ: writ,
    Correction: correction,
    CommitGate: workflow.commit_gate,
    SuggestedFix: workflow.suggested_fix,
    ToolRule: workflow.tool_rule,
    SetupStep: workflow.setup_step,
    GitFact: workflow.git_fact,
    WorkdirFix: workflow.workdir_fix,
}
