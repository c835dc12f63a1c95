"""Bad input never crashes a check: broken documents, odd field paths, link loops, big or unreadable files."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.fingerprint import Checker, Drift, record
from reasonlessons.fingerprint import facts as facts_module
from reasonlessons.lessons.model import Lesson


def lesson(entries: list[str], recorded: dict[str, Any]) -> Lesson:
    return Lesson(meta={"name": "t", "fingerprint": entries, "fingerprint-recorded": recorded}, body="")


def check(repo: Path, entries: list[str], recorded: dict[str, Any] | None = None) -> list[Drift]:
    if recorded is None:
        recorded = record(repo, entries)
    return Checker(repo, state_dir=None).drift(lesson(entries, recorded))


@pytest.mark.parametrize(
    ("name", "good", "broken", "field", "why"),
    [
        (
            "package.json",
            '{"scripts": {"test": "x"}}',
            '{"scripts": {"test": ',
            "scripts.test",
            "not valid JSON",
        ),
        ("pyproject.toml", "[tool]\nx = 1\n", "[tool\nx = = 1\n", "tool.x", "not valid TOML"),
        ("ci.yaml", "a:\n  b: 1\n", "a: [1, 2\nb: {\n", "a.b", "not valid YAML"),
        ("ci.yml", "a: 1\n", "a: 1\n---\nb: 2\n", "a", "not valid YAML"),
        ("latin1.json", '{"a": 1}', b'{"a": "\xe9"}', "a", "not valid JSON"),
        ("latin1.toml", "a = 1", b'a = "\xe9"', "a", "not UTF-8"),
    ],
)
def test_unparseable_documents_are_unreadable_and_stale(
    git_repo: Path, name: str, good: str, broken: str | bytes, field: str, why: str
) -> None:
    path = git_repo / name
    path.write_text(good)
    entry = f"{name}#{field}"
    recorded = record(git_repo, [entry])
    if isinstance(broken, bytes):
        path.write_bytes(broken)
    else:
        path.write_text(broken)
    (drift,) = check(git_repo, [entry], recorded)
    assert drift.reason == "unreadable"
    assert drift.now == "unreadable"
    assert drift.detail is not None
    assert why in drift.detail
    assert why in drift.describe()
    # Recording a broken document records why, and the lesson stays stale until it is fixed.
    assert "unreadable" in record(git_repo, [entry])[entry]
    assert [d.reason for d in check(git_repo, [entry])] == ["unreadable"]


@pytest.mark.parametrize(
    ("field", "detail"),
    [
        ("name.first", "name is a string, not a table or list"),
        ("list.key", "list is a list: use an index such as list.0"),
        ("list.5", "list has 2 item(s), no index 5"),
        ("flag.x", "flag is a boolean"),
        ("none.x", "none is a null"),
        ('list."0"', "list is a list"),
    ],
)
def test_field_path_into_a_scalar_or_list_is_absent_with_a_reason(
    git_repo: Path, field: str, detail: str
) -> None:
    doc = git_repo / "package.json"
    doc.write_text('{"name": "demo", "list": [1, 2], "flag": true, "none": null}')
    entry = f"package.json#{field}"
    assert record(git_repo, [entry]) == {entry: {"absent": True}}
    doc.write_text(
        '{"name": {"first": "x"}, "list": {"key": 1, "5": 2, "0": 3}, "flag": {"x": 1}, "none": {"x": 1}}'
    )
    (drift,) = check(git_repo, [entry], {entry: {"hash": "xxh3:0", "value": '"old"'}})
    assert drift.reason == "changed"
    doc.write_text('{"name": "demo", "list": [1, 2], "flag": true, "none": null}')
    (drift,) = check(git_repo, [entry], {entry: {"hash": "xxh3:0", "value": '"old"'}})
    assert drift.reason == "removed"
    assert drift.detail is not None
    assert detail in drift.detail
    assert detail in drift.describe()


def test_directory_symlink_loops_are_harmless(git_repo: Path) -> None:
    (git_repo / "tests" / "unit").mkdir(parents=True)
    (git_repo / "tests" / "unit" / "a.test.ts").write_text("x")
    os.symlink("..", git_repo / "tests" / "unit" / "loop")
    os.symlink("b", git_repo / "a")
    os.symlink("a", git_repo / "b")
    entries = ["tests/", "./", "a/", "a", "**/*.ts"]
    recorded = record(git_repo, entries)
    # A link is a file to git: `loop` is a file of no extension, never followed.
    assert recorded["tests/"]["kinds"] == ["", ".test.ts"]
    assert recorded["a/"] == {"unreadable": "is a symbolic link: fingerprint the directory it points to"}
    assert "symbolic link loop" in recorded["a"]["unreadable"]
    assert recorded["**/*.ts"] == {"matches": True}
    assert [d.input for d in check(git_repo, entries, recorded)] == ["a/", "a"]


def test_a_fifo_is_unreadable_not_a_hang(git_repo: Path) -> None:
    os.mkfifo(git_repo / "pipe.json")
    recorded = record(git_repo, ["pipe.json", "pipe.json#a"])
    assert recorded == {
        "pipe.json": {"unreadable": "is not a regular file: fingerprint a regular file"},
        "pipe.json#a": {"unreadable": "is not a regular file: fingerprint a regular file"},
    }


def test_a_file_that_cannot_be_opened_is_unreadable(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (git_repo / "secret.json").write_text('{"a": 1}')
    recorded = record(git_repo, ["secret.json", "secret.json#a"])

    def denied(path: str) -> Any:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(facts_module, "open_file", denied)
    drifts = check(git_repo, ["secret.json", "secret.json#a"], recorded)
    assert [(d.reason, d.detail) for d in drifts] == [
        ("unreadable", "cannot read (Permission denied): check permissions"),
        ("unreadable", "cannot read (Permission denied): check permissions"),
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission_is_unreadable(git_repo: Path) -> None:
    path = git_repo / "secret.txt"
    path.write_text("x")
    path.chmod(0)
    try:
        assert record(git_repo, ["secret.txt"]) == {
            "secret.txt": {"unreadable": "cannot read (Permission denied): check permissions"}
        }
    finally:
        path.chmod(0o644)


def test_a_2gb_file_in_a_fingerprinted_dir_is_never_read(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = git_repo / "data"
    data.mkdir()
    (data / "small.csv").write_text("a,b\n")
    subprocess.run(["truncate", "-s", "2G", str(data / "huge.bin")], check=True)
    opened: list[str] = []
    real_open = facts_module.open_file
    monkeypatch.setattr(facts_module, "open_file", lambda path: opened.append(path) or real_open(path))
    started = time.process_time()
    recorded = record(git_repo, ["data/", "data/**/*.bin", "data/huge.bin", "data/huge.bin.json#a"])
    assert time.process_time() - started < 2.0
    assert recorded["data/"]["kinds"] == [".bin", ".csv"]
    assert recorded["data/**/*.bin"] == {"matches": True}
    assert "over the 256 MiB limit" in recorded["data/huge.bin"]["unreadable"]
    assert recorded["data/huge.bin.json#a"] == {"absent": True}
    assert opened == []


def test_a_link_out_of_the_repository_is_not_read(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"token": "s3cret"}')
    os.symlink(outside, git_repo / "config.json")
    recorded = record(git_repo, ["config.json#token"])
    assert "resolves outside the repository" in recorded["config.json#token"]["unreadable"]


def test_malformed_entries_in_a_lesson_are_reported_not_raised(git_repo: Path) -> None:
    drifts = check(git_repo, ["../x", "/etc/passwd"], {})
    assert [(d.input, d.reason) for d in drifts] == [("../x", "unreadable"), ("/etc/passwd", "unreadable")]
    assert drifts[0].detail is not None
    assert "invalid entry" in drifts[0].detail
