"""Infrastructure every stage uses, one module per concern (and per third-party library).

Takes bytes, paths and repositories; gives them back safely written, parsed, hashed or read, so no
other package imports orjson, xxhash, filelock, PyYAML or GitPython itself.

    atomic.py     atomic file writes, and the inter-process lock around store mutations (flock;
                  filelock on Windows)
    jsonio.py     JSON in and out (orjson)
    hashing.py    content hashes of repo facts (xxhash)
    stamp.py      a file's identity from stat(): the one stamp every cache compares, and racy timestamps
    globs.py      glob -> regex translation shared by fingerprint globs and recall's file triggers
    tokens.py     the tokenizers of keyword triggers, BM25 and the task classifier
    yamlread.py   YAML as PyYAML's safe loader reads it, faster for plain documents
    yamlblock.py  the simplest block YAML, read line by line: yamlread's first try
    yamlwrite.py  YAML out for files other programs parse (Reasonix facts and skills), quoted as needed
    values.py     value classes with dataclass equality, hash and repr, without importing dataclasses;
                  frozen dataclass instances built without their generated __init__
    gitrepo.py    read-only history of a repository (GitPython), for explaining drift
    gitcli.py     the same through the git command line
    githead.py    HEAD's commit, cheaply, without the history readers
"""

from __future__ import annotations

import importlib

# Submodules loaded on first use, for modules on the per-turn path that need them only now and
# then: jsonio imports orjson (~20 ms), yamlread is needed only to parse a changed lesson or config
# file, atomic only to write (the warm `stale` replays its answer without writing anything).
__all__ = ["atomic", "jsonio", "yamlread"]

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Any

    from reasonlessons.support import atomic, jsonio, yamlread


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.support' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.support.{name}")
