"""The spellings of a repository's path that agents were seen using, and which of them still hold.

An agent names its per-project folders after the working directory as it got it: through a
symlink (`/home/me/link` to `/srv/repo`), or in another letter case on a case-insensitive disk
(`/Users/me/Proj` for `/Users/me/proj`). Reasonix v2 keeps both its sessions and its memory under
`<state root>/projects/<slug of that spelling>/`, so a spelling nobody recorded is a folder nobody
reads. The Reasonix hook records each spelling it is handed (`cwd` of its payload) in
`.reasonix/state/workspaces.json` (local state, disposable); discovery reads sessions, and the
export writes memory, under every recorded spelling that still names this repository.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from reasonlessons.constants import REASONIX_DIR, STATE_DIR
from reasonlessons.lessons.locations import Locations
from reasonlessons.support import jsonio
from reasonlessons.support.atomic import write_atomic

FILE = "workspaces.json"
VERSION = 1
_MAX = 32  # a user reaches one repository a handful of ways; more is a hostile file


def state_file(root: Path) -> Path:
    return root / REASONIX_DIR / STATE_DIR / FILE


def same_directory(a: Path | str, b: Path | str) -> bool:
    """Whether two paths name one directory (symlinks followed, case as the disk compares it)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def recorded(root: Path) -> list[Path]:
    """Spellings recorded for `root`, whatever they name now (a missing or damaged file: none)."""
    try:
        data = jsonio.loads(state_file(root).read_bytes())
    except (OSError, ValueError):
        return []
    paths = data.get("paths") if isinstance(data, dict) else None
    if not isinstance(paths, list):
        return []
    return [Path(p) for p in paths[:_MAX] if isinstance(p, str) and os.path.isabs(p)]


def spellings(root: Path, *, env: Mapping[str, str] | None = None, extra: Iterable[Path] = ()) -> list[Path]:
    """Every spelling of `root` to look under: as given, resolved, the shell's `$PWD` way to it, the
    recorded ones and `extra`; each kept only while it still names `root`, in that order."""
    given = root if root.is_absolute() else root.absolute()
    found = [given, given.resolve()]
    pwd = (env or {}).get("PWD")
    if pwd and os.path.isabs(pwd):
        found += [p for p in (Path(pwd), *Path(pwd).parents) if same_directory(p, given)][:1]
    found += [p for p in (*recorded(given), *extra) if same_directory(p, given)]
    return list(dict.fromkeys(found))


def remember(loc: Locations, spelling: Path) -> bool:
    """Record `spelling` for the repository when it is a new way to it; True if written."""
    root = loc.root
    if not spelling.is_absolute() or not same_directory(spelling, root):
        return False
    known = recorded(root)
    if spelling in known or spelling in (root, root.resolve()):
        return False
    keep = [p for p in known if same_directory(p, root)][-(_MAX - 1) :]
    doc = {"version": VERSION, "paths": [str(p) for p in (*keep, spelling)]}
    write_atomic(loc.ensure_state_dir() / FILE, jsonio.dumps(doc) + b"\n", durable=False)
    return True
