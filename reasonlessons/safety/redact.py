"""Redaction of secrets from everything reasonlessons writes: the one place they are looked for.

`redact` replaces each secret with `[REDACTED:<kind>]` and says which kinds it found; `assert_clean`
is the fail-closed check a writer runs on its final bytes; `scrub` renders a lesson or a state
document with every string (and every mapping key) redacted. Four finders feed it, run on the text
as written and again as read with escapes decoded and invisible characters removed
(reasonlessons.safety.textview): token formats (reasonlessons.safety.formats), secret-bearing
positions whatever the value (reasonlessons.safety.positions), the detect-secrets detectors
(reasonlessons.safety.secretscan), and base64 that decodes to a credential. docs/security.md tables
which finder covers what. `anonymize_paths` is not about secrets: it turns other people's home
directories (`/home/ana/…`, `C:\\Users\\ana\\…`) into `~`.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from reasonlessons.errors import ReasonLessonsError
from reasonlessons.safety import formats, positions, secretscan, textview
from reasonlessons.safety.formats import Rule
from reasonlessons.safety.linear_re import WordSet

T = TypeVar("T")
PLACEHOLDER = "[REDACTED:{kind}]"
_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
Span = tuple[int, int, str]
RULES = formats.RULES


class SecretFoundError(ReasonLessonsError):
    """Text about to be written still contains something that looks like a secret."""


@dataclass(frozen=True)
class RedactResult:
    """The redacted text and the kinds of secret that were replaced (in order found)."""

    text: str
    found: list[str]


@lru_cache(maxsize=1)
def _plan() -> tuple[list[tuple[Rule, tuple[tuple[str, str], ...], bool]], WordSet]:
    """Each format with its hints (as written, lower-cased) and whether it ignores case; and the set
    of all hints (formats' and positions'), found in one pass over a text."""
    plan = [
        (rule, tuple((h, h.lower()) for h in rule.hints), bool(rule.pattern.flags & re.I)) for rule in RULES
    ]
    words = {low for _, hints, _ in plan for _, low in hints} | set(positions.HINT_WORDS)
    return plan, WordSet(words)


@lru_cache(maxsize=1)
def _rules_by_hint() -> tuple[dict[str, tuple[int, ...]], tuple[int, ...]]:
    """The plan's rules (by position) under each lower-cased hint, and those with no hint: a text
    holding few hints looks at few rules instead of testing every rule's hints."""
    plan, _ = _plan()
    by_hint: dict[str, list[int]] = {}
    for i, (_, hints, _) in enumerate(plan):
        for _, low in hints:
            by_hint.setdefault(low, []).append(i)
    unhinted = tuple(i for i, (_, hints, _) in enumerate(plan) if not hints)
    return {low: tuple(rules) for low, rules in by_hint.items()}, unhinted


def _longest_word(text: str) -> int:
    """The length of the longest run of non-whitespace characters (formats.Rule.run)."""
    return max(map(len, text.split()), default=0)


def _format_spans(text: str, folded: str, present: set[str], longest: int | None = None) -> Iterator[Span]:
    plan, _ = _plan()
    by_hint, unhinted = _rules_by_hint()
    longest = _longest_word(text) if longest is None else longest
    # Only rules with a hint in `present` can pass the test below; kept in the plan's order.
    chosen = {*unhinted, *(i for low in present for i in by_hint.get(low, ()))}
    for i in sorted(chosen):
        rule, hints, ignore_case = plan[i]
        if hints and not any(low in present and h in (folded if ignore_case else text) for h, low in hints):
            continue
        if rule.run > longest:
            continue
        for start, end in rule.spans(text):
            yield start, end, rule.kind
    for rule in formats.GENERIC:
        if rule.run > longest:
            continue
        for start, end in rule.spans(text):
            if formats.BENIGN_BEFORE.search(text, max(0, start - 24), start):
                continue
            if formats.in_blob(text, start, end):
                continue
            yield start, end, rule.kind


_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{12,1024}={0,2}(?![A-Za-z0-9+/=_-])")
_USER_PASS = re.compile(r"[^:\s]{1,128}:\S{1,256}")


_B64_MIN = 12  # the shortest run _B64_RUN takes (none of its characters is whitespace)


