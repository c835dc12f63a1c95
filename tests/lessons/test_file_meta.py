"""The read-only lesson parse of the per-turn path gives what parse_lesson gives, or the same error.

`parse_lesson_meta` splits the frontmatter itself and loads it through reasonlessons.support.yamlread
(which builds plain documents from libyaml's events); `parse_lesson` goes through python-frontmatter
and yaml.load. Every file below must come out of both the same: the same mapping, or a
LessonFileError with the same message.
"""

from __future__ import annotations

import datetime as dt
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.errors import LessonFileError
from reasonlessons.lessons.file import (
    _FM_BOUNDARY,
    parse_lesson,
    parse_lesson_meta,
    read_lesson_meta,
    render_lesson,
)
from reasonlessons.lessons.model import Lesson
from reasonlessons.support import yamlblock, yamlread
from tests.fuzzing import fuzz_settings, json_values
from tests.lessons.fuzzcases import BOMBS, HEADER, SEEDS, mutated_seed
from tests.paths import RESOURCES

ALL_MARKDOWN = sorted(RESOURCES.rglob("*.md"))


def outcome(parse: Any, data: bytes, path: Path) -> tuple[str, Any]:
    try:
        meta = parse(data, path=path)
    except LessonFileError as exc:
        return "error", str(exc)
    return "meta", meta if isinstance(meta, dict) else meta.meta


def same(data: bytes, name: str = "fuzz.md") -> tuple[str, Any]:
    path = Path(name)
    expected = outcome(parse_lesson, data, path)
    got = outcome(parse_lesson_meta, data, path)
    assert got == expected
    if got[0] == "meta":  # equal values of the same types (2026-05-05 stays a date, 1 an int)
        assert repr(got[1]) == repr(expected[1])
    return got


def test_the_boundary_is_python_frontmatters() -> None:
    from frontmatter.default_handlers import YAMLHandler

    assert YAMLHandler.FM_BOUNDARY is not None
    assert YAMLHandler.FM_BOUNDARY.pattern == _FM_BOUNDARY


@pytest.mark.parametrize("path", ALL_MARKDOWN, ids=lambda p: str(p.relative_to(RESOURCES)))
def test_every_markdown_file_of_the_resources(path: Path) -> None:
    same(path.read_bytes(), path.name)
    same(path.read_bytes(), "other-name.md")


def test_read_lesson_meta_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "testing.md"
    path.write_bytes(HEADER.replace("fuzz", "testing").encode() + b"---\nbody\n")
    assert read_lesson_meta(path)["name"] == "testing"
    path.write_bytes(b"no frontmatter\n")
    with pytest.raises(LessonFileError, match="no YAML frontmatter"):
        read_lesson_meta(path)


def lesson_bytes(meta: dict[str, Any], body: str = "- a tip") -> bytes:
    return render_lesson(Lesson(meta=meta, body=body, path=Path("x.md")))


MINIMAL = {
    "name": "testing",
    "description": "Test runner",
    "fingerprint": ["package.json#scripts.test", "tests/", "src/**/*.test.ts"],
    "captured-at": dt.date(2026, 5, 5),
}

