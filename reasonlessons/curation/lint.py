"""Lint rules over a library of lessons: triggers that can never fire, lessons nobody can reach,
near-duplicates, supersession that does nothing, and fingerprints that name nothing.

Each finding has a stable code (the table in docs/commands.md#validate), a severity, the lesson and
the field. The trigger rules mirror agentsmesh's `lessons validate` where a check means the same;
the fingerprint rules have no equivalent there. `validate` runs these after its own schema checks.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, STATUS_ACTIVE
from reasonlessons.curation.repofiles import RepoFiles
from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint.entry import check_entry, parse_entry
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall import globs
from reasonlessons.safety import linear_re
from reasonlessons.store.project import Project
from reasonlessons.store.status import status_of, superseded_names
from reasonlessons.store.validate import ERROR, WARNING, Problem, text_key, validate
from reasonlessons.support.tokens import GENERIC, STOPWORDS, tokenize

# A trigger shared by more active lessons than this ties them on specificity (agentsmesh uses 10).
HIGH_FANOUT = 10
# Token-set overlap (Jaccard) above which two lessons say nearly the same thing.
NEAR_DUPLICATE = 0.8
NEAR_DUPLICATE_MIN_TOKENS = 5
# Recall admits an untriggered lesson on this many shared non-generic words (recall/api.py).
MIN_TEXT_TERMS = 2
MIN_KEYWORD_CHARS = 3

# A command pattern anchored to one package runner misses the same task run any other way.
_RUNNER_ANCHOR = re.compile(
    r"^(?:\^|\\A)\s*(?:pnpm|npm|npx|yarn|bunx?|uvx?|poetry|pipenv|pdm|hatch|rye|python3?\s+-m)\b"
)
# Config files a lesson's text may name; when the repository has one, the lesson depends on it.
_CONFIG = re.compile(
    r"(?<![\w./-])((?:[\w-]+/)*(?:[\w.-]+\.(?:json|jsonc|toml|ya?ml|cfg|ini|lock|mod)"
    r"|Makefile|Dockerfile|Justfile|Gemfile|Procfile|\.[\w-]+rc))(?![\w/-])"
)


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str
    summary: str


RULES = {
    rule.code: rule
    for rule in (
        Rule("INVALID_TRIGGER_PATTERN", ERROR, "a command pattern that does not compile"),
        Rule("UNSAFE_TRIGGER_PATTERN", ERROR, "a command pattern the linear-time engine cannot run"),
        Rule("RUNNER_ANCHORED_PATTERN", WARNING, "a command pattern anchored to one package runner"),
        Rule("UNSAFE_GLOB_PATTERN", ERROR, "a file glob with syntax that never matches"),
        Rule("DEAD_FILE_GLOB", WARNING, "a file glob that matches no file in the repository"),
        Rule("STOPWORD_KEYWORD", WARNING, "a keyword holding a stop word, so it never matches"),
        Rule("LOW_SIGNAL_KEYWORD", WARNING, "a keyword too short or too common to carry signal"),
        Rule("DUPLICATE_TRIGGER", WARNING, "the same trigger twice in one lesson"),
        Rule("HIGH_FANOUT_TRIGGER", WARNING, "one trigger shared by many active lessons"),
        Rule("UNREACHABLE_LESSON", WARNING, "no prompt, file or command can reach the lesson"),
        Rule("NEAR_DUPLICATE_LESSON", WARNING, "two lessons whose words overlap above the threshold"),
        Rule("SUPERSEDED_BUT_ACTIVE", WARNING, "a lesson claimed superseded that recall still serves"),
        Rule("SUPERSEDED_STILL_SUPERSEDING", WARNING, "a retired lesson that still hides others"),
        Rule("DEAD_FINGERPRINT_ENTRY", WARNING, "a fingerprint entry that names nothing in the repo"),
        Rule("MISSING_FINGERPRINT", WARNING, "no fingerprint, though the text names a repo config"),
    )
}


def _problem(code: str, lesson: Lesson, field: str, message: str) -> Problem:
    return Problem(
        RULES[code].severity,
        lesson.path or Path(lesson.name),
        message,
        lesson.name,
        lesson.scope,
        code=code,
        field=field,
    )


def lint(lessons: Sequence[Lesson], *, root: Path, now: dt.datetime) -> list[Problem]:
    """Every lint finding over `lessons` (all scopes), judged against the repository at `root`."""
    files = RepoFiles(root)
    superseded = superseded_names(lessons)
    live = [
        lesson
        for lesson in lessons
        if status_of(lesson, now=now, superseded=superseded, drift=None) == STATUS_ACTIVE
    ]
    problems: list[Problem] = []
    for lesson in lessons:
        local = lesson.scope != SCOPE_GLOBAL  # a global lesson is about no one repository
        problems.extend(trigger_problems(lesson, files if local else None))
        if local:
            problems.extend(fingerprint_problems(lesson, root, files))
    for lesson in live:
        problems.extend(reach_problems(lesson, files if lesson.scope != SCOPE_GLOBAL else None))
    problems.extend(fanout_problems(live))
    problems.extend(near_duplicates(live))
    problems.extend(supersession_problems(lessons, superseded))
    return problems


# -- triggers --------------------------------------------------------------------------------------


def pattern_problem(pattern: str) -> tuple[str, str] | None:
    """(code, why) when a command pattern can never match, else None."""
    why = linear_re.problem(pattern)
    if why is None:
        return None
    unsafe = why.startswith(("backreferences", "lookarounds")) or "too large" in why
    return ("UNSAFE_TRIGGER_PATTERN" if unsafe else "INVALID_TRIGGER_PATTERN"), why


def keyword_problem(keyword: str) -> tuple[str, str] | None:
    """(code, why) when a keyword never matches or matches nearly everything, else None."""
    raw = [t for t in re.split(r"[^a-z0-9]+", keyword.lower()) if t]
    if any(t in STOPWORDS for t in raw) or not tokenize(keyword):
        stop = [t for t in raw if t in STOPWORDS]
        why = f"holds the stop word(s) {', '.join(stop)}" if stop else "has no word of 2+ characters"
        return "STOPWORD_KEYWORD", f"{why}, so it never matches; drop them or use another word"
    if all(len(t) < MIN_KEYWORD_CHARS or t in GENERIC for t in raw):
        return "LOW_SIGNAL_KEYWORD", "is too short or too common to single out a task; use a rarer word"
    return None


def trigger_problems(lesson: Lesson, files: RepoFiles | None) -> list[Problem]:
    """Problems of each trigger on its own, and duplicates within the lesson."""
    out: list[Problem] = []
    for kind, values in lesson.triggers.items():
        seen: dict[str, int] = {}
        for i, value in enumerate(values):
            field = f"triggers.{kind}[{i}]"
            key = _trigger_key(kind, value)
            if key in seen:
                message = f"{kind[:-1]} {value!r} repeats triggers.{kind}[{seen[key]}]; remove one"
                out.append(_problem("DUPLICATE_TRIGGER", lesson, field, message))
                continue
            seen[key] = i
            found = _one_trigger(kind, value, files)
            if found is not None:
                out.append(_problem(found[0], lesson, field, found[1]))
    return out


def _one_trigger(kind: str, value: str, files: RepoFiles | None) -> tuple[str, str] | None:
    if kind == "commands":
        found = pattern_problem(value)
        if found is not None:
            return found[0], f"command pattern {value!r} never matches: {found[1]}"
        if _RUNNER_ANCHOR.search(value):
            message = (
                f"command pattern {value!r} is anchored to one runner, so the same task run another "
                "way (npx vs pnpm, uv run, a leading cd) never fires it; drop the ^ and key on the "
                "tool, e.g. \\bvitest\\b"
            )
            return "RUNNER_ANCHORED_PATTERN", message
        return None
    if kind == "keywords":
        found = keyword_problem(value)
        return None if found is None else (found[0], f"keyword {value!r} {found[1]}")
    why = globs.check(value)
    if why is not None:
        return "UNSAFE_GLOB_PATTERN", f"file glob {value!r} never matches: {why}"
    if files is not None and not value.startswith("!") and not files.any_match(value):
        message = f"file glob {value!r} matches no file in the repository; re-point it or `untrigger` it"
        return "DEAD_FILE_GLOB", message
    return None


def _trigger_key(kind: str, value: str) -> str:
    if kind == "keywords":
        return " ".join(re.split(r"[^a-z0-9]+", value.lower())).strip()
    if kind == "files":
        return value.removeprefix("./")
    return value


def live_triggers(lesson: Lesson, files: RepoFiles | None) -> int:
    """How many of a lesson's triggers can fire at all."""
    return sum(
        1
        for kind, values in lesson.triggers.items()
        for value in values
        if (found := _one_trigger(kind, value, files)) is None
        or found[0] in ("RUNNER_ANCHORED_PATTERN", "LOW_SIGNAL_KEYWORD")
    )


