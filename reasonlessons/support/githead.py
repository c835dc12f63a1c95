"""The commit HEAD points to, read from `.git` without starting git (or importing the readers of
history, support/gitrepo.py and gitcli.py): a staleness check asks for it on every drift it explains,
and finds the explanation cached per HEAD."""

from __future__ import annotations

import os


def head_token(root: str, seen: list[str] | None = None) -> str | None:
    """The commit id HEAD points to, read from `.git` without starting git; None when unknown.

    Every file consulted (or looked for) is appended to `seen`, so callers can tell when HEAD moves."""
    seen = [] if seen is None else seen

    def read(path: str) -> str | None:
        seen.append(path)
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read(1 << 22).strip()
        except (OSError, UnicodeDecodeError):
            return None

    git_dir = os.path.join(root, ".git")
    if os.path.isfile(git_dir):  # a linked work tree or submodule: `gitdir: <path>`
        pointer = read(git_dir) or ""
        if not pointer.startswith("gitdir:"):
            return None
        git_dir = os.path.join(root, pointer[len("gitdir:") :].strip())
    head = read(os.path.join(git_dir, "HEAD"))
    if not head or not head.startswith("ref:"):
        return head or None
    ref = head[len("ref:") :].strip()
    common = os.path.join(git_dir, read(os.path.join(git_dir, "commondir")) or ".")
    for base in (git_dir, common):
        sha = read(os.path.join(base, ref))
        if sha:
            return sha
    for line in (read(os.path.join(common, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return sha
    return None