CASES = {
    "written by reasonlessons": lesson_bytes(
        {
            **MINIMAL,
            "fingerprint-recorded": {
                "package.json#scripts.test": {"hash": "xxh3:cbb63082353e9a8a", "value": '"vitest run"'},
                "tests/": {"hash": "xxh3:18fbeadfd84aed20", "dirs": ["e2e", "unit"], "kinds": [".test.ts"]},
                "src/**/*.test.ts": {"matches": True},
            },
            "refreshed-at": dt.date(2026, 6, 1),
            "expires-at": dt.datetime(2027, 1, 1, 12, 30, tzinfo=dt.UTC),
            "triggers": {"files": ["*.ts"], "commands": ["npm test"], "keywords": ["vitest"]},
            "task-types": ["debug", "code-gen"],
            "tags": ["yes", "no", "null", "~", "1.5", "0x1F", "1_000", "1:20", ".inf", "=", "<<"],
            "outcome": "success",
        }
    ),
    "scalars of every implicit type": (
        HEADER + "x-values: [yes, No, on, OFF, ~, null, '', 0o17, 017, 0x1F, 1_000, 190:20:30, -1.5e+3,"
        " .inf, -.Inf, .nan, 2001-12-14t21:59:43.10-05:00, 2002-12-14, 'quoted: yes', \"7\"]\n---\n"
    ).encode(),
    "block scalars and comments": (
        HEADER + "x-note: |\n  line one\n  line two\nx-folded: >-\n  a\n  b\n# a comment\n---\n- body\n"
    ).encode(),
    "CRLF and a BOM": ("\ufeff" + HEADER + "---\r\n- body\r\n").replace("\n", "\r\n").encode(),
    "long boundaries with spaces": (HEADER.replace("---\n", "-----  \n", 1) + "------\n- body\n").encode(),
    "an alias": (HEADER + "x-a: &a [1, 2]\nx-b: *a\n---\n").encode(),
    "an explicit tag": (HEADER + "x-a: !!str 12\nx-b: !!set {a, b}\n---\n").encode(),
    "a merge key": (HEADER + "x-base: &b {k: 1}\nx-m:\n  <<: *b\n  j: 2\n---\n").encode(),
    "a bare merge key": (HEADER + "x-m: {<<: {k: 1}, =: v}\n---\n").encode(),
    "a value key": (HEADER + "x-m: {=: v}\n---\n").encode(),
    "non-string keys": (HEADER + "1: one\ntrue: yes\n---\n").encode(),
    "keys python-frontmatter refuses": (HEADER + "content: c\n---\n").encode(),
    "handler": (HEADER + "handler: h\n---\n").encode(),
    "self": (HEADER + "self: s\n---\n").encode(),
    "duplicate keys": (HEADER + "name: again\nname: fuzz\n---\n").encode(),
    "an unhashable key": (HEADER + "? [a, b]\n: v\n---\n").encode(),
    "two documents": (HEADER + "...\n--- \nname: other\n---\n").encode(),
    "a document end marker": (HEADER + "...\n---\n").encode(),
    "a scalar document": b"---\njust text\n---\nbody\n",
    "an empty frontmatter": b"---\n---\nbody\n",
    "no closing boundary": HEADER.encode(),
    "malformed": (HEADER + "x: [unclosed\n---\n").encode(),
    "a tab": (HEADER + "x:\n\t- a\n---\n").encode(),
    "a bad date": (HEADER.replace("2026-05-05", "2026-13-45") + "---\n").encode(),
    "schema errors": b"---\nname: Bad Name\ndescription: ''\nfingerprint: x\ncaptured-at: never\n---\n",
    "a directive": ("%YAML 1.1\n" + HEADER + "---\n").encode(),
    "not UTF-8": HEADER.encode() + b"x: \xff\n---\n",
    "a NUL": HEADER.encode() + b"x: \x00\n---\n",
    "deep": (HEADER + "x: " + "[" * 70 + "]" * 70 + "\n---\n").encode(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cases(name: str) -> None:
    same(CASES[name])


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_yaml_bombs(name: str) -> None:
    same(BOMBS[name].encode())


@pytest.mark.skipif(not SEEDS, reason="no seed lessons")
@fuzz_settings(ci=200)
@given(data=st.data())
def test_mutated_real_lessons(data: st.DataObject) -> None:
    same(mutated_seed(data, flips=b"-:#&*!|>[]{}\"'\n\r\t ?%@`,.\x00\xff"))


yaml_text = st.text(alphabet=string.printable + "\u00e9\ufeff\u2028", max_size=300)


@fuzz_settings(ci=200)
@given(frontmatter=yaml_text, body=yaml_text)
def test_random_frontmatter_text(frontmatter: str, body: str) -> None:
    same(f"---\n{frontmatter}\n---\n{body}".encode())
    same(f"{HEADER}{frontmatter}\n---\n{body}".encode())


@fuzz_settings(ci=200)
@given(meta=st.dictionaries(st.text(max_size=20), json_values, max_size=8), body=st.text(max_size=100))
def test_random_mappings(meta: dict[str, Any], body: str) -> None:
    extra = {"name": "fuzz", "description": "d", "fingerprint": [], "captured-at": "2026-05-05"}
    for doc in (meta, {**meta, **extra}):
        for style in (False, True, None):
            text = yaml.safe_dump(doc, allow_unicode=True, default_flow_style=style)
            same(f"---\n{text}---\n{body}".encode())


# -- yamlread on its own: yaml.load's values and errors ------------------------------------------


def load_outcome(load: Any, text: str) -> tuple[str, str]:
    try:
        return "value", repr(load(text))
    except Exception as exc:  # noqa: BLE001 (the type and message are what is compared)
        return type(exc).__name__, str(exc)


def same_load(text: str) -> None:
    def reference(t: str) -> Any:
        return yaml.load(t, Loader=yamlread.loader())

    expected = load_outcome(reference, text)
    assert load_outcome(yamlread.safe_load, text) == expected
    # The table used while PyYAML is not imported (this process has imported it).
    state, value = yamlblock.load(text, None)
    if state == yamlblock.OK:
        assert ("value", repr(value)) == expected


def test_the_table_used_without_pyyaml_is_pyyamls() -> None:
    live = yaml.resolver.Resolver.yaml_implicit_resolvers
    assert set(yamlblock.RESOLVERS) == set(live)
    for first, resolvers in live.items():
        mine = yamlblock.RESOLVERS[first]
        assert [(t, r.pattern, r.flags) for t, r in mine] == [(t, r.pattern, r.flags) for t, r in resolvers]
    assert yamlread.loader().yaml_implicit_resolvers is live


PLAIN_LESSON = lesson_bytes(
    {
        **MINIMAL,
        "fingerprint-recorded": {
            "package.json#scripts.test": {"hash": "xxh3:cbb63082353e9a8a", "value": '"vitest run"'},
            "src/**/*.test.ts": {"matches": True},
            "missing/": {"absent": True},
        },
        "triggers": {"files": ["*.ts"], "commands": ["npm test"]},
        "task-types": ["code-gen"],
        "x-count": 12,
    }
)


def test_a_cold_process_reads_plain_lessons_and_config_without_pyyaml() -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from reasonlessons.lessons.file import parse_lesson_meta\n"
        "from reasonlessons.fingerprint.fields import parse_document\n"
        f"meta = parse_lesson_meta({PLAIN_LESSON!r}, path=Path('testing.md'))\n"
        "doc = parse_document('ci.yaml', b'ci:\\n  jobs:\\n    - name: test\\n      run: npm test\\n')\n"
        "assert meta['name'] == 'testing' and doc['ci']['jobs'][0]['run'] == 'npm test'\n"
        "print('yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", sorted(CASES))
def test_safe_load_cases(name: str) -> None:
    text = CASES[name].decode("utf-8", "replace").replace("\x00", "")
    same_load(text)
    same_load(text.split("---", 2)[1] if text.count("---") >= 2 else text)


@fuzz_settings(ci=300)
@given(text=yaml_text)
def test_safe_load_random_text(text: str) -> None:
    same_load(text)


@fuzz_settings(ci=200)
@given(value=json_values, style=st.sampled_from([False, True, None]))
def test_safe_load_random_documents(value: Any, style: bool | None) -> None:
    same_load(yaml.safe_dump(value, allow_unicode=True, default_flow_style=style))


def test_plain_documents_skip_yaml_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is taken (the point of the module), and a loader somebody extended is not."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("yaml.load called")

    monkeypatch.setattr(yaml, "load", refused)
    assert yamlread.safe_load(CASES["written by reasonlessons"].decode().split("---")[1])["name"] == "testing"
    monkeypatch.undo()

    class Loader(yamlread.loader()):  # type: ignore[misc]
        pass

    Loader.add_constructor("tag:yaml.org,2002:str", lambda loader, node: "mine")
    monkeypatch.setattr(yamlread, "loader", lambda: Loader)
    assert yamlread.safe_load("a: b\n") == {"mine": "mine"}


def test_a_loader_with_a_resolver_of_its_own_is_not_read_by_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """yamlblock's table (and its memo of resolved scalars) stands in for PyYAML's only while the
    loader resolves as shipped: a resolver added to it, even after a first read, is honoured."""
    import re

    class Loader(yamlread.loader()):  # type: ignore[misc]
        pass

    # A table of its own, equal to PyYAML's, so that add_implicit_resolver changes it in place.
    Loader.yaml_implicit_resolvers = {k: list(v) for k, v in Loader.yaml_implicit_resolvers.items()}
    monkeypatch.setattr(yamlread, "loader", lambda: Loader)
    assert yamlread.safe_load("a: b\nc: 1\n") == {"a": "b", "c": 1}  # as shipped: the table
    Loader.add_implicit_resolver("tag:example.invalid,2026:b", re.compile(r"^b$"), ["b"])
    Loader.add_constructor("tag:example.invalid,2026:b", lambda loader, node: "bee")
    assert yamlread.safe_load("a: b\nc: 1\n") == yaml.load("a: b\nc: 1\n", Loader=Loader)
    assert yamlread.safe_load("a: b\nc: 1\n") == {"a": "bee", "c": 1}


# Block documents built from lines that sit on the edges of yamlblock's shape: every scalar YAML
# resolves specially, indicators, quotes, comments, odd indentation.
words = st.sampled_from(
    ["a", "b-c", "x.y", "k k", "yes", "No", "~", "null", "", "1", "-1", "0x1F", "1_0", "1:20", "2026-05-05",
     "2026-13-45", ".inf", "<<", "=", "'q'", "'it''s'", '"d"', '"e\\n"', "[]", "{}", "[a]", "#c", "a #c",
     "a:b", "a: b", "a:", "-", "- x", "*x", "&y z", "!!str 1", "|", ">", "%x", "@x", "`x", "?x", "a,b",
     "a[0]", "x" * 1030, "p/q/*.ts", "src/**", "'**/*.md'", "\\x"]
)  # fmt: skip


@st.composite
def block_documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 12))):
        indent = " " * draw(st.sampled_from([0, 0, 0, 2, 2, 4, 1, 3]))
        form = draw(st.sampled_from(["K: V", "K:", "- V", "-", "- K: V", "# c", "", "T"]))
        line = form.replace("K", draw(words), 1).replace("V", draw(words), 1).replace("T", draw(words))
        spaces = draw(st.sampled_from(["", "", "", " ", "  "]))
        trailing = draw(st.sampled_from(["", "", " "]))
        lines.append(indent + line.replace(": ", ":" + spaces + " ", 1) + trailing)
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


