"""Fuzzing the fingerprint entry grammar and field reading: never a crash, a hang or a blow-up.

Entries come from lesson files anyone can commit, and the files they point at are the repository's:
parse_entry gives an Entry or InvalidFingerprintError; reading a field from any document gives a
value or ValueError, within time and memory bounds, YAML bombs included.
"""

from __future__ import annotations

import contextlib
import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint.entry import FIELD, check_entry, parse_entry, parse_field
from reasonlessons.fingerprint.fields import canonical, lookup, parse_document
from tests.fuzzing import bounded, fuzz_settings, json_values

# Text rich in the grammar's own characters, so examples reach every branch.
entry_text = st.text(alphabet=string.ascii_letters + string.digits + '#."\\/*?[]-_ ~:\t\n\x00é', max_size=80)
paths = st.sampled_from(
    ["package.json", "pyproject.toml", "config.yaml", "a/b.yml", "x.JSON", "dir/", "src/**/*.ts"]
)


@fuzz_settings(ci=400)
@given(st.one_of(entry_text, st.text(max_size=80), st.builds(lambda p, f: f"{p}#{f}", paths, entry_text)))
def test_any_entry_text_parses_or_is_refused_with_a_reason(text: str) -> None:
    with bounded(seconds=2, megabytes=16):
        problem = check_entry(text)
        if problem is not None:
            with pytest.raises(InvalidFingerprintError, match=re.escape(problem)):
                parse_entry(text)
            return
        entry = parse_entry(text)
    assert not entry.path.startswith("/")
    assert ".." not in entry.path.split("/")
    if entry.kind == FIELD:
        assert parse_field(entry.field_text) == entry.field  # quoting round-trips


@fuzz_settings(ci=300)
@given(entry_text)
def test_any_field_path_parses_or_is_refused(raw: str) -> None:
    try:
        segments = parse_field(raw)
    except InvalidFingerprintError:
        return
    assert segments
    assert all(isinstance(text, str) for text, _ in segments)


documents = st.one_of(
    st.binary(max_size=300),
    st.text(alphabet=string.printable, max_size=300).map(str.encode),
    json_values.map(lambda v: repr(v).encode()),
)


@fuzz_settings(ci=300)
@given(doc=documents, suffix=st.sampled_from(["json", "toml", "yaml", "yml"]), field=entry_text)
def test_reading_a_field_of_any_document_never_crashes(doc: bytes, suffix: str, field: str) -> None:
    with bounded(seconds=2, megabytes=32):
        try:
            data = parse_document(f"f.{suffix}", doc)
            segments = parse_field(field)
        except (ValueError, InvalidFingerprintError):
            return
        found, value, _ = lookup(data, segments)
        if found:
            with contextlib.suppress(ValueError):
                canonical(value)


def test_a_yaml_bomb_in_a_fingerprinted_file_is_refused_quickly() -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    with bounded(seconds=5, megabytes=32):
        doc = parse_document("config.yaml", "\n".join(lines).encode())
        found, value, _ = lookup(doc, parse_field("a11"))
        assert found
        with pytest.raises(ValueError, match="nodes"):
            canonical(value)
