"""Hostile lessons: what makes a lesson unfit to hand to an agent unreviewed, and trusting it anyway.

Lessons from a clone are someone else's text, injected into the agent on every turn. `scan` flags
text that tries to override the agent's instructions or pose as its system prompt or tool markup,
that exfiltrates (data in URLs, piping a download into a shell, payload blobs), that hides from a
human reviewer (bidi controls, zero-width and tag characters), or that is too big to be a lesson.
`validate` reports flags; recall skips a flagged lesson until `reasonlessons trust NAME` records
that a human accepted exactly this content: trust is keyed by scope, name and a SHA-256 of what the
agent would see (description, body, triggers), so any change to it revokes the trust. Trust is kept
under `$REASONIX_HOME` per checkout, never in the repository (`trust_path`).
See docs/security.md.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import json
import os
import re
import stat
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT, STATE_DIR
from reasonlessons.lessons.file import read_lesson
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety import linear_re, textview
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

TRUST_FILE = "trust.json"
_KIND = "trust"
MAX_DESCRIPTION_CHARS = 200
MAX_BODY_CHARS = 4000
MAX_BODY_LINES = 80

OVERRIDE, SPOOF, EXFILTRATION, HIDDEN, CAPS = "override", "spoof", "exfiltration", "hidden-text", "caps"

_I = re.IGNORECASE
_OVERRIDE = [
    re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:\w+\s+){0,3}?"
        r"(?:previous|prior|above|earlier|preceding|all|your|system|developer|original|safety)\s+"
        r"(?:\w+\s+)?(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|context|messages?)\b",
        _I,
    ),
    re.compile(r"\bforget\s+(?:everything|all)\s+(?:above|before|you\s+(?:know|were\s+told))", _I),
    re.compile(r"\byou\s+are\s+now\b|\bfrom\s+now\s+on,?\s+you\b|\bpretend\s+(?:to\s+be|you\s+are)\b", _I),
    re.compile(r"\bnew\s+(?:system\s+)?instructions?\s*:|\b(?:developer|god|dan|jailbreak)\s+mode\b", _I),
    re.compile(r"\bdo\s+anything\s+now\b|\b(?:without\s+telling|do\s+not\s+tell)\s+the\s+user\b", _I),
    re.compile(
        r"\b(?:reveal|print|show|output|leak|send|post|upload|exfiltrate)\s+(?:\w+\s+){0,3}?(?:your|the)\s+"
        r"(?:system\s+prompt|instructions|hidden\s+\w+|secrets?|api[\s_-]*keys?|credentials|tokens?|"
        r"env(?:ironment)?(?:\s+variables)?|ssh\s+keys?)\b",
        _I,
    ),
]
_SPOOF = [
    # A role label opening a line, as chat transcripts and prompt formats write them.
    re.compile(r"^[\s#>*-]*(?:system|assistant|human|developer)\s*:", re.M | _I),
    re.compile(r"^[\s#>*-]*(?:USER|SYSTEM)\s*:", re.M),
    re.compile(r"<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\s*\|>", _I),
    re.compile(r"\[/?INST\]|<</?SYS>>"),
    # Lowercase only: `Promise<User>` in a TypeScript lesson is a type, not a tag.
    re.compile(
        r"</?\s*(?:system|system-reminder|assistant|user|human|tool_call|tool_result|tool_use|function_calls?|"
        r"function_results|invoke|parameter|antml:[\w-]+|instructions?|reasonlessons-recall|important)\b[^<>\n]{0,200}>"
    ),
    re.compile(r"^#{1,6}\s*(?:system(?:\s+prompt)?|instructions?)\s*$", re.M | _I),
]
_SHELLS = (
    r"(?:sudo\s+)?(?:sh|bash|zsh|ksh|dash|fish|python[23]?|perl|ruby|node|iex|invoke-expression"
    r"|p(?:wsh|owershell))"
)
_FETCH = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)"
# Every pattern is matched in linear time: the hostile text is the input. Shapes made of several
# parts on one line (a download piped into a shell; an upload of local secrets) are searched part
# by part in each line, never with one backtracking pattern.
_PIPE_TO_SHELL = re.compile(rf"\|\s*{_SHELLS}\b", _I)
_PIPE_SOURCE = re.compile(rf"\b{_FETCH}\b|\bbase64\s+(?:-d|--decode|-D)\b", _I)
_EXFIL = [
    re.compile(r"(?:\$\(|`|<\(|eval\s+[\"']?\$\()\s*(?:curl|wget)\b", _I),
    re.compile(r"/dev/tcp/|\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*-e\s", _I),
]
# Uploading local secrets: curl -d @~/.aws/credentials, --data "$(env)", -F file=@.env ...
_UPLOAD = re.compile(r"\s(?:-d|--data\S*|-F|--form|-T|--upload-file|--post-file)[\s=]", _I)
_UPLOAD_TOOL = re.compile(r"\b(?:curl|wget)\b", _I)
_LOCAL_SECRET = re.compile(
    r"@[~./]|\$\(|\benv\b|printenv|\.ssh|\.aws|\.env\b|id_rsa|/etc/passwd|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASS)",
    _I,
)
# A payload blob: a long base64 run that is random (a path or a word repeated is not).
_BLOB = re.compile(r"[A-Za-z0-9+/]{160,}={0,2}")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s<>\"'`)\]]+", _I)
_URL_CREDENTIALS = re.compile(r"://[^\s/:@]+:([^\s/@]+)@")
# Data smuggled in a URL: a substitution the agent would expand, or a long random-looking value.
_URL_SUBST = re.compile(r"\$\{?\w|\$\(|`|\{\{|%s")
_URL_VALUE = re.compile(r"[?&][^=&#]*=([^&#]{32,})")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# The ASCII characters _HIDDEN holds (a text of other ASCII characters holds nothing hidden).
_ASCII_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_HIDDEN = re.compile(
    "[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u180e\ufeff\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


@dataclass(frozen=True)
class Flag:
    """One reason a lesson is not handed to agents unreviewed."""

    code: str
    detail: str

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


def scan(lesson: Lesson) -> list[Flag]:
    """Every flag on a lesson's description and body (what recall would show an agent)."""
    return scan_text(lesson.description, lesson.body)