@fuzz_settings(ci=600)
@given(text=block_documents())
def test_safe_load_block_documents(text: str) -> None:
    same_load(text)


@st.composite
def nested_blocks(draw: st.DrawFn, depth: int = 0, indent: int = 0) -> list[str]:
    """Well-formed block nesting (mostly), scalars written plain or quoted as they come."""
    step = draw(st.sampled_from([1, 2, 2, 4]))
    lines: list[str] = []
    if draw(st.booleans()):
        for _ in range(draw(st.integers(1, 4))):
            key = draw(words)
            if depth < 3 and draw(st.booleans()):
                lines.append(" " * indent + f"{key}:")
                inner = indent if draw(st.booleans()) else indent + step  # indentless sequences too
                lines.extend(draw(nested_blocks(depth + 1, inner)))
            else:
                lines.append(" " * indent + f"{key}: {draw(words)}")
    else:
        for _ in range(draw(st.integers(1, 4))):
            lines.append(" " * indent + f"- {draw(words)}".rstrip())
    return lines


@fuzz_settings(ci=600)
@given(lines=nested_blocks())
def test_safe_load_nested_blocks(lines: list[str]) -> None:
    same_load("\n".join(lines) + "\n")


_UNUSUAL = re.compile(r"[^\n\x20-\x7e]")
_MARKER = re.compile(r"^(?:---|\.\.\.)", re.MULTILINE)
# Text near the edges of both tests: markers, dots and dashes, line breaks, controls, non-ASCII.
_EDGY = st.text(
    st.sampled_from(["-", ".", "\n", "\r", " ", "\t", "a", ":", "\x7f", "\x1f", "~", "é", "\ufeff"])
)


