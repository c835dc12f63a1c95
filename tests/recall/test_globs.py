"""File-glob triggers: picomatch-like semantics on RE2, narrowness, and sound index buckets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasonlessons.recall import globs
from reasonlessons.recall.match import glob_matches


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("tests/**/*.test.ts", "tests/foo.test.ts", True),
        ("tests/**/*.test.ts", "tests/a/b/foo.test.ts", True),
        ("tests/**/*.test.ts", "tests/foo.spec.ts", False),
        ("tests/**/*.test.ts", "src/tests/foo.test.ts", False),
        ("**/*.ts", "x.ts", True),
        ("**/*.ts", ".hidden/deep/x.ts", True),  # dot directories match
        ("*", ".env", True),  # dot files match
        ("*.ts", "src/x.ts", False),  # `*` stays within a segment
        ("src/**", "src/a/b.py", True),
        ("src/**", "srcx/a.py", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("*.{ts,tsx}", "a.tsx", True),
        ("*.{ts,tsx}", "a.js", False),
        ("{src,lib}/**/*.py", "lib/x/y.py", True),
        ("[!a]bc", "xbc", True),
        ("[!a]bc", "abc", False),
        ("[a-c]?.py", "b1.py", True),
        ("?.py", "ab.py", False),
        ("!*.md", "a.ts", True),
        ("!*.md", "a.md", False),
        ("./package.json", "package.json", True),
        ("package.json", "sub/package.json", False),
        ("a.b", "axb", False),  # dots are literal
        ("file+name$.txt", "file+name$.txt", True),  # regex metacharacters are literal
        ("café/*.md", "café/notes.md", True),
    ],
)
def test_glob_semantics(glob: str, path: str, expected: bool) -> None:
    assert glob_matches(glob, path) is expected


@pytest.mark.parametrize(
    "glob",
    ["(a|b)/*.ts", "@(x).ts", "+(a).ts", "a\\b", "'quoted'", "a\x01b", "{a", "a}", "{a}", "x" * 257, ""],
)
def test_unsafe_globs_never_match_and_say_why(glob: str) -> None:
    assert globs.check(glob) is not None
    assert glob_matches(glob, "a.ts") is False


def test_brace_expansion_is_bounded() -> None:
    glob = "{a,b}" * 7  # 128 alternatives
    assert globs.check(glob) is not None
    assert "alternatives" in str(globs.check(glob))


@pytest.mark.parametrize(
    ("glob", "value"),
    [
        ("src/lessons/store.ts", 1.0),
        ("src/lessons/*.ts", 2 / 3),
        ("src/**", 1 / 3),
        ("**/*.ts", 0.0),
        ("./tests//x.ts", 1.0),
        ("!src/x.ts", 0.0),
    ],
)
def test_narrowness_follows_the_agentsmesh_formula(glob: str, value: float) -> None:
    assert globs.narrowness(glob) == pytest.approx(value)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/foo.test.ts", "tests/foo.test.ts"),
        ("./tests//foo.ts", "tests/foo.ts"),
        ("tests\\foo.ts", "tests/foo.ts"),
        ("/repo/src/x.ts", "src/x.ts"),
        ("/elsewhere/x.ts", None),
        ("../x.ts", None),
        ("a/../../x.ts", None),
        ("", None),
        ("a" * 5000, None),
    ],
)
def test_normalize_path(path: str, expected: str | None) -> None:
    assert globs.normalize_path(path, "/repo") == expected


_SEGMENT = st.sampled_from(["src", "tests", "a", ".hidden", "*", "**", "*.ts", "x.test.ts", "?.py", "[ab]c"])
_PATH_SEGMENT = st.sampled_from(["src", "tests", "a", ".hidden", "x.ts", "x.test.ts", "b.py", "ac", "bc"])


@settings(max_examples=400, deadline=None)
@given(
    glob_parts=st.lists(_SEGMENT, min_size=1, max_size=4),
    path_parts=st.lists(_PATH_SEGMENT, min_size=1, max_size=4),
)
def test_buckets_never_hide_a_matching_glob(glob_parts: list[str], path_parts: list[str]) -> None:
    """If a glob matches a path, the index files it under a key the path looks up."""
    glob, path = "/".join(glob_parts), "/".join(path_parts)
    if glob_matches(glob, path):
        assert set(globs.bucket_keys(glob)) & set(globs.query_keys(path))


def test_buckets_keep_unrelated_globs_apart() -> None:
    keys = set(globs.query_keys("tests/foo.test.ts"))
    assert set(globs.bucket_keys("tests/**/*.test.ts")) & keys
    assert not set(globs.bucket_keys("src/api/*.ts")) & keys
    assert not set(globs.bucket_keys("**/*.py")) & keys


def test_the_keys_of_a_deep_path_are_few_and_quick() -> None:
    """A path thousands of segments deep (or with a name thousands of characters long) was quadratic:
    every ancestor times every suffix, each a long string (31 s for one recall)."""
    import time

    for path in ["a/" * 2000 + "b.ts", "a/" * 100 + "x" * 3800, "ab/" * 1300 + "c" * 100]:
        started = time.perf_counter()
        keys = globs.query_keys(path)
        assert time.perf_counter() - started < 0.5
        assert sum(map(len, keys)) < 4_000_000  # the old keys of these paths: 28 MB to 790 MB
    deep = "a/" * 2000 + "b.ts"
    assert set(globs.bucket_keys("a/a/**/*.ts")) & set(globs.query_keys(deep))
    assert set(globs.bucket_keys("**/b.ts")) & set(globs.query_keys(deep))


@settings(max_examples=300, deadline=None)
@given(
    glob_parts=st.lists(_SEGMENT, min_size=1, max_size=4),
    path_parts=st.lists(_PATH_SEGMENT, min_size=60, max_size=140),
)
def test_buckets_never_hide_a_matching_glob_of_a_deep_path(
    glob_parts: list[str], path_parts: list[str]
) -> None:
    glob, path = "/".join(glob_parts), "/".join(path_parts)
    if glob_matches(glob, path):
        assert set(globs.bucket_keys(glob)) & set(globs.query_keys(path))
