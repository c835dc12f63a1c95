from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from reasonlessons.support import stamp as stamps

HOUR_NS = 3600 * 1_000_000_000


def test_a_stamp_changes_with_every_kind_of_change(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("aaaa\n")
    first = stamps.observe(str(path))
    assert first is not None
    st = path.stat()
    path.write_text("bbbb\n")  # same size...
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and mtime set back: ctime still moves
    assert stamps.observe(str(path)) != first
    path.chmod(0o600)
    chmodded = stamps.observe(str(path))
    assert chmodded is not None
    assert chmodded[stamps.MODE] & 0o777 == 0o600
    replacement = tmp_path / "b.txt"
    replacement.write_text("aaaa\n")
    os.replace(replacement, path)  # a new inode under the same name
    now = stamps.observe(str(path))
    assert now is not None
    assert not stamps.same_file(now, first)
    assert stamps.same_file(now, now)


def test_observe_follows_links_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "target").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    assert stamps.observe(str(link)) == stamps.observe(str(tmp_path / "target"))
    assert stamps.observe(str(link), follow=False) != stamps.observe(str(link))
    assert stamps.observe(str(tmp_path / "missing")) is None


def test_racy_is_about_the_later_of_mtime_and_ctime() -> None:
    now = 10 * HOUR_NS
    old, recent = now - HOUR_NS, now - stamps.RACY_NS // 2
    assert not stamps.racy((1, 2, 3, 4, old, old), now)
    assert stamps.racy((1, 2, 3, 4, recent, old), now)
    assert stamps.racy((1, 2, 3, 4, old, recent), now)  # mtime set back after a write
    assert not stamps.racy((1, 2, 3, 4, recent, recent), now, window_ns=0)
    assert stamps.changed_ns((1, 2, 3, 4, old, recent)) == recent


def test_stamps_are_plain_tuples_marshal_keeps(tmp_path: Path) -> None:
    found = stamps.observe(str(tmp_path))
    assert type(found) is tuple
    assert marshal.loads(marshal.dumps({"p": found})) == {"p": found}
    assert found != stamps.NEVER


def test_json_round_trip_and_older_documents() -> None:
    stamp = (1, 2, 3, 4, 5, 6)
    assert stamps.to_json(stamp) == {"dev": 1, "ino": 2, "mode": 3, "size": 4, "mtime_ns": 5, "ctime_ns": 6}
    assert stamps.from_json(stamps.to_json(stamp)) == stamp
    older = stamps.from_json({"dev": 1, "ino": 2, "size": 4, "mtime_ns": 5})  # before mode and ctime
    assert older == (1, 2, -1, 4, 5, -1)
    assert stamps.same_file(older, stamp)
    assert older != stamp
    assert stamps.text(stamp) == "1:2:3:4:5:6"
    for bad in ({"dev": "1"}, {"ino": True}, {"size": 1.5}):
        with pytest.raises(ValueError, match="not a stamp field"):
            stamps.from_json(bad)
