"""Linking recall injections to a captured session: by session id, else by time window."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reasonlessons.learning.link import BY_ID, BY_TIME, recalled_into
from reasonlessons.recall.counters import MAX_RECENT, Counters

T0 = dt.datetime(2026, 5, 10, 9, 0, tzinfo=dt.UTC)
MIN = dt.timedelta(minutes=1)


def counters(tmp_path: Path) -> Counters:
    c = Counters.load(tmp_path)
    c.record(["project:a"], now=T0, session="claude-1", tokens={"project:a": 40})
    c.record(["project:a", "project:b"], now=T0 + 5 * MIN, session="claude-1", tokens={"project:b": 7})
    c.record(["project:c"], now=T0 + 2 * MIN, session=None)
    c.record(["project:d"], now=T0 + 90 * MIN, session=None)
    c.record(["project:e"], now=T0 + 3 * MIN, session="reasonix-name")
    c.save()
    return Counters.load(tmp_path)


def test_counters_keep_first_injection_tokens_and_idless_turns(tmp_path: Path) -> None:
    c = counters(tmp_path)
    assert c.sessions["claude-1"]["first"] == {
        "project:a": T0.isoformat(),
        "project:b": (T0 + 5 * MIN).isoformat(),
    }
    assert c.tokens("project:a") == 40
    assert c.hits("project:a") == 2
    assert [entry["seen"] for entry in c.recent] == [["project:c"], ["project:d"]]


def test_by_session_id_exactly(tmp_path: Path) -> None:
    counters(tmp_path)
    link = recalled_into(tmp_path, "claude-1", T0, T0 + 10 * MIN)
    assert link.how == BY_ID
    assert link.keys == {"project:a": T0, "project:b": T0 + 5 * MIN}


def test_a_reasonix_segment_links_to_its_session_name(tmp_path: Path) -> None:
    counters(tmp_path)
    link = recalled_into(tmp_path, "reasonix-name#2", None, None)
    assert (link.how, set(link.keys)) == (BY_ID, {"project:e"})


def test_without_an_id_recalls_inside_the_session_time_count(tmp_path: Path) -> None:
    counters(tmp_path)
    link = recalled_into(tmp_path, "codex-xyz", T0 + MIN, T0 + 30 * MIN)
    assert link.how == BY_TIME
    assert link.keys == {"project:c": T0 + 2 * MIN}  # not d (an hour later), not ones filed under ids


def test_no_id_and_no_times_links_nothing(tmp_path: Path) -> None:
    counters(tmp_path)
    assert recalled_into(tmp_path, "swe-agent-run", None, None).keys == {}


def test_idless_turns_are_bounded(tmp_path: Path) -> None:
    c = Counters.load(tmp_path)
    for i in range(MAX_RECENT + 10):
        c.record(["project:a"], now=T0 + i * MIN, session=None)
    assert len(c.recent) == MAX_RECENT
    c.record(["project:a"], now=T0 + dt.timedelta(days=30), session=None)
    assert len(c.recent) == 1  # a week later the old turns are gone
