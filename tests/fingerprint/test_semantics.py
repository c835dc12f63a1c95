"""docs/fingerprints.md#semantics, row by row and in both directions, in a real temporary git repository."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.fingerprint import Checker, Drift, record
from reasonlessons.lessons.model import Lesson

PACKAGE_JSON = (
    '{"name": "demo", "scripts": {"test": "vitest run", "test:unit": "vitest unit"}, "n": [1, 2]}\n'
)
PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-q"\n'
CI_YAML = "jobs:\n  - name: test\n    run: npm test\n  - name: lint\nenv: {A: 1, B: 2}\n"


def write(repo: Path, rel: str, data: str | bytes) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)


@pytest.fixture
def repo(git_repo: Path) -> Path:
    write(git_repo, "package.json", PACKAGE_JSON)
    write(git_repo, "pyproject.toml", PYPROJECT)
    write(git_repo, ".github/ci.yml", CI_YAML)
    write(git_repo, "conf/app.yaml", "db:\n  host: localhost\n  port: 5432\n")
    write(git_repo, "README.md", "# demo\r\nline two\r\n")
    write(git_repo, "tests/unit/a.test.ts", "it()\n")
    write(git_repo, "tests/unit/b.test.ts", "it()\n")
    write(git_repo, "tests/e2e/flow.test.ts", "it()\n")
    write(git_repo, ".gitignore", "*.log\ncoverage/\n")
    return git_repo


def drift_of(repo: Path, entry: str, change: Callable[[Path], object]) -> list[Drift]:
    recorded = record(repo, [entry])
    change(repo)
    lesson = Lesson(meta={"name": "t", "fingerprint": [entry], "fingerprint-recorded": recorded}, body="")
    return Checker(repo, state_dir=None).drift(lesson)


def _touch(rel: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        path = repo / rel
        info = path.stat()
        os.utime(path, ns=(info.st_atime_ns + 10**10, info.st_mtime_ns + 10**10))

    return change


def _replace(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        path = repo / rel
        path.write_bytes(path.read_bytes().replace(old.encode(), new.encode()))

    return change


def _write(rel: str, data: str | bytes) -> Callable[[Path], None]:
    return lambda repo: write(repo, rel, data)


def _remove(rel: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        path = repo / rel
        shutil.rmtree(path) if path.is_dir() else path.unlink()

    return change


def _rename(old: str, new: str) -> Callable[[Path], None]:
    return lambda repo: (repo / old).rename(repo / new)


def _both(*changes: Callable[[Path], object]) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        for c in changes:
            c(repo)

    return change


DRIFTS = [
    # path/file: the file's content
    ("file content changes", "README.md", _replace("README.md", "two", "2"), "changed"),
    ("file deleted", "README.md", _remove("README.md"), "removed"),
    # field entries
    (
        "json field changes",
        "package.json#scripts.test",
        _replace("package.json", "vitest run", "jest"),
        "changed",
    ),
    (
        "json field disappears",
        "package.json#scripts.test",
        _write("package.json", '{"scripts": {}}'),
        "removed",
    ),
    (
        "json quoted key",
        'package.json#scripts."test:unit"',
        _replace("package.json", "vitest unit", "x"),
        "changed",
    ),
    ("json array index", "package.json#n.1", _replace("package.json", "[1, 2]", "[1, 3]"), "changed"),
    (
        "toml field",
        "pyproject.toml#tool.pytest.ini_options.testpaths",
        _replace("pyproject.toml", '"tests"', '"t"'),
        "changed",
    ),
    ("yml field", ".github/ci.yml#jobs.0.run", _replace(".github/ci.yml", "npm test", "make"), "changed"),
    ("yaml field", "conf/app.yaml#db.port", _replace("conf/app.yaml", "5432", "5433"), "changed"),
    ("field's file deleted", "conf/app.yaml#db.port", _remove("conf/app.yaml"), "removed"),
    # dir/: its shape
    ("dir removed", "tests/", _remove("tests"), "removed"),
    ("dir renamed", "tests/", _rename("tests", "spec"), "removed"),
    (
        "naming convention changes",
        "tests/",
        _both(
            _rename("tests/unit/a.test.ts", "tests/unit/a.spec.ts"),
            _rename("tests/unit/b.test.ts", "tests/unit/b.spec.ts"),
            _rename("tests/e2e/flow.test.ts", "tests/e2e/flow.spec.ts"),
        ),
        "changed",
    ),
    ("a child directory appears", "tests/", _write("tests/perf/load.test.ts", "x"), "changed"),
    ("a child directory disappears", "tests/", _remove("tests/e2e"), "changed"),
    ("a new kind of file deep down", "tests/", _write("tests/unit/deep/x.snap", "x"), "changed"),
    # globs: whether anything matches
    ("glob stops matching", "tests/**/*.test.ts", _remove("tests"), "removed"),
    ("glob starts matching", "src/**/*.ts", _write("src/deep/a.ts", "x"), "appeared"),
    # absent targets
    ("absent file appears", "CHANGELOG.md", _write("CHANGELOG.md", "x"), "appeared"),
    ("absent dir appears", "docs/", _write("docs/a.md", "x"), "appeared"),
    (
        "absent field appears",
        "package.json#scripts.lint",
        _replace("package.json", '"scripts": {', '"scripts": {"lint": "x", '),
        "appeared",
    ),
]


@pytest.mark.parametrize(("what", "entry", "change", "reason"), DRIFTS, ids=[d[0] for d in DRIFTS])
def test_drifts(repo: Path, what: str, entry: str, change: Callable[[Path], None], reason: str) -> None:
    drifts = drift_of(repo, entry, change)
    assert [(d.input, d.reason) for d in drifts] == [(entry, reason)], what


STEADY = [
    ("mtime-only touch", "README.md", _touch("README.md")),
    ("CRLF to LF", "README.md", _replace("README.md", "\r\n", "\n")),
    ("LF to CRLF", "package.json", _replace("package.json", "\n", "\r\n")),
    (
        "json reformatted",
        "package.json#scripts",
        _write(
            "package.json",
            '{\n  "scripts": {\n    "test:unit": "vitest unit",\n    "test": "vitest run"\n  }\n}\n',
        ),
    ),
    ("json other field changes", "package.json#scripts.test", _replace("package.json", '"demo"', '"other"')),
    (
        "toml reformatted",
        "pyproject.toml#tool.pytest.ini_options",
        _write("pyproject.toml", "[tool.pytest]\nini_options = { addopts = '-q', testpaths = ['tests'] }\n"),
    ),
    ("yaml reordered", ".github/ci.yml#env", _replace(".github/ci.yml", "{A: 1, B: 2}", "\n  B: 2\n  A: 1")),
    (
        "yaml other field",
        ".github/ci.yml#jobs.0",
        _replace(".github/ci.yml", "- name: lint", "- name: check"),
    ),
    ("a file following the convention is added", "tests/", _write("tests/unit/c.test.ts", "it()\n")),
    ("a file is edited", "tests/", _write("tests/unit/a.test.ts", "changed\n")),
    ("an ignored file appears", "tests/", _write("tests/unit/debug.log", "x")),
    ("an ignored dir appears", "tests/", _write("tests/coverage/x.json", "{}")),
    ("an empty dir appears (git cannot see it)", "tests/", lambda repo: (repo / "tests" / "empty").mkdir()),
    ("another match is added", "tests/**/*.test.ts", _write("tests/unit/d.test.ts", "x")),
    ("a match is removed while one remains", "tests/**/*.test.ts", _remove("tests/unit/a.test.ts")),
    ("an ignored file would start matching", "**/*.log", _write("tests/debug.log", "x")),
    ("absent file stays absent", "CHANGELOG.md", _write("CHANGES.md", "x")),
    ("absent field stays absent", "package.json#nope.x", _replace("package.json", "demo", "demo2")),
]


@pytest.mark.parametrize(("what", "entry", "change"), STEADY, ids=[s[0] for s in STEADY])
def test_does_not_drift(repo: Path, what: str, entry: str, change: Callable[[Path], None]) -> None:
    assert drift_of(repo, entry, change) == [], what


def test_absent_targets_record_absent(repo: Path) -> None:
    recorded = record(repo, ["nope.txt", "nope/", "nope/**/*.ts", "package.json#nope"])
    assert recorded == {
        "nope.txt": {"absent": True},
        "nope/": {"absent": True},
        "nope/**/*.ts": {"matches": False},
        "package.json#nope": {"absent": True},
    }


def test_recorded_values_are_short_and_deterministic(repo: Path) -> None:
    entries = ["package.json#scripts", "tests/", "README.md", "tests/**/*.test.ts"]
    first = record(repo, entries)
    assert first == record(repo, entries)
    assert first["package.json#scripts"]["value"] == '{"test":"vitest run","test:unit":"vitest unit"}'
    assert first["tests/"]["dirs"] == ["e2e", "unit"]
    assert first["tests/"]["kinds"] == [".test.ts"]
    assert first["tests/**/*.test.ts"] == {"matches": True}
    assert first["README.md"]["hash"].startswith("xxh3:")
    write(repo, "big.json", '{"v": "' + "x" * 500 + '"}')
    assert len(record(repo, ["big.json#v"])["big.json#v"]["value"]) == 80
