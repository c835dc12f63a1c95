"""Content hashing (the one xxhash user): fast, stable, non-cryptographic identities of repo facts."""

from __future__ import annotations

import xxhash

PREFIX = "xxh3:"


def digest(data: bytes) -> str:
    """A short, stable hex digest of `data`, tagged with its algorithm so it can change later."""
    return PREFIX + xxhash.xxh3_64_hexdigest(data)


def text_key(text: str) -> str:
    """Identity of a text up to case and whitespace: near-equal wordings compare equal."""
    return digest(" ".join(text.lower().split()).encode("utf-8"))


class Hasher:
    """Incremental digest for content too large to hold in memory at once."""

    def __init__(self) -> None:
        self._h = xxhash.xxh3_64()

    def update(self, data: bytes) -> None:
        self._h.update(data)

    def hexdigest(self) -> str:
        return PREFIX + self._h.hexdigest()
