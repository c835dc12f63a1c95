"""detect-secrets as a span finder for reasonlessons.privacy (the one detect-secrets user).

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
from typing import Any

from reasonlessons.errors import ReasonLessonsError

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
# The detectors are written for source lines; longer lines are scanned in overlapping windows so
# that a pasted minified blob costs linear time, and a secret on a window edge is still whole in
# the next window.
WINDOW = 4096
OVERLAP = 1024
_SLUG = re.compile(r"[^a-z0-9]+")


class ScannerUnavailableError(ReasonLessonsError):
    """detect-secrets cannot be imported: nothing is written rather than written unscanned."""


class _Detector:
    """One library detector, with the literals that must appear in a line for it to match."""

    def __init__(self, plugin: Any) -> None:
        from reasonlessons.linear_re import required_literal

        self.plugin = plugin
        self.kind = _SLUG.sub("-", plugin.secret_type.lower()).strip("-")
        self.valid = getattr(plugin, "is_formally_valid", None)
        self.patterns: list[tuple[re.Pattern[str], str | None, bool]] = []
        for pattern in getattr(plugin, "denylist", None) or ():
            # A prefilter from the pattern's own literal: most lines skip most detectors.
            folded = bool(pattern.flags & re.IGNORECASE)
            literal = required_literal(pattern.pattern)
            self.patterns.append((pattern, literal.lower() if literal and folded else literal, folded))


@lru_cache(maxsize=1)
def _detectors() -> tuple[tuple[_Detector, ...], _Detector, re.Pattern[str]]:
    """(regex detectors, the keyword detector, the keywords it needs in a line)."""
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
    return regex, keyword, re.compile(DENYLIST_REGEX, re.IGNORECASE)


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
    )


def spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret the library's detectors find in `text`."""
    regex, keyword, keywords = _detectors()
    found: list[tuple[int, int, str]] = []
    offset = 0
    for line in text.split("\n"):
        if len(line) >= 8:
            for base, chunk in _windows(line):
                at = offset + base
                lower = chunk.lower()
                for detector in regex:
                    found.extend((at + a, at + b, detector.kind) for a, b in _matches(detector, chunk, lower))
                if keywords.search(chunk):
                    for value in keyword.plugin.analyze_string(chunk):
                        if isinstance(value, str) and len(value) >= 4 and _keyword_value_ok(value, chunk):
                            hits = _occurrences(chunk, value)
                            found.extend((at + a, at + b, keyword.kind) for a, b in hits)
        offset += len(line) + 1
    return found


def _matches(detector: _Detector, chunk: str, lower: str) -> Iterator[tuple[int, int]]:
    # `analyze_string` yields findall() results, which for a pattern with a group is the group
    # alone: `(ghp|gho)_...` would yield "ghp". Spans come from the match instead.
    for pattern, literal, folded in detector.patterns:
        if literal is not None and literal not in (lower if folded else chunk):
            continue
        for match in pattern.finditer(chunk):
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
