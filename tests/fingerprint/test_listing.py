"""Directory listings: which entries count as child directories (never a link to one)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from reasonlessons.fingerprint import tree


def _by_keyword(path: Path) -> list[str]:
    with os.scandir(path) as it:
        return sorted(item.name for item in it if item.is_dir(follow_symlinks=False))


def _subdirs(path: Path) -> list[str]:
    with os.scandir(path) as it:
        return sorted(tree._subdirs(list(it)))


def test_links_never_count_as_directories_whatever_they_point_at(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "file.txt").write_text("x\n")
    (tmp_path / "to-dir").symlink_to(tmp_path / "real")
    (tmp_path / "to-file").symlink_to(tmp_path / "file.txt")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # following it fails: ELOOP
    assert _subdirs(tmp_path) == _by_keyword(tmp_path) == ["real"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root stats whatever the mode")
def test_a_link_into_an_unreadable_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    (locked / "inner").mkdir(parents=True)
    (tmp_path / "to-inner").symlink_to(locked / "inner")
    (tmp_path / "real").mkdir()
    locked.chmod(0)
    try:
        assert _subdirs(tmp_path) == _by_keyword(tmp_path) == ["locked", "real"]
    finally:
        locked.chmod(0o755)


def test_a_failure_following_a_link_falls_back_to_the_keyword_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When `is_dir()` raises (a link that cannot be followed), the answer is the keyword form's."""
    (tmp_path / "real").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")

    class Entry:
        def __init__(self, item: os.DirEntry[str]) -> None:
            self.item, self.name = item, item.name

        def is_dir(self, *, follow_symlinks: bool = True) -> bool:
            if follow_symlinks and self.item.is_symlink():
                raise OSError(40, "Too many levels of symbolic links")
            return self.item.is_dir(follow_symlinks=follow_symlinks)

        def is_symlink(self) -> bool:
            return self.item.is_symlink()

    with os.scandir(tmp_path) as it:
        items = [Entry(item) for item in it]
    assert sorted(tree._subdirs(items)) == ["real"]  # type: ignore[arg-type]


# -- directories listed by name alone (their link count says they hold no directory) ---------------


def _odd_tree(root: Path) -> list[str]:
    """A tree of awkward names, links, empty and ignored directories; its directories, repo-relative."""
    (root / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    names = ["plain.ts", "new\nline.ts", "ünïcode.md", "spaced name.test.ts", ".hidden", "x.log", "keep.log"]
    rels = ["", "src", "src/deep", "src/deep/deeper", "docs", "empty", "build"]
    rels += ["src/only-dirs", "src/only-dirs/a"]
    for sub in rels:
        (root / sub).mkdir(parents=True, exist_ok=True)
    for sub in ("", "src", "src/deep/deeper", "docs", "build", "src/only-dirs/a"):
        for name in names:
            (root / sub / name).write_text("x\n")
        os.close(os.open(os.path.join(os.fsencode(root / sub), b"bad\xff\xfe.ts"), os.O_CREAT | os.O_WRONLY))
    (root / "docs" / "to-src").symlink_to(root / "src")  # a link to a directory is a file here
    (root / "docs" / "to-file").symlink_to(root / "docs" / "plain.ts")
    (root / "docs" / "dangling").symlink_to(root / "nowhere")
    (root / "docs" / ".gitignore").write_text("plain.ts\n")
    old = time.time_ns() - 10**10
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(old, old), follow_symlinks=False)
    return rels


def _everything(index: tree.DirIndex, rels: list[str]) -> tuple[object, ...]:
    listed = {rel: index.listing(rel) for rel in rels}
    shapes = {rel: index.shape(rel) for rel in rels}
    return listed, shapes, dict(index.records)


def test_a_leaf_listed_by_name_alone_gives_what_a_full_listing_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rels = _odd_tree(tmp_path)
    if os.lstat(tmp_path / "src").st_nlink != 2 + 2:
        pytest.skip("this file system's link counts do not count child directories")
    t0 = time.time_ns()  # the same for both: a racy ignore file's signature holds it
    full = tree.DirIndex(str(tmp_path), {}, gen=1, t0=t0)
    monkeypatch.setattr(full, "_count_links", lambda st, dirs: None)  # never trusts a count
    expected = _everything(full, rels)

    by_name: list[str] = []
    listdir = os.listdir
    monkeypatch.setattr(tree.os, "listdir", lambda fd: by_name.append(fd) or listdir(fd))
    quick = tree.DirIndex(str(tmp_path), {}, gen=1, t0=t0)
    assert _everything(quick, rels) == expected
    assert len(by_name) >= 4  # src/deep/deeper, docs, empty, build, src/only-dirs/a once trusted


def test_a_directory_made_after_the_count_was_read_is_listed_as_one(tmp_path: Path) -> None:
    (tmp_path / "a" / "leaf").mkdir(parents=True)
    (tmp_path / "a" / "leaf" / "f.ts").write_text("")
    if os.lstat(tmp_path / "a").st_nlink != 3:
        pytest.skip("this file system's link counts do not count child directories")
    index = tree.DirIndex(str(tmp_path), {}, gen=1, t0=time.time_ns())
    index.listing("a")  # a directory with one child directory and a count of 3: counts are trusted
    leaf = index.lstat("a/leaf")  # read (and kept for the run) before the directory below is made
    assert leaf is not None
    assert leaf.st_nlink == 2
    (tmp_path / "a" / "leaf" / "made.d").mkdir()
    assert index.listing("a/leaf") == (["made.d"], ["f.ts"])


def test_link_counts_are_trusted_only_where_they_count_child_directories(tmp_path: Path) -> None:
    index = tree.DirIndex(str(tmp_path), {}, gen=1, t0=time.time_ns())

    def st(dev: int, nlink: int) -> os.stat_result:
        return os.stat_result((0o40755, 1, dev, nlink, 0, 0, 0, 0, 0, 0))

    index._count_links(st(1, 2), [])  # no child directory: proves nothing
    index._count_links(st(2, 1), ["a"])  # btrfs, overlayfs: always 1
    index._count_links(st(3, 2), ["a", "b"])  # a count that does not count them
    index._count_links(st(3, 4), ["a", "b"])
    index._count_links(st(4, 3), ["a"])
    assert index._counted == {4}
    index._count_links(st(4, 2), ["a"])  # one wrong count on a device: none is trusted again
    index._count_links(st(4, 3), ["a"])
    assert index._counted == set()
