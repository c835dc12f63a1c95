"""The exception root. Every error a user can cause is one of these, with a message saying how to fix it."""

from __future__ import annotations

import sys

from reasonlessons.constants import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:  # pathlib costs the per-turn hooks, which import this module, more than their work
    from collections.abc import Callable
    from pathlib import Path


class ReasonLessonsError(Exception):
    """Base of every expected failure; the CLI prints the message and exits with `exit_code`."""

    exit_code: int = EXIT_ERROR


class UsageError(ReasonLessonsError):
    """The command line itself is wrong (bad name, conflicting options)."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """A `config.toml` that cannot be used as written: names the file and the key (exit 2)."""


class InvalidNameError(UsageError):
    """A lesson name that does not match the naming rule."""


class LessonFileError(ReasonLessonsError):
    """A lesson file that cannot be read or parsed; carries the path."""

    def __init__(self, path: Path, problem: str, fix: str) -> None:
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{path}: {problem}; {fix}")


class LessonNotFoundError(ReasonLessonsError):
    """No lesson of that name in the scopes searched."""


class LessonExistsError(ReasonLessonsError):
    """A write would overwrite a different lesson."""


class StoreWriteError(ReasonLessonsError):
    """The lessons directory or state directory could not be written."""


class UnsafeLocationError(StoreWriteError):
    """A lessons or state directory is a symlink (or under one) that leaves its scope's root."""


class UnsafeTextError(ReasonLessonsError):
    """Text about to be written holds characters that make it read differently than it is
    (bidirectional controls): refused, never stored."""


class InvalidFingerprintError(UsageError):
    """A fingerprint entry that cannot be parsed or escapes the repository."""


class NotARepositoryError(UsageError):
    """A read command run outside any repository: no git work tree and no `.reasonix/` folder."""


def run_mapped(call: Callable[[], int | None], *, show: Callable[[str], str] = str) -> int:
    """Run a command body, mapping expected failures to exit codes (docs/concepts.md#exit-codes).

    The one place that does so: the Typer CLI and the Typer-free per-turn paths (stale, recall,
    capture) all go through it, so every command fails the same way. `show` renders the message
    for the terminal (reasonlessons.safety.terminal.visible: a message may quote a file name).
    """
    try:
        return call() or EXIT_OK
    except ReasonLessonsError as exc:
        sys.stderr.write(f"reasonlessons: error: {show(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("reasonlessons: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # pragma: no cover (reader went away, e.g. `| head`)
        return EXIT_OK
