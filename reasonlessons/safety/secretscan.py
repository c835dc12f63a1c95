"""detect-secrets as a span finder for reasonlessons.safety.redact (the one detect-secrets user).

The library's detectors are run as plain string scanners (`analyze_string`), line by line: no
baseline, no settings, no network verification. Its high-entropy plugins are left out on purpose:
they flag git shas, xxhash digests, UUIDs and base64 images, which fill ordinary lessons and logs.
The public-IP plugin is left out too: an address is not a secret. Coverage, and what privacy.py's
own patterns add where these detectors are weak, is tabled in docs/security.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

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
    # The regex detectors never match across a line break, so they run over the whole text at
    # once (a state document has thousands of short lines); the keyword detector needs its line.
    folded = text.lower()
    present = words.present(folded)
    for detector in regex:
        found.extend((a, b, detector.kind) for a, b in _matches(detector, text, folded, present))
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


def _matches(detector: _Detector, text: str, folded: str, present: set[str]) -> Iterator[tuple[int, int]]:
    # `analyze_string` yields findall() results, which for a pattern with a group is the group
    # alone: `(ghp|gho)_...` would yield "ghp". Spans come from the match instead.
    for pattern, needed, ignore_case in detector.patterns:
        if not may_match(needed, folded if ignore_case else text, present):
            continue
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