def _encoded_spans(text: str, depth: int, longest: int | None = None) -> Iterator[Span]:
    """Base64 that decodes to `user:password` (a Basic credential) or to text holding a secret."""
    if (_longest_word(text) if longest is None else longest) < _B64_MIN:
        return
    for match in _B64_RUN.finditer(text):
        run = match.group(0)
        if run.isalpha() or run.isdigit() or run.islower() or run.isupper():
            continue
        if formats.BENIGN_BEFORE.search(text, max(0, match.start() - 24), match.start()):
            continue
        body = run.rstrip("=")
        if len(body) % 4 == 1:
            continue
        try:
            decoded = base64.b64decode(body + "=" * (-len(body) % 4), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if len(decoded) < 6 or not all(c.isprintable() or c in "\n\t" for c in decoded):
            continue
        if _USER_PASS.fullmatch(decoded) or (depth == 0 and _find(decoded, depth + 1)):
            yield match.start(), match.end(), "encoded-secret"


def _find(text: str, depth: int = 0) -> list[Span]:
    """Every secret span in `text`: formats, positions, the library's detectors, encodings, and
    the same in the text as read with escapes decoded and invisible characters removed."""
    found = _plain(text, depth)
    seen = textview.view(text)
    if seen is not None:
        for start, end, kind in _plain(seen.text, depth):
            o_start, o_end = seen.origin(start, end)
            found.append((o_start, o_end, kind))
    return found


def _plain(text: str, depth: int) -> list[Span]:
    folded = text.lower()
    _, words = _plan()
    present = words.present(folded)  # one pass instead of a substring search per hint
    longest = _longest_word(text)
    found = list(_format_spans(text, folded, present, longest))
    found.extend(positions.spans(text, present))
    found.extend(secretscan.spans(text))
    found.extend(_encoded_spans(text, depth, longest))
    return found


def own_spans(text: str) -> list[Span]:
    """What the own formats and positions find, without detect-secrets (for the coverage table)."""
    folded = text.lower()
    _, words = _plan()
    present = words.present(folded)
    return [*_format_spans(text, folded, present), *positions.spans(text, present)]


def _spans(text: str, derived: bool = False) -> list[Span]:
    """Non-overlapping (start, end, kind) spans of secrets, earliest and longest first.

    `derived` adds the shapes a secret keeps once lower-cased or cut into words (a lesson name, a
    keyword, a summary's terms): see formats.DERIVED. Fails closed: when scanning raises, each line
    is scanned alone and a line that still cannot be scanned is itself the span (it is replaced,
    never written)."""
    try:
        found = _find(text)
        if derived:
            found.extend(_derived_spans(text))
    except secretscan.ScannerUnavailableError:
        raise
    except Exception:  # noqa: BLE001 (fail closed whatever went wrong: the line is not written)
        found = _line_by_line(text)
    # Text already redacted is never a secret again (`https://[REDACTED:x]@host` has no password).
    placeholders = [m.span() for m in _PLACEHOLDER_RE.finditer(text)] if "[REDACTED:" in text else []
    if placeholders:
        found = [
            s for s in found if not any(s[0] < p_end and p_start < s[1] for p_start, p_end in placeholders)
        ]
    found.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    merged: list[Span] = []
    for span in found:
        if merged and span[0] < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], span[1]), last[2])
        else:
            merged.append(span)
    return merged


def _derived_spans(text: str) -> Iterator[Span]:
    for start, end in formats.DERIVED.spans(text):
        yield start, end, formats.DERIVED.kind


def _line_by_line(text: str) -> list[Span]:
    found: list[Span] = []
    at = 0
    for line in text.split("\n"):
        try:
            found.extend((at + s, at + e, k) for s, e, k in _find(line))
        except secretscan.ScannerUnavailableError:
            raise
        except Exception:  # noqa: BLE001 (see _spans)
            if line:
                found.append((at, at + len(line), "unscannable"))
        at += len(line) + 1
    return found


def redact(text: str, *, derived: bool = False) -> RedactResult:
    """Replace every secret in `text` with a `[REDACTED:<kind>]` placeholder (`derived`: see _spans)."""
    redacted, found = _redact(text, derived)
    return RedactResult(redacted, list(found))


_MAX_ROUNDS = 8
_JOIN = "\n\x00\n"  # between strings scanned as one text: no secret pattern matches across it


@lru_cache(maxsize=4096)
def _redact(text: str, derived: bool = False) -> tuple[str, tuple[str, ...]]:
    # Captured lessons repeat the same sentences session after session: remember the answers.
    kinds: list[str] = []
    # A placeholder can give the text after it a word boundary it did not have (`SG.…xpasswd=…`
    # becomes `[REDACTED:…]passwd=…`): redact again until nothing is found; each round only
    # replaces text that is not a placeholder yet, so this ends.
    for _ in range(_MAX_ROUNDS):
        spans = _spans(text, derived)
        if not spans:
            break
        parts: list[str] = []
        position = 0
        for start, end, kind in spans:
            parts.append(text[position:start])
            parts.append(PLACEHOLDER.format(kind=kind))
            position = end
        parts.append(text[position:])
        text = "".join(parts)
        kinds.extend(kind for _, _, kind in spans)
    return text, tuple(kinds)


def secret_values(texts: list[str], *, min_len: int = 4) -> list[str]:
    """The secrets themselves (lower-cased, longest first) found in `texts`: so that a field made
    of pieces of those texts can be cleaned of them wherever they show."""
    found: set[str] = set()
    for text in dict.fromkeys(texts):
        for start, end, _ in _spans(text):
            value = text[start:end].strip().lower()
            if len(value) >= min_len:
                found.add(value)
    return sorted(found, key=lambda v: (-len(v), v))


def find_secrets(text: str, *, derived: bool = False) -> list[str]:
    """Kinds of secret present in `text` (empty when clean)."""
    return list(_redact(text, derived)[1])


