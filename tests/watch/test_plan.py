"""The watch plan and the path filter as pure functions; the watch set against a fake file system."""

from __future__ import annotations

import os

import pytest

from reasonlessons.watch.plan import (
    LESSON,
    LESSONS,
    REPLAN,
    SESSION,
    Need,
    Reason,
    SessionRoot,
    WatchPlan,
    build_plan,
    is_temp,
    relevant,
)
from reasonlessons.watch.watchset import Watch, resolve

R = "/r"
STATE = "/r/.reasonix/state"
LESSONS_DIR = "/r/.reasonix/lessons"
GLOBAL_DIR = "/h/.reasonix/lessons"
SESSIONS = "/h/.claude/projects/-r"


def make(lessons: dict[str, list[str]], **kw: object) -> WatchPlan:
    return build_plan(
        R,
        state_dir=STATE,
        lessons=lessons,
        lesson_dirs=[(LESSONS_DIR, R), (GLOBAL_DIR, "/h/.reasonix")],
        session_roots=[SessionRoot(SESSIONS, True, "/h/.claude")],
        **kw,  # type: ignore[arg-type]
    )


PLAN = make(
    {
        "project:testing": ["package.json#scripts.test", "tests/"],
        "project:deep": ["packages/app/config.yaml#ci.jobs.0.name"],
        "project:specs": ["src/**/*.spec.ts"],
        "project:docs": ["docs/*.rst"],
        "global:broken": ["../escape", "tests/"],
    }
)


def keys(path: str, plan: WatchPlan = PLAN, *, is_dir: bool = False) -> set[str]:
    return {r.key for r in relevant(path, plan, is_dir=is_dir) if r.kind == LESSON}


def test_needs_cover_targets_and_every_ancestor_and_never_the_whole_repo() -> None:
    needs = {(n.path, n.recursive) for n in PLAN.needs}
    assert ("/r/tests", True) in needs
    assert ("/r/src", True) in needs  # glob from its literal prefix
    assert ("/r/docs", False) in needs  # one level below the prefix: not recursive
    assert ("/r/packages/app", False) in needs
    assert ("/r/packages", False) in needs  # an ancestor sees the directory being renamed
    assert ("/r", False) in needs
    assert ("/r", True) not in needs
    assert ("/r/.git/info", False) in needs  # dir/ and glob entries depend on .git/info/exclude
    assert (LESSONS_DIR, False) in needs
    assert (GLOBAL_DIR, False) in needs
    assert (SESSIONS, True) in needs
    assert not any(p.startswith(STATE) for p, _ in needs)


def test_file_and_field_entries_match_only_their_file() -> None:
    assert keys("/r/package.json") == {"project:testing"}
    assert keys("/r/package-lock.json") == set()
    assert keys("/r/packages/app/config.yaml") == {"project:deep"}
    assert keys("/r/packages/app/other.yaml") == set()


def test_dir_entries_match_the_whole_subtree_and_the_directory_itself() -> None:
    assert keys("/r/tests/unit/a.test.ts") == {"project:testing", "global:broken"}
    assert keys("/r/tests", is_dir=True) == {"project:testing", "global:broken"}
    assert keys("/r/testsuite/a.ts") == set()


def test_ancestors_matter_when_renamed_or_removed() -> None:
    assert keys("/r/packages", is_dir=True) == {"project:deep"}
    assert Reason(REPLAN, "/r/packages") in relevant("/r/packages", PLAN, is_dir=True)
    # A file event deep in a recursive watch needs no re-plan.
    assert not any(r.kind == REPLAN for r in relevant("/r/tests/unit", PLAN, is_dir=True))


def test_globs_match_below_their_prefix_within_reach() -> None:
    assert keys("/r/src/a/b/c.spec.ts") == {"project:specs"}
    assert keys("/r/src/x.ts") == {"project:specs"}  # '**' : any path may add or remove a match
    assert keys("/r/docs/guide.rst") == {"project:docs"}
    assert keys("/r/docs/sub/guide.rst") == set()  # out of reach of `docs/*.rst`
    assert keys("/r/docs", is_dir=True) == {"project:docs"}


def test_gitignore_changes_reach_dir_and_glob_entries_below_them() -> None:
    every_shape = {"project:testing", "project:specs", "project:docs", "global:broken"}
    assert keys("/r/.gitignore") == every_shape
    assert keys("/r/src/.gitignore") == {"project:specs"}
    assert keys("/r/.git/info/exclude") == every_shape


def test_git_internals_state_dir_and_own_output_are_ignored() -> None:
    assert relevant("/r/.git/HEAD", PLAN) == set()
    assert relevant("/r/.git/refs/heads/main", PLAN) == set()
    assert relevant("/r/.git/objects/ab/cdef", PLAN) == set()
    assert relevant(f"{STATE}/fingerprint-cache.marshal", PLAN) == set()
    assert relevant(f"{STATE}/watch.json", PLAN) == set()
    assert relevant(STATE, PLAN, is_dir=True) == set()


@pytest.mark.parametrize(
    "name",
    [".a.test.ts.swp", "a.test.ts~", ".#a.test.ts", "4913", ".package.json.x1y2.tmp", "a.ts___jb_tmp___"],
)
def test_editor_temp_files_do_not_wake_dir_entries(name: str) -> None:
    assert is_temp(name)
    assert keys(f"/r/tests/{name}") == set()


