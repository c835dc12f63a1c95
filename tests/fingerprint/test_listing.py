"""Directory listings: which entries count as child directories (never a link to one)."""

from __future__ import annotations

import os
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
