"""Entries that name nothing in a repository, each with the nearest thing that does exist.

`add` checks its fingerprint at the door with this: `package.json#scirpts.test` records "absent"
without complaint, and the lesson would then go stale the day the real field is mistyped right.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from pathlib import Path

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint.checker import Checker
from reasonlessons.fingerprint.entry import DIR, FIELD, FILE, Entry, Segment, parse_entry
from reasonlessons.fingerprint.facts import ABSENT, UNREADABLE, Fact, parse, read_document
from reasonlessons.fingerprint.fields import lookup

MAX_SHOWN = 8


def require_present(root: Path, entries: Sequence[str]) -> None:
    """Raise InvalidFingerprintError (exit 2) naming every entry that is malformed, cannot be read,
    or names nothing here, with the nearest entry that does exist."""
    problems = absent(root, entries)
    if problems:
        raise InvalidFingerprintError(
            "; ".join(problems) + " (fix the entry, or pass --allow-absent to record it as absent)"
        )


def absent(root: Path, entries: Sequence[str]) -> list[str]:
    """One message per entry that does not name an existing, readable fact of the repository."""
    out: list[str] = []
    with Checker(root, state_dir=None) as checker:
        for text in entries:
            try:
                entry = parse_entry(text)
            except InvalidFingerprintError as exc:
                out.append(f"fingerprint entry {text!r} {exc}")
                continue
            fact = checker.fact(entry)
            if fact.key == UNREADABLE:
                out.append(f"fingerprint entry {text!r} cannot be read: {fact.problem}")
            elif fact.key == ABSENT:
                out.append(
                    f"fingerprint entry {text!r} names nothing here: {_explain(str(root), entry, fact)}"
                )
    return out


def closest(word: str, names: Sequence[str]) -> list[str]:
    """The name `word` most likely misspells: the same letters in another order (a transposed
    pair, which difflib rates low), else difflib's closest."""
    swapped = [name for name in names if sorted(name) == sorted(word)]
    return swapped[:1] or difflib.get_close_matches(word, names, n=1)


def _explain(root: str, entry: Entry, fact: Fact) -> str:
    if entry.kind == FIELD and os.path.isfile(f"{root}/{entry.path}"):
        return _field(root, entry, fact)
    if entry.kind in (FILE, FIELD, DIR):
        return _path(root, entry.path, want_dir=entry.kind == DIR, field=entry.text.partition("#")[2])
    return "the glob matches no file"


def _path(root: str, path: str, *, want_dir: bool, field: str) -> str:
    """No such file or directory: the nearest name in the deepest folder that exists."""
    what = "directory" if want_dir else "file"
    parts = path.split("/")
    folder: list[str] = []
    for part in parts[:-1]:
        if not os.path.isdir(os.path.join(root, *folder, part)):
            break
        folder.append(part)
    missing = parts[len(folder)]
    last = len(folder) == len(parts) - 1
    try:
        names = [
            e.name
            for e in os.scandir(os.path.join(root, *folder))
            if not e.name.startswith(".git") and (e.is_dir() if (want_dir or not last) else e.is_file())
        ]
    except OSError:
        names = []
    where = "/".join(folder) + "/" if folder else "the repository root"
    close = closest(missing, names)
    if not close:
        return f"no {what} {path}{'/' if want_dir else ''} ({where} has no {missing!r})"
    nearest = "/".join([*folder, close[0]]) + ("/" if want_dir else "") + (f"#{field}" if field else "")
    return f"no {what} {path}{'/' if want_dir else ''}; nearest that exists: {nearest}"


def _field(root: str, entry: Entry, fact: Fact) -> str:
    """No such field: the nearest key at the level where the path stops resolving."""
    data = read_document(root, entry.path, os.stat(f"{root}/{entry.path}"))
    doc = data if isinstance(data, Fact) else parse(entry.path, data)
    why = fact.problem or "no such field"
    if isinstance(doc, Fact):
        return f"{entry.path} {doc.problem}"
    current: object = doc
    for depth, (text, _) in enumerate(entry.field):
        if isinstance(current, dict) and text in current:
            current = current[text]
            continue
        if not isinstance(current, dict) or not current:
            return f"{entry.path}: {why}"
        keys = [str(k) for k in current]
        close = closest(text, keys)
        if not close:
            shown = ", ".join(keys[:MAX_SHOWN]) + (", ..." if len(keys) > MAX_SHOWN else "")
            return f"{entry.path}: {why} (keys there: {shown})"
        key = close[0]
        plain_key = bool(key) and "." not in key and '"' not in key and not key.isdigit()
        fixed: tuple[Segment, ...] = (*entry.field[:depth], (key, not plain_key), *entry.field[depth + 1 :])
        upto = fixed if lookup(doc, fixed)[0] else fixed[: depth + 1]
        nearest = Entry(entry.text, FIELD, entry.path, upto).field_text
        return f"{entry.path}: {why}; nearest that exists: {entry.path}#{nearest}"
    return f"{entry.path}: {why}"