def test_a_temp_looking_file_that_is_itself_fingerprinted_still_counts() -> None:
    plan = make({"project:odd": ["build/out.tmp"]})
    assert keys("/r/build/out.tmp", plan) == {"project:odd"}


def test_lesson_files_and_lesson_dirs() -> None:
    assert relevant(f"{LESSONS_DIR}/testing.md", PLAN) == {Reason(LESSONS, f"{LESSONS_DIR}/testing.md")}
    assert relevant(f"{GLOBAL_DIR}/mine.md", PLAN) == {Reason(LESSONS, f"{GLOBAL_DIR}/mine.md")}
    assert relevant(f"{LESSONS_DIR}/.testing.md.abc.tmp", PLAN) == set()
    assert relevant(f"{LESSONS_DIR}/_candidates", PLAN, is_dir=True) == set()
    assert relevant(f"{LESSONS_DIR}/notes.txt", PLAN) == set()
    created = relevant("/r/.reasonix", PLAN, is_dir=True)
    assert Reason(LESSONS, "/r/.reasonix") in created
    assert Reason(REPLAN, "/r/.reasonix") in created


def test_session_logs() -> None:
    log = f"{SESSIONS}/0f1e.jsonl"
    assert relevant(log, PLAN) == {Reason(SESSION, log)}
    assert relevant(f"{SESSIONS}/.0f1e.jsonl.swp", PLAN) == set()
    assert relevant("/h/.claude/projects/-other/x.jsonl", PLAN) == set()


def test_no_lessons_still_watches_the_lesson_dirs() -> None:
    plan = make({})
    assert {(n.path, n.recursive) for n in plan.needs} >= {(LESSONS_DIR, False), ("/r/.reasonix", False)}
    assert not any(n.path.startswith("/r/.git") for n in plan.needs)


# -- the watch set against a fake file system ------------------------------------------------------


class FakeFs:
    """Directories as a set of absolute paths; `ignored` names are hidden from git."""

    def __init__(self, dirs: set[str], ignored: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.dirs = set(dirs)
        for d in list(dirs):
            while d != "/":
                d = os.path.dirname(d)
                self.dirs.add(d)
        self.ignored = ignored

    def is_dir(self, path: str) -> bool:
        return path in self.dirs

    def child_dirs(self, path: str) -> tuple[list[str], list[str]]:
        every = sorted(os.path.basename(d) for d in self.dirs if os.path.dirname(d) == path and d != path)
        visible = [n for n in every if n not in self.ignored and n != ".git"]
        return every, visible


def watches(needs: list[Need], fs: FakeFs) -> set[tuple[str, bool]]:
    return {(w.path, w.recursive) for w in resolve(needs, fs, root=R, state_dir=STATE)}


def test_missing_targets_are_watched_through_the_nearest_existing_ancestor() -> None:
    fs = FakeFs({"/r/.git"})
    assert watches([Need("/r/tests", True, R), Need("/r/a/b", False, R)], fs) == {("/r", False)}


def test_missing_floor_means_no_watch() -> None:
    assert watches([Need("/h/.codex/sessions", True, "/h/.codex")], FakeFs({"/r/.git", "/h"})) == set()


def test_a_recursive_watch_never_covers_ignored_dirs_git_or_state() -> None:
    fs = FakeFs({"/r/.git", "/r/web/src", "/r/web/node_modules/x/y", STATE, LESSONS_DIR}, {"node_modules"})
    got = watches([Need("/r/web", True, R), Need("/r", True, R)], fs)
    assert ("/r/web", False) in got
    assert ("/r/web/src", True) in got
    assert not any(p.startswith("/r/web/node_modules") for p, _ in got)
    assert ("/r", False) in got
    assert ("/r/.reasonix", False) in got
    assert (LESSONS_DIR, True) in got
    assert not any(p.startswith("/r/.git") or p.startswith(STATE) for p, _ in got)


def test_nested_watches_under_a_recursive_one_collapse() -> None:
    fs = FakeFs({"/r/.git", "/r/tests/unit"})
    assert watches([Need("/r/tests", True, R), Need("/r/tests/unit", False, R)], fs) == {("/r/tests", True)}


def test_lossless_coalescing_merges_fully_covered_parents_but_never_the_root() -> None:
    dirs = {"/r/.git"} | {f"/r/packages/p{i}/{sub}" for i in range(3) for sub in ("src", "tests")}
    needs = [Need(f"/r/packages/p{i}/{sub}", True, R) for i in range(3) for sub in ("src", "tests")]
    needs += [Need(f"/r/packages/p{i}", False, R) for i in range(3)]
    needs += [Need("/r/packages", False, R), Need("/r", False, R)]
    assert watches(needs, FakeFs(dirs)) == {("/r", False), ("/r/packages", True)}


def test_coalescing_skips_parents_with_unwatched_or_ignored_children() -> None:
    dirs = {"/r/.git", "/r/p/src", "/r/p/docs", "/r/q/src", "/r/q/dist"}
    needs = [Need("/r/p/src", True, R), Need("/r/p", False, R)]
    needs += [Need("/r/q/src", True, R), Need("/r/q", False, R)]
    got = watches([*needs, Need("/r", False, R)], FakeFs(dirs, {"dist"}))
    assert got == {("/r", False), ("/r/p", False), ("/r/p/src", True), ("/r/q", False), ("/r/q/src", True)}


def test_watch_is_a_plain_tuple() -> None:
    assert Watch("/r", False) == ("/r", False)
