"""The glob syntax the three front ends share: one segment's `*`, `?`, `[...]` and literals."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonlessons.safety import linear_re
from reasonlessons.support.globs import class_regex, segment_regex

SEGMENT_CHARS = "ab-!^[]*?.z\\{}()|+$"
NAME_CHARS = "ab-!^[]z.\\{}()|+$0"


@pytest.mark.parametrize(
    ("segment", "name", "matches"),
    [
        ("*.ts", ".hidden.ts", True),
        ("a**b", "axxb", True),  # '**' inside a segment is '*'
        ("?.py", "ab.py", False),
        ("[ab]c", "bc", True),
        ("[!ab]c", "ac", False),
        ("[^ab]c", "xc", True),
        ("[]]", "]", True),  # a ']' first is literal
        ("[!]]", "x", True),
        ("[-a]", "-", True),  # so is a '-' first...
        ("[!-a]", "-", False),
        ("[!-a]", "0", True),
        ("[a-]", "-", True),  # ...or last
        ("[a-c]", "b", True),
        ("[a", "[a", True),  # an unclosed '[' is itself
        ("a.b", "axb", False),
        ("f+n$().txt", "f+n$().txt", True),
        ("a\\b", "a\\b", True),
    ],
)
def test_segment_semantics(segment: str, name: str, matches: bool) -> None:
    assert (re.fullmatch(segment_regex(segment), name, re.DOTALL) is not None) is matches


def test_class_regex_returns_the_index_after_the_class() -> None:
    assert class_regex("x[ab]y", 1) == ("[ab]", 5)
    assert class_regex("x[!]a]y", 1) == ("[^/\\]a]", 6)
    assert class_regex("x[ab", 1) == ("\\[", 2)


@settings(max_examples=300, deadline=None)
@given(st.text(SEGMENT_CHARS, min_size=1, max_size=8), st.lists(st.text(NAME_CHARS, max_size=5), max_size=20))
def test_python_re_and_re2_agree(segment: str, names: list[str]) -> None:
    """The fingerprint front end runs on `re`, recall's on RE2: one translation must mean the same."""
    regex = segment_regex(segment)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # '--' in a class: fine in both engines
            python = re.compile(regex, re.DOTALL)
    except re.error:  # e.g. a reversed range: RE2 refuses it too
        with pytest.raises(linear_re.PatternError):
            linear_re.compile_pattern(regex)
        return
    re2 = linear_re.compile_pattern(regex)
    for name in names:
        assert (python.fullmatch(name) is not None) == re2.fullmatch(name.encode()), (segment, name)
