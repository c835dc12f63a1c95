"""detect-secrets as a span finder for reasonlessons.safety.redact (the one detect-secrets user).

The library's detectors are run as plain string scanners, line by line: no baseline, no settings,
no network verification. Every secret detector of the library is used. Its two high-entropy
plugins (quoted base64 and hex strings above its entropy limits) go through the library's own
false-positive filters (UUIDs, sequences, ids, templates, `$` references) and two more: a hex string
counts only on a line that names a secret (git shas, digests and ETags are hex), and a base64
string not when it is a content digest (`sha512-…` integrity). The public-IP plugin is the one left
out: an address is not a secret. Coverage, and what the own formats and positions add, is tabled in
docs/security.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from reasonlessons.errors import ReasonLessonsError
from reasonlessons.safety.linear_re import WordSet
from reasonlessons.safety.needs import Needs, may_match, needs

if TYPE_CHECKING:
    from detect_secrets.plugins.base import BasePlugin

# (module, class) under detect_secrets.plugins.
PLUGINS = (
    ("artifactory", "ArtifactoryDetector"),
    ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"),
    ("keyword", "KeywordDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("npm", "NpmDetector"),
    ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)
ENTROPY_PLUGINS = (
    ("high_entropy_strings", "Base64HighEntropyString"),
    ("high_entropy_strings", "HexHighEntropyString"),
)
# The keyword detector is written for source lines and backtracks; longer lines are scanned in
# overlapping windows so that a pasted minified blob costs linear time, and a secret on a window
# edge is still whole in the next window.
WINDOW = 4096
OVERLAP = 1024
_SLUG = re.compile(r"[^a-z0-9]+")
_CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


class ScannerUnavailableError(ReasonLessonsError):
    """detect-secrets cannot be imported: nothing is written rather than written unscanned."""


class _Detector:
    """One library detector, with the literals that must appear in a line for it to match."""

    def __init__(self, plugin: BasePlugin) -> None:
        self.plugin = plugin
        self.kind = _SLUG.sub("-", plugin.secret_type.lower()).strip("-")
        self.valid = getattr(plugin, "is_formally_valid", None)
        self.patterns: list[tuple[re.Pattern[str], Needs, bool]] = []
        for pattern in getattr(plugin, "denylist", None) or ():
            # A prefilter from the pattern's own literals: most texts skip most detectors.
            self.patterns.append((pattern, needs(pattern), bool(pattern.flags & re.IGNORECASE)))


@lru_cache(maxsize=1)
def _detectors() -> tuple[tuple[_Detector, ...], _Detector, re.Pattern[str], WordSet]:
    """(regex detectors, the keyword detector, the keywords it needs in a line, the words the
    regex detectors' prefilters look for)."""
    import importlib

    try:
        from detect_secrets.filters import heuristic  # noqa: F401  (import errors surface here)
        from detect_secrets.plugins.keyword import DENYLIST_REGEX

        plugins = [getattr(importlib.import_module(f"detect_secrets.plugins.{m}"), c)() for m, c in PLUGINS]
    except ImportError as exc:  # pragma: no cover (a broken install)
        raise ScannerUnavailableError(
            f"the secret scanner is unavailable ({exc}); reinstall reasonlessons "
            "(`pip install detect-secrets`) — nothing is written until it can scan"
        ) from exc
    detectors = [_Detector(plugin) for plugin in plugins]
    keyword = next(d for d in detectors if not d.patterns)
    regex = tuple(d for d in detectors if d.patterns)
    return regex, keyword, re.compile(DENYLIST_REGEX, re.IGNORECASE), _words(regex)


@lru_cache(maxsize=1)
def _entropy_plugins() -> tuple[Any, ...]:
    """The library's high-entropy string plugins (base64, hex), with its default limits."""
    import importlib

    return tuple(
        getattr(importlib.import_module(f"detect_secrets.plugins.{m}"), c)() for m, c in ENTROPY_PLUGINS
    )


def _words(detectors: tuple[_Detector, ...]) -> WordSet:
    """Every string the detectors' prefilters ask about, lower-cased, to find in one pass."""
    return WordSet(w.lower() for d in detectors for _, needed, _ in d.patterns for s in needed for w in s)


def _windows(line: str) -> Iterator[tuple[int, str]]:
    if len(line) <= WINDOW:
        yield 0, line
        return
    start = 0
    while start < len(line):
        yield start, line[start : start + WINDOW]
        if start + WINDOW >= len(line):
            return
        start += WINDOW - OVERLAP


def _keyword_value_ok(value: str, line: str) -> bool:
    """detect-secrets' own false-positive filters for the keyword detector."""
    from detect_secrets.filters import heuristic

    return not (
        heuristic.is_templated_secret(value)
        or heuristic.is_prefixed_with_dollar_sign(value)
        or heuristic.is_sequential_string(value)
        or heuristic.is_indirect_reference(line)
        or value.startswith("[REDACTED")
        or _CONSTANT_NAME.match(value) is not None  # `API_KEY = "OPENAI_API_KEY"` names a variable
    )


def spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret the library's detectors find in `text`."""
    regex, keyword, keywords, words = _detectors()
    found: list[tuple[int, int, str]] = []
    if "'" in text or '"' in text:
        found.extend(_entropy_spans(text, _entropy_plugins(), keywords))
    # The regex detectors never match across a line break, so they run over the whole text at
    # once (a state document has thousands of short lines); the keyword detector needs its line.
    folded = text.lower()
    present = words.present(folded)
    for d, p in _candidates(regex, present):
        found.extend((a, b, regex[d].kind) for a, b in _matches(regex[d], p, text, folded, present))
    # Every secret-sounding name the keyword detector knows contains one of these.
    if not any(word in folded for word in ("key", "pass", "pwd", "secret", "contrase")):
        return found
    for start, end in _keyword_lines(text, keywords):
        line = text[start:end]
        for base, chunk in _windows(line):
            for value in keyword.plugin.analyze_string(chunk):
                if isinstance(value, str) and len(value) >= 4 and _keyword_value_ok(value, chunk):
                    at = start + base
                    found.extend((at + a, at + b, keyword.kind) for a, b in _occurrences(chunk, value))
    return found


_DIGEST = re.compile(r"(?i)^(?:sha\d+|md5|h1|sha\d+-|blake\w*)[-:=]")


def _entropy_spans(
    text: str, plugins: tuple[Any, ...], keywords: re.Pattern[str]
) -> Iterator[tuple[int, int, str]]:
    """Quoted strings the high-entropy plugins flag, after the library's filters and ours."""
    from detect_secrets.filters import heuristic

    for plugin in plugins:
        hex_only = plugin.secret_type.startswith("Hex")
        for match in plugin.regex.finditer(text):
            value = match.group(2)
            if len(value) < 16 or plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit:
                continue
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.end())
            line = text[start : len(text) if end < 0 else end]
            if (
                heuristic.is_sequential_string(value)
                or heuristic.is_potential_uuid(value)
                or heuristic.is_likely_id_string(value, line, plugin)
                or heuristic.is_templated_secret(value)
                or heuristic.is_prefixed_with_dollar_sign(value)
                or _DIGEST.match(value)
                or "/" in value.strip("/")
                and value.count("/") >= 2  # a path
                or (hex_only and not keywords.search(line))
                or (not hex_only and re.fullmatch(r"[0-9a-fA-F]+", value) is not None)
            ):
                continue
            yield match.start(2), match.end(2), _SLUG.sub("-", plugin.secret_type.lower()).strip("-")


