from __future__ import annotations

import pytest

from reasonlessons.capture.reduce.messages import correction


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("you should have the updated version of the file now -- go ahead and try to edit it.", None),
        ("no, run `go test ./...` instead of make", "Run `go test ./...` instead of make"),
        ("no, always go test before committing", "Always go test before committing"),
    ],
)
def test_a_correction_names_something_concrete(text: str, rule: str | None) -> None:
    assert correction(text) == rule
