"""The recall index: built from lesson files, refreshed incrementally, rebuilt when damaged."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.lessons import file
from reasonlessons.lessons.locations import Locations
from reasonlessons.recall import index as index_mod
from reasonlessons.recall.api import Recaller
from reasonlessons.recall.index import INDEX_FILE, LessonIndex
from tests.paths import RESOURCES

RESOURCES = RESOURCES / "recall"
HOUR_NS = 3600 * 1_000_000_000


def age(*paths: Path) -> None:
    """Backdate files and directories by an hour, past the racy window (as on a real machine)."""
    old = time.time_ns() - HOUR_NS
    for path in paths:
        for item in [path, *path.rglob("*")] if path.is_dir() else [path]:
            os.utime(item, ns=(old, old), follow_symlinks=False)


@pytest.fixture
def loc(make_repo: Callable[[str], Path]) -> Locations:
    repo = make_repo("recall-ts")
    loc = Locations.discover(repo)
    age(loc.project_dir)
    return loc


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the lesson files the index parses."""
    seen: list[str] = []
    real = file.read_lesson

    def counting(path: Path, *, scope: str | None = None) -> Any:
        seen.append(path.name)
        return real(path, scope=scope)

    monkeypatch.setattr(file, "read_lesson", counting)
    return seen


def test_build_indexes_promoted_lessons_but_not_candidates(loc: Locations) -> None:
    idx = LessonIndex(loc)
    idx.ensure()
    assert (loc.state_dir / INDEX_FILE).is_file()
    assert (loc.state_dir / ".gitignore").is_file()
    names = {info.name for info in idx.docs(range(1, 100)).values()}
    assert names == {"testing", "esm-imports", "repo-map", "old-runner", "legacy-jest", "expired-tip"}
    assert idx.n_docs == 6
    assert idx.avgdl > 0
    assert idx.superseded(["legacy-jest", "testing"]) == {"legacy-jest"}


def test_unchanged_files_are_not_parsed_again(loc: Locations, parses: list[str]) -> None:
    LessonIndex(loc).ensure()
    assert len(parses) == 6
    parses.clear()
    LessonIndex(loc).ensure()
    assert parses == []


def test_only_changed_new_and_removed_files_are_touched(loc: Locations, parses: list[str]) -> None:
    LessonIndex(loc).ensure()
    parses.clear()
    (loc.project_dir / "old-runner.md").unlink()
    (loc.project_dir / "date-parsing.md").write_bytes((RESOURCES / "ungated.md").read_bytes())
    testing = loc.project_dir / "testing.md"
    testing.write_text(testing.read_text().replace("run via `npm test`", "run via `npm t`"))
    idx = LessonIndex(loc)
    idx.ensure()
    assert sorted(parses) == ["date-parsing.md", "testing.md"]
    names = {info.name for info in idx.docs(range(1, 100)).values()}
    assert "old-runner" not in names
    assert "date-parsing" in names


def test_a_warm_recall_imports_neither_yaml_nor_typer(loc: Locations) -> None:
    Recaller(loc).recall("add a test", files=["tests/foo.test.ts"])
    code = (
        "import sys\n"
        "from reasonlessons.cli.fast.recall import main\n"
        "main(['add a unit test', '--file', 'tests/foo.test.ts', '--format', 'json'])\n"
        "heavy = ('yaml', 'frontmatter', 'typer', 'click', 'orjson', 'git')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=loc.root, capture_output=True, text=True, check=True
    ).stdout
    assert '"name": "testing"' in out
    assert out.rstrip().endswith("HEAVY []")


def test_a_damaged_index_is_rebuilt(loc: Locations) -> None:
    LessonIndex(loc).ensure()
    path = loc.state_dir / INDEX_FILE
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    result = Recaller(loc).recall("add a unit test", files=["tests/foo.test.ts"])
    assert [lesson.name for lesson in result.lessons][:1] == ["testing"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0] == 6


