"""Tokenizers shared by keyword triggers, BM25 and the classifier (agentsmesh's rules).

The rules as recall applies them: docs/recall.md#2-candidates.
"""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    """A set of words written as one whitespace-separated string (easier to read and extend)."""
    return frozenset(text.split())


# The agentsmesh stopword list: a keyword that contains one of these can never match, on purpose.
STOPWORDS = word_set(
    """
    the a an to of in and or for is on at with be as it that this its must
    """
)
# Words too common in prompts to count as evidence that an untriggered lesson is relevant.
GENERIC = word_set(
    """
    add added adding all also any are can could did do does done fix fixed fixing from get got has
    have how if into just let like make me more my need new not now our out please run see so some
    should than then there these they those use used using want was we what when where which who
    why will would you your code file files change changes update work thing things
    """
)

_LOWER_SPLIT = re.compile(r"[^a-z0-9]+")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")
# lower/digit -> Upper, and ACRONYM -> Word ("HTTPServer" -> HTTP, Server).
_CAMEL_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def tokenize(text: str) -> list[str]:
    """Needle and BM25 terms: lowercase alphanumeric runs of 2+ characters, stopwords dropped."""
    return [t for t in _LOWER_SPLIT.split(text.lower()) if len(t) >= 2 and t not in STOPWORDS]


def words(text: str) -> list[str]:
    """The prompt haystack for keywords: every alphanumeric run, lowercased, nothing dropped."""
    return [t.lower() for t in _WORD_SPLIT.split(text) if t]


def words_with_parts(text: str) -> list[str]:
    """The path/command haystack: each run, then its camelCase and acronym parts, lowercased."""
    out: list[str] = []
    for token in _WORD_SPLIT.split(text):
        if not token:
            continue
        out.append(token.lower())
        parts = _CAMEL_SPLIT.split(token)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts if p)
    return out


def contains_run(haystack: list[str], positions: dict[str, list[int]], needle: list[str]) -> bool:
    """True when `needle` occurs as a contiguous run of whole tokens in `haystack`."""
    if not needle:
        return False
    k = len(needle)
    return any(haystack[start : start + k] == needle for start in positions.get(needle[0], ()))


def positions_of(haystack: list[str]) -> dict[str, list[int]]:
    """Where each token occurs, for `contains_run`."""
    out: dict[str, list[int]] = {}
    for i, token in enumerate(haystack):
        out.setdefault(token, []).append(i)
    return out