def scan_text(description: str, body: str) -> list[Flag]:
    """Flags on the text of a lesson; empty when it reads like ordinary advice.

    The phrases, markup and shapes are looked for in the text's skeleton (safety/textview.py):
    NFKC-folded, invisible characters removed, Cyrillic and Greek look-alikes made Latin, so a soft
    hyphen, a zero-width joiner or an `і` does not hide "ignore previous instructions". The
    invisible characters themselves are flagged from the text as written."""
    flags: list[Flag] = []
    raw = f"{description}\n{body}"
    text = textview.skeleton(raw)
    flat = " ".join(text.split())
    screens = _screens()
    if screens[0].can_match(flat) is not False:
        for pattern in _OVERRIDE:
            if match := pattern.search(flat):
                quoted = _quote(match[0])
                flags.append(Flag(OVERRIDE, f"tries to override the agent's instructions ({quoted})"))
                break
    if screens[1].can_match(text) is not False:
        flags.extend(_markup_and_exfiltration(text))
    if not raw.isascii() or _ASCII_HIDDEN.search(raw):  # what else _HIDDEN and Cf could find
        hidden = sorted({f"U+{ord(c):04X}" for c in _HIDDEN.findall(raw)} | _format_chars(raw))
        if hidden:
            flags.append(Flag(HIDDEN, f"holds invisible or control characters ({', '.join(hidden[:5])})"))
    flags.extend(_caps(description, body))
    return flags


def _markup_and_exfiltration(text: str) -> list[Flag]:
    flags = []
    for pattern in _SPOOF:
        if match := pattern.search(text):
            flags.append(Flag(SPOOF, f"poses as a prompt role or tool markup ({_quote(match[0])})"))
            break
    found = _exfiltration(text)
    if found is not None:
        flags.append(Flag(EXFILTRATION, f"could send data out or run a download ({_quote(found)})"))
    else:
        url = next((u for u in _URL.findall(text) if _carries_data(u)), None)
        blob = next((b for b in _BLOB.findall(text) if _entropy(b) >= 4.5), None)
        if url is not None:
            flags.append(Flag(EXFILTRATION, f"a URL carries data or credentials ({_quote(url)})"))
        elif blob is not None:
            flags.append(Flag(EXFILTRATION, f"holds a {len(blob)}-character encoded blob"))
    return flags


