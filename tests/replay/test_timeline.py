from __future__ import annotations

import datetime as dt

from reasonlessons.replay import timeline
from reasonlessons.sessions.adapters import aider, claude_code
from tests.paths import RESOURCES

LOGS = RESOURCES / "logs"


def test_sessions_of_all_logs_oldest_first_file_order_kept() -> None:
    skipped: list[tuple[str, str]] = []
    spots = timeline.spots(
        [
            (LOGS / "claude-code" / "split-usage.jsonl", claude_code),
            (LOGS / "aider" / "aider.chat.history.md", aider),
            (LOGS / "bad" / "notes.md", aider),
        ],
        skipped,
    )
    assert [(s.agent, s.session_id) for s in spots] == [
        ("aider", "aider-aider.chat.history.md"),  # cut at the top: no time, first of its file
        ("aider", "aider-2024-05-01T09-00-00"),
        ("aider", "aider-not-a-time"),  # no time: its predecessor's
        ("aider", "aider-2024-04-30T18-00-00"),  # earlier than the one before it: kept after it
        ("claude-code", "11111111-2222-4333-8444-555555555555"),
    ]
    assert spots[3].started == dt.datetime(2024, 4, 30, 18, tzinfo=dt.UTC)
    assert spots[3].at == dt.datetime(2024, 5, 1, 9, tzinfo=dt.UTC)
    assert [what.rsplit("/", 1)[-1] for what, _ in skipped] == ["notes.md"]


def test_a_session_is_read_again_from_where_it_started() -> None:
    spots = timeline.spots([(LOGS / "aider" / "aider.chat.history.md", aider)], [])
    for spot in spots:
        events = timeline.events(spot)
        assert events
        assert {e.session_id for e in events} == {spot.session_id}
    last = timeline.events(spots[-1])
    assert last[0].kind == "meta"
    assert spots[-1].line == 39  # its launch line