def assert_clean(text: str, *, derived: bool = False) -> None:
    """Raise SecretFoundError when `text` still holds something secret-looking (fail closed)."""
    kinds = find_secrets(text, derived=derived)
    if kinds:
        raise SecretFoundError(
            f"refusing to write text that looks like it holds a secret ({', '.join(sorted(set(kinds)))})"
        )


_KNOWN_CLEAN: dict[str, None] = {}  # strings a scan found clean, oldest first
_KNOWN_CLEAN_DERIVED: dict[str, None] = {}  # the same for scans with `derived`
_KNOWN_CLEAN_MAX = 8192
_KNOWN_CLEAN_LEN = 4096  # longer strings are rarely seen twice: not worth holding


def holds_secret(value: object, *, derived: bool = False) -> bool:
    """Whether any string inside `value` (a string, or lists and dicts of them, keys included)
    looks secret.

    One scan of the distinct strings joined by _JOIN finds whatever scanning them one by one would
    (no rule anchors at a string's start or end, none matches across _JOIN), so a clean value,
    the common case, costs one pass however many strings it holds. Strings found clean before are
    left out of it: captured lessons repeat the same sentences session after session, and only
    their evidence is new."""
    known = _KNOWN_CLEAN_DERIVED if derived else _KNOWN_CLEAN
    strings = [s for s in dict.fromkeys(_leaves(value)) if s not in known]
    if not strings:
        return False
    joined = _JOIN.join(strings)
    if _spans(joined, True) if derived else _spans(joined):
        return True
    for string in strings:
        if len(string) <= _KNOWN_CLEAN_LEN:
            if len(known) >= _KNOWN_CLEAN_MAX:
                del known[next(iter(known))]
            known[string] = None
    return False


def redact_value(value: T, *, derived: bool = False) -> tuple[T, list[str]]:
    """Redact every string inside a JSON/YAML-like value, mapping keys too; (new value, kinds)."""
    if not isinstance(value, str) and not holds_secret(value, derived=derived):
        return value, []
    return _redact_value(value, derived)


def _redact_value(value: object, derived: bool = False) -> tuple[Any, list[str]]:
    """(`value` rebuilt with every string redacted, kinds found): Any, as a copy of any shape."""
    if isinstance(value, str):
        result = redact(value, derived=derived)
        return result.text, result.found
    if isinstance(value, list):
        found: list[str] = []
        items = []
        for item in value:
            new, kinds = _redact_value(item, derived)
            items.append(new)
            found.extend(kinds)
        return items, found
    if isinstance(value, dict):
        found = []
        out = {}
        for key, item in value.items():
            new, kinds = _redact_value(item, derived)
            if isinstance(key, str):
                key_result = redact(key, derived=derived)
                key = key_result.text
                found.extend(key_result.found)
            out[key] = new
            found.extend(kinds)
        return out, found
    return value, []


def scrub(
    value: T, render: Callable[[T], str], *, line_bound: bool = False, derived: bool = False
) -> tuple[T, str]:
    """Render `value` (a lesson, a state document) with no secret left in the result; fail closed.

    Each string, and each mapping key, is redacted first; a secret that only shows in the rendering
    (a YAML or JSON key next to its value, pieces joined) is then replaced inside the strings that
    hold it and the value rendered again. SecretFoundError when the rendering still holds one.

    `line_bound` says the rendering never breaks a line inside a string or between a key and its
    value (JSON with one item per line): nothing secret can then span two lines, so the check of
    the rendering scans each distinct line once (a state document repeats most of its lines).
    `derived` also catches secrets lower-cased or cut into words (see _spans)."""
    if holds_secret(value, derived=derived):  # a checkpoint document holds thousands of strings: one scan
        value = _redact_value(value, derived)[0]
    text = render(value)
    lines = "\n".join(dict.fromkeys(line.strip() for line in text.splitlines()))
    if line_bound and not _spans(lines, derived):
        return value, text
    spans = _spans(text, derived)
    if not spans:
        return value, text
    secrets = {text[start:end]: kind for start, end, kind in spans}
    value = _replace(value, sorted(secrets.items(), key=lambda item: -len(item[0])))
    text = render(value)
    assert_clean(text, derived=derived)
    return value, text


def _leaves(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from _leaves(item)


def _replace(value: object, secrets: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for secret, kind in secrets:
            value = value.replace(secret, PLACEHOLDER.format(kind=kind))
        return value
    if isinstance(value, list):
        return [_replace(item, secrets) for item in value]
    if isinstance(value, dict):
        return {_replace(key, secrets): _replace(item, secrets) for key, item in value.items()}
    return value


_HOME = re.compile(
    r"(?:(?<![\w/])/(?:home|Users)/[^/\s\"'`:]+"
    r"|(?<![\w\\])[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s\"'`:]+)"
)


def anonymize_paths(text: str) -> str:
    """Replace home directories of any user (POSIX, macOS, Windows) with `~`."""
    return _HOME.sub("~", text)