def reach_problems(lesson: Lesson, files: RepoFiles | None) -> list[Problem]:
    """A live lesson no trigger can fire, with too few distinctive words for recall's text match."""
    if live_triggers(lesson, files) or len(text_terms(lesson)) >= MIN_TEXT_TERMS:
        return []
    declared = sum(len(v) for v in lesson.triggers.values())
    why = f"none of its {declared} trigger(s) can fire" if declared else "it has no trigger"
    message = (
        f"unreachable: {why}, and its text has too few distinctive words for a prompt to match; "
        "add a trigger (file glob, command pattern or keyword)"
    )
    return [_problem("UNREACHABLE_LESSON", lesson, "triggers", message)]


def text_terms(lesson: Lesson) -> set[str]:
    """The words recall's text match can use (recall/bm25.py indexes name, description and body)."""
    return {t for t in tokenize(f"{lesson.name}\n{lesson.description}\n{lesson.body}") if t not in GENERIC}


def fanout_problems(live: Sequence[Lesson]) -> list[Problem]:
    """Triggers shared by more than HIGH_FANOUT active lessons: ranking cannot tell them apart."""
    users: defaultdict[tuple[str, str], list[Lesson]] = defaultdict(list)
    for lesson in live:
        if lesson.scope == SCOPE_CANDIDATE:
            continue
        for kind, values in lesson.triggers.items():
            for value in dict.fromkeys(_trigger_key(kind, v) for v in values):
                users[(kind, value)].append(lesson)
    out: list[Problem] = []
    for (kind, value), lessons in sorted(users.items()):
        if len(lessons) > HIGH_FANOUT:
            names = sorted(x.name for x in lessons)
            message = (
                f"{kind[:-1]} {value!r} is shared by {len(names)} active lessons "
                f"({', '.join(names[:3])}, ...): recall cannot rank them apart; narrow it per lesson"
            )
            first = min(lessons, key=lambda x: x.name)
            out.append(_problem("HIGH_FANOUT_TRIGGER", first, f"triggers.{kind}", message))
    return out