@functools.cache
def _screens() -> tuple[linear_re.Screen, linear_re.Screen]:
    """Ordinary advice matches none of the patterns: one linear-time search over the flattened
    text, one over the text, say so for an ASCII lesson (a tenth of running them all), and the
    patterns run only where one of them can match. Every pattern that can flag the text is in a
    screen: a line's download piped to a shell or upload of secrets is found by _PIPE_SOURCE or
    _UPLOAD on the text as well."""
    return (
        linear_re.Screen(_OVERRIDE),
        linear_re.Screen([*_SPOOF, *_EXFIL, _PIPE_SOURCE, _UPLOAD, _URL, _BLOB]),
    )


def _exfiltration(text: str) -> str | None:
    for pattern in _EXFIL:
        if match := pattern.search(text):
            return match[0]
    for line in text.split("\n"):
        source = _PIPE_SOURCE.search(line)
        if source is not None and (pipe := _PIPE_TO_SHELL.search(line, source.end())):
            return line[source.start() : pipe.end()]
        if _UPLOAD.search(line) and _UPLOAD_TOOL.search(line) and _LOCAL_SECRET.search(line):
            return line
    return None


def _carries_data(url: str) -> bool:
    creds = _URL_CREDENTIALS.search(url)
    if creds and not creds[1].startswith("[REDACTED"):
        return True
    if _URL_SUBST.search(url):
        return True
    return any(_entropy(_PERCENT.sub("", value)) >= 4.2 for value in _URL_VALUE.findall(url))


