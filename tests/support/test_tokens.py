"""Tokenizers: the keyword rules of docs/recall.md#2-candidates, example by example."""

from __future__ import annotations

import pytest

from reasonlessons.support.tokens import contains_run, positions_of, tokenize, words, words_with_parts


def test_tokenize_lowercases_splits_and_drops_short_words_and_stopwords() -> None:
    assert tokenize("Run the Vitest suite, a 2nd time: x y") == ["run", "vitest", "suite", "2nd", "time"]


def test_words_keep_everything_but_do_not_split_camel_case() -> None:
    assert words("Use the useLeaveGuard hook") == ["use", "the", "useleaveguard", "hook"]


def test_words_with_parts_add_camel_and_acronym_parts_after_each_word() -> None:
    assert words_with_parts("src/useLeaveGuard.ts HTTPServer v2Api") == [
        "src",
        "useleaveguard",
        "use",
        "leave",
        "guard",
        "ts",
        "httpserver",
        "http",
        "server",
        "v2api",
        "v2",
        "api",
    ]


def _prompt_match(keyword: str, text: str) -> bool:
    haystack = words(text)
    return contains_run(haystack, positions_of(haystack), tokenize(keyword))


def _path_match(keyword: str, text: str) -> bool:
    haystack = words_with_parts(text)
    return contains_run(haystack, positions_of(haystack), tokenize(keyword))


@pytest.mark.parametrize(
    ("keyword", "text", "expected"),
    [
        ("cat", "the category page", False),
        ("cat", "cat the file", True),
        ("read only", "make it read_only", True),
        ("read only", "make it read-only", True),
        ("read only", "make it readonly", False),
        ("only read", "read only", False),  # order matters: a contiguous run
        ("state of art", "the state of the art", False),  # "of" is dropped from the needle
        ("the", "the the the", False),  # an empty needle never matches
        ("Vitest", "run VITEST now", True),
    ],
)
def test_keyword_matches_whole_token_runs_in_the_prompt(keyword: str, text: str, expected: bool) -> None:
    assert _prompt_match(keyword, text) is expected


def test_keywords_reach_camel_case_parts_in_paths_but_not_in_the_prompt() -> None:
    assert _path_match("guard", "src/hooks/useLeaveGuard.ts")
    assert _path_match("leave guard", "src/hooks/useLeaveGuard.ts")
    assert not _prompt_match("guard", "fix useLeaveGuard")
