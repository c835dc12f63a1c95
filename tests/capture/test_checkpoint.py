from __future__ import annotations

import os
from pathlib import Path

from reasonlessons.capture.checkpoint import HEAD_BYTES, Checkpoints, FileCheckpoint, Identity, plan


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_identity_tells_appended_from_replaced(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b"x" * (HEAD_BYTES + 10))
    first = Identity.of(log)
    with log.open("ab") as handle:
        handle.write(b"more\n")
    grown = Identity.of(log)
    assert grown.continues(first, log)
    assert grown != first
    _write(log, b"y" * (HEAD_BYTES + 20))  # same inode, same length range, other start
    assert not Identity.of(log).continues(first, log)
    _write(log, b"x" * 5)  # truncated
    assert not Identity.of(log).continues(first, log)
    replacement = _write(tmp_path / "b.jsonl", b"x" * (HEAD_BYTES + 10))
    os.replace(replacement, log)  # a new inode under the same name
    assert not Identity.of(log).continues(first, log)


def test_a_short_head_may_grow(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b'{"a":1}\n')
    first = Identity.of(log)
    with log.open("ab") as handle:
        handle.write(b'{"b":2}\n')
    assert Identity.of(log).continues(first, log)
    _write(log, b'{"z":9}\n{"b":2}\n')  # rewritten: same length as before plus more, other start
    assert not Identity.of(log).continues(first, log)


def test_plan(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b'{"a":1}\n')
    identity = Identity.of(log)
    assert plan(None, identity, "codex", log).action == "fresh"
    done = FileCheckpoint("codex", identity, offset=8, seq=3, line=2, captured={"s": 2})
    assert plan(done, identity, "codex", log).action == "unchanged"
    assert plan(done, identity, "claude-code", log).action == "fresh"
    pending = FileCheckpoint("codex", identity, offset=0, seq=0, line=1, pending=True)
    assert plan(pending, identity, "codex", log).action == "resume"
    with log.open("ab") as handle:
        handle.write(b'{"b":2}\n')
    resumed = plan(done, Identity.of(log), "codex", log)
    assert (resumed.action, resumed.offset, resumed.seq, resumed.line, resumed.captured) == (
        "resume",
        8,
        3,
        2,
        {"s": 2},
    )
    _write(log, b'{"c":3}\n')
    assert plan(done, Identity.of(log), "codex", log).action == "fresh"


def test_checkpoints_round_trip_and_save_only_when_changed(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b'{"a":1}\n')
    state = tmp_path / "state"
    checkpoints = Checkpoints(state)
    assert checkpoints.get(log) is None
    assert checkpoints.save() is False
    entry = FileCheckpoint("reasonix-v1", Identity.of(log), 8, 0, 2, {"x#1": 5})
    checkpoints.put(log, entry)
    assert checkpoints.save() is True
    again = Checkpoints(state)
    assert again.get(log) == entry
    again.put(log, entry)
    assert again.save() is False
    mtime = checkpoints.path.stat().st_mtime_ns
    assert Checkpoints(state).save() is False
    assert checkpoints.path.stat().st_mtime_ns == mtime


def test_damaged_state_reads_as_no_checkpoint(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "capture-checkpoints.json").write_text("{not json")
    assert Checkpoints(state).get(tmp_path / "a.jsonl") is None
    (state / "capture-checkpoints.json").write_text(
        '{"kind": "capture-checkpoints", "version": 1, "data": {"%s": {"agent": 1}}}' % (tmp_path / "a.jsonl")
    )
    assert Checkpoints(state).get(tmp_path / "a.jsonl") is None


def test_a_checkpoint_written_before_stamps_held_mode_and_ctime_resumes(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b'{"a":1}\n')
    now = Identity.of(log)
    old = {key: value for key, value in now.to_json().items() if key not in ("mode", "ctime_ns")}
    entry = FileCheckpoint.from_json(
        {"agent": "codex", "identity": old, "offset": 8, "seq": 3, "line": 2, "captured": {"s": 2}}
    )
    assert entry is not None
    assert entry.identity != now  # read once more, from where it stopped
    resumed = plan(entry, now, "codex", log)
    assert (resumed.action, resumed.offset, resumed.seq, resumed.captured) == ("resume", 8, 3, {"s": 2})


def test_a_secret_shaped_log_path_is_a_checkpoint_like_any_other(tmp_path: Path) -> None:
    """A log named after a token: the key of its checkpoint must neither leak it nor break the document."""
    from reasonlessons.store.state import load_state

    token = "ghp_" + "Zq8Lx2Vb7Nm4Kc1Wd9Pf3Hj6Rt5Ys0Ue8Ia2"
    log = _write(tmp_path / f"session-{token}.jsonl", b'{"a":1}\n')
    state = tmp_path / "state"
    checkpoints = Checkpoints(state)
    checkpoints.put(log, FileCheckpoint("claude-code", Identity.of(log), offset=8))
    assert checkpoints.save()
    raw = (state / "capture-checkpoints.json").read_text()
    assert token not in raw
    again = Checkpoints(state).get(log)
    assert again is not None
    assert again.offset == 8
    assert all(
        key.startswith("log:")
        for key in load_state(state / "capture-checkpoints.json", kind="capture-checkpoints")
    )


def test_checkpoints_filed_under_their_path_are_still_found(tmp_path: Path) -> None:
    log = _write(tmp_path / "a.jsonl", b'{"a":1}\n')
    state = tmp_path / "state"
    legacy = FileCheckpoint("claude-code", Identity.of(log), offset=8).to_json()
    from reasonlessons.store.state import save_state

    save_state(state / "capture-checkpoints.json", {str(log): legacy}, kind="capture-checkpoints")
    found = Checkpoints(state).get(log)
    assert found is not None
    assert found.offset == 8
