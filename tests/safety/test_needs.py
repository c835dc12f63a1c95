"""The regex prefilter (reasonlessons/safety/needs.py): what every match must contain, never more."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonlessons.safety.needs import may_match, needs


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # Python's parser factors common prefixes out (`ba` of bar|baz): still necessary.
        (r"foo(?:bar|baz)qux", (frozenset({"fooba"}), frozenset({"qux"}))),
        (r"x(?:alpha|beta)y", (frozenset({"alpha", "beta"}),)),
        # `pwd` contains `pw`: finding `pw` is enough; one-character literals filter nothing.
        (r"(?:key|pwd|pw|password)=\w+", (frozenset({"key", "pw", "password"}),)),
        (r"x{0,3}abc", (frozenset({"abc"}),)),
        (r"(?:ab){2}", (frozenset({"ab"}),)),
        (r"(?:ab)?cd|ef", (frozenset({"cd", "ef"}),)),
        (r"[a-z]+\d", ()),
        (r"(?:token|)=(\w{8})", ()),  # an empty branch needs nothing
    ],
)
def test_needed_literals(pattern: str, expected: tuple[frozenset[str], ...]) -> None:
    assert needs(re.compile(pattern)) == expected


def test_case_insensitive_patterns_need_lower_case_text() -> None:
    needed = needs(re.compile(r"Secret[-_]?Key", re.IGNORECASE))
    assert needed == (frozenset({"secret"}), frozenset({"key"}))
    assert may_match(needed, "my secret_key = 1".lower())
    assert not may_match(needed, "no such words here")


def test_no_needs_never_filters() -> None:
    assert may_match((), "")


def _detector_patterns() -> list[re.Pattern[str]]:
    from reasonlessons.safety import secretscan

    regex, _, _, _ = secretscan._detectors()
    return [pattern for detector in regex for pattern, _, _ in detector.patterns]


@pytest.mark.parametrize("pattern", _detector_patterns(), ids=lambda p: p.pattern[:40])
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_match_of_a_detector_passes_its_prefilter(
    pattern: re.Pattern[str], data: st.DataObject
) -> None:
    """Soundness against the real detect-secrets patterns: a string the pattern matches is never
    filtered out (else a secret would be written unredacted)."""
    try:
        text = data.draw(st.from_regex(pattern, fullmatch=False))
    except Exception:  # a construct hypothesis cannot generate from: nothing to check
        return
    if pattern.search(text) is None:
        return
    folded = bool(pattern.flags & re.IGNORECASE)
    assert may_match(needs(pattern), text.lower() if folded else text), text
