"""Files the agents write beside their logs get a skip reason that says what they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonlessons.capture import sources
from reasonlessons.sessions.otherfiles import why_not_a_log
from tests.paths import SHARED_FIXTURES

_ROWS = {
    "events.jsonl": [{"schema_version": 1, "sequence": 1, "kind": "turn_started"}],
    "usage.jsonl": [{"ts": 1795289049872, "session": "s", "model": "m", "promptTokens": 10}],
    "stats.jsonl": [{"ts": "2026-11-21T19:22:07Z", "source": "cli", "turn": True}],
    "stats-request.jsonl": [{"ts": "2026-11-21T19:22:07Z", "model": "m", "usage_source": "executor"}],
}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("events.jsonl", "a Reasonix v2 --events-jsonl stream"),
        ("usage.jsonl", "a Reasonix usage log"),
        ("stats.jsonl", "a Reasonix v2 usage statistics file"),
        ("stats-request.jsonl", "a Reasonix v2 usage statistics file"),
    ],
)
def test_jsonl_files_of_the_agents_are_named(tmp_path: Path, name: str, expected: str) -> None:
    path = _write(tmp_path, name, "".join(json.dumps(row) + "\n" for row in _ROWS[name]))
    assert str(why_not_a_log(path)).startswith(expected)


def test_metrics_and_trajectories_are_named(tmp_path: Path) -> None:
    metrics = {"prompt_tokens": 1, "completion_tokens": 2, "steps": 3, "tool_calls": 1}
    assert "run metrics" in str(why_not_a_log(_write(tmp_path, "m.json", json.dumps(metrics, indent=2))))
    traj = _write(tmp_path, "t.traj", json.dumps({"history": [{"role": "system", "content": "x"}]}))
    assert "SWE-agent trajectory" in str(why_not_a_log(traj))
    mini = _write(tmp_path, "run.json", json.dumps({"messages": [], "trajectory_format": "mini-swe-agent-1"}))
    assert "SWE-agent trajectory" in str(why_not_a_log(mini))


@pytest.mark.parametrize(
    "content",
    [
        b'{"name": "x", "steps": [1]}\n',  # some other JSON
        b"# notes\n\nnot a log\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"",
    ],
)
def test_anything_else_is_not_named(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(content)
    assert why_not_a_log(path) is None
    assert why_not_a_log(tmp_path) is None  # a folder: nothing to say


def test_capture_reports_what_it_passed_over(tmp_path: Path) -> None:
    _write(tmp_path, "usage.jsonl", json.dumps(_ROWS["usage.jsonl"][0]) + "\n")
    _write(tmp_path, "notes.md", "# notes\n")
    skipped: dict[str, str] = {}
    found = sources.explicit([tmp_path], None, lambda what, why: skipped.__setitem__(Path(what).name, why))
    assert found == []
    assert skipped["usage.jsonl"].startswith("a Reasonix usage log")
    assert skipped["notes.md"].startswith("not a session log of a known agent")


@pytest.mark.skipif(not SHARED_FIXTURES.is_dir(), reason="../shared/fixtures is not available")
def test_the_shared_fixtures_other_files_are_named() -> None:
    expected = {
        "reasonix-v1/usage.jsonl": "a Reasonix usage log",
        "reasonix-v2/run.events-jsonl.jsonl": "a Reasonix v2 --events-jsonl stream",
        "reasonix-v2/run.metrics.json": "a Reasonix v2 run metrics file",
        "reasonix-v2/stats.YYYY-MM-DD.jsonl": "a Reasonix v2 usage statistics file",
        "swe-agent/function_calling_simple.traj": "a SWE-agent trajectory",
        "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj": "a SWE-agent trajectory",
    }
    for name, start in expected.items():
        assert str(why_not_a_log(SHARED_FIXTURES / name)).startswith(start), name
    for log in ("reasonix-v2/run.trajectory.jsonl", "reasonix-v1/PROVENANCE.md"):
        assert why_not_a_log(SHARED_FIXTURES / log) is None, log
