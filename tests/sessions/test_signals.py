from __future__ import annotations

import pytest

from reasonlessons.sessions import signals
from reasonlessons.sessions.edits import changed_region


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "error[E0425]: cannot find function `sleep` in this scope\n  |\nhelp: consider importing one of "
            "these functions\n  |\n1 + use std::thread::sleep;",
            "help: consider importing one of these functions",
        ),
        ("NameError: name 'lenght' is not defined. Did you mean: 'length'?", "Did you mean: 'length'?"),
        ("  = help: the trait `Send` is not implemented", "= help: the trait `Send` is not implemented"),
        ("AssertionError: assert 1 == 2", None),
        ("", None),
    ],
)
def test_a_suggested_fix_is_found_on_its_line(text: str, expected: str | None) -> None:
    assert signals.suggestion(text) == expected


def test_a_single_added_or_removed_line_is_a_changed_region() -> None:
    before = "use std::io;\nuse std::time::Duration;\n"
    after = "use std::io;\nuse std::thread::sleep;\nuse std::time::Duration;\n" + " " * 80
    assert changed_region(before, after) == ("", "use std::thread::sleep;")
    assert changed_region(after, before) == ("use std::thread::sleep;", "")
    assert changed_region("a\nb\nc\n" + "x" * 90, "a\nd\ne\n" + "x" * 90) is None
