"""The store: scopes, name rules, promote/reject/rm, bad entries reported and left untouched."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.errors import (
    InvalidNameError,
    LessonExistsError,
    LessonNotFoundError,
    StoreWriteError,
    UsageError,
)
from reasonlessons.lessons.locations import Locations
from reasonlessons.store.scopes import LessonStore

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


def recorder(root: Path, entries: Sequence[str], scope: str) -> dict[str, Any]:
    if scope == SCOPE_GLOBAL:
        return {"applies-when": dict.fromkeys(entries, "present")}
    return {"fingerprint-recorded": {entry: {"hash": f"h-{entry}"} for entry in entries}}


@pytest.fixture
def store(tmp_path: Path) -> LessonStore:
    loc = Locations(root=tmp_path / "repo", home=tmp_path / "home" / ".reasonix")
    loc.root.mkdir(parents=True)
    return LessonStore(loc, now=lambda: NOW, recorder=recorder)


def test_add_writes_a_project_lesson_with_recorded_hashes(store: LessonStore) -> None:
    lesson = store.add("testing", description="Test runner", fingerprint=["tests/"], body="- npm test")
    assert lesson.path == store.loc.project_dir / "testing.md"
    found = store.find("testing")
    assert found.scope == SCOPE_PROJECT
    assert found.meta["fingerprint-recorded"] == {"tests/": {"hash": "h-tests/"}}
    assert found.meta["captured-at"] == dt.date(2026, 11, 21)
    assert (store.loc.state_dir / ".gitignore").read_text().splitlines()[-1] == "*"


def test_add_refuses_to_overwrite(store: LessonStore) -> None:
    store.add("testing", description="one")
    with pytest.raises(LessonExistsError, match="already exists"):
        store.add("testing", description="two")
    assert store.find("testing").description == "one"


@pytest.mark.parametrize("name", ["a/b", "../x", "..", "Testing", "x" * 200, "", "-lead", "a b"])
def test_hostile_names_are_refused_before_any_write(store: LessonStore, name: str) -> None:
    with pytest.raises(InvalidNameError, match="invalid lesson name"):
        store.add(name, description="d")
    assert not store.loc.project_dir.exists()
    assert not (store.loc.root.parent / "x.md").exists()


def test_description_must_be_one_line(store: LessonStore) -> None:
    with pytest.raises(UsageError, match="one non-empty line"):
        store.add("testing", description="two\nlines")


def test_project_wins_over_global(store: LessonStore) -> None:
    store.add("style", description="global one", scope=SCOPE_GLOBAL)
    assert store.find("style").scope == SCOPE_GLOBAL
    store.add("style", description="project one")
    assert store.find("style").description == "project one"


def test_promote_moves_a_candidate(store: LessonStore) -> None:
    store.add("idea", description="d", scope=SCOPE_CANDIDATE)
    lesson = store.promote("idea")
    assert lesson.scope == SCOPE_PROJECT
    assert (store.loc.project_dir / "idea.md").is_file()
    assert not (store.loc.candidates_dir / "idea.md").exists()


def test_promote_global(store: LessonStore) -> None:
    store.add("idea", description="d", scope=SCOPE_CANDIDATE)
    store.promote("idea", to_global=True)
    assert (store.loc.home / "lessons" / "idea.md").is_file()
    assert not (store.loc.candidates_dir / "idea.md").exists()


def test_promote_global_keeps_conditions_not_values(store: LessonStore) -> None:
    """A global lesson applies to a kind of repository (docs/fingerprints.md#global-lessons)."""
    store.add("idea", description="d", fingerprint=["tests/"], scope=SCOPE_CANDIDATE)
    lesson = store.promote("idea", to_global=True)
    assert lesson.meta["applies-when"] == {"tests/": "present"}
    assert "fingerprint-recorded" not in lesson.meta
    assert store.find("idea", (SCOPE_GLOBAL,)).meta["applies-when"] == {"tests/": "present"}


def test_promote_finishes_an_interrupted_promote(store: LessonStore) -> None:
    store.add("idea", description="d", scope=SCOPE_CANDIDATE)
    candidate = store.loc.candidates_dir / "idea.md"
    target = store.loc.project_dir / "idea.md"
    target.write_bytes(candidate.read_bytes())  # as if killed between write and unlink
    store.promote("idea")
    assert target.is_file()
    assert not candidate.exists()


def test_promote_refuses_to_clobber_a_different_lesson(store: LessonStore) -> None:
    store.add("idea", description="promoted")
    store.add("idea", description="candidate", scope=SCOPE_CANDIDATE)
    with pytest.raises(LessonExistsError, match="different content"):
        store.promote("idea")
    assert store.find("idea").description == "promoted"
    assert (store.loc.candidates_dir / "idea.md").exists()


def test_promote_auto_respects_the_delay(store: LessonStore) -> None:
    store.add("old", description="old one", scope=SCOPE_CANDIDATE)
    store.now = lambda: NOW + dt.timedelta(days=5)
    store.add("new", description="new one", scope=SCOPE_CANDIDATE)
    store.now = lambda: NOW + dt.timedelta(days=8)
    promoted = store.promote_auto(dt.timedelta(days=7))
    assert [lesson.name for lesson in promoted] == ["old"]
    assert (store.loc.candidates_dir / "new.md").exists()


def test_reject_is_remembered_by_name_and_content(store: LessonStore) -> None:
    store.add("idea", description="Use pnpm", body="- pnpm i", scope=SCOPE_CANDIDATE)
    store.reject("idea")
    assert not (store.loc.candidates_dir / "idea.md").exists()
    again = store.add("idea-2", description="use  PNPM", body="- pnpm i", scope=SCOPE_CANDIDATE)
    assert store.is_rejected(again)
    other = store.add("other", description="Use yarn", scope=SCOPE_CANDIDATE)
    assert not store.is_rejected(other)


def test_reject_and_rm_of_missing_names_say_what_to_do(store: LessonStore) -> None:
    with pytest.raises(LessonNotFoundError, match="list --scope candidates"):
        store.reject("nope")
    store.add("idea", description="d", scope=SCOPE_CANDIDATE)
    with pytest.raises(LessonNotFoundError, match="reject it"):
        store.remove("idea")


def test_rm_deletes_only_the_named_scope(store: LessonStore) -> None:
    store.add("style", description="g", scope=SCOPE_GLOBAL)
    store.add("style", description="p")
    store.remove("style")
    assert store.find("style").scope == SCOPE_GLOBAL


def test_scan_reports_bad_entries_and_keeps_going(store: LessonStore) -> None:
    store.add("good", description="fine")
    store.add("cand", description="fine too", scope=SCOPE_CANDIDATE)
    pdir, cdir = store.loc.project_dir, store.loc.candidates_dir
    (pdir / "broken.md").write_text("---\nname: [oops\n---\n")
    (pdir / "notes.txt").write_text("x")
    (cdir / "adir.md").mkdir()
    (cdir / "dangling.md").symlink_to(cdir / "nowhere.md")
    (cdir / "Bad Name.md").write_text("x")
    before = {p: p.lstat().st_mtime_ns for p in pdir.rglob("*")}
    scan = store.scan()
    assert sorted(lesson.name for lesson in scan.lessons) == ["cand", "good"]
    messages = {bad.path.name: bad.message for bad in scan.bad}
    assert set(messages) == {"broken.md", "notes.txt", "adir.md", "dangling.md", "Bad Name.md"}
    assert "malformed YAML" in messages["broken.md"]
    assert "directory" in messages["adir.md"]
    assert "dangling symlink" in messages["dangling.md"]
    assert before == {p: p.lstat().st_mtime_ns for p in pdir.rglob("*")}


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_unwritable_lessons_dir_gives_a_clear_error(store: LessonStore) -> None:
    store.add("first", description="d")
    store.loc.project_dir.chmod(0o500)
    try:
        with pytest.raises(StoreWriteError, match="check"):
            store.add("second", description="d")
    finally:
        store.loc.project_dir.chmod(0o700)
    assert [lesson.name for lesson in store.scan().lessons] == ["first"]


def test_unwritable_lessons_dir_as_root_via_a_file_in_the_way(store: LessonStore) -> None:
    # Root bypasses permission bits, so make the directory impossible instead: a file where it should be.
    store.loc.root.joinpath(".reasonix").write_text("not a directory")
    with pytest.raises(StoreWriteError, match="cannot"):
        store.add("first", description="d")
    assert store.loc.root.joinpath(".reasonix").read_text() == "not a directory"
