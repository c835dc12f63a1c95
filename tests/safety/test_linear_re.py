"""The linear-time pattern engine: what it refuses, that nothing hangs, and the literal prefilter."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonlessons.safety import linear_re
from reasonlessons.safety.linear_re import PatternError, compile_pattern, problem, required_literal
from tests.fuzzing import fuzz_settings


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"\bvitest\b", "npx vitest run", True),
        (r"\bvitest\b", "npx vitestx run", False),
        (r"npm (run )?test", "npm run test", True),
        (r"npm (run )?test", "npm test", True),
        (r"^git push", "sudo git push", False),
        (r"pytest\Z", "python -m pytest", True),  # Python's end-of-text spelling is accepted
        (r"pytest\Z", "pytest -x", False),
        (r"Vitest", "vitest", False),  # case-sensitive
        (r"(?i)Vitest", "vitest", True),
    ],
)
def test_search_semantics(pattern: str, text: str, found: bool) -> None:
    assert compile_pattern(pattern).search(text.encode()) is found


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(\w+) \1", "backreference"),
        (r"foo(?=bar)", "lookaround"),
        (r"(?<!x)foo", "lookaround"),
        (r"(unclosed", "invalid"),
        ("a" * 1001, "longer than 1000"),
        (r"\w{1000}\w{1000}", "too"),
        ("", "empty"),
        ("a\x00b", "NUL"),
    ],
)
def test_unsupported_patterns_are_refused_with_a_reason(pattern: str, reason: str) -> None:
    message = problem(pattern)
    assert message is not None
    assert reason in message
    with pytest.raises(PatternError):
        compile_pattern(pattern)


def test_refusal_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    # RE2 logs compile errors to stderr unless told not to; a hook's stderr reaches the user.
    assert problem(r"(\w)\1") is not None
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_catastrophic_backtracking_pattern_returns_quickly() -> None:
    regex = compile_pattern(r"(a+)+$")
    text = ("a" * 100_000 + "!").encode()
    started = time.process_time()
    assert not regex.search(text)
    assert time.process_time() - started < 0.5


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"\bvitest\b", "vitest"),
        (r"npm (run )?test", "npm "),
        (r"git\s+push --force", "push --force"),
        (r"x{0,3}yz", "yz"),
        (r"abc?d", "ab"),
        (r"\x41BC", "BC"),
        (r"\p{Greek}abc", "abc"),
        (r"\.venv/bin", ".venv/bin"),
        (r"a|bc", None),  # top-level alternation: no single required literal
        (r"(?i)npm test", None),  # case-insensitive
        (r"\d+\.\d+", None),
        (r"\Qa.b\E", None),
    ],
)
def test_required_literal(pattern: str, literal: str | None) -> None:
    assert required_literal(pattern) == literal


_PIECES = st.sampled_from(
    ["a", "b", "ab", "x", "-", " ", ".", r"\.", r"\b", r"\d", "*", "+", "?", "{0,2}", "{2}", "|", "(", ")",
     "(?:", "[ab]", "[^a]", "^", "$", r"\s", "c"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=8), text=st.text(alphabet="abx-. 12c", max_size=12))
def test_required_literal_is_sound(pieces: list[str], text: str) -> None:
    """Whenever RE2 finds a match, the prefilter's literal is in the text (no false negatives)."""
    pattern = "".join(pieces)
    if linear_re.problem(pattern) is not None:
        return
    literal = required_literal(pattern)
    if literal is not None and compile_pattern(pattern).search(text.encode()):
        assert literal in text


def test_a_word_set_finds_every_word_present_overlapping_ones_too() -> None:
    from reasonlessons.safety.linear_re import WordSet

    words = WordSet(["pass", "passw", "sw", "token", "ken", "a.b", "absent"])
    assert words.present("my passwd token; a.b") == {"pass", "passw", "sw", "token", "ken", "a.b"}
    assert words.present("axb") == set()  # literal, not a pattern
    assert WordSet([]).present("anything") == set()


def test_a_match_that_reaches_the_end_of_a_cut_input_does_not_count() -> None:
    from reasonlessons.safety.linear_re import compile_pattern

    regex = compile_pattern("(a+)+$")
    window = b"a" * 8192  # the first 8192 bytes of "a" * 20000 + "!"
    assert regex.search(window)
    assert not regex.search(window, complete=False)
    assert compile_pattern("^a{3}").search(window, complete=False)
    assert not compile_pattern(r"a\b").search(window, complete=False)


# -- Screen: whether any of several `re` patterns can match, in one RE2 search ------------------

SCREENED = [
    re.compile(r"\bignore\s+(?:\w+\s+){0,3}?previous\b", re.IGNORECASE),
    re.compile(r"^[\s#>*-]*system\s*:", re.MULTILINE | re.IGNORECASE),
    re.compile(r"^#{1,6}\s*rules?\s*$", re.MULTILINE),
    re.compile(r"\|\s*(?:sudo\s+)?(?:sh|bash)\b"),
    re.compile(r"[A-Za-z0-9+/]{12,}={0,2}"),
    re.compile(r"(?:\$\(|`)\s*curl\b", re.IGNORECASE),
    re.compile(r"a.b", re.DOTALL),
]


@pytest.mark.parametrize(
    "pattern",
    [r"a$", r"^a$", r"x(?=y)", r"(?<!x)y", r"(a)\1", r"(?P<q>')x(?P=q)", r"a{,3}", r"a\Z"],
)
def test_a_screen_refuses_patterns_re2_would_read_otherwise(pattern: str) -> None:
    with pytest.raises(PatternError):
        linear_re.Screen([re.compile(pattern)])


def test_a_screen_refuses_verbose_patterns() -> None:
    with pytest.raises(PatternError):
        linear_re.Screen([re.compile("a b", re.VERBOSE)])


def test_a_screen_cannot_tell_on_text_re_reads_differently() -> None:
    screen = linear_re.Screen(SCREENED)
    assert screen.can_match("- plain advice, nothing to see") is False
    assert screen.can_match("ignore the previous step") is True
    for text in ["ignore\u00a0previous", "caf\u00e9", "ignore\x0bprevious", "a\x1cb"]:
        assert screen.can_match(text) is None


ascii_text = st.lists(
    st.sampled_from(
        [*"aAbBsSxy|`$(){}#>*-=+/:_.", " ", "  ", "\t", "\n", "\r", "\x0c", "ignore", "IGNORE", "previous",
         "System", "system", "sh", "bash", "sudo", "curl", "rules", "rule", "ZWNobyBoaQ==", "\x00"]
    ),
    max_size=40,
).map("".join)  # fmt: skip


@fuzz_settings(ci=400)
@given(text=ascii_text)
def test_a_screen_that_says_no_match_is_right(text: str) -> None:
    """On the text it screens, `False` means no pattern matches and `True` that one does."""
    screen = linear_re.Screen(SCREENED)
    verdict = screen.can_match(text)
    assert verdict is not None
    assert verdict == any(p.search(text) for p in SCREENED)
