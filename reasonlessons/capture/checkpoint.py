"""Per-log checkpoints in local state, so capture reads only new bytes and a re-run reads nothing.

A checkpoint holds the file's identity (its stamp, support/stamp.py, and a hash of its first 4 KiB),
the adapter's resume point (offset, seq, line), the sessions already captured (session id -> last
seq learned from), and whether the last session was still being written. The identity tells an
unchanged file (skip without reading), a grown one (resume), and a replaced or truncated one
(start again from the top).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.store.state import load_state, save_state
from reasonlessons.support import stamp as stamps
from reasonlessons.support.hashing import digest
from reasonlessons.support.stamp import Stamp

FILE_NAME = "capture-checkpoints.json"
_KIND = "capture-checkpoints"
HEAD_BYTES = 4096
# A v2 sessions-v4 store is a directory; its log is this file inside it.
_STORE_LOG = "events.frames"
_KEY_PREFIX = "log:"


@dataclass(frozen=True)
class Identity:
    """What makes a log file the same file, and unchanged: its stamp and how it starts.

    The stamp alone cannot tell a grown log from one rewritten in place (same inode, longer): the
    hash of its first bytes can. No racy window is needed (support/stamp.py): logs are appended to,
    and every append moves the size."""

    stamp: Stamp
    head: str

    @property
    def size(self) -> int:
        return self.stamp[stamps.SIZE]

    @classmethod
    def of(cls, path: Path) -> Identity:
        """The identity of a log now (a store directory is identified by its frames file)."""
        return cls(stamps.of(os.stat(_target(path))), _head(path, HEAD_BYTES))

    def continues(self, earlier: Identity, path: Path) -> bool:
        """True when this is `earlier` with bytes appended (same file, same start, not shorter)."""
        if not stamps.same_file(self.stamp, earlier.stamp) or self.size < earlier.size:
            return False
        if earlier.size >= HEAD_BYTES:
            return self.head == earlier.head
        # The earlier head was the whole (short) file: it must still be how the file starts.
        return _head(path, earlier.size) == earlier.head

    def to_json(self) -> dict[str, int | str]:
        return {**stamps.to_json(self.stamp), "head": self.head}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Identity:
        """An identity as `to_json` wrote it. One written before the stamp held mode and ctime reads
        as a changed file: a log that only continues it is resumed, never read again from the top.
        Raises KeyError/TypeError/ValueError when damaged."""
        head = data["head"]
        if not isinstance(head, str):
            raise TypeError("head")
        return cls(stamps.from_json(data), head)


def _target(path: Path) -> Path:
    return path / _STORE_LOG if path.is_dir() else path


def _head(path: Path, size: int) -> str:
    with open(_target(path), "rb") as handle:
        return digest(handle.read(size))


@dataclass
class FileCheckpoint:
    """Where capture stopped in one log."""

    agent: str
    identity: Identity
    offset: int = 0
    seq: int = 0
    line: int = 1
    captured: dict[str, int] = field(default_factory=dict)
    pending: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "identity": self.identity.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileCheckpoint | None:
        try:
            identity = Identity.from_json(data["identity"])
            captured = {str(k): int(v) for k, v in dict(data.get("captured") or {}).items()}
            return cls(
                agent=str(data["agent"]),
                identity=identity,
                offset=int(data["offset"]),
                seq=int(data["seq"]),
                line=int(data["line"]),
                captured=captured,
                pending=bool(data.get("pending", False)),
            )
        except (KeyError, TypeError, ValueError):
            return None  # a damaged entry just means reading that log again


@dataclass(frozen=True)
class Plan:
    """How to read one log: not at all ('unchanged'), or from a start point, keeping or dropping
    what was captured before ('resume' or 'fresh')."""

    action: str
    offset: int = 0
    seq: int = 0
    line: int = 1
    captured: dict[str, int] = field(default_factory=dict)


def plan(checkpoint: FileCheckpoint | None, identity: Identity, agent: str, path: Path) -> Plan:
    """Decide how to read a log given its last checkpoint and its identity now."""
    if checkpoint is None or checkpoint.agent != agent:
        return Plan("fresh")
    if checkpoint.identity == identity and not checkpoint.pending:
        return Plan("unchanged")
    if identity.continues(checkpoint.identity, path):
        c = checkpoint
        return Plan("resume", c.offset, c.seq, c.line, dict(c.captured))
    return Plan("fresh")


class Checkpoints:
    """All checkpoints of one repository, loaded once and saved once (only when changed).

    A checkpoint is filed under a digest of its log's path, not the path: a path is text from
    outside (a log may be named after anything, a token included), and a mapping key that had to
    be redacted would no longer find its checkpoint. The path itself is kept in the entry, where
    the state writer redacts it like any other value."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._raw = load_state(self.path, kind=_KIND)
        self._data: dict[str, Any] = {}
        for key, value in self._raw.items():
            # Checkpoints written before keys were digests are filed under the path itself.
            self._data[key if key.startswith(_KEY_PREFIX) else self.key(Path(key))] = value
        self._raw = dict(self._data)

    @staticmethod
    def key(path: Path) -> str:
        return _KEY_PREFIX + digest(str(path).encode("utf-8", "surrogateescape"))

    def get(self, path: Path) -> FileCheckpoint | None:
        raw = self._data.get(self.key(path))
        return FileCheckpoint.from_json(raw) if isinstance(raw, dict) else None

    def put(self, path: Path, checkpoint: FileCheckpoint) -> None:
        self._data[self.key(path)] = {**checkpoint.to_json(), "path": str(path)}

    def save(self) -> bool:
        """Write the document if anything changed; True when written."""
        if self._data == self._raw:
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        save_state(self.path, self._data, kind=_KIND)
        self._raw = dict(self._data)
        return True
