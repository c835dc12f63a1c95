"""File kinds, gitignore rules and glob matching: the pure pieces behind dir/ and glob entries."""

from __future__ import annotations

import pytest

from reasonlessons.fingerprint.globs import compile_glob
from reasonlessons.fingerprint.ignore import Rules, parse_gitignore
from reasonlessons.fingerprint.kinds import kind_of


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("main.ts", ".ts"),
        ("a.test.ts", ".test.ts"),
        ("a.b.c.ts", ".c.ts"),
        ("archive.tar.gz", ".tar.gz"),
        ("jquery-3.5.1.min.js", ".min.js"),
        ("report.2024", ""),
        ("README", ""),
        ("Makefile", ""),
        ("trailing.", ""),
        (".gitignore", ".gitignore"),
        (".eslintrc.json", ".json"),
        (".env.local", ".local"),
        ("x.1.js", ".js"),
    ],
)
def test_kind_is_the_compound_extension(name: str, kind: str) -> None:
    assert kind_of(name) == kind


def _rules(text: str, base: str = "") -> Rules:
    return Rules(parse_gitignore(text, base))


@pytest.mark.parametrize(
    ("patterns", "parent", "name", "is_dir", "ignored"),
    [
        ("*.log", "a/b", "x.log", False, True),
        ("*.log", "a/b", "x.txt", False, False),
        ("build/", "a", "build", True, True),
        ("build/", "a", "build", False, False),
        ("/dist", "", "dist", True, True),
        ("/dist", "a", "dist", True, False),
        ("docs/*.tmp", "docs", "x.tmp", False, True),
        ("docs/*.tmp", "a/docs", "x.tmp", False, False),
        ("**/gen", "a/b", "gen", True, True),
        ("a/**/z", "a/b/c", "z", False, True),
        ("a/**", "a/b", "c", False, True),
        ("*.log\n!keep.log", "", "keep.log", False, False),
        ("*.log\n!keep.log", "", "other.log", False, True),
        ("# comment\n\n\\#hash", "", "#hash", False, True),
        ("f[ab].txt", "", "fb.txt", False, True),
        ("f[!ab].txt", "", "fa.txt", False, False),
        ("f[!-a].txt", "", "f-.txt", False, False),  # a '-' first in a class is literal
        ("f[!-a].txt", "", "fb.txt", False, True),
        ("trailing\\ ", "", "trailing ", False, True),
        ("x?", "", "xy", False, True),
    ],
)
def test_gitignore_rules(patterns: str, parent: str, name: str, is_dir: bool, ignored: bool) -> None:
    assert _rules(patterns).ignored(parent, name, is_dir) is ignored


def test_gitignore_in_a_subdirectory_is_anchored_there() -> None:
    rules = _rules("/only-here\n", "sub/")
    assert rules.ignored("sub", "only-here", False)
    assert not rules.ignored("sub/deeper", "only-here", False)


def test_deeper_rules_override_shallower() -> None:
    rules = Rules(parse_gitignore("*.gen\n", "")).extend(parse_gitignore("!keep.gen\n", "pkg/"))
    assert rules.ignored("pkg", "x.gen", False)
    assert not rules.ignored("pkg", "keep.gen", False)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/**/*.test.ts", "src/a.test.ts", True),
        ("src/**/*.test.ts", "src/a/b/c.test.ts", True),
        ("src/**/*.test.ts", "src/a.spec.ts", False),
        ("src/*.ts", "src/a/b.ts", False),
        ("src/*.ts", "src/.hidden.ts", True),
        ("src/**", "src/a/b/c", True),
        ("**/*.md", "README.md", True),
        ("docs/[ab]*.md", "docs/b1.md", True),
        ("docs/[ab]*.md", "docs/c1.md", False),
        ("a/?/x", "a/b/x", True),
        ("[!-a]*.md", "b.md", True),
        ("[!-a]*.md", "-b.md", False),  # a '-' first in a class is literal, as in git and picomatch
        ("[!-a]*.md", "0.md", True),
    ],
)
def test_glob_matching(pattern: str, path: str, matches: bool) -> None:
    assert compile_glob(pattern).match(path) is matches


def test_glob_walk_limits() -> None:
    glob = compile_glob("src/*/unit/*.ts")
    assert glob.base == "src"
    assert glob.may_descend(0, "anything")
    assert glob.may_descend(1, "unit")
    assert not glob.may_descend(1, "e2e")
    assert not glob.may_descend(2, "deeper")
    assert glob.files_matcher(-1) is None  # no file directly in src/ can match
    deep = compile_glob("src/**/*.ts")
    assert deep.may_descend(5, "x")
    matcher = deep.files_matcher(-1)
    assert matcher is not None
    assert matcher("src", "a.ts")
