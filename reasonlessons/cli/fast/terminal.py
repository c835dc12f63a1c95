"""What a terminal gets and a pipe does not: colours and progress bars.

Colours: only on a terminal, never with `NO_COLOR` set to anything but "" (no-color.org), with
`--no-color`, or with `TERM=dumb`. Progress bars: only on a terminal, never under CI (`CI` set, as
every CI service does), and only for work that turns out to be long: a bar starts once the work has
run `DELAY` seconds, so quick runs never import rich (the per-turn paths import this module; it
imports nothing beyond the standard library's core until a bar is drawn).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

# Seconds before a bar appears: a bar that flashes by is noise.
DELAY = 0.5
# ANSI SGR codes of the few colours used.
COLORS = {"red": "31", "green": "32", "yellow": "33", "dim": "2", "bold": "1"}

_state = {"no_color": False}

Tick = Callable[[int, int], None]  # (done, total)


def disable_color() -> None:
    """`--no-color` on the command line."""
    _state["no_color"] = True


def reset() -> None:
    """Forget `--no-color` (one command line per call of the CLI's main)."""
    _state["no_color"] = False


def _isatty(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def color_enabled(stream: IO[Any]) -> bool:
    """Whether text for `stream` may be coloured."""
    if _state["no_color"] or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return _isatty(stream)


def style(text: str, color: str, stream: IO[Any] | None = None) -> str:
    """`text` in `color` when `stream` (stdout by default) may be coloured, else as is."""
    if not color_enabled(stream or sys.stdout):
        return text
    return f"\x1b[{COLORS[color]}m{text}\x1b[0m"


def progress_enabled(stream: IO[Any]) -> bool:
    """Whether a progress bar may be drawn on `stream`: a terminal, outside CI."""
    return _isatty(stream) and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


@contextmanager
def progress(label: str, *, unit: str = "", delay: float | None = None) -> Iterator[Tick | None]:
    """A `tick(done, total)` that draws a transient bar on stderr once the work has run `delay`
    seconds (DELAY); None when no bar may be drawn (a pipe, CI), so callers skip even the ticking."""
    if not progress_enabled(sys.stderr):
        yield None
        return
    delay = DELAY if delay is None else delay
    started = time.monotonic()
    bar: list[Any] = []  # [rich Progress, task id] once drawn

    def tick(done: int, total: int) -> None:
        if not bar:
            if time.monotonic() - started < delay or total <= 0 or done >= total:
                return
            bar.extend(_start(label, total, unit))
        bar[0].update(bar[1], completed=done, total=total)

    try:
        yield tick
    finally:
        if bar:
            bar[0].stop()


def _start(label: str, total: int, unit: str) -> list[Any]:
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    console = Console(stderr=True, no_color=not color_enabled(sys.stderr))
    bar = Progress(label, BarColumn(), count, TimeRemainingColumn(), console=console, transient=True)
    bar.start()
    return [bar, bar.add_task(label, total=total)]
