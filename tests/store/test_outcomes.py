"""The outcomes documents: decisions per session written under the lock, counts read cheaply by
recall; the order sessions come in and capturing one twice change nothing; version 1 migrates."""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import (
    DECISIONS_FILE,
    OUTCOMES_FILE,
    Decision,
    History,
    Record,
)

KEY = "project:npm-test-fails"


def _decide(state: Path, session: str, decision: Decision, key: str = KEY) -> None:
    def change(current: Mapping[str, History]) -> dict[str, History]:
        return {key: (current.get(key) or History()).decide(session, decision)}

    outcomes.update(state, state / "lessons.lock", change)


def confirmed(at: str, ref: str = "log.jsonl:3") -> Decision:
    return Decision("confirmed", "", at, ref, "`npm test` failed as the lesson says")


def direct(at: str, ref: str = "log.jsonl:9") -> Decision:
    return Decision("contradicted", "direct", at, ref, "`npm test` passed")


def test_decisions_round_trip_and_recall_reads_the_counts(tmp_path: Path) -> None:
    _decide(tmp_path, "claude-code:s1", confirmed("2026-05-01T09:00:00+00:00"))
    _decide(tmp_path, "claude-code:s2", confirmed("2026-05-02T09:00:00+00:00"))
    _decide(tmp_path, "claude-code:s3", direct("2026-05-03T09:00:00+00:00"))
    record = outcomes.counts(tmp_path)[KEY]
    assert record == Record(2, 0, 1, "2026-05-02T09:00:00+00:00")
    assert outcomes.load(tmp_path)[KEY] == record  # the derived document agrees with its source
    rows = outcomes.histories(tmp_path)[KEY].rows()
    assert [(r["session"], r["verdict"], r["ref"]) for r in rows] == [
        ("claude-code:s1", "confirmed", "log.jsonl:3"),
        ("claude-code:s2", "confirmed", "log.jsonl:3"),
        ("claude-code:s3", "contradicted", "log.jsonl:9"),
    ]


def test_damage_reads_as_empty_and_is_never_fatal(tmp_path: Path) -> None:
    _decide(tmp_path, "claude-code:s1", confirmed("2026-05-01T09:00:00+00:00"))
    (tmp_path / OUTCOMES_FILE).write_text("garbage")
    assert outcomes.counts(tmp_path) == {}
    (tmp_path / DECISIONS_FILE).write_text("{not json")
    assert outcomes.load(tmp_path) == {}
    _decide(tmp_path, "claude-code:s2", confirmed("2026-05-02T09:00:00+00:00"))  # rebuilt
    assert outcomes.counts(tmp_path)[KEY].confirmed == 1
    doc = {"kind": "lesson-decisions", "version": 1, "data": {KEY: {"decisions": {"x": {"verdict": "?"}}}}}
    (tmp_path / DECISIONS_FILE).write_text(json.dumps(doc))
    assert outcomes.load(tmp_path)[KEY] == Record()  # a malformed decision counts as nothing


def test_version_1_migrates_successes_and_keeps_failures_aside(tmp_path: Path) -> None:
    data = {
        KEY: {
            "success": 2,
            "failure": 3,
            "streak": 3,
            "last": "2026-05-01T00:00:00+00:00",
            "deactivated": {"at": "2026-05-01T00:00:00+00:00", "reason": "failed 3 times in a row"},
        }
    }
    (tmp_path / OUTCOMES_FILE).write_text(json.dumps({"kind": "lesson-outcomes", "version": 1, "data": data}))
    # Version 1 counted a lesson's own warned failure against it: its failures are not counted now.
    assert outcomes.counts(tmp_path)[KEY] == Record(confirmed=2)
    _decide(tmp_path, "claude-code:s9", direct("2026-05-09T09:00:00+00:00"))
    history = outcomes.histories(tmp_path)[KEY]
    assert history.legacy is not None
    assert history.legacy["failure"] == 3
    assert "failed 3 times" in history.legacy["deactivated"]["reason"]
    assert outcomes.counts(tmp_path)[KEY] == Record(confirmed=2, direct=1)
    assert json.loads((tmp_path / OUTCOMES_FILE).read_text())["version"] == 2


def test_revival_counts_only_what_comes_after_it() -> None:
    history = History().decide("a:s1", direct("2026-05-01T09:00:00+00:00"))
    history = history.decide("a:s2", direct("2026-05-02T09:00:00+00:00"))
    revived = history.revive(dt.datetime(2026, 5, 3, tzinfo=dt.UTC), 0.6)
    assert revived.summary() == Record(base=0.6)
    later = revived.decide("a:s3", confirmed("2026-05-04T09:00:00+00:00"))
    assert later.summary().confirmed == 1
    assert [row["counted"] for row in later.rows()] == [False, False, True]


def test_past_the_bound_old_decisions_are_folded_into_counts() -> None:
    history = History()
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for n in range(outcomes.MAX_DECISIONS + 5):
        at = (start + dt.timedelta(hours=n)).isoformat()
        history = history.decide(f"a:s{n:03d}", confirmed(at))
    bounded = history.bounded()
    assert len(bounded.decisions) == outcomes.MAX_DECISIONS
    assert bounded.folded.confirmed == 5
    assert bounded.summary() == history.summary()


# -- properties ------------------------------------------------------------------------------------

_SESSIONS = [f"claude-code:s{i}" for i in range(6)]
_decisions = st.builds(
    Decision,
    st.sampled_from(["confirmed", "repeated", "contradicted"]),
    st.sampled_from(["", "direct", "soft"]),
    st.sampled_from(
        [None, "2026-05-01T09:00:00+00:00", "2026-05-02T10:30:00+00:00", "2026-05-03T08:00:00+00:00"]
    ),
    st.sampled_from(["log.jsonl:3", "log.jsonl:7"]),
    st.sampled_from(["one reason", "another"]),
)
_batches = st.lists(st.tuples(st.sampled_from(_SESSIONS), _decisions), max_size=12)


def _replay(batch: list[tuple[str, Decision]]) -> History:
    history = History()
    for session, decision in batch:
        history = history.decide(session, decision)
    return history


@settings(max_examples=200, deadline=None)
@given(batch=_batches, data=st.data())
def test_the_order_sessions_come_in_does_not_change_the_result(
    batch: list[tuple[str, Decision]], data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(batch))
    assert _replay(shuffled).decisions == _replay(batch).decisions
    assert _replay(shuffled).summary() == _replay(batch).summary()


@settings(max_examples=200, deadline=None)
@given(batch=_batches, data=st.data())
def test_a_session_captured_twice_counts_once(batch: list[tuple[str, Decision]], data: st.DataObject) -> None:
    again = data.draw(st.lists(st.sampled_from(batch), max_size=6)) if batch else []
    twice = _replay([*batch, *again])
    assert twice.summary() == _replay(batch).summary()
    record = twice.summary()
    assert record.confirmed + record.contradicted == len({session for session, _ in batch})


@settings(max_examples=25, deadline=None)
@given(batch=_batches, data=st.data())
def test_the_documents_agree_whatever_the_order(
    batch: list[tuple[str, Decision]], data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(batch))
    results = []
    for order in (batch, shuffled, [*shuffled, *batch]):
        with tempfile.TemporaryDirectory() as folder:
            state = Path(folder)
            for session, decision in order:
                _decide(state, session, decision)
            results.append(outcomes.counts(state).get(KEY, Record()))
    assert results[0] == results[1] == results[2]
