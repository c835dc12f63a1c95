"""Candidates written from `/lesson` writs, until the agent is told: `writ-notices/` in local state.

A writ is the user's or the agent's own intent, so its author should hear that it landed. Capture
files a notice for each candidate it wrote from a writ, under the agent's family name (`reasonix`
for every Reasonix log version); the Claude Code hook claims the notices of its agent on the next
prompt, and the Reasonix SessionStart hook in the next session, tell the agent once ("recorded
candidate lesson `<name>`") and delete them. One small JSON file per capture run and agent
(`<agent>.<time>.<pid>.json`): a notice is claimed by renaming its file, which only one claimant
can do, so two hooks racing never both tell it, and a capture writing while a hook reads never
loses or repeats one.

The hook runs this on every prompt: a repository without notices costs one failed scandir, and
nothing beyond os and json is imported.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable

NOTICES_DIR = "writ-notices"
MAX_FILES = 64  # notices nobody claims (agents without a hook) are pruned, oldest first
MAX_NAMES = 20


def file(state_dir: str, agent: str, seq: int, pid: int) -> str:
    return os.path.join(state_dir, NOTICES_DIR, f"{agent}.{seq:020d}.{pid}.json")


def record(state_dir: str, agent: str, names: Iterable[str], *, at_ns: int) -> None:
    """File a notice of the candidates written from writs of one agent's sessions (best effort)."""
    wanted = list(dict.fromkeys(names))[:MAX_NAMES]
    if not wanted:
        return
    folder = os.path.join(state_dir, NOTICES_DIR)
    os.makedirs(folder, exist_ok=True)
    path = file(state_dir, agent, at_ns, os.getpid())
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"agent": agent, "names": wanted}, handle)
    os.replace(tmp, path)
    _prune(folder)


def _prune(folder: str) -> None:
    try:
        found = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))
    except OSError:
        return
    for name in found[: max(0, len(found) - MAX_FILES)]:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))


def claim(state_dir: str, agent: str) -> list[str]:
    """The names in this agent's notices, each notice claimed (and deleted) by this call only."""
    folder = os.path.join(state_dir, NOTICES_DIR)
    try:
        entries = sorted(
            e.name for e in os.scandir(folder) if e.name.startswith(f"{agent}.") and e.name.endswith(".json")
        )
    except OSError:
        return []
    names: list[str] = []
    for entry in entries:
        path = os.path.join(folder, entry)
        taken = f"{path}.claimed.{os.getpid()}"
        try:
            os.rename(path, taken)  # only one claimant succeeds
        except OSError:
            continue
        try:
            with open(taken, encoding="utf-8") as handle:
                doc = json.load(handle)
        except (OSError, ValueError):
            doc = None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(taken)
        found = doc.get("names") if isinstance(doc, dict) else None
        if isinstance(found, list):
            names.extend(n for n in found if isinstance(n, str) and n not in names)
    return names
