"""The fingerprint entry grammar: kinds, normalization, field paths, and what is rejected."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint import entry as entry_module
from reasonlessons.fingerprint.entry import DIR, FIELD, FILE, GLOB, check_entry, parse_entry, parse_field
from tests.fuzzing import fuzz_settings


@pytest.mark.parametrize(
    ("text", "kind", "path"),
    [
        ("package.json", FILE, "package.json"),
        ("./src/main.ts", FILE, "src/main.ts"),
        ("a//b/./c.txt", FILE, "a/b/c.txt"),
        ("a/../b.txt", FILE, "b.txt"),
        ("tests/", DIR, "tests"),
        ("./", DIR, ""),
        (".", DIR, ""),
        ("src/**/*.test.ts", GLOB, "src/**/*.test.ts"),
        ("docs/?.md", GLOB, "docs/?.md"),
        ("lib/[ab].py", GLOB, "lib/[ab].py"),
        ("package.json#scripts.test", FIELD, "package.json"),
        ("conf/app.YAML#a", FIELD, "conf/app.YAML"),
    ],
)
def test_kinds_and_normalized_paths(text: str, kind: str, path: str) -> None:
    entry = parse_entry(text)
    assert (entry.kind, entry.path, entry.text) == (kind, path, text)


def test_field_paths_with_indexes_and_quoted_keys() -> None:
    assert parse_entry('package.json#scripts."test:unit"').field == (("scripts", False), ("test:unit", True))
    assert parse_entry("ci.yml#jobs.0.name").field == (("jobs", False), ("0", False), ("name", False))
    assert parse_field(r'a."x.y\"z".b') == (("a", False), ('x.y"z', True), ("b", False))
    assert parse_entry('p.json#a."b.c"').field_text == 'a."b.c"'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("../x", "escapes the repository"),
        ("a/../../x", "escapes the repository"),
        ("/etc/passwd", "absolute path"),
        ("~/secrets.json", "absolute path"),
        ("C:/x.txt", "absolute path"),
        ("src\\main.ts", "separate directories with '/'"),
        (".git/config", "points into .git"),
        ("", "is empty"),
        (" tests/", "spaces"),
        ("a\x00b", "control characters"),
        ("src/*/", "a glob matches files"),
        ("notes.txt#a", "fields can be read from"),
        ("src/#a", "needs one file"),
        ("package.json#", "empty field"),
        ("package.json#a..b", "empty segment"),
        ("package.json#a.", "ends with '.'"),
        ('package.json#a."b', "unterminated quote"),
        ('package.json#a."b"c', "needs '.' after a quoted segment"),
        ('package.json#a"b', "stray"),
    ],
)
def test_rejected_entries_say_why(text: str, problem: str) -> None:
    with pytest.raises(InvalidFingerprintError) as caught:
        parse_entry(text)
    assert problem in str(caught.value)
    message = check_entry(text)
    assert message is not None
    assert problem in message


def test_check_entry_accepts_good_entries() -> None:
    assert check_entry("tests/") is None
    assert check_entry('package.json#scripts."test:unit"') is None


@given(st.text(max_size=40))
def test_any_text_either_parses_inside_the_repo_or_is_rejected(text: str) -> None:
    try:
        entry = parse_entry(text)
    except InvalidFingerprintError:
        return
    parts = entry.path.split("/") if entry.path else []
    assert not entry.path.startswith("/")
    assert ".." not in parts
    assert ".git" not in parts
    assert "" not in parts


def _outcome(normalize: Callable[[str], str], raw: str) -> tuple[str, str]:
    try:
        return "path", normalize(raw)
    except InvalidFingerprintError as exc:
        return "error", str(exc)


@fuzz_settings(ci=300)
@given(
    segments=st.lists(st.sampled_from(["a", "b.c", ".", "..", ".git", ".x", "", "x..", "..."]), max_size=6),
    trailing=st.booleans(),
)
def test_the_quick_normalization_is_the_segment_by_segment_one(segments: list[str], trailing: bool) -> None:
    raw = "/".join(segments) + ("/" if trailing else "")
    assert _outcome(entry_module._normalize, raw) == _outcome(entry_module._segments, raw)
