"""What a lesson tells the agent to do, in terms a session can be checked against.

Read from the lesson's own words (description and body), the way capture writes them and people
tend to: "Run `npm test`, not `npx jest`: here `npx jest` fails with `jest: not found`".

* advised: commands it recommends (`npm test`);
* avoided: commands it warns against (`npx jest`, "`make e2e` cannot run here");
* verify: commands it names as the check that fails or passes (`tsc` fails with ...);
* errors: error signatures of the failures it warns about (`jest: not found`);
* files: its file triggers, for lessons about where things go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from reasonlessons.lessons.model import Lesson
from reasonlessons.sessions.errorsig import error_signature
from reasonlessons.sessions.shell import Invocation, parse

_SPAN = re.compile(r"`([^`\n]{1,200})`")
_ERROR_BEFORE = re.compile(
    r"(?:\bfail(?:s|ed)?(?:\s+here)?(?:\s+with|\s+on)?|\bcannot run(?:\s+here)?:"
    r"|\berrors?(?:\s+with)?:?)\s*$",
    re.IGNORECASE,
)
_AVOID_BEFORE = re.compile(
    r"(?:\bnot|\binstead of|\bavoid(?:\s+running)?|\bnever(?:\s+run)?|\bdon'?t(?:\s+run|\s+use)?"
    r"|\bdo not(?:\s+run|\s+use)?|\brather than)\s*$",
    re.IGNORECASE,
)
_AVOID_AFTER = re.compile(
    r"^\s*(?:cannot run|can'?t run|does not work|doesn'?t work|is broken|is not available|is not installed"
    # "`npm test` fails here": a claim about this repository, not a check that fails until fixed
    r"|(?:fails|failed|errors?|breaks)\s+(?:here|in this (?:repo(?:sitory)?|project)))\b",
    re.IGNORECASE,
)
_FAILS_AFTER = re.compile(r"^\s*(?:fails|failed|fail)\b", re.IGNORECASE)
_RUN_BEFORE = re.compile(r"\b(?:run|use|with|via|try|prefer|call|using)\s*$", re.IGNORECASE)
_PROGRAM = re.compile(r"^[A-Za-z][\w.+-]*$")
_FILE_LIKE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
_CONTEXT = 40
# User messages: corrections are short; a pasted log or a task description is not one.
MAX_CORRECTION = 600
_CORRECTION = re.compile(
    r"\s*(?:no\b|nope\b|wrong\b|actually\b|stop\b|instead\b|don'?t\b|do not\b|never\b"
    r"|that'?s (?:wrong|not)|please (?:don'?t|do not|never|use|run)\b)",
    re.IGNORECASE,
)
_NEGATED = (
    r"(?:\bdon'?t|\bdo not|\bnever|\bstop|\bavoid)\s+(?:run(?:ning)?\s+|us(?:e|ing)\s+|call(?:ing)?\s+)?"
)


@dataclass(frozen=True)
class Advice:
    """The checkable part of one lesson."""

    advised: tuple[Invocation, ...] = ()
    avoided: tuple[Invocation, ...] = ()
    verify: tuple[Invocation, ...] = ()
    errors: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    @property
    def checkable(self) -> bool:
        return bool(self.advised or self.avoided or self.verify or self.errors or self.files)


def _command(span: str) -> Invocation | None:
    """The span as a shell command, if it plausibly is one (not a path, an error or a code snippet)."""
    inv = parse(span)
    if inv is None or not inv.argv:
        return None
    head = inv.argv[0]
    if not _PROGRAM.match(head) or head.endswith(":") or (_FILE_LIKE.search(head) and inv.category is None):
        return None
    return inv


def _read(text: str) -> Advice:
    """Split the code spans of `text` into advised / avoided / verifying commands and warned errors."""
    advised: dict[str, Invocation] = {}
    avoided: dict[str, Invocation] = {}
    verify: dict[str, Invocation] = {}
    errors: list[str] = []
    for line in text.splitlines():
        for match in _SPAN.finditer(line):
            span = match.group(1).strip()
            before = line[max(0, match.start() - _CONTEXT) : match.start()]
            after = line[match.end() : match.end() + _CONTEXT]
            if _ERROR_BEFORE.search(before):
                sig = error_signature(span)
                if sig and sig not in errors:
                    errors.append(sig)
                continue
            inv = _command(span)
            if inv is None:
                continue
            if _AVOID_BEFORE.search(before) or _AVOID_AFTER.search(after):
                avoided.setdefault(inv.base, inv)
            elif _FAILS_AFTER.search(after):
                verify.setdefault(inv.base, inv)
            elif inv.category or inv.script or inv.runner or _RUN_BEFORE.search(before):
                advised.setdefault(inv.base, inv)
    for base in avoided:
        advised.pop(base, None)
        verify.pop(base, None)
    for base in advised:
        verify.pop(base, None)
    return Advice(tuple(advised.values()), tuple(avoided.values()), tuple(verify.values()), tuple(errors))


@lru_cache(maxsize=4096)
def _read_cached(text: str) -> Advice:
    """`_read`, once per lesson text: the learning loop checks every lesson against every session."""
    return _read(text)


def read_advice(lesson: Lesson) -> Advice:
    """What a lesson advises, warns against, names as the check, and the errors it quotes."""
    found = _read_cached(f"{lesson.description}\n{lesson.body}")
    triggers = lesson.triggers
    return Advice(
        found.advised,
        found.avoided,
        found.verify,
        found.errors,
        tuple(triggers.get("files", [])),
        tuple(triggers.get("keywords", [])),
    )


def says_otherwise(text: str, advice: Advice) -> str | None:
    """How a user message contradicts the lesson, or None: it rejects a command the lesson advises
    ("don't use `npx vitest run`"), or, opening as a correction, urges one it warns against."""
    if len(text) > MAX_CORRECTION:
        return None
    said = _read(text)
    for wanted in advice.advised:
        rejected = any(same_command(wanted, inv) for inv in said.avoided)
        if rejected or re.search(_NEGATED + re.escape(wanted.base) + r"(?!\S)", text, re.IGNORECASE):
            return f"a user said not to run `{wanted.base}`"
    if _CORRECTION.match(text):
        for warned in advice.avoided:
            if any(same_command(warned, inv) for inv in said.advised):
                return f"a user said to run `{warned.base}`"
    return None


def same_command(wanted: Invocation, ran: Invocation) -> bool:
    """`ran` is an instance of `wanted`: the same general form, possibly with more sub-commands."""
    if wanted.base == ran.base or ran.base.startswith(wanted.base + " "):
        return True
    # `npm test` and `npm run test` run the same script.
    return bool(wanted.script and wanted.script == ran.script and wanted.manager == ran.manager)


def same_error(warned: str, seen: str | None) -> bool:
    """Two error signatures name the same failure (equal, or one holds the other's telling part)."""
    if not seen:
        return False
    if warned == seen:
        return True
    shorter, longer = sorted((warned, seen), key=len)
    return len(shorter) >= 8 and shorter in longer
