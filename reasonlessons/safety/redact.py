"""Redaction of secrets from everything reasonlessons writes: the single place the patterns live.

`redact` replaces each secret with `[REDACTED:<kind>]` and says which kinds it found; `assert_clean`
is the fail-closed check a writer runs on its final bytes. Two finders feed it: the detect-secrets
detectors (reasonlessons.safety.secretscan; cloud, SaaS and keyword-assignment secrets) and the table of
precise patterns below, kept for what the library misses or only half-matches (private-key blocks,
whole JWTs, URL passwords, OpenAI project, Anthropic, DeepSeek and other LLM keys, `.env` lines).
docs/security.md tables which finder covers which format. `anonymize_paths` is not about secrets:
it turns other people's home directories (`/home/ana/…`, `C:\\Users\\ana\\…`) into `~`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from reasonlessons.errors import ReasonLessonsError
from reasonlessons.safety import secretscan
from reasonlessons.safety.linear_re import WordSet

T = TypeVar("T")
PLACEHOLDER = "[REDACTED:{kind}]"
_PLACEHOLDER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
# Key-ish words: a value next to one of these is a secret when it looks random enough.
_KEYISH = (
    r"(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|credentials?|auth[_-]?key"
    r"|private[_-]?key|access[_-]?key|client[_-]?secret)"
)


class SecretFoundError(ReasonLessonsError):
    """Text about to be written still contains something that looks like a secret."""


@dataclass(frozen=True)
class RedactResult:
    """The redacted text and the kinds of secret that were replaced (in order found)."""

    text: str
    found: list[str]


@dataclass(frozen=True)
class Rule:
    """One secret shape: `group` is the part replaced (0 = the whole match)."""

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _random_looking(value: str) -> bool:
    """A value that is not a word, a variable reference or a placeholder: mixed and high-entropy."""
    if value.startswith(("$", "<", "%", "{", "[REDACTED")) or value.lower() in {
        "null",
        "none",
        "true",
        "false",
    }:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and len(value) >= 12 and _entropy(value) >= 3.0


# The name of an environment variable or constant, which code assigns to secret-sounding names.
CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_NUMBER = re.compile(r"[\d.,:+-]+$")  # 12, 10.0, 1.2.3, 8080: a number or version, not a secret
_CALL = re.compile(r"[A-Za-z_][\w.]*\(\w{0,2}$")


def _not_reference(value: str) -> bool:
    """`.env`-style values: anything but a variable reference, a placeholder or an obvious dummy."""
    if _NUMBER.match(value) or value.startswith(("$", "<", "%", "{", "[REDACTED", "*", "/", "./", "~")):
        return False
    if _CALL.match(value) or CONSTANT_NAME.match(value):
        return False  # `TOKEN = re.compile(...)`, `API_KEY = "OPENAI_API_KEY"`: code, not a value
    return value.lower() not in {
        "null",
        "none",
        "true",
        "false",
        "changeme",
        "xxx",
        "example",
    }


RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
    Rule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    Rule(
        "aws-secret-key",
        re.compile(
            r"(?i)aws.{0,20}?(?:secret|key).{0,20}?[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        group=1,
    ),
    Rule("github-token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}\b")),
    Rule("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    Rule("gitlab-token", re.compile(r"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}")),
    Rule("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")),
    Rule("slack-webhook", re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]+")),
    # OpenAI (`sk-`, `sk-proj-`), Anthropic (`sk-ant-api03-`), DeepSeek (`sk-` + hex), OpenRouter.
    Rule("api-key", re.compile(r"\bsk-(?:proj-|ant-(?:[a-z]+\d*-)?|or-v1-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    Rule("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b")),
    Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    Rule("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    # Formats detect-secrets has no detector for (prefix-typed tokens of common services).
    Rule("vault-token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}")),
    Rule("digitalocean-token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b")),
    Rule("groq-key", re.compile(r"\bgsk_[A-Za-z0-9]{40,}\b")),
    Rule("xai-key", re.compile(r"\bxai-[A-Za-z0-9]{40,}\b")),
    Rule("replicate-token", re.compile(r"\br8_[A-Za-z0-9]{30,}\b")),
    Rule("shopify-token", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),
    Rule("databricks-token", re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b")),
    Rule("linear-key", re.compile(r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}\b")),
    Rule("age-secret-key", re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}\b")),
    Rule("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{40,}")),
    Rule(
        "connection-string-key",
        re.compile(r"(?i)\b(?:AccountKey|SharedAccessKey|SharedSecret)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})"),
        group=1,
    ),
    Rule("netrc-password", re.compile(r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)"), group=1),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    Rule(
        "url-password", re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'`]{1,100}:([^\s@/\"'`]{1,200})@"), 1
    ),
    Rule(
        "bearer-token",
        re.compile(r"(?i)\b(?:authorization\s*[:=]\s*)?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{16,})"),
        group=1,
        check=_random_looking,
    ),
    # `.env` style: SECRET=..., GITHUB_TOKEN: ..., DB_PASSWORD="..."
    Rule(
        "env-secret",
        re.compile(
            r"\b[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
            r"[A-Z0-9_]*\s*[:=]\s*[\"']?([^\s\"'`,;]{4,})"
        ),
        group=1,
        check=_not_reference,
    ),
    Rule(
        "password",
        re.compile(r"(?i)\b(?:passw(?:or)?d|passwd)[\w.-]{0,20}[\"']?\s*[:=]\s*[\"']?([^\s\"'`,;]{4,})"),
        group=1,
        check=_not_reference,
    ),
    Rule(
        "keyed-secret",
        re.compile(rf"(?i){_KEYISH}[\w.-]{{0,20}}[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9+/_.=~-]{{12,}})"),
        group=1,
        check=_random_looking,
    ),
)


# Substrings one of which every match of a rule's pattern contains (lowercase for patterns that
# ignore case): a rule whose hints are all absent is skipped, which makes scanning a large state
# document cheap. A rule without hints always runs.
HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("-----BEGIN",),
    "aws-access-key": ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA"),
    "aws-secret-key": ("aws",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": ("glpat-", "gldt-", "glrt-", "glptt-"),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "api-key": ("sk-",),
    "stripe-key": ("_live_", "_test_"),
    "google-api-key": ("AIza",),
    "npm-token": ("npm_",),
    "huggingface-token": ("hf_",),
    "vault-token": ("hvs.", "hvb.", "hvr."),
    "digitalocean-token": ("dop_v1_", "doo_v1_", "dor_v1_"),
    "groq-key": ("gsk_",),
    "xai-key": ("xai-",),
    "replicate-token": ("r8_",),
    "shopify-token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "databricks-token": ("dapi",),
    "linear-key": ("lin_api_", "lin_oauth_"),
    "age-secret-key": ("AGE-SECRET-KEY-1",),
    "pypi-token": ("pypi-AgE",),
    "connection-string-key": ("accountkey", "sharedaccesskey", "sharedsecret"),
    "netrc-password": ("machine",),
    "jwt": ("eyJ",),
    "url-password": ("://",),
    "bearer-token": ("bearer", "basic", "token"),
    "env-secret": ("SECRET", "TOKEN", "PASSW", "PWD", "KEY", "CREDENTIAL"),
    "password": ("passw",),
    "keyed-secret": ("key", "secret", "token", "passw", "pwd", "credential"),
}


@lru_cache(maxsize=2)
def _plan(rules: tuple[Rule, ...]) -> tuple[list[tuple[Rule, tuple[tuple[str, str], ...], bool]], WordSet]:
    """Each rule with its hints (as written, lower-cased) and whether it ignores case; and the
    set of all hints, found in one pass over a text."""
    plan = [
        (rule, tuple((h, h.lower()) for h in HINTS.get(rule.kind, ())), bool(rule.pattern.flags & re.I))
        for rule in rules
    ]
    return plan, WordSet(low for _, hints, _ in plan for _, low in hints)


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) spans of secrets, earliest and longest first."""
    found: list[tuple[int, int, str]] = []
    # Text already redacted is never a secret again (`https://[REDACTED:x]@host` has no password).
    placeholders = [m.span() for m in _PLACEHOLDER_RE.finditer(text)] if "[REDACTED:" in text else []
    folded = text.lower()
    plan, words = _plan(RULES)
    present = words.present(folded)  # one pass instead of a substring search per hint
    for rule, hints, ignore_case in plan:
        if hints and not any(low in present and h in (folded if ignore_case else text) for h, low in hints):
            continue
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if start < 0 or end <= start:
                continue
            if any(start < p_end and p_start < end for p_start, p_end in placeholders):
                continue
            value = text[start:end]
            if rule.check is not None and not rule.check(value):
                continue
            found.append((start, end, rule.kind))
    for start, end, kind in secretscan.spans(text):
        if not any(start < p_end and p_start < end for p_start, p_end in placeholders):
            found.append((start, end, kind))
    found.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    merged: list[tuple[int, int, str]] = []
    for span in found:
        if merged and span[0] < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], span[1]), last[2])
        else:
            merged.append(span)
    return merged