# -- lessons against each other --------------------------------------------------------------------


def lesson_tokens(lesson: Lesson) -> frozenset[str]:
    return frozenset(tokenize(f"{lesson.description}\n{lesson.body}"))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def near_duplicates(live: Sequence[Lesson]) -> list[Problem]:
    """Pairs of live lessons whose word sets overlap above NEAR_DUPLICATE (exact ones: validate)."""
    sets = [(lesson, lesson_tokens(lesson)) for lesson in live]
    sets = [(x, s) for x, s in sets if len(s) >= NEAR_DUPLICATE_MIN_TOKENS]
    sets.sort(key=lambda pair: (len(pair[1]), pair[0].name))
    out: list[Problem] = []
    for i, (a, sa) in enumerate(sets):
        for b, sb in sets[i + 1 :]:
            if len(sa) < NEAR_DUPLICATE * len(sb):
                break  # sorted by size: every later set is larger still
            score = similarity(sa, sb)
            if score >= NEAR_DUPLICATE and text_key(a) != text_key(b):
                later, earlier = sorted((a, b), key=lambda x: (x.scope == SCOPE_CANDIDATE, x.name))[::-1]
                message = (
                    f"{score:.0%} of its words overlap {earlier.scope} lesson {earlier.name!r}; "
                    f"`reasonlessons merge {earlier.name} {later.name} --into {earlier.name}`"
                )
                out.append(_problem("NEAR_DUPLICATE_LESSON", later, "body", message))
    return out


