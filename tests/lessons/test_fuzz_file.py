"""Fuzzing the lesson loader: any bytes give a Lesson or a LessonFileError, quickly and in bounded memory.

A lesson file comes from whoever committed it. Besides random and mutated files this covers YAML
bombs (billion laughs through aliases, recursive aliases, deep nesting): they must be refused, and
whatever loads must survive what every command then does with it (render, index, redact).
"""

from __future__ import annotations

import contextlib
import json
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.errors import LessonFileError, UnsafeTextError
from reasonlessons.lessons.file import parse_lesson, render_lesson
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import SecretFoundError
from reasonlessons.store.trust import scan
from tests.fuzzing import bounded, fuzz_settings, json_values
from tests.lessons.fuzzcases import BOMBS, HEADER, SEEDS, mutated_seed


def load(data: bytes) -> Lesson | None:
    """parse_lesson, then what commands do with a loaded lesson; only LessonFileError may escape."""
    with bounded(seconds=5, megabytes=64):
        try:
            lesson = parse_lesson(data, path=Path("fuzz.md"))
        except LessonFileError:
            return None
        json.dumps(lesson.meta, default=str)  # the recall index stores it as JSON
        # Fail closed: a secret-looking value, or a bidirectional control, is not written.
        with contextlib.suppress(SecretFoundError, UnsafeTextError):
            render_lesson(lesson)
        scan(lesson)
    return lesson


@fuzz_settings(ci=150)
@given(st.binary(max_size=2048))
def test_random_bytes(data: bytes) -> None:
    load(data)
    load(b"---\n" + data)


yaml_text = st.text(alphabet=string.printable + "\u00e9\u202e\u200b", max_size=400)


@fuzz_settings(ci=150)
@given(frontmatter=yaml_text, body=yaml_text)
def test_random_frontmatter_text(frontmatter: str, body: str) -> None:
    load(f"---\n{frontmatter}\n---\n{body}".encode())
    load(f"{HEADER}{frontmatter}\n---\n{body}".encode())


@fuzz_settings(ci=150)
@given(meta=st.dictionaries(st.text(max_size=20), json_values, max_size=8), body=st.text(max_size=300))
def test_random_mappings_with_and_without_the_required_keys(meta: dict[str, object], body: str) -> None:
    for extra in ({}, {"name": "fuzz", "description": "d", "fingerprint": [], "captured-at": "2026-05-05"}):
        text = yaml.safe_dump({**meta, **extra}, allow_unicode=True)
        lesson = load(f"---\n{text}---\n{body}".encode())
        if lesson is not None:
            assert lesson.name == "fuzz"


@pytest.mark.skipif(not SEEDS, reason="no seed lessons")
@fuzz_settings(ci=150)
@given(data=st.data())
def test_mutated_real_lessons(data: st.DataObject) -> None:
    load(mutated_seed(data, flips=b"-:#&*!|>[]{}\"'\n\t \x00\xff"))


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_yaml_bombs_are_refused_or_bounded(name: str) -> None:
    lesson = load(BOMBS[name].encode())
    if name in ("billion laughs", "laughs in a known key", "laughs in a mapping", "recursive list",
                "recursive mapping"):  # fmt: skip
        assert lesson is None


def test_a_few_shared_aliases_still_load() -> None:
    text = HEADER + 'tags: &t ["a", "b"]\nalso: *t\n---\n- body\n'
    lesson = load(text.encode())
    assert lesson is not None
    assert lesson.meta["also"] == ["a", "b"]


def test_aliases_cannot_stack_depth_past_the_limit() -> None:
    lines = ["d0: &d0 " + "[" * 40 + "]" * 40]
    lines += [f"d{i}: &d{i} " + "[" * 40 + f"*d{i - 1}" + "]" * 40 for i in range(1, 40)]
    assert load((HEADER + "\n".join(lines) + "\n---\n").encode()) is None


def test_numbers_next_to_secret_sounding_keys_are_not_secrets() -> None:
    """Found by the long run: `PRIVATEKEY: 10.0` made the lesson unwritable (a float cannot be redacted)."""
    lesson = load((HEADER + "limits:\n  PRIVATEKEY: 10.0\n  API_KEY_VERSION: 1.2.3\n---\n- body\n").encode())
    assert lesson is not None
    assert b"10.0" in render_lesson(lesson)