def test_an_index_that_fails_mid_query_is_rebuilt(loc: Locations, monkeypatch: pytest.MonkeyPatch) -> None:
    recaller = Recaller(loc)
    recaller.recall("add a unit test", files=["tests/foo.test.ts"])
    calls = {"n": 0}
    real = LessonIndex.term_stats

    def flaky(self: LessonIndex, terms: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return real(self, terms)

    monkeypatch.setattr(LessonIndex, "term_stats", flaky)
    result = recaller.recall("add a unit test", files=["tests/foo.test.ts"])
    assert calls["n"] == 2
    assert result.lessons[0].name == "testing"


def test_an_unwritable_state_dir_still_recalls_and_warns(loc: Locations) -> None:
    loc.state_dir.parent.mkdir(parents=True, exist_ok=True)
    loc.state_dir.write_text("not a directory")
    result = Recaller(loc).recall("add a unit test", files=["tests/foo.test.ts"])
    assert result.lessons[0].name == "testing"
    assert any("recall index not saved" in w for w in result.warnings)


def test_no_lessons_anywhere_means_no_index_and_no_state(git_repo: Path) -> None:
    loc = Locations.discover(git_repo)
    idx = LessonIndex(loc)
    idx.ensure()
    assert idx.empty
    assert Recaller(loc).recall("add a test", files=["a.ts"], task_type="code-gen").lessons == []
    assert not (git_repo / ".reasonix").exists()


def test_an_in_place_edit_of_a_returned_lesson_is_seen_at_once(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_mod, "ALWAYS_SWEEP_MAX", 0)  # behave like a 10,000-lesson repo
    recaller = Recaller(loc)
    assert "npm test" in recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons[0].text
    testing = loc.project_dir / "testing.md"
    inode = testing.stat().st_ino
    with testing.open("r+") as handle:  # in place: same inode, directory mtime unchanged
        text = handle.read().replace("npm test", "pnpm test")
        handle.seek(0)
        handle.write(text)
    assert testing.stat().st_ino == inode
    assert "pnpm test" in recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons[0].text


def test_a_lesson_added_while_the_directory_stamp_is_racy_is_seen(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_mod, "ALWAYS_SWEEP_MAX", 0)  # only a changed directory makes a sweep
    (loc.project_dir / "date-parsing.md").write_bytes((RESOURCES / "ungated.md").read_bytes())
    LessonIndex(loc).ensure()  # the directory changed just now: its stamp is racy
    text = (RESOURCES / "ungated.md").read_text().replace("name: date-parsing", "name: time-parsing")
    (loc.project_dir / "time-parsing.md").write_text(text)  # within the same racy window
    idx = LessonIndex(loc)
    idx.ensure()
    assert "time-parsing" in {info.name for info in idx.docs(range(1, 100)).values()}


def test_in_place_edits_elsewhere_are_seen_by_the_periodic_sweep(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_mod, "ALWAYS_SWEEP_MAX", 0)
    recaller = Recaller(loc)
    recaller.recall("add a unit test", files=["tests/foo.test.ts"])
    age(loc.state_dir / INDEX_FILE)  # the last sweep was an hour ago
    expired = loc.project_dir / "expired-tip.md"
    with expired.open("r+") as handle:
        text = handle.read().replace("expires-at: 2026-01-01", "expires-at: 2099-01-01")
        handle.seek(0)
        handle.write(text)
    names = [
        lesson.name for lesson in recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons
    ]
    assert "expired-tip" in names


def _image_rows(conn: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    tables = ("files", "docs", "supersedes", "kw", "globs", "cmds", "terms")
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}


def test_a_build_in_worker_processes_gives_the_same_image(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big first build reads its files in a pool (indexbuild.read_entries); the image is the one
    an in-process build writes, row for row (ids, posting order and all)."""
    from reasonlessons.recall import indexbuild

    (loc.project_dir / "broken.md").write_text("no frontmatter here\n", encoding="utf-8")
    listing = indexbuild.list_files(LessonIndex(loc).scoped_dirs, time.time_ns())
    assert len(listing) >= 4
    images = []
    for workers in (0, 2):
        if workers:  # only the workers (fresh interpreters) may read the files now
            monkeypatch.setattr(indexbuild, "read_entry", lambda *_: pytest.fail("read in-process"))
        image = indexbuild.new_image(None)
        indexbuild.apply(image, listing, workers=workers)
        images.append(_image_rows(image))
    here, pooled = images
    assert here == pooled
    assert here["docs"]
    assert here["terms"]
    assert any(doc is None for *_, doc in here["files"])


def test_an_update_files_new_lessons_after_the_kept_ones(loc: Locations) -> None:
    """Incremental: a changed file is dropped and filed again under an id above every kept one, so
    posting lists stay in id order, and unchanged files keep their rows."""
    from reasonlessons.recall import indexbuild, postings

    idx = LessonIndex(loc)
    listing = indexbuild.list_files(idx.scoped_dirs, time.time_ns())
    image = indexbuild.new_image(None)
    indexbuild.apply(image, listing)
    before = dict(image.execute("SELECT path, doc FROM files").fetchall())
    first = sorted(listing)[0]
    scope, _ = listing[first]
    assert indexbuild.apply(image, {**listing, first: (scope, "changed")}) == 1
    after = dict(image.execute("SELECT path, doc FROM files").fetchall())
    assert after[first] > max(d for p, d in before.items() if p != first)
    assert {p: d for p, d in after.items() if p != first} == {p: d for p, d in before.items() if p != first}
    for term, docs in image.execute("SELECT term, docs FROM terms"):
        ids = list(postings.view(docs))
        assert ids == sorted(ids), term


def test_impact_order_puts_the_highest_shares_first_and_bounds_the_rest() -> None:
    """Positions by share, highest first, equal shares in document order; the next posting's share
    bounds every later one, also at another average document length."""
    from array import array

    from reasonlessons.recall import bm25, postings

    rng = random.Random(3)
    tfs = array("I", [rng.randint(1, 5) for _ in range(300)])
    dls = array("I", [rng.choice([5, 10, 10, 40, 200]) for _ in range(300)])
    order = postings.impact_order(tfs, dls, 20.0)
    assert sorted(order) == list(range(300))
    keys = [(-bm25.contribution(1.0, tfs[i], dls[i], 20.0), i) for i in order]
    assert keys == sorted(keys)
    lists = postings.Lists(array("I", range(300)), tfs, dls, 20.0)
    for avgdl in (5.0, 20.0, 80.0):
        for read in (0, 1, 17, 150, 299):
            bound = postings.rest_bound(1.3, lists, order, read, avgdl)
            assert all(bm25.contribution(1.3, tfs[i], dls[i], avgdl) <= bound for i in order[read:])
        assert postings.rest_bound(1.3, lists, order, 300, avgdl) == 0.0


def test_a_lesson_superseding_or_shadowing_one_a_warm_recaller_returned_removes_it(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index keeps, while its image stays open, which names are superseded and which have a
    project lesson: a lesson added after a warm turn changes both, and the next turn sees it."""
    monkeypatch.setattr(index_mod, "ALWAYS_SWEEP_MAX", 0)  # only a changed directory makes a sweep
    global_dir = loc.global_dir
    global_dir.mkdir(parents=True, exist_ok=True)
    text = (RESOURCES / "global-testing.md").read_text().replace("name: testing", "name: watching")
    (global_dir / "watching.md").write_text(text)
    age(global_dir)
    recaller = Recaller(loc)
    for _ in range(2):
        lessons = recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons
        assert {"testing", "watching"} <= {lesson.name for lesson in lessons}
    testing = (loc.project_dir / "testing.md").read_text()
    newer = testing.replace("name: testing", "name: newer").replace("[legacy-jest]", "[testing]")
    (loc.project_dir / "newer.md").write_text(newer)
    local = testing.replace("name: testing", "name: watching").replace("supersedes: [legacy-jest]\n", "")
    (loc.project_dir / "watching.md").write_text(local.replace("npm test", "npm run watch"))
    lessons = recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons
    by_name = {lesson.name: lesson for lesson in lessons}
    assert "testing" not in by_name  # superseded by "newer"
    assert by_name["watching"].scope == "project"  # shadows the global one
    assert "npm run watch" in by_name["watching"].text


def test_a_warm_recaller_shows_each_lesson_s_own_text_after_the_index_is_built_anew(
    loc: Locations, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index keeps the texts of lessons it returned while its image stays open; an image built
    anew (its file lost) numbers the lessons again, an edited one under its old id, and the next
    turn shows its new text, as a new Recaller does."""
    monkeypatch.setattr(index_mod, "ALWAYS_SWEEP_MAX", 0)

    def texts(recaller: Recaller) -> list[tuple[str, str]]:
        lessons = recaller.recall("add a unit test", files=["tests/foo.test.ts"]).lessons
        return [(lesson.name, lesson.text) for lesson in lessons]

    recaller = Recaller(loc)
    for _ in range(2):
        assert "npm test" in dict(texts(recaller))["testing"]
    (loc.state_dir / INDEX_FILE).unlink()
    testing = loc.project_dir / "testing.md"
    testing.write_text(testing.read_text().replace("npm test", "npm run check"))
    got = texts(recaller)
    assert "npm run check" in dict(got)["testing"]
    assert got == texts(Recaller(loc))
