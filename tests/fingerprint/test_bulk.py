"""A directory listing filters and classifies all its names at once (regexes over the joined names,
C-level filters); those bulk forms must agree with the per-name checks they replace."""

from __future__ import annotations

import os
import string
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.fingerprint.globs import compile_glob
from reasonlessons.fingerprint.ignore import Rules, parse_gitignore
from reasonlessons.fingerprint.kinds import kind_of, kinds_of
from reasonlessons.fingerprint.tree import DirIndex
from tests.fuzzing import fuzz_settings

name_chars = string.ascii_letters[:6] + string.digits[:3] + ".-_ é*?[]!\\#"
names = st.text(alphabet=name_chars, min_size=1, max_size=14).filter(lambda n: n not in (".", ".."))
suffixes = st.sampled_from([".ts", ".test.ts", ".d.ts", ".tar.gz", ".2024", ".", "", ".min.js", ".x.y.z"])
file_names = st.one_of(names, st.builds(lambda stem, suffix: stem + suffix, names, suffixes))


@fuzz_settings(ci=400)
@given(st.lists(file_names, max_size=30))
def test_kinds_of_many_names_are_the_kinds_of_each(listed: list[str]) -> None:
    assert kinds_of(listed) == {kind_of(name) for name in listed}
    assert kinds_of(listed, "/".join(listed)) == {kind_of(name) for name in listed}


stems = st.text(alphabet=string.ascii_letters[:4] + "-_é", min_size=1, max_size=6)
shared_suffixes = st.sampled_from([".ts", ".test.ts", ".d.ts", ".", "..", ".a.", ".2024", ".x.y", ".x.y.z"])


@fuzz_settings(ci=400)
@given(
    shared_suffixes,
    st.lists(stems, min_size=1, max_size=20),
    st.lists(st.tuples(st.integers(min_value=0, max_value=19), file_names), max_size=2),
)
def test_kinds_of_a_directory_of_one_suffix_are_the_kinds_of_each(
    suffix: str, stem_list: list[str], odd: list[tuple[int, str]]
) -> None:
    # The shortcut for names sharing one tail (kinds._shared_tail), and near misses: a stem with a
    # dot, a name without the suffix, a longer or shorter suffix on one name.
    listed = [stem + suffix for stem in stem_list]
    for at, name in odd:
        listed[at % len(listed)] = name
    assert kinds_of(listed) == {kind_of(name) for name in listed}


@pytest.mark.parametrize(
    "listed",
    [
        [],
        ["Makefile"],
        ["a.ts", "README"],
        ["a.ts", "b.ts"],
        [".env.local", "a.ts"],
        ["a..b", "c."],
        ["a.ts", "b.test.ts"],
        ["a.b.ts", "c.ts"],
        ["x.ts.ts", "y.ts"],
        ["a.test.ts", "b.test.ts"],
        ["a.b.test.ts", "c.test.ts"],
        ["ts", "a.ts"],
    ],
)
def test_kinds_of_examples(listed: list[str]) -> None:
    assert kinds_of(listed) == {kind_of(name) for name in listed}


patterns = st.lists(
    st.one_of(
        st.sampled_from(["*.log", "build", "node_modules/", "*.py[co]", "!keep.log", "/dist", "a/*.tmp"]),
        st.text(alphabet="ab.*?[]!\\/ ", min_size=1, max_size=8),
    ),
    max_size=5,
)


@fuzz_settings(ci=400)
@given(lines=patterns, listed=st.lists(file_names, max_size=20))
def test_name_only_rules_filter_names_as_the_per_name_check(lines: list[str], listed: list[str]) -> None:
    rules = Rules(parse_gitignore("\n".join(lines), ""))
    expected = [n for n in listed if not rules.ignored("sub", n, False)]
    if rules.file_names is None:
        return
    joined = "/".join(listed)
    if rules.file_literals is not None and not any(lit in joined for lit in rules.file_literals):
        assert expected == listed  # no literal, no match
    assert [n for n in listed if not rules.file_names(n)] == expected


def test_literals_of_patterns() -> None:
    rules = Rules(parse_gitignore("*.log\nfoo*bar\n[Bb]uild\n\\#x\n", ""))
    assert rules.file_literals is not None
    assert set(rules.file_literals) == {".log", "foo", "uild", "#x"}
    assert Rules(parse_gitignore("*.log\n?\n", "")).file_literals is None
    assert Rules(parse_gitignore("*.log\n/anchored\n", "")).file_names is None
    assert Rules(parse_gitignore("*.log\n!keep.log\n", "")).file_names is None


globs = st.sampled_from(
    ["src/*.ts", "src/**/*.test.ts", "**/*.md", "a/*/b/*.js", "*.x", "src/[ab]*.ts", "src/**", "x/**/y/*"]
)


@fuzz_settings(ci=300)
@given(pattern=globs, rel=st.sampled_from(["", "src", "src/a", "a/q/b", "x/y"]), listed=st.lists(file_names))
def test_first_match_is_the_first_the_per_name_matcher_accepts(
    pattern: str, rel: str, listed: list[str]
) -> None:
    glob = compile_glob(pattern)
    if rel != glob.base and not rel.startswith(f"{glob.base}/" if glob.base else ""):
        return
    depth = rel.count("/") - glob.base.count("/") - (1 if glob.base else 0) if rel != glob.base else -1
    matches = glob.files_matcher(depth)
    expected = next((n for n in listed if matches(rel, n)), None) if matches is not None else None
    assert glob.first(rel, depth, listed) == expected
    assert glob.first(rel, depth, listed, "/".join(listed)) == expected


def test_a_listing_applies_ignore_rules_and_kinds(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n*.tmp\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".gitignore").write_text("!keep.log\n")
    for name in ("a.ts", "b.log", "c.test.ts", "x.tmp"):
        (tmp_path / name).write_text("")
    for name in ("keep.log", "drop.log", "y.md"):
        (tmp_path / "d" / name).write_text("")
    (tmp_path / "sub").mkdir()
    old = time.time_ns() - 10**10
    for path in [tmp_path, *tmp_path.rglob("*")]:
        os.utime(path, ns=(old, old))
    index = DirIndex(str(tmp_path), {}, gen=1, t0=time.time_ns())
    dirs, files = index.listing("") or ([], [])
    assert dirs == ["d", "sub"]
    assert sorted(files) == [".gitignore", "a.ts", "c.test.ts"]
    assert index.node("") == (("d", "sub"), (".gitignore", ".test.ts", ".ts"))
    _, files = index.listing("d") or ([], [])
    assert sorted(files) == [".gitignore", "keep.log", "y.md"]


def test_directories_resolve_as_realpath_does(tmp_path: Path) -> None:
    from reasonlessons.fingerprint.checker import Checker

    root = tmp_path / "repo"
    (root / "a" / "b").mkdir(parents=True)
    (tmp_path / "outside" / "c").mkdir(parents=True)
    os.symlink(tmp_path / "outside", root / "out")
    os.symlink("a/b", root / "inner")
    os.symlink("loop", root / "loop")
    os.symlink("missing", root / "dangling")
    checker = Checker(root, state_dir=None)
    checker._real_root = os.path.realpath(root)
    rels = ["", "a", "a/b", "out", "out/c", "out/c/d", "inner", "inner/x", "loop", "loop/x", "dangling/x"]
    for rel in rels:
        assert checker._real_dir(rel) == os.path.realpath(os.path.join(root, rel)), rel