@fuzz_settings(ci=300)
@given(text=st.one_of(_EDGY, st.text(max_size=40)))
def test_the_quick_prefilters_are_the_regexes_they_replace(text: str) -> None:
    assert yamlblock.unusual(text) == bool(_UNUSUAL.search(text))
    assert yamlblock.has_marker(text) == bool(_MARKER.search(text))


# Deep, narrow values: chains of lists and mappings (what `- - - x`, `- a:` and nested keys write).
_deep_values = st.recursive(
    st.sampled_from(["x", 1, None, [], {}]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, min_size=1)
    ),
    max_leaves=14,
)


@fuzz_settings(ci=300)
@given(value=st.dictionaries(st.sampled_from(["k", "m"]), _deep_values, min_size=1), flow=st.booleans())
def test_the_text_bound_of_a_block_read_never_passes_what_the_walk_refuses(
    value: dict[str, Any], flow: bool
) -> None:
    """`_bounded` lets a value read line by line skip `_small_tree`: it must never call a value
    small that the walk finds too big or too deep (limits shrunk so that both sides are reached)."""
    from reasonlessons.lessons import file

    text = yaml.dump(value, default_flow_style=None if flow else False, sort_keys=False)
    meta, by_line = yamlread.safe_load_read(text)
    for depth, values in ((3, 8), (5, 12), (8, 30), (12, 60)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(file, "MAX_FRONTMATTER_DEPTH", depth)
            patch.setattr(file, "MAX_FRONTMATTER_VALUES", values)
            if by_line and file._bounded(text):
                assert file._small_tree(meta)


def test_the_text_bound_counts_compact_dashes_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonlessons.lessons import file

    text = "a:\n- - - - - []\n"  # a mapping, then six lists nested in two lines: seven levels
    meta, by_line = yamlread.safe_load_read(text)
    assert by_line
    assert meta == {"a": [[[[[[]]]]]]}
    monkeypatch.setattr(file, "MAX_FRONTMATTER_DEPTH", 7)
    assert file._small_tree(meta)
    monkeypatch.setattr(file, "MAX_FRONTMATTER_DEPTH", 6)
    assert not file._small_tree(meta)
    assert not file._bounded(text)
