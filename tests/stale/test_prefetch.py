"""A cold `stale` split with a forked child (reasonlessons/stale/prefetch.py) gives the same answer and
leaves the same caches as one done in a single process, whether the child finishes or fails."""

from __future__ import annotations

import datetime as dt
import marshal
import os
import threading
from pathlib import Path
from typing import Any

import pytest
import time_machine

from reasonlessons.stale import meta_cache, prefetch
from reasonlessons.stale.scan import scan_stale
from tests.repos import commit_all
from tests.stale.lessonrepo import add, project_of

CACHE, INDEX = "fingerprint-cache.marshal", "lesson-meta.marshal"
LINUX = pytest.mark.skipif(
    not hasattr(os, "fork") or os.uname().sysname != "Linux", reason="forks on Linux only"
)


@pytest.fixture
def repo(git_repo: Path) -> Path:
    for pkg in ("a", "b", "c"):
        (git_repo / pkg / "tests" / "unit").mkdir(parents=True)
        (git_repo / pkg / "tests" / "unit" / "x.test.ts").write_text("it()\n")
        (git_repo / pkg / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
        (git_repo / pkg / "config.yaml").write_text("ci:\n  jobs:\n    - name: test\n")
    (git_repo / ".gitignore").write_text("*.log\n")
    commit_all(git_repo, "packages")
    for pkg in ("a", "b", "c"):
        add(git_repo, f"{pkg}-runner", f"{pkg}/package.json#scripts.test", f"{pkg}/tests/")
        add(git_repo, f"{pkg}-glob", f"{pkg}/tests/**/*.test.ts", f"{pkg}/config.yaml#ci.jobs.0.name")
        add(git_repo, f"{pkg}-file", f"{pkg}/package.json", f"{pkg}/docs/*.rst", "missing.txt")
    add(git_repo, "old", "a/package.json", status="deprecated")
    add(git_repo, "shared", "b/package.json", scope="global")
    add(git_repo, "shared", "c/package.json")
    commit_all(git_repo, "lessons")
    (git_repo / "a" / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
    (git_repo / "b" / "tests" / "unit" / "x.spec.ts").write_text("it()\n")
    (git_repo / "c" / "tests" / "unit" / "x.test.ts").unlink()
    commit_all(git_repo, "drifts")
    (git_repo / "b" / "docs").mkdir()
    (git_repo / "b" / "docs" / "guide.rst").write_text("uncommitted\n")
    lessons = git_repo / ".reasonix" / "lessons"
    (lessons / "broken.md").write_text("---\nname: [unclosed\n---\n")
    return git_repo


def answer(repo: Path) -> tuple[Any, ...]:
    """Everything a cold check yields; run minutes later, so every fact is old enough to be cached."""
    state = repo / ".reasonix" / "state"
    for name in (CACHE, INDEX, "stale-result.marshal"):
        (state / name).unlink(missing_ok=True)
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10), tick=True):
        result = scan_stale(project_of(repo))
    caches = [marshal.loads((state / name).read_bytes()) for name in (CACHE, INDEX)]
    for doc in caches:
        doc.pop("gen", None)
    reports = [(r.name, r.scope, r.to_json()) for r in result.reports]
    return reports, result.checked, [(b.path, b.message) for b in result.bad], result.valid_until, caches


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork even a small check on a busy machine; the pids of the children forked."""
    monkeypatch.setattr(prefetch, "MIN_LESSONS", 2)
    monkeypatch.setattr(prefetch, "_idle_processors", lambda: 2.0)
    pids: list[int] = []
    real = prefetch._fork

    def counting(work: Any) -> Any:
        child = real(work)
        if child is not None:
            pids.append(child[0])
        return child

    monkeypatch.setattr(prefetch, "_fork", counting)
    return pids


def single_process(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    with monkeypatch.context() as patch:
        patch.setattr(prefetch, "MIN_LESSONS", 10**9)
        return answer(repo)


@LINUX
def test_a_split_check_gives_the_same_answer_and_caches(
    repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = single_process(repo, monkeypatch)
    assert not forks
    stale = {name for name, _, _ in expected[0]}
    assert stale == {"a-runner", "a-file", "b-runner", "b-file", "c-runner", "c-glob"}
    assert any("commit" in d for _, _, report in expected[0] for d in report["drift"])
    assert all(doc[section] for doc in expected[4][:1] for section in ("files", "fields", "dirs", "globs"))
    assert answer(repo) == expected
    assert len(forks) == 1


@LINUX
def test_a_split_check_lists_the_lesson_scopes_once(
    repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = meta_cache.files

    def counting(*args: Any) -> Any:
        calls.append(os.getpid())
        return real(*args)

    monkeypatch.setattr(meta_cache, "files", counting)
    answer(repo)
    assert len(forks) == 1
    assert calls == [os.getpid()]


@LINUX
def test_a_failing_child_changes_nothing(
    repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = single_process(repo, monkeypatch)
    parent = os.getpid()
    real = prefetch._check

    def failing_in_the_child(*args: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(*args)

    monkeypatch.setattr(prefetch, "_check", failing_in_the_child)
    assert answer(repo) == expected
    assert len(forks) == 1


def test_no_fork_on_a_busy_machine(repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefetch, "_idle_processors", lambda: 0.5)
    answer(repo)
    assert not forks


def test_no_fork_with_other_threads_running_or_warm_caches(repo: Path, forks: list[int]) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        answer(repo)
    finally:
        stop.set()
        thread.join()
    assert not forks
    scan_stale(project_of(repo))  # both caches there: nothing to split
    assert not forks


def looked_at(repo: Path) -> tuple[set[str], set[str]]:
    from reasonlessons.fingerprint.deps import Deps

    for name in (CACHE, INDEX, "stale-result.marshal"):
        (repo / ".reasonix" / "state" / name).unlink(missing_ok=True)
    deps = Deps()
    scan_stale(project_of(repo), deps=deps)
    return set(deps.stat), set(deps.lstat)


@LINUX
def test_the_paths_the_child_looked_at_count_for_the_stored_answer(
    repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(prefetch, "MIN_LESSONS", 10**9)
        stat, lstat = looked_at(repo)
    forked_stat, forked_lstat = looked_at(repo)
    assert len(forks) == 1
    assert forked_stat >= stat
    assert forked_lstat >= lstat
    assert str(repo / "c" / "package.json") in forked_stat  # a path only the child's half reads


@LINUX
def test_a_change_the_child_saw_invalidates_the_stored_answer(
    repo: Path, forks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from reasonlessons.cli.fast.stale import stale_main

    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=10), tick=True):
        stale_main(repo, check=False, as_json=True)
        assert len(forks) == 1
        before = {r["name"] for r in json.loads(capsys.readouterr().out)}
        assert "shared" not in before
        (repo / "c" / "package.json").write_text('{"scripts": {"test": "mocha"}}\n')
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=20), tick=True):
        stale_main(repo, check=False, as_json=True)
        after = {r["name"] for r in json.loads(capsys.readouterr().out)}
    assert after == before | {"shared", "c-file"}


@LINUX
def test_a_lesson_rewritten_after_the_split_check_is_checked_again(
    repo: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The split check found c-file fresh; its final pass skips it only while its frontmatter is the
    # one checked (scan.py's `_checked_fresh`). Rewritten in between, it is compared again.
    lesson_file = repo / ".reasonix" / "lessons" / "c-file.md"
    real = meta_cache.scan

    def rewriting(*args: Any, **kwargs: Any) -> Any:
        text = lesson_file.read_text()
        recorded = text.split("c/package.json:\n", 2)[-1]
        old_hash = recorded.split("hash: ", 1)[1].split("\n", 1)[0]
        lesson_file.write_text(text.replace(old_hash, "xxh3:0000000000000000"))
        return real(*args, **kwargs)

    expected = single_process(repo, monkeypatch)
    assert "c-file" not in {name for name, _, _ in expected[0]}
    monkeypatch.setattr(meta_cache, "scan", rewriting)
    stale = {name for name, _, _ in answer(repo)[0]}
    assert len(forks) == 1
    assert "c-file" in stale
