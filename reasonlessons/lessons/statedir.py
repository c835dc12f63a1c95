"""Where a repository's local state lives: `.reasonix/state/`, unless that folder is not ours.

Local state (caches, checkpoints, counters, rejections) is a person's, on one machine. A
`.reasonix/state/` that arrived by git (files in it are tracked: someone committed them with
`git add -f`) or that is a symlink leaving the repository is someone else's, so it is neither read
nor written: the state of such a checkout lives in `$REASONIX_HOME/state/projects/<key>/` instead.

Whether files under `.reasonix/state/` are tracked is read from the git index, and the answer is
kept per machine (`state-location.json` in that same folder) with the index's stamp, so a turn
pays one stat of `.git/index` and one small read; the index is read again only after git changed
it (a commit, a checkout, a pull that might bring such files). Standard library only: the per-turn
paths (`stale`, the Claude Code hook) call it before importing anything else.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from collections.abc import Mapping

REASONIX_DIR = ".reasonix"  # the same names as reasonlessons.constants, kept import-free here
ENV_HOME = "REASONIX_HOME"
DEFAULT_HOME_DIRNAME = ".reasonix"
STATE_DIR = "state"
PROJECTS_DIR = "projects"
CACHE_FILE = "state-location.json"
_TRACKED_PREFIX = f"{REASONIX_DIR}/{STATE_DIR}/".encode()


def reasonix_home(env: Mapping[str, str], user_home: str | None = None) -> str:
    """`$REASONIX_HOME`, defaulting to `<user_home or ~>/.reasonix` (Locations wraps it in a Path)."""
    value = env.get(ENV_HOME)
    if value:
        return os.path.expanduser(value)
    return os.path.join(user_home or os.path.expanduser("~"), DEFAULT_HOME_DIRNAME)


def repo_key(root: str) -> str:
    """A per-repository folder name: the checkout's folder name and a digest of its real path."""
    real = os.path.realpath(root)
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in os.path.basename(real))[:40] or "root"
    return f"{name}-{_sha256_hex(real.encode('utf-8', 'surrogateescape'))[:20]}"


def _sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` from the interpreter's built-in module when it has one: hashlib loads
    OpenSSL's bindings (~3 ms), and every turn of a repository with local state needs this digest."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]  # (3.11; 3.12: _sha2)
    except ImportError:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


def machine_dir(root: str, home: str) -> str:
    """`$REASONIX_HOME/state/projects/<key>/`: this checkout's state kept outside it."""
    return os.path.join(home, STATE_DIR, PROJECTS_DIR, repo_key(root))


def inside(path: str, base: str) -> bool:
    """Whether `path`, with every symlink resolved, is `base` or below it."""
    real, top = os.path.realpath(path), os.path.realpath(base)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def resolve(root: str, home: str) -> str:
    """The state directory of the repository at `root` (`home` is `$REASONIX_HOME`)."""
    local = os.path.join(root, REASONIX_DIR, STATE_DIR)
    if not os.path.lexists(local):
        return local  # created by us when first needed
    if not inside(local, root):
        return machine_dir(root, home)
    return machine_dir(root, home) if foreign(root, home) else local


def foreign(root: str, home: str) -> bool:
    """Whether files under `<root>/.reasonix/state/` are tracked by git (remembered per index stamp)."""
    index = _index(root)
    if index is None:
        return False
    try:
        st = os.stat(index)
    except OSError:
        return False
    stamp = [st.st_mtime_ns, st.st_size, st.st_ino]
    cache = os.path.join(machine_dir(root, home), CACHE_FILE)
    try:
        with open(cache, "rb") as handle:
            data = handle.read()
        # The file as _remember writes it needs no JSON parser (json costs a turn ~2 ms to import).
        head = b'{"index": [%d, %d, %d], "tracked": ' % tuple(stamp)
        if data.startswith(head + b"false,"):
            return False
        if data.startswith(head + b"true,"):
            return True
        import json

        known = json.loads(data)
        if known.get("index") == stamp and isinstance(known.get("tracked"), bool):
            return bool(known["tracked"])
    except (OSError, ValueError, AttributeError):
        pass
    tracked = _tracked(index, root)
    _remember(cache, {"index": stamp, "tracked": tracked, "root": os.path.realpath(root)})
    return tracked


def _index(root: str) -> str | None:
    """The git index of the work tree at `root` (a `.git` file points at a worktree's git dir)."""
    git = os.path.join(root, ".git")
    if os.path.isdir(git):
        return os.path.join(git, "index")
    try:
        with open(git, encoding="utf-8") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = line[len("gitdir:") :].strip()
    return os.path.join(root, gitdir, "index") if not os.path.isabs(gitdir) else os.path.join(gitdir, "index")


def _tracked(index: str, root: str) -> bool:
    """Read the index: versions 2 and 3 hold every path whole; version 4 compresses paths, so ask git."""
    try:
        with open(index, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    if data[:4] == b"DIRC" and int.from_bytes(data[4:8], "big") in (2, 3):
        return _TRACKED_PREFIX in data  # also a nested repository's state: then not trusting ours is safe
    import subprocess  # only for index version 4; importing it costs every turn ~6 ms

    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--", f"{REASONIX_DIR}/{STATE_DIR}"],
            cwd=root,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return True  # cannot tell: the folder is not used, which is always safe
    return out.returncode != 0 or bool(out.stdout.strip())


def _remember(path: str, doc: dict[str, object]) -> None:
    """Best effort: without a writable home, the index is read again next time."""
    import json

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(doc, handle)
        os.replace(tmp, path)
    except OSError:
        pass
