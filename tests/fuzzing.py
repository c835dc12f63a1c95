"""Hypothesis settings and strategies shared by the tests/test_fuzz_*.py files.

CI runs a modest, derandomized number of examples (the same ones every run); REASONLESSONS_STRESS=1
runs many more, randomized. No hypothesis deadline (a loaded 2-core runner makes those flaky):
each test bounds time and memory itself with `bounded`.
"""

from __future__ import annotations

import contextlib
import json
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.hardening import STRESS


def fuzz_settings(ci: int, stress: int | None = None) -> settings:
    return settings(
        max_examples=(stress or ci * 20) if STRESS else ci,
        derandomize=not STRESS,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


@contextlib.contextmanager
def bounded(*, seconds: float = 5.0, megabytes: float = 64.0) -> Iterator[None]:
    """Fail when the block uses more CPU time or allocates more (at its peak) than given.

    CPU time of this process, not wall time: the guard is against super-linear work (a regex
    that backtracks for minutes), and other jobs on a loaded machine must not trip it.
    """
    tracemalloc.start()
    started = time.process_time()
    try:
        yield
    finally:
        elapsed = time.process_time() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert elapsed < seconds, f"took {elapsed:.2f}s"
    assert peak < megabytes * 2**20, f"peaked at {peak / 2**20:.1f} MiB"


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(
        ["", "user", "assistant", "tool", "error", "shell", "bash", "Bash", "0", "-1", "\u0000"]
    )
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            out.extend(_paths(value, (*prefix, index)))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    obj[path[0]] = _set(obj[path[0]], path[1:], value)
    return obj


@st.composite
def mutated_lines(draw: st.DrawFn, lines: list[bytes]) -> bytes:
    """A real log with a few records changed: a value replaced, records dropped, duplicated, swapped
    or cut short, raw garbage inserted, or the tail truncated mid-record."""
    out = list(lines)
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        if not out:
            break
        i = draw(st.integers(min_value=0, max_value=len(out) - 1))
        op = draw(
            st.sampled_from(["value", "value", "value", "drop", "dup", "swap", "cut", "garbage", "key"])
        )
        if op in ("value", "key"):
            try:
                obj = json.loads(out[i])
            except ValueError:
                continue
            path = draw(st.sampled_from(_paths(obj)))
            if op == "key" and path and isinstance(obj, dict):
                obj = _set(obj, path[:-1], {}) if len(path) > 1 else {}
            else:
                obj = _set(obj, path, draw(json_values))
            out[i] = json.dumps(obj, ensure_ascii=draw(st.booleans())).encode()
        elif op == "drop":
            del out[i]
        elif op == "dup":
            out.insert(i, out[i])
        elif op == "swap":
            j = draw(st.integers(min_value=0, max_value=len(out) - 1))
            out[i], out[j] = out[j], out[i]
        elif op == "cut":
            out[i] = out[i][: draw(st.integers(min_value=0, max_value=len(out[i])))]
        else:
            out.insert(i, draw(st.binary(max_size=80)))
    data = b"\n".join(out) + b"\n"
    if draw(st.booleans()):
        data = data[: draw(st.integers(min_value=0, max_value=len(data)))]
    return data
