from __future__ import annotations

import dataclasses
import pickle

import pytest

from reasonlessons.learning.trace import SessionTrace, ShellRun
from reasonlessons.sessions.events import Event
from reasonlessons.support.values import frozen


@dataclasses.dataclass(frozen=True)
class _Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()


def test_frozen_equals_the_keyword_constructor_and_stays_frozen() -> None:
    fast = frozen(_Point, {"x": 1, "y": 2, "tags": ("a",)})
    slow = _Point(x=1, y=2, tags=("a",))
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.x = 3  # type: ignore[misc]


def test_frozen_differs_when_a_field_differs() -> None:
    assert frozen(_Point, {"x": 1, "y": 2, "tags": ()}) != _Point(1, 3)


def test_a_traced_shell_run_names_every_field_of_shell_run() -> None:
    trace = SessionTrace("claude-code", "s1", root="/repo")
    base = {"agent": "claude-code", "session_id": "s1", "tool_name": "shell", "call_id": "c1"}
    base["raw_ref"] = "log:1"
    trace.feed(Event(seq=1, role="assistant", kind="tool_call", tool_args={"command": "npm test"}, **base))
    trace.feed(Event(seq=2, role="tool", kind="tool_result", is_error=True, exit_code=127, **base))
    (run,) = trace.runs
    assert set(vars(run)) == {f.name for f in dataclasses.fields(ShellRun)}
    assert run == ShellRun(1, None, "npm test", run.invocation, False, None, True, run.ref)
    assert run.invocation is not None
