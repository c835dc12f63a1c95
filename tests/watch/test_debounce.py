"""The debouncer driven directly: a fake clock for the windows, real threads for the hand-off."""

from __future__ import annotations

import threading

import pytest

from reasonlessons.watch.debounce import Debouncer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_batch_is_released_after_the_quiet_window() -> None:
    clock = Clock()
    d: Debouncer[str] = Debouncer(0.2, 2.0, clock=clock)
    assert d.due() is None
    assert d.take() == set()
    d.add(["a"])
    assert d.due() == pytest.approx(100.2)
    clock.now = 100.19
    assert d.take() == set()
    clock.now = 100.2
    assert d.take() == {"a"}
    assert d.due() is None
    assert d.pending() == 0


def test_every_change_restarts_the_quiet_window_up_to_the_maximum_wait() -> None:
    clock = Clock()
    d: Debouncer[int] = Debouncer(0.2, 1.0, clock=clock)
    released = []
    for step in range(30):  # a change every 0.1 s: never quiet for 0.2 s
        clock.now = 100.0 + step * 0.1
        batch = d.take()
        if batch:
            released.append((round(clock.now - 100.0, 1), sorted(batch)))
        d.add([step])
    assert released[0] == (1.0, list(range(10)))  # the maximum wait forces the first batch out
    assert all(later[0] - earlier[0] <= 1.1 for earlier, later in zip(released, released[1:], strict=False))


def test_duplicates_collapse_and_empty_adds_do_not_arm_the_timer() -> None:
    clock = Clock()
    d: Debouncer[str] = Debouncer(0.0, 0.0, clock=clock)
    d.add([])
    assert d.due() is None
    d.add(["x"] * 10_000)
    assert d.pending() == 1
    assert d.take() == {"x"}


def test_force_takes_early() -> None:
    d: Debouncer[str] = Debouncer(10.0, 10.0, clock=Clock())
    d.add(["a"])
    assert d.take() == set()
    assert d.take(force=True) == {"a"}


def test_rejects_a_maximum_wait_shorter_than_the_quiet_window() -> None:
    with pytest.raises(ValueError, match="max_wait"):
        Debouncer(1.0, 0.5)


def test_wait_returns_the_batch_added_by_another_thread() -> None:
    d: Debouncer[str] = Debouncer(0.01, 1.0)
    go = threading.Event()

    def producer() -> None:
        go.wait(5)
        d.add(["from-thread"])

    thread = threading.Thread(target=producer)
    thread.start()
    go.set()
    assert d.wait(timeout=5) == {"from-thread"}
    thread.join(5)
    assert not thread.is_alive()


def test_wake_interrupts_a_wait_without_a_timeout() -> None:
    d: Debouncer[str] = Debouncer(0.01, 1.0)
    result: list[set[str]] = []
    waiter = threading.Thread(target=lambda: result.append(d.wait()))
    waiter.start()
    d.wake()
    waiter.join(5)
    assert not waiter.is_alive()
    assert result == [set()]


def test_wait_times_out_empty_and_keeps_pending_changes() -> None:
    d: Debouncer[str] = Debouncer(30.0, 60.0)
    d.add(["later"])
    assert d.wait(timeout=0.01) == set()
    assert d.pending() == 1


def test_many_producers_lose_nothing() -> None:
    d: Debouncer[int] = Debouncer(0.0, 0.0)
    threads = [threading.Thread(target=lambda k=k: d.add(range(k * 1000, k * 1000 + 1000))) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert d.take(force=True) == set(range(8000))
