"""Local-state counters: hits, last seen, per-session de-duplication; damage is not fatal."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from reasonlessons.recall import counters as counters_module
from reasonlessons.recall.counters import COUNTERS_FILE, JOURNAL_FILE, MAX_RECENT, MAX_SESSIONS, Counters

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
    assert (doc["kind"], doc["version"]) == ("recall-counters", 2)


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


def test_a_damaged_document_still_answers_a_sessions_lessons_by_its_key(tmp_path: Path) -> None:
    """With the document damaged, `seen` reads everything: the session is looked up by the key it
    was recorded under, even one cut at MAX_SESSION_ID that ends in a space (keyed once, not twice)."""
    session = "a" * (counters_module.MAX_SESSION_ID - 1) + " b"
    first = Counters.load(tmp_path)
    first.record(["project:testing"], now=NOW, session=session)
    assert first.flush() is False  # appended to the journal only
    (tmp_path / COUNTERS_FILE).write_bytes(b"{not json")
    assert Counters.load(tmp_path).seen(session) == {"project:testing"}


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


# -- the journal: a turn appends, the document is folded now and then ---------------------------------


def _turns(state: Path, count: int, *, start: int = 0, session: str | None = None) -> None:
    """`count` turns as recall makes them: a fresh Counters each, one record, one flush."""
    for i in range(start, start + count):
        counters = Counters.load(state)
        counters.seen(session)
        counters.record([f"project:l{i % 3}"], now=NOW + dt.timedelta(seconds=i), session=session, tokens={})
        counters.flush()


def _state(state: Path) -> tuple[dict[str, int], list[str], dict[str, list[str]]]:
    counters = Counters.load(state)
    hits = {key: counters.hits(key) for key in counters.lessons}
    sessions = {sid: entry["seen"] for sid, entry in counters.sessions.items()}
    return hits, [entry["at"] for entry in counters.recent], sessions


def test_a_turn_appends_one_line_and_does_not_rewrite_the_document(tmp_path: Path) -> None:
    _turns(tmp_path, 5)
    assert not (tmp_path / COUNTERS_FILE).exists()  # nothing folded yet
    assert (tmp_path / JOURNAL_FILE).read_bytes().count(b"\n") == 5
    before = (tmp_path / JOURNAL_FILE).read_bytes()
    _turns(tmp_path, 1, start=5)
    assert (tmp_path / JOURNAL_FILE).read_bytes().startswith(before)  # appended, not rewritten
    hits, recent, _ = _state(tmp_path)
    assert hits == {"project:l0": 2, "project:l1": 2, "project:l2": 2}
    assert len(recent) == 6


def test_folding_the_journal_keeps_every_count_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past JOURNAL_BYTES the journal is folded into the document and a new one started; the
    counts read back are those of every turn, once, across several folds."""
    monkeypatch.setattr(counters_module, "JOURNAL_BYTES", 600)
    _turns(tmp_path, 40, session="s1")
    _turns(tmp_path, MAX_RECENT + 20, start=40)
    assert (tmp_path / COUNTERS_FILE).exists()
    assert len((tmp_path / JOURNAL_FILE).read_bytes()) <= 600 + 200
    hits, recent, sessions = _state(tmp_path)
    total = 40 + MAX_RECENT + 20
    assert sum(hits.values()) == total
    assert hits["project:l0"] == len(range(0, total, 3))
    assert len(recent) == MAX_RECENT
    assert recent[-1] == (NOW + dt.timedelta(seconds=total - 1)).isoformat()
    assert sessions == {"s1": ["project:l0", "project:l1", "project:l2"]}


