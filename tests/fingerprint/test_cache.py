"""The stat-keyed fingerprint cache: warm runs agree with cold ones, skip work, and notice every change.

Files written by a test are seconds old, inside the racy window where nothing is cached; the clock
is moved ahead (time-machine) so the cache is exercised as on a machine where files age between turns.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.fingerprint import Checker, record
from reasonlessons.fingerprint import facts as facts_module
from reasonlessons.fingerprint.cache import CACHE_FILE
from reasonlessons.lessons.model import Lesson

ENTRIES = [
    "package.json",
    "package.json#scripts.test",
    "tests/",
    "tests/**/*.test.ts",
    "tests/**/*.snap",
    "docs/",
]


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    for rel in ("tests/unit/a.test.ts", "tests/e2e/b.test.ts", "tests/e2e/deep/c.test.ts"):
        (git_repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / rel).write_text("it()\n")
    (git_repo / ".reasonix" / "state").mkdir(parents=True)
    return git_repo


def lesson(recorded: dict[str, Any]) -> Lesson:
    return Lesson(
        meta={"name": "t", "fingerprint": list(recorded), "fingerprint-recorded": recorded}, body=""
    )


def run(repo: Path, recorded: dict[str, Any]) -> tuple[list[tuple[str, str]], Checker]:
    with Checker(repo, state_dir=repo / ".reasonix" / "state") as checker:
        drifts = [(d.input, d.reason) for d in checker.drift(lesson(recorded))]
    return drifts, checker


def test_a_warm_run_agrees_without_reading_or_listing(
    repo: Path, later: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = record(repo, ENTRIES)
    cold, _ = run(repo, recorded)
    assert cold == []
    assert (repo / ".reasonix" / "state" / CACHE_FILE).is_file()

    def no_reads(path: str) -> Any:
        raise AssertionError(f"read {path} on a warm run")

    monkeypatch.setattr(facts_module, "open_file", no_reads)
    warm, checker = run(repo, recorded)
    assert warm == []
    assert checker._dirs.listings == 0


@pytest.mark.parametrize(
    ("what", "change", "expected"),
    [
        (
            "content",
            lambda r: (r / "package.json").write_text('{"scripts": {"test": "jest!!!!!"}}\n'),
            [("package.json", "changed"), ("package.json#scripts.test", "changed")],
        ),
        (
            "a new kind deep down",
            lambda r: (r / "tests/e2e/deep/x.snap").write_text("x"),
            [("tests/", "changed"), ("tests/**/*.snap", "appeared")],
        ),
        (
            "a dir appears",
            lambda r: (r / "docs").mkdir() or (r / "docs" / "a.md").write_text("x"),
            [("docs/", "appeared")],
        ),
        (
            "the ignore rules change",
            lambda r: (r / ".gitignore").write_text("e2e/\n"),
            [("tests/", "changed")],
        ),
        (
            "a nested ignore file appears",
            lambda r: (r / "tests/unit/.gitignore").write_text("*.ts\n"),
            [("tests/", "changed")],
        ),
        ("a match goes, others remain", lambda r: (r / "tests/e2e/b.test.ts").unlink(), []),
    ],
)
def test_a_warm_run_notices_changes(
    repo: Path, later: None, what: str, change: Any, expected: list[tuple[str, str]]
) -> None:
    recorded = record(repo, ENTRIES)
    assert run(repo, recorded)[0] == []
    change(repo)
    assert run(repo, recorded)[0] == expected, what
    assert run(repo, recorded)[0] == expected, what  # and again from the updated cache


def test_same_size_same_mtime_rewrite_is_still_noticed(repo: Path, later: None) -> None:
    recorded = record(repo, ["package.json"])
    run(repo, recorded)
    path = repo / "package.json"
    before = path.stat()
    path.write_text(path.read_text().replace("vitest", "VITEST"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert run(repo, recorded)[0] == [("package.json", "changed")]


def test_the_last_match_going_is_noticed(repo: Path, later: None) -> None:
    recorded = record(repo, ["tests/**/*.test.ts"])
    run(repo, recorded)
    for rel in ("tests/unit/a.test.ts", "tests/e2e/b.test.ts", "tests/e2e/deep/c.test.ts"):
        (repo / rel).unlink()
    assert run(repo, recorded)[0] == [("tests/**/*.test.ts", "removed")]


def test_a_damaged_cache_is_rebuilt(repo: Path, later: None) -> None:
    recorded = record(repo, ENTRIES)
    run(repo, recorded)
    (repo / ".reasonix" / "state" / CACHE_FILE).write_bytes(b"\x00garbage")
    assert run(repo, recorded)[0] == []
    (repo / "package.json").write_text("{}")
    assert run(repo, recorded)[0] == [("package.json", "changed"), ("package.json#scripts.test", "removed")]


def test_files_changed_within_the_racy_window_are_not_remembered(repo: Path) -> None:
    recorded = record(repo, ["package.json"])
    _, checker = run(repo, recorded)
    assert checker._doc["files"] == {}
    assert all(rec[0] == -1 for rec in checker._doc["dirs"].values())


def test_without_a_state_dir_nothing_is_written(repo: Path, later: None) -> None:
    recorded = record(repo, ENTRIES)
    state = repo / ".reasonix" / "state"
    state.rmdir()
    assert run(repo, recorded)[0] == []
    assert not state.exists()


def test_one_run_computes_a_field_once_however_it_is_spelled_and_never_mixes_fields(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run remembers facts by the parsed field path: `./cfg.json#a.b` is `cfg.json#a.b`, but the
    # quoted key `"a.b"` is another field with the same letters.
    (git_repo / "cfg.json").write_text('{"a": {"b": 1}, "a.b": 2}\n')
    parsed: list[str] = []
    real = facts_module.field_from

    def counting(entry: Any, doc: object) -> Any:
        parsed.append(entry.text)
        return real(entry, doc)

    monkeypatch.setattr("reasonlessons.fingerprint.checker.field_from", counting)
    texts = ["cfg.json#a.b", "./cfg.json#a.b", 'cfg.json#"a.b"']
    recorded = record(git_repo, texts)
    assert recorded["cfg.json#a.b"] == recorded["./cfg.json#a.b"] != recorded['cfg.json#"a.b"']
    assert parsed == ["cfg.json#a.b", 'cfg.json#"a.b"']
    assert recorded == {text: record(git_repo, [text])[text] for text in texts}
