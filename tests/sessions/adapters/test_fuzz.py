"""Fuzzing every log adapter: damaged, mutated and random logs never crash capture, hang or blow up.

Each example is a real log with records mutated (tests/fuzzing.py), or random bytes. It is sniffed,
described, read whole and from a random resume point (a checkpoint may point anywhere), and the
events that come out go through the reducer, the extractor and the write gates, as in capture.
Allowed failures are the ones capture handles (it skips the log): UnsupportedLogError,
MissingDependencyError, OSError and ValueError.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.capture import gates
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.reduce.reducer import SessionReducer
from reasonlessons.sessions.adapters import aider, claude_code, codex, detect, reasonix_v1, reasonix_v2
from reasonlessons.sessions.errors import MissingDependencyError, UnsupportedLogError
from reasonlessons.sessions.events import ReadStats
from tests.fuzzing import bounded, fuzz_settings, mutated_lines
from tests.paths import RESOURCES

LOGS, CAPTURE = RESOURCES / "logs", RESOURCES / "capture"
REPO = RESOURCES / "repos" / "capture-node"
NOW = dt.datetime(2026, 5, 6, 12, 0, tzinfo=dt.UTC)
HANDLED = (UnsupportedLogError, MissingDependencyError, OSError, ValueError)
UUID = "44444444-5555-4666-8777-888888888888"


# (adapter, file name to write, seed logs)
def _seeds(*patterns: str) -> list[Path]:
    return sorted(path for root in (LOGS, CAPTURE) for pattern in patterns for path in root.glob(pattern))


TARGETS: dict[str, tuple[Any, str, list[Path]]] = {
    "reasonix-v1-events": (reasonix_v1, "rx.events.jsonl", _seeds("reasonix-v1/**/*.events.jsonl")),
    "reasonix-v1-transcript": (reasonix_v1, "transcript.jsonl", _seeds("reasonix-v1/transcript.jsonl")),
    "reasonix-v2-trajectory": (
        reasonix_v2,
        "run.trajectory.jsonl",
        _seeds("reasonix-v2/run.trajectory.jsonl"),
    ),
    "reasonix-v2-stream": (
        reasonix_v2,
        "print.stream-json.jsonl",
        _seeds("reasonix-v2/print.stream-json.jsonl"),
    ),
    "claude-code": (claude_code, f"{UUID}.jsonl", _seeds("claude-code/*.jsonl")),
    "codex": (codex, f"rollout-2026-05-05T08-00-00-{UUID}.jsonl", _seeds("codex/*.jsonl")),
    "aider": (
        aider,
        ".aider.chat.history.md",
        [*_seeds("aider/*.md"), *sorted((RESOURCES / "aider").glob("*.aider.chat.history.md"))],
    ),
}


def exercise(adapter: Any, path: Path, resume: tuple[int, int, int]) -> None:
    """Everything capture does with a log before writing, with the failures it tolerates."""
    with bounded(seconds=10, megabytes=96):
        detect(path)
        with contextlib.suppress(*HANDLED):
            adapter.describe(path, now=NOW, idle_seconds=600.0)
        for offset, seq, line in [(0, 0, 1), resume]:
            try:
                events = list(
                    adapter.read_session(
                        path, stats=ReadStats(), start_offset=offset, start_seq=seq, start_line=line
                    )
                )
            except HANDLED:
                continue
            _learn(events)


def _learn(events: list[Any]) -> None:
    facts = RepoFacts(REPO)
    reducer: SessionReducer | None = None
    for event in events:
        if reducer is None or reducer.obs.session_id != event.session_id:
            if reducer is not None:
                _drafts(reducer, facts)
            reducer = SessionReducer(event.agent, event.session_id, root=str(REPO))
        reducer.feed(event)
    if reducer is not None:
        _drafts(reducer, facts)


def _drafts(reducer: SessionReducer, facts: RepoFacts) -> None:
    obs = reducer.finish()
    gates.prepare(extract(obs, SessionPlace(obs.agent, obs.session_id, facts, cwd=obs.cwd)))


def _resumes() -> st.SearchStrategy[tuple[int, int, int]]:
    return st.tuples(st.integers(0, 20_000), st.integers(0, 500), st.integers(1, 500))


def _write(folder: Path, name: str, data: bytes, seed: Path) -> Path:
    """The log, with the companion files a v1 event log is read together with."""
    path = folder / name
    path.write_bytes(data)
    if name.endswith(".events.jsonl"):
        base = seed.name.removesuffix(".events.jsonl")
        for suffix in (".jsonl", ".meta.json"):
            companion = seed.with_name(base + suffix)
            if companion.exists():
                shutil.copyfile(companion, folder / f"rx{suffix}")
    return path


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_mutated_logs_never_crash_capture(target: str) -> None:
    adapter, name, seeds = TARGETS[target]
    seeds = [s for s in seeds if s.exists()]
    assert seeds

    @fuzz_settings(ci=40)
    @given(data=st.data(), resume=_resumes())
    def run(data: st.DataObject, resume: tuple[int, int, int]) -> None:
        seed = data.draw(st.sampled_from(seeds))
        lines = seed.read_bytes().splitlines()
        log = data.draw(mutated_lines(lines))
        with tempfile.TemporaryDirectory() as folder:
            exercise(adapter, _write(Path(folder), name, log, seed), resume)

    run()


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_random_bytes_never_crash_capture(target: str) -> None:
    adapter, name, seeds = TARGETS[target]

    @fuzz_settings(ci=25)
    @given(data=st.binary(max_size=4096), resume=_resumes())
    def run(data: bytes, resume: tuple[int, int, int]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            exercise(adapter, _write(Path(folder), name, data, seeds[0]), resume)

    run()


def test_a_huge_line_and_a_huge_log_stay_bounded(tmp_path: Path) -> None:
    """A 24 MiB line (3x the line cap), and 60,000 records (about 40 MiB): streamed, never held."""
    path = tmp_path / f"{UUID}.jsonl"
    path.write_bytes(b'{"type":"user","message":{"content":"' + b"a" * (24 << 20) + b'"}}\n')
    exercise(claude_code, path, (0, 0, 1))
    seed = (CAPTURE / "claude-code" / "python-fixes.jsonl").read_bytes().splitlines()
    path.write_bytes(b"\n".join(seed * (60_000 // len(seed))) + b"\n")
    with bounded(seconds=60, megabytes=32):
        count = sum(1 for _ in claude_code.read_session(path, stats=ReadStats()))
    assert count > 30_000


def _frames() -> bytes:
    pytest.importorskip("zstandard")
    from tests.sessions.adapters.v2store import BATCHES

    return b"".join(BATCHES)


def test_damaged_sessions_v4_stores_never_crash_capture() -> None:
    from tests.sessions.adapters.v2store import make_store

    frames = _frames()

    @fuzz_settings(ci=40)
    @given(data=st.data(), resume=_resumes())
    def run(data: st.DataObject, resume: tuple[int, int, int]) -> None:
        raw = bytearray(frames)
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, len(raw) - 1))
            op = data.draw(st.sampled_from(["flip", "cut", "insert", "zero"]))
            if op == "flip":
                raw[at] ^= data.draw(st.integers(1, 255))
            elif op == "cut":
                del raw[at:]
                if not raw:
                    raw.extend(b"RX4F")
            elif op == "insert":
                raw[at:at] = data.draw(st.binary(min_size=1, max_size=64))
            else:
                raw[at : at + 8] = b"\x00" * 8
        with tempfile.TemporaryDirectory() as folder:
            exercise(reasonix_v2, make_store(Path(folder), bytes(raw)), resume)

    run()