def _keyword_lines(text: str, keywords: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each line holding a secret-sounding name, once."""
    end = -1
    for match in keywords.finditer(text):
        if match.start() < end:
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        yield start, end


@lru_cache(maxsize=1)
def _by_word(
    regex: tuple[_Detector, ...],
) -> tuple[dict[str, tuple[tuple[int, int], ...]], tuple[tuple[int, int], ...]]:
    """(detector, pattern) positions under each lower-cased string of the pattern's first needed
    set, and the patterns that need nothing: `may_match` fails for a pattern none of whose first
    set's strings is in `present`, so only these are worth testing."""
    by_word: dict[str, list[tuple[int, int]]] = {}
    always = []
    for d, detector in enumerate(regex):
        for p, (_, needed, _) in enumerate(detector.patterns):
            if not needed:
                always.append((d, p))
            for word in {s.lower() for s in needed[0]} if needed else ():
                by_word.setdefault(word, []).append((d, p))
    return {w: tuple(at) for w, at in by_word.items()}, tuple(always)


def _candidates(regex: tuple[_Detector, ...], present: set[str]) -> list[tuple[int, int]]:
    """The (detector, pattern) positions that may match a text holding `present`, in order."""
    by_word, always = _by_word(regex)
    return sorted({*always, *(at for word in present for at in by_word.get(word, ()))})


def _matches(
    detector: _Detector, p: int, text: str, folded: str, present: set[str]
) -> Iterator[tuple[int, int]]:
    # `analyze_string` yields findall() results, which for a pattern with a group is the group
    # alone: `(ghp|gho)_...` would yield "ghp". Spans come from the match instead.
    pattern, needed, ignore_case = detector.patterns[p]
    if not may_match(needed, folded if ignore_case else text, present):
        return
    for match in pattern.finditer(text):
        if detector.valid is None or detector.valid(match.group(0)):
            yield _secret_span(match)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The value a detector captured after a keyword (`aws_secret = "(...)"`), else the whole match;
    a group at the start of the match is a prefix alternation (`(ghp|gho)_`), not the value."""
    groups = [
        match.span(i)
        for i in range(1, (match.re.groups or 0) + 1)
        if match.span(i)[0] > match.start() and match.span(i)[1] - match.span(i)[0] >= 8
    ]
    if not groups:
        return match.span()
    return min(start for start, _ in groups), max(end for _, end in groups)


def _occurrences(chunk: str, value: str) -> Iterator[tuple[int, int]]:
    start = chunk.find(value)
    while start >= 0:
        yield start, start + len(value)
        start = chunk.find(value, start + len(value))
