"""The current value of one entry: file content, one field's value, a directory's shape, a glob's match.

A Fact's `key` is what is compared with the recorded value: a content hash, MATCH, ABSENT, or
UNREADABLE (always stale, with `problem` saying why).
"""

from __future__ import annotations

import errno
import os
import stat

from reasonlessons.fingerprint.entry import Entry
from reasonlessons.fingerprint.fields import canonical, lookup, parse_document
from reasonlessons.fingerprint.tree import Shape
from reasonlessons.support.hashing import Hasher, digest
from reasonlessons.support.values import Value

ABSENT = "absent"
UNREADABLE = "unreadable"
MATCH = "match"

# Whole-file entries stream their content; past this size the entry is reported, not read.
MAX_FILE_BYTES = 256 * 1024 * 1024
# Field entries parse the whole document in memory.
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
SHORT = 80
CHUNK = 1 << 20


class Fact(Value):
    """An entry's value now (or as recorded)."""

    FIELDS = ("key", "value", "dirs", "kinds", "problem", "truncated")
    __slots__ = FIELDS

    def __init__(
        self,
        key: str,
        value: str | None = None,  # field: short canonical JSON; glob: an example match
        dirs: tuple[str, ...] = (),
        kinds: tuple[str, ...] = (),
        problem: str | None = None,
        truncated: bool = False,  # a recorded dir whose lists were cut to drift.MAX_LISTED
    ) -> None:
        self.key = key
        self.value = value
        self.dirs = dirs
        self.kinds = kinds
        self.problem = problem
        self.truncated = truncated

    @property
    def absent(self) -> bool:
        return self.key == ABSENT

    @property
    def unreadable(self) -> bool:
        return self.key == UNREADABLE


def unreadable(problem: str) -> Fact:
    return Fact(UNREADABLE, problem=problem)


def shape_fact(shape: Shape) -> Fact:
    text = "\0".join(["dirs", *shape.dirs, "kinds", *shape.kinds])
    return Fact(digest(text.encode("utf-8", "surrogateescape")), dirs=shape.dirs, kinds=shape.kinds)


def glob_fact(match: str | None) -> Fact:
    return Fact(MATCH, value=match) if match is not None else Fact(ABSENT)


def stat_target(root: str, entry: Entry) -> tuple[os.stat_result | None, Fact | None, bool]:
    """stat() an entry's file; a Fact instead when it is absent or cannot be a file; and whether
    the path itself is a symbolic link. An lstat() first, which for anything but a link is the
    stat() itself: a cold check then asks the kernel once per file, not twice."""
    path = f"{root}/{entry.path}"
    link = False
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            link = True
            st = os.stat(path)
    except FileNotFoundError:
        return None, Fact(ABSENT), link
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            return None, Fact(ABSENT), link
        if exc.errno == errno.ELOOP:
            return None, unreadable("is a symbolic link loop: point the link at a real file"), link
        return None, unreadable(f"cannot stat ({exc.strerror or exc}): check permissions"), link
    if stat.S_ISDIR(st.st_mode):
        return st, unreadable("is a directory: end the entry with '/' to fingerprint its shape"), link
    if not stat.S_ISREG(st.st_mode):
        return st, unreadable("is not a regular file: fingerprint a regular file"), link
    return st, None, link


def inside(root: str, path: str) -> bool:
    """Whether `path`, links resolved, stays under the (resolved) `root`."""
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


def file_fact(root: str, entry: Entry, st: os.stat_result) -> Fact:
    """The content hash of a regular file, CRLF read as LF, streamed in chunks."""
    if st.st_size > MAX_FILE_BYTES:
        return unreadable(
            f"is {st.st_size // (1024 * 1024)} MiB, over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit: "
            "fingerprint a smaller file or its directory"
        )
    hasher = Hasher()
    carry = b""
    try:
        with open_file(f"{root}/{entry.path}") as handle:
            # Size the first read to the file: a 1 MiB buffer per small file costs more than reading it.
            size = min(st.st_size + 1, CHUNK)
            while chunk := handle.read(size):
                chunk = carry + chunk
                # A CR at the end of a chunk may start a CRLF split across two reads.
                carry = b"\r" if chunk.endswith(b"\r") else b""
                hasher.update((chunk[:-1] if carry else chunk).replace(b"\r\n", b"\n"))
                size = CHUNK
    except OSError as exc:
        return unreadable(f"cannot read ({exc.strerror or exc}): check permissions")
    hasher.update(carry)
    return Fact(hasher.hexdigest())


def content_fact(data: bytes) -> Fact:
    """The content hash of bytes held in memory (a file as stored in a commit)."""
    return Fact(digest(data.replace(b"\r\n", b"\n")))


def open_file(path: str) -> _Reader:
    """Open for reading without blocking on a fifo swapped in after stat (a seam for tests too)."""
    return _Reader(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))


class _Reader:
    """An open file read with os.read: a buffered file object costs more than reading a small file
    (a cold check reads ~1,000 of them)."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, size: int) -> bytes:
        """Up to `size` bytes, fewer only at the end of the file (or of what a fifo holds now, as
        a buffered reader over this non-blocking descriptor would give)."""
        data = b""
        while len(data) < size:
            try:
                more = os.read(self.fd, size - len(data))
            except BlockingIOError:
                break
            if not more:
                break
            data += more
        return data

    def __enter__(self) -> _Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def read_document(root: str, path: str, st: os.stat_result) -> bytes | Fact:
    """The bytes of a document a field entry reads, or an unreadable Fact."""
    if st.st_size > MAX_DOCUMENT_BYTES:
        return _too_large(st.st_size)
    try:
        with open_file(f"{root}/{path}") as handle:
            data: bytes = handle.read(st.st_size + 1)
            if len(data) > st.st_size:  # grew since stat
                data += handle.read(MAX_DOCUMENT_BYTES + 1 - len(data))
    except OSError as exc:
        return unreadable(f"cannot read ({exc.strerror or exc}): check permissions")
    return _too_large(len(data)) if len(data) > MAX_DOCUMENT_BYTES else data


def _too_large(size: int) -> Fact:
    return unreadable(
        f"is {size // (1024 * 1024)} MiB, too large to parse for a field "
        f"(limit {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB): fingerprint the whole file instead"
    )


def parse(path: str, data: bytes) -> object:
    """The parsed document, or an unreadable Fact saying why it is not valid."""
    try:
        return parse_document(path, data)
    except ValueError as exc:
        return unreadable(str(exc))


def field_from(entry: Entry, doc: object) -> Fact:
    """The canonical value of the entry's field in a parsed document."""
    if isinstance(doc, Fact):
        return doc
    found, value, detail = lookup(doc, entry.field)
    if not found:
        return Fact(ABSENT, problem=detail)
    try:
        text = canonical(value)
    except ValueError as exc:
        return unreadable(str(exc))
    return Fact(digest(text), value=short(text.decode("utf-8", "replace")))


def field_value_fact(entry: Entry, data: bytes) -> Fact:
    """The canonical value of a field of a document held in memory."""
    return field_from(entry, parse(entry.path, data))


def short(text: str) -> str:
    return text if len(text) <= SHORT else text[: SHORT - 1] + "…"