def _entropy(value: str) -> float:
    """Bits per character: random base64 scores about 5, English and hex digests under 4.2."""
    import math

    if len(value) < 32:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _format_chars(text: str) -> set[str]:
    """Other invisible format characters (Unicode category Cf) not listed explicitly."""
    if text.isascii():
        return set()
    return {f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cf" and c != "\u00ad"}


def _caps(description: str, body: str) -> list[Flag]:
    over = []
    if len(description) > MAX_DESCRIPTION_CHARS:
        over.append(f"description of {len(description)} characters (cap {MAX_DESCRIPTION_CHARS})")
    if len(body) > MAX_BODY_CHARS:
        over.append(f"body of {len(body)} characters (cap {MAX_BODY_CHARS})")
    lines = body.count("\n") + 1 if body else 0
    if lines > MAX_BODY_LINES:
        over.append(f"body of {lines} lines (cap {MAX_BODY_LINES})")
    return [Flag(CAPS, "; ".join(over))] if over else []


def _quote(text: str) -> str:
    shown = _HIDDEN.sub("?", " ".join(text.split()))
    return repr(shown if len(shown) <= 60 else shown[:57] + "...")


def content_hash(description: str, body: str, triggers: object = None) -> str:
    """SHA-256 of what a lesson says and when it is recalled: trust covers exactly this."""
    doc = json.dumps([description, body, triggers or {}], sort_keys=True, ensure_ascii=True, default=str)
    return "sha256:" + hashlib.sha256(doc.encode("ascii")).hexdigest()


def lesson_hash(lesson: Lesson) -> str:
    return content_hash(lesson.description, lesson.body, lesson.meta.get("triggers"))


def trust_path(loc: Locations, scope: str) -> Path:
    """Global lessons are trusted once per user; project and candidate lessons per checkout. Both
    live under `$REASONIX_HOME`, never in the repository: a trust decision is a person's, on one
    machine, and whatever a clone carries in `.reasonix/state/` is someone else's."""
    return loc.home / STATE_DIR / TRUST_FILE if scope == SCOPE_GLOBAL else loc.machine_dir / TRUST_FILE


MIGRATED_SUFFIX = ".migrated"


def migrate_local_trust(loc: Locations) -> bool:
    """Move trust decisions kept in `.reasonix/state/trust.json` (before they lived under
    `$REASONIX_HOME`) to this machine's file, once; True when something was moved.

    Only from a state folder that is this checkout's own (not tracked by git, not a symlink out of
    the repository, see lessons/statedir.py), from a regular file this user owns, and never over
    decisions already kept per machine. The old file is renamed, so it is never read again."""
    legacy = loc.repo_state_dir / TRUST_FILE
    target = trust_path(loc, SCOPE_PROJECT)
    try:
        info = legacy.lstat()
    except OSError:
        return False
    if target.exists() or not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        return False
    if loc.state_dir != loc.repo_state_dir:
        return False  # arrived by git or leaves the repository: not this user's decisions
    data = load_state(legacy, kind=_KIND)
    kept = {k: v for k, v in data.items() if k.startswith((f"{SCOPE_PROJECT}:", f"{SCOPE_CANDIDATE}:"))}
    with locked(target.with_name("trust.lock")):
        if target.exists():
            return False
        save_state(target, kept, kind=_KIND)
    with contextlib.suppress(OSError):
        legacy.rename(legacy.with_name(TRUST_FILE + MIGRATED_SUFFIX))
    return bool(kept)


def key(scope: str, name: str) -> str:
    return f"{scope}:{name}"


def trusted_hashes(loc: Locations, scope: str) -> dict[str, str]:
    """`scope:name` -> content hash the user trusted, for one scope's trust file."""
    if scope != SCOPE_GLOBAL:
        migrate_local_trust(loc)
    data = load_state(trust_path(loc, scope), kind=_KIND)
    return {
        name: entry["hash"]
        for name, entry in data.items()
        if isinstance(entry, Mapping) and isinstance(entry.get("hash"), str)
    }


def is_trusted(loc: Locations, lesson: Lesson, *, trusted: Mapping[str, str] | None = None) -> bool:
    scope = lesson.scope or ""
    table = trusted_hashes(loc, scope) if trusted is None else trusted
    return table.get(key(scope, lesson.name)) == lesson_hash(lesson)


def record_trust(loc: Locations, lesson: Lesson, *, now: dt.datetime, flags: list[Flag]) -> Path:
    """Remember that a human accepted this lesson's current content (flags noted for the record)."""
    scope = lesson.scope or ""
    path = trust_path(loc, scope)
    if scope != SCOPE_GLOBAL:
        migrate_local_trust(loc)
    with locked(path.with_name("trust.lock")):
        data = load_state(path, kind=_KIND)
        data[key(scope, lesson.name)] = {
            "hash": lesson_hash(lesson),
            "at": now.isoformat(),
            "flags": [flag.code for flag in flags],
        }
        save_state(path, data, kind=_KIND)
    return path


def revoke_trust(loc: Locations, lesson: Lesson) -> bool:
    """Forget a lesson's trust; False when it was not trusted."""
    scope = lesson.scope or ""
    path = trust_path(loc, scope)
    if scope != SCOPE_GLOBAL:
        migrate_local_trust(loc)
    with locked(path.with_name("trust.lock")):
        data = load_state(path, kind=_KIND)
        if data.pop(key(scope, lesson.name), None) is None:
            return False
        save_state(path, data, kind=_KIND)
    return True


def trust_lesson(
    project: Project, name: str, *, scopes: tuple[str, ...], revoke: bool = False
) -> TrustOutcome:
    """`reasonlessons trust NAME`: accept (or with `revoke`, stop accepting) a lesson's current content."""
    lesson = project.store.find(name, scopes)
    flags = scan(lesson)
    if revoke:
        return TrustOutcome(lesson, flags, revoke_trust(project.loc, lesson))
    record_trust(project.loc, lesson, now=project.now(), flags=flags)
    return TrustOutcome(lesson, flags, True)


def accept_own(project: Project, lesson: Lesson) -> list[Flag]:
    """Trust a lesson the local user just wrote with `add` (their own words, no third party)."""
    if lesson.path is not None:
        lesson = read_lesson(lesson.path, scope=lesson.scope)  # as written: normalized and redacted
    flags = scan(lesson)
    if flags:
        record_trust(project.loc, lesson, now=project.now(), flags=flags)
    return flags


@dataclass(frozen=True)
class TrustOutcome:
    """What `trust` did: the lesson, its flags, and whether trust changed."""

    lesson: Lesson
    flags: list[Flag]
    changed: bool


def withheld(loc: Locations, lesson: Lesson) -> str | None:
    """What an agent-facing tool shows instead of a flagged, untrusted lesson's text; None if it may
    see the text (integrations/mcp_server.py)."""
    flags = scan(lesson)
    if not flags or is_trusted(loc, lesson):
        return None
    reasons = "; ".join(flag.code for flag in flags)
    fix = f"a human must review it and run `reasonlessons trust {lesson.name}`"
    return f"[withheld: flagged ({reasons}); {fix}]"
