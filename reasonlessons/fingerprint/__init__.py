"""Fingerprints: the repo facts a lesson depends on, recorded once and re-checked cheaply.

Takes fingerprint entries and a repository; gives each entry's current fact, the drift of a lesson
against what it recorded, and the commit that introduced it (docs/fingerprints.md).

    entry.py     the entry grammar: file, file.json#field, dir/, glob
    facts.py     a file's content hash, a field's canonical value (fields.py), a Fact
    tree.py      directory listings for dir/ shapes and globs, remembered per directory
    ignore.py    .gitignore matching; kinds.py: a file's compound extension; globs.py
    cache.py     the stat-keyed cache in the local state dir
    deps.py      every path a check stat'ed, with its stamp (for reasonlessons.stale.answer_cache)
    drift.py     recorded vs current: Drift, and the `fingerprint-recorded` mapping
    applies.py   where a global lesson applies: its entries as conditions (`applies-when`)
    suggest.py   entries that name nothing here, with the nearest that exists (`add` checks them)
    checker.py   Checker: facts + cache + drift of a lesson; record()
    attribution.py  the commit that introduced a drift (via reasonlessons.support.gitrepo)

Exports load lazily so importing the package costs nothing on the per-turn path.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_EXPORTS = {
    "Attributor": "reasonlessons.fingerprint.attribution",
    "Checker": "reasonlessons.fingerprint.checker",
    "record": "reasonlessons.fingerprint.checker",
    "record_for": "reasonlessons.fingerprint.checker",
    "require_present": "reasonlessons.fingerprint.suggest",
    "Drift": "reasonlessons.fingerprint.drift",
    "Entry": "reasonlessons.fingerprint.entry",
    "check_entry": "reasonlessons.fingerprint.entry",
    "parse_entry": "reasonlessons.fingerprint.entry",
    "Fact": "reasonlessons.fingerprint.facts",
}

__all__ = [
    "Attributor",
    "Checker",
    "Drift",
    "Entry",
    "Fact",
    "check_entry",
    "parse_entry",
    "record",
    "record_for",
    "require_present",
]

if TYPE_CHECKING:
    from reasonlessons.fingerprint.attribution import Attributor
    from reasonlessons.fingerprint.checker import Checker, record, record_for
    from reasonlessons.fingerprint.drift import Drift
    from reasonlessons.fingerprint.entry import Entry, check_entry, parse_entry
    from reasonlessons.fingerprint.facts import Fact
    from reasonlessons.fingerprint.suggest import require_present


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reasonlessons.fingerprint' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
