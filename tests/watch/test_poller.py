"""`--poll`'s stat poller, one pass at a time (`sweep`), so every case is deterministic."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from reasonlessons.watch.poller import StatPoller, _same
from reasonlessons.watch.watchset import Watch

OLD = time.time_ns() - 3600 * 10**9  # an hour ago: past the racy window


class Recorder:
    def __init__(self, follow: set[str] | None = None) -> None:
        self.seen: list[tuple[str, bool]] = []
        self.follow = follow

    def __call__(self, changes: list[tuple[str, bool]]) -> None:
        self.seen.extend(changes)

    def content(self, path: str) -> bool:
        return self.follow is None or os.path.basename(path) in self.follow

    def take(self) -> set[tuple[str, bool]]:
        out, self.seen = set(self.seen), []
        return out


def age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, ns=(OLD, OLD))


def poller(tmp_path: Path, rec: Recorder, *watches: Watch, racy_ns: int = 0) -> StatPoller:
    """No racy window unless asked: utime() cannot age a file's ctime."""
    p = StatPoller(rec, interval=3600, content=rec.content, racy_ns=racy_ns)
    assert p.apply(watches) == []
    return p


def test_followed_files_report_content_changes_others_only_presence(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}\n")
    (tmp_path / "README.md").write_text("hi\n")
    age(tmp_path / "package.json", tmp_path / "README.md", tmp_path)
    rec = Recorder(follow={"package.json"})
    p = poller(tmp_path, rec, Watch(str(tmp_path), False))
    p.sweep()
    assert rec.take() == set()
    (tmp_path / "README.md").write_text("changed\n")
    (tmp_path / "package.json").write_text('{"a": 1}\n')
    p.sweep()
    assert rec.take() == {(str(tmp_path / "package.json"), False)}
    (tmp_path / "new.txt").write_text("x")
    (tmp_path / "README.md").unlink()
    p.sweep()
    assert rec.take() == {(str(tmp_path / "new.txt"), False), (str(tmp_path / "README.md"), False)}


def test_reads_are_never_changes(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}\n")
    rec = Recorder()
    p = poller(tmp_path, rec, Watch(str(tmp_path), True))
    for _ in range(10):
        (tmp_path / "package.json").read_bytes()
    p.sweep()
    assert rec.take() == set()


def test_directories_appear_and_disappear_in_recursive_and_flat_watches(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    age(tests, tmp_path)
    rec = Recorder(follow=set())
    p = poller(tmp_path, rec, Watch(str(tmp_path), False), Watch(str(tests), True))
    (tests / "unit").mkdir()
    (tests / "unit" / "a.test.ts").write_text("x")
    (tmp_path / "docs").mkdir()
    p.sweep()
    assert rec.take() == {
        (str(tests / "unit"), True),
        (str(tests / "unit" / "a.test.ts"), False),
        (str(tmp_path / "docs"), True),
    }
    (tests / "unit" / "a.test.ts").unlink()
    (tests / "unit").rmdir()
    p.sweep()
    assert (str(tests / "unit"), True) in rec.take()


def test_a_watched_directory_deleted_and_recreated(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "a.ts").write_text("x")
    rec = Recorder(follow=set())
    p = poller(tmp_path, rec, Watch(str(tmp_path), False), Watch(str(tests), True))
    (tests / "a.ts").unlink()
    tests.rmdir()
    p.sweep()
    assert (str(tests), True) in rec.take()
    assert p.apply([Watch(str(tmp_path), False), Watch(str(tests), True)]) == [Watch(str(tests), True)]
    tests.mkdir()
    p.sweep()
    assert (str(tests), True) in rec.take()
    assert p.apply([Watch(str(tmp_path), False), Watch(str(tests), True)]) == []
    (tests / "b.spec.ts").write_text("y")
    p.sweep()
    assert (str(tests / "b.spec.ts"), False) in rec.take()


def test_a_change_in_the_same_clock_tick_is_not_missed(tmp_path: Path) -> None:
    target = tmp_path / "package.json"
    target.write_text("aaaa\n")
    rec = Recorder(follow={"package.json"})
    p = poller(tmp_path, rec, Watch(str(tmp_path), False), racy_ns=2_000_000_000)
    st = target.stat()
    target.write_text("bbbb\n")  # same size...
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and the same mtime, as in one tick
    p.sweep()
    assert (str(target), False) in rec.take()


def test_files_to_follow_change_with_the_plan(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}\n")
    age(tmp_path / "a.json", tmp_path)
    rec = Recorder(follow=set())
    p = poller(tmp_path, rec, Watch(str(tmp_path), False))
    rec.follow = {"a.json"}
    p.apply([Watch(str(tmp_path), False)])
    (tmp_path / "a.json").write_text('{"b": 2}\n')
    p.sweep()
    assert rec.take() == {(str(tmp_path / "a.json"), False)}


def test_the_thread_polls_and_stops(tmp_path: Path) -> None:
    got = threading.Event()
    p = StatPoller(lambda changes: got.set(), interval=0.01, content=lambda path: True)
    p.apply([Watch(str(tmp_path), False)])
    p.start()
    try:
        (tmp_path / "x").write_text("x")
        assert got.wait(10)
    finally:
        p.stop()
    assert not any(t.name == "reasonlessons-poller" for t in threading.enumerate())


def test_a_racy_stamp_is_never_the_same() -> None:
    stamp = (1, 2, 3, 4, 5, 6)
    assert _same((stamp, False), (stamp, False))
    assert not _same((stamp, True), (stamp, False))  # looked at within the clock's tick
    assert not _same((stamp, False), ((1, 2, 3, 4, 5, 7), False))  # written again (ctime moved)
    assert _same(None, None)
    assert not _same(None, (stamp, False))