def redact(text: str) -> RedactResult:
    """Replace every secret in `text` with a `[REDACTED:<kind>]` placeholder."""
    redacted, found = _redact(text)
    return RedactResult(redacted, list(found))


_MAX_ROUNDS = 8
_JOIN = "\n\x00\n"  # between strings scanned as one text: no secret pattern matches across it


@lru_cache(maxsize=4096)
def _redact(text: str) -> tuple[str, tuple[str, ...]]:
    # Captured lessons repeat the same sentences session after session: remember the answers.
    kinds: list[str] = []
    # A placeholder can give the text after it a word boundary it did not have (`SG.…xpasswd=…`
    # becomes `[REDACTED:…]passwd=…`): redact again until nothing is found; each round only
    # replaces text that is not a placeholder yet, so this ends.
    for _ in range(_MAX_ROUNDS):
        spans = _spans(text)
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


def find_secrets(text: str) -> list[str]:
    """Kinds of secret present in `text` (empty when clean)."""
    return list(_redact(text)[1])


def assert_clean(text: str) -> None:
    """Raise SecretFoundError when `text` still holds something secret-looking (fail closed)."""
    kinds = find_secrets(text)
    if kinds:
        raise SecretFoundError(
            f"refusing to write text that looks like it holds a secret ({', '.join(sorted(set(kinds)))})"
        )


