"""The hand-off between the observer thread and the main loop: a quiet window with a maximum wait.

The observer thread only `add`s; the main loop `wait`s until the changes have been quiet for
`quiet` seconds, or the first pending change is `max_wait` old (so an endlessly appended log is still
processed), then takes the whole pending set and works on it without holding the lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)

Clock = Callable[[], float]


class Debouncer(Generic[T]):
    """A thread-safe pending set, released in batches."""

    def __init__(self, quiet: float, max_wait: float, *, clock: Clock = time.monotonic) -> None:
        if quiet < 0 or max_wait < quiet:
            raise ValueError("need 0 <= quiet <= max_wait")
        self.quiet = quiet
        self.max_wait = max_wait
        self._clock = clock
        # Reentrant: a signal handler running on the main thread may call wake() mid-wait().
        self._cond = threading.Condition(threading.RLock())
        self._pending: set[T] = set()
        self._first: float | None = None
        self._last: float | None = None
        self._woken = False

    def add(self, items: Iterable[T]) -> None:
        """Record changes (any thread); every call restarts the quiet window."""
        items = list(items)
        if not items:
            return
        now = self._clock()
        with self._cond:
            self._pending.update(items)
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    def due(self) -> float | None:
        """When the pending batch will be released (clock time), None when nothing is pending."""
        with self._cond:
            return self._due()

    def _due(self) -> float | None:
        if self._first is None or self._last is None:
            return None
        return min(self._last + self.quiet, self._first + self.max_wait)

    def take(self, *, force: bool = False) -> set[T]:
        """The pending batch if it is due (or `force`), else an empty set."""
        with self._cond:
            due = self._due()
            if due is None or (not force and self._clock() < due):
                return set()
            return self._swap()

    def _swap(self) -> set[T]:
        batch, self._pending = self._pending, set()
        self._first = self._last = None
        return batch

    def pending(self) -> int:
        with self._cond:
            return len(self._pending)

    def wake(self) -> None:
        """Make the current or next `wait` return at once (used to stop the loop)."""
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def wait(self, timeout: float | None = None) -> set[T]:
        """Block until a batch is due and return it; an empty set after `wake()` or `timeout`."""
        deadline = None if timeout is None else self._clock() + max(timeout, 0.0)
        with self._cond:
            while True:
                if self._woken:
                    self._woken = False
                    return set()
                now = self._clock()
                due = self._due()
                if due is not None and now >= due:
                    return self._swap()
                if deadline is not None and now >= deadline:
                    return set()
                limits = [t for t in (due, deadline) if t is not None]
                self._cond.wait(min(limits) - now if limits else None)