def test_a_fold_killed_before_the_new_journal_counts_nothing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The document is written first, marked with how many journal records it holds; killed before
    the new journal replaces the old one, the next reader skips those records."""
    monkeypatch.setattr(counters_module, "JOURNAL_BYTES", 10**9)
    _turns(tmp_path, 7)
    want = _state(tmp_path)
    monkeypatch.setattr(counters_module, "JOURNAL_BYTES", 0)

    def killed(path: Path, data: bytes, **_: object) -> None:
        raise KeyboardInterrupt  # the process dies here

    real = counters_module.write_atomic
    monkeypatch.setattr(
        counters_module,
        "write_atomic",
        lambda p, d, **k: killed(p, d) if p.name == JOURNAL_FILE else real(p, d, **k),
    )
    counters = Counters.load(tmp_path)
    counters.record(["project:x"], now=NOW + dt.timedelta(minutes=5), session=None)
    with pytest.raises(KeyboardInterrupt):
        counters.flush()
    hits, recent, sessions = _state(tmp_path)
    assert hits == {**want[0], "project:x": 1}
    assert (recent, sessions) == ([*want[1], (NOW + dt.timedelta(minutes=5)).isoformat()], want[2])
    monkeypatch.setattr(counters_module, "write_atomic", real)
    _turns(tmp_path, 1, start=7)  # the next fold completes it
    assert sum(_state(tmp_path)[0].values()) == 9


def test_a_torn_journal_line_loses_that_turn_only(tmp_path: Path) -> None:
    _turns(tmp_path, 3)
    with (tmp_path / JOURNAL_FILE).open("ab") as journal:
        journal.write(b'\n{"at":"2026-11-21T12:00:09+00:00","keys":["project:to')  # a crash mid-write
    _turns(tmp_path, 2, start=3)
    hits, recent, _ = _state(tmp_path)
    assert sum(hits.values()) == 5
    assert "project:to" not in "".join(hits)


def test_a_concurrent_writer_between_read_and_save_stays_in_the_journal(tmp_path: Path) -> None:
    """A whole rewrite (save) after another process appended keeps that process's turn: it is
    after the document's mark (the old single document lost it)."""
    _turns(tmp_path, 3)
    slow = Counters.load(tmp_path)
    assert slow.hits("project:l0") == 1  # read now
    _turns(tmp_path, 1, start=9)  # another recall appends meanwhile (project:l0)
    slow.record(["project:l1"], now=NOW + dt.timedelta(minutes=9), session=None)
    slow.save()
    hits, _, _ = _state(tmp_path)
    assert hits == {"project:l0": 2, "project:l1": 2, "project:l2": 1}


def test_a_version_1_document_is_read_and_rewritten_as_version_2(tmp_path: Path) -> None:
    old = {
        "lessons": {"project:a": {"hits": 4, "last": NOW.isoformat()}},
        "sessions": {
            "s1": {"at": NOW.isoformat(), "seen": ["project:a"], "first": {"project:a": NOW.isoformat()}}
        },
        "recent": [{"at": NOW.isoformat(), "seen": ["project:a"]}],
    }
    doc = {"kind": "recall-counters", "version": 1, "data": old}
    (tmp_path / COUNTERS_FILE).write_text(json.dumps(doc))
    counters = Counters.load(tmp_path)
    assert not counters.damaged
    assert (counters.hits("project:a"), counters.seen("s1")) == (4, {"project:a"})
    assert counters.recent == old["recent"]
    counters.record(["project:a"], now=NOW + dt.timedelta(seconds=1), session=None)
    counters.save()
    again = json.loads((tmp_path / COUNTERS_FILE).read_text())
    assert again["version"] == 2
    assert Counters.load(tmp_path).hits("project:a") == 5
    assert len(Counters.load(tmp_path).recent) == 2


def test_a_sessions_lessons_read_alone_equal_those_of_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn with a session id reads only that session's records (the journal lines naming it);
    the answer is a full read's, across folds, for ids that are prefixes of others."""
    monkeypatch.setattr(counters_module, "JOURNAL_BYTES", 900)
    for i in range(60):
        counters = Counters.load(tmp_path)
        sid = ["s1", "s10", 's"q', None][i % 4]
        full = Counters.load(tmp_path)
        assert counters.seen(sid) == (full.seen(sid) if full.lessons is not None else set())
        counters.record([f"project:l{i}"], now=NOW + dt.timedelta(seconds=i), session=sid)
        counters.flush()
    for sid in ("s1", "s10", 's"q', "s2"):
        fast, full = Counters.load(tmp_path).seen(sid), Counters.load(tmp_path)
        assert full.lessons  # read everything first
        assert fast == full.seen(sid)
    assert Counters.load(tmp_path).seen("s1") == {f"project:l{i}" for i in range(0, 60, 4)}
