"""The offline task classifier: clear cases are labelled, unclear ones are left alone."""

from __future__ import annotations

import pytest

from reasonlessons.recall.classify import CODE_GEN, EXPLORATION, OTHER, QA, classify


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Add a unit test for the parser in tests/foo.test.ts", CODE_GEN),
        ("Fix the failing build", CODE_GEN),
        ("Can you fix the failing test in src/app.ts?", CODE_GEN),
        ("Could you add logging to the importer?", CODE_GEN),
        ("refactor the lesson store to use a lock", CODE_GEN),
        ("npm test fails with a TypeError", CODE_GEN),
        ("Where is the config loader defined and how does it work?", EXPLORATION),
        ("Explain the architecture of this repo", EXPLORATION),
        ("Show me all the places that call parse_date", EXPLORATION),
        ("Can you explain how recall ranks lessons?", EXPLORATION),
        ("What does src/store.py do?", EXPLORATION),
        ("What is the difference between TCP and UDP?", QA),
        ("Why is the sky blue?", QA),
        ("thanks!", OTHER),
        ("ok, continue", OTHER),
    ],
)
def test_clear_prompts(prompt: str, expected: str) -> None:
    assert classify(prompt) == expected


@pytest.mark.parametrize("prompt", ["", "   ", "hmm so", "the parser", "How do I add a test?"])
def test_unclear_prompts_are_unsure(prompt: str) -> None:
    assert classify(prompt) is None


def test_a_file_or_command_without_a_prompt_is_work_in_progress() -> None:
    assert classify("", files=1) == CODE_GEN
    assert classify("", has_cmd=True) == CODE_GEN
    assert classify("") is None


def test_a_huge_prompt_is_classified_quickly() -> None:
    import time

    started = time.process_time()
    classify("Add a retry to the HTTP client. " + "log line\n" * 100_000)
    assert time.process_time() - started < 2.0