_KNOWN_CLEAN: dict[str, None] = {}  # strings a scan found clean, oldest first
_KNOWN_CLEAN_MAX = 8192
_KNOWN_CLEAN_LEN = 4096  # longer strings are rarely seen twice: not worth holding


def holds_secret(value: object) -> bool:
    """Whether any string inside `value` (a string, or lists and dicts of them) looks secret.

    One scan of the distinct strings joined by _JOIN finds whatever scanning them one by one would
    (no rule anchors at a string's start or end, none matches across _JOIN), so a clean value,
    the common case, costs one pass however many strings it holds. Strings found clean before are
    left out of it: captured lessons repeat the same sentences session after session, and only
    their evidence is new."""
    known = _KNOWN_CLEAN
    strings = [s for s in dict.fromkeys(_leaves(value)) if s not in known]
    if not strings:
        return False
    if _spans(_JOIN.join(strings)):
        return True
    for string in strings:
        if len(string) <= _KNOWN_CLEAN_LEN:
            if len(known) >= _KNOWN_CLEAN_MAX:
                del known[next(iter(known))]
            known[string] = None
    return False


def redact_value(value: T) -> tuple[T, list[str]]:
    """Redact every string inside a JSON/YAML-like value; returns (new value, kinds found)."""
    if not isinstance(value, str) and not holds_secret(value):
        return value, []
    return _redact_value(value)


def _redact_value(value: object) -> tuple[Any, list[str]]:
    """(`value` rebuilt with every string redacted, kinds found): Any, as a copy of any shape."""
    if isinstance(value, str):
        result = redact(value)
        return result.text, result.found
    if isinstance(value, list):
        found: list[str] = []
        items = []
        for item in value:
            new, kinds = _redact_value(item)
            items.append(new)
            found.extend(kinds)
        return items, found
    if isinstance(value, dict):
        found = []
        out = {}
        for key, item in value.items():
            new, kinds = _redact_value(item)
            out[key] = new
            found.extend(kinds)
        return out, found
    return value, []


def scrub(value: T, render: Callable[[T], str], *, line_bound: bool = False) -> tuple[T, str]:
    """Render `value` (a lesson, a state document) with no secret left in the result; fail closed.

    Each string is redacted first; a secret that only shows in the rendering (a YAML or JSON key
    next to its value, pieces joined) is then replaced inside the strings that hold it and the value
    rendered again. SecretFoundError when the rendering still holds one.

    `line_bound` says the rendering never breaks a line inside a string or between a key and its
    value (JSON with one item per line): nothing secret can then span two lines, so the check of
    the rendering scans each distinct line once (a state document repeats most of its lines)."""
    if holds_secret(value):  # a checkpoint document holds thousands of strings: one scan
        value = _redact_value(value)[0]
    text = render(value)
    if line_bound and not _spans("\n".join(dict.fromkeys(line.strip() for line in text.splitlines()))):
        return value, text
    spans = _spans(text)
    if not spans:
        return value, text
    secrets = {text[start:end]: kind for start, end, kind in spans}
    value = _replace(value, sorted(secrets.items(), key=lambda item: -len(item[0])))
    text = render(value)
    assert_clean(text)
    return value, text


def _leaves(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)


def _replace(value: object, secrets: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for secret, kind in secrets:
            value = value.replace(secret, PLACEHOLDER.format(kind=kind))
        return value
    if isinstance(value, list):
        return [_replace(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _replace(item, secrets) for key, item in value.items()}
    return value


_HOME = re.compile(
    r"(?:(?<![\w/])/(?:home|Users)/[^/\s\"'`:]+"
    r"|(?<![\w\\])[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s\"'`:]+)"
)


def anonymize_paths(text: str) -> str:
    """Replace home directories of any user (POSIX, macOS, Windows) with `~`."""
    return _HOME.sub("~", text)