def supersession_problems(lessons: Sequence[Lesson], superseded: set[str]) -> list[Problem]:
    """Supersession that has no effect, and retired lessons that still retire others."""
    out: list[Problem] = []
    by_name = {x.name: x for x in lessons if x.scope != SCOPE_CANDIDATE}
    for lesson in lessons:
        retired = lesson.declared_status is not None or lesson.name in superseded
        for target in lesson.supersedes:
            other = by_name.get(target)
            if other is None or target == lesson.name:
                continue
            if target not in superseded and other.declared_status is None:
                why = "it is a candidate" if lesson.scope == SCOPE_CANDIDATE else "it is deprecated"
                message = (
                    f"supersedes {target!r}, which recall still serves because {why}; promote or "
                    f"revive this lesson, or drop {target!r} from supersedes"
                )
                out.append(_problem("SUPERSEDED_BUT_ACTIVE", lesson, "supersedes", message))
            elif retired and lesson.scope != SCOPE_CANDIDATE:
                message = (
                    f"is retired yet still supersedes {target!r}; move {target!r} to the supersedes "
                    "of the lesson that replaced this one, or drop it"
                )
                out.append(_problem("SUPERSEDED_STILL_SUPERSEDING", lesson, "supersedes", message))
    return out


# -- fingerprints ----------------------------------------------------------------------------------


def fingerprint_problems(lesson: Lesson, root: Path, files: RepoFiles) -> list[Problem]:
    """Entries naming nothing in the repository, and no fingerprint although the text names a config."""
    out: list[Problem] = []
    checker = files.checker()
    for i, text in enumerate(lesson.fingerprint):
        try:
            entry = parse_entry(text)
        except InvalidFingerprintError:
            continue  # validate reports the syntax
        if checker.fact(entry).absent:
            message = (
                f"names nothing in the repository ({text} is absent); fix the path, or drop the entry "
                "unless the lesson is about its absence"
            )
            out.append(_problem("DEAD_FINGERPRINT_ENTRY", lesson, f"fingerprint[{i}]", message))
    if not lesson.fingerprint:
        named = configs_named(f"{lesson.description}\n{lesson.body}", files)
        if named:
            message = (
                f"has no fingerprint, yet its text names {', '.join(named)}, which this repository "
                f"has; add `--fingerprint {named[0]}` so the lesson goes stale when it changes"
            )
            out.append(_problem("MISSING_FINGERPRINT", lesson, "fingerprint", message))
    return out


def configs_named(text: str, files: RepoFiles) -> list[str]:
    """Config files the text names that exist in the repository, in order of mention."""
    found = [m.group(1) for m in _CONFIG.finditer(text)]
    return [name for name in dict.fromkeys(found) if files.has(name)]


def validate_project(project: Project) -> list[Problem]:
    """`validate` with every lint rule, against the project's repository and clock."""
    root = project.loc.root

    def rules(lessons: list[Lesson]) -> list[Problem]:
        return lint(lessons, root=root, now=project.now())

    return validate(project.store, check_entry=check_entry, lint=rules)
