"""Local-state counters: hits, last seen, per-session de-duplication; damage is not fatal."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from reasonlessons.recall.counters import COUNTERS_FILE, MAX_SESSIONS, Counters

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


def test_record_and_reload(tmp_path: Path) -> None:
    counters = Counters.load(tmp_path)
    assert counters.hits("project:testing") == 0
    assert counters.seen("s1") == set()
    counters.record(["project:testing"], now=NOW, session="s1")
    counters.record(["project:testing", "global:style"], now=NOW + dt.timedelta(minutes=1), session="s1")
    counters.save()
    again = Counters.load(tmp_path)
    assert again.hits("project:testing") == 2
    assert again.hits("global:style") == 1
    assert again.last_seen("global:style") == (NOW + dt.timedelta(minutes=1)).isoformat()
    assert again.seen("s1") == {"project:testing", "global:style"}
    assert again.seen("s2") == set()
    assert again.seen(None) == set()
    doc = json.loads((tmp_path / COUNTERS_FILE).read_text())
    assert (doc["kind"], doc["version"]) == ("recall-counters", 1)


@pytest.mark.parametrize(
    "garbage", [b"{not json", b"\x00\xff", b"[]", b'{"kind": "other", "version": 1}', b""]
)
def test_a_corrupt_counters_file_reads_as_empty_and_is_rebuilt(tmp_path: Path, garbage: bytes) -> None:
    (tmp_path / COUNTERS_FILE).write_bytes(garbage)
    counters = Counters.load(tmp_path)
    assert counters.damaged
    assert counters.hits("project:testing") == 0
    counters.record(["project:testing"], now=NOW, session=None)
    counters.save()
    assert Counters.load(tmp_path).hits("project:testing") == 1
    assert not Counters.load(tmp_path).damaged


def test_sessions_expire_and_are_bounded(tmp_path: Path) -> None:
    counters = Counters.load(tmp_path)
    counters.record(["project:a"], now=NOW - dt.timedelta(days=8), session="old")
    for i in range(MAX_SESSIONS + 5):
        counters.record(["project:a"], now=NOW + dt.timedelta(seconds=i), session=f"s{i}")
    assert "old" not in counters.sessions
    assert len(counters.sessions) == MAX_SESSIONS
    assert "s0" not in counters.sessions
    assert f"s{MAX_SESSIONS + 4}" in counters.sessions


def test_session_ids_are_bounded_and_printable(tmp_path: Path) -> None:
    counters = Counters.load(tmp_path)
    counters.record(["project:a"], now=NOW, session="x\n\x1b" + "y" * 500)
    (sid,) = counters.sessions
    assert len(sid) == 200
    assert sid.isprintable()
    assert counters.seen("x\n\x1b" + "y" * 500) == {"project:a"}
