"""Reading commits and trees through the git command line, for reasonlessons.support.gitrepo.

Explaining a drift needs a handful of objects: importing GitPython and letting it parse them costs
more than the rest of a cold `stale` on stale lessons (~100 ms). Here one `git cat-file --batch`
process serves every object and `git rev-list` lists the commits, and the objects are parsed as
GitPython parses them. Anything this reader cannot vouch for reading exactly as GitPython does (an
unusual commit header, a tree entry name GitPython checks, a submodule) raises Fallback, and
gitrepo.py asks GitPython instead: the answers stay GitPython's.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import IO

# Tree entry modes git writes, as GitPython types them ("link" is a blob GitPython checks more).
_MODES = {b"40000": "tree", b"100644": "blob", b"100755": "blob", b"120000": "link"}
_HEX = re.compile(rb"[0-9a-f]{40}")
_PERSON = re.compile(rb"(author|committer) [^<>\n]*<[^<>\n]*> [0-9]+ [+-][0-9]{4}")


class Fallback(Exception):
    """Data this reader does not vouch for: GitPython decides."""


def _env() -> dict[str, str]:
    # As GitPython runs git: the user's environment, untranslated messages.
    return {**os.environ, "LANGUAGE": "C", "LC_ALL": "C"}


class Objects:
    """The objects of the repository at `root`, through one `git cat-file --batch` process."""

    def __init__(self, root: str) -> None:
        self.root = root
        try:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=root,
                env=_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:  # no git binary here (GitPython may be configured with another)
            raise Fallback(str(exc)) from None
        self._trees: dict[str, tuple[dict[str, tuple[str, str]], list[str], list[str]]] = {}

    def get(self, spec: str, kind: str) -> tuple[str, bytes] | None:
        """(sha, data) of the object `spec` names, None when there is none; Fallback when it is
        not of type `kind`."""
        stdin: IO[bytes] | None = self._proc.stdin
        stdout: IO[bytes] | None = self._proc.stdout
        assert stdin is not None
        assert stdout is not None
        assert "\n" not in spec
        try:
            stdin.write(spec.encode() + b"\n")
            stdin.flush()
        except OSError as exc:  # it stopped, on a damaged object say
            raise Fallback(str(exc)) from None
        header = stdout.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            return None
        if len(header) != 3 or not _HEX.fullmatch(header[0]) or not header[2].isdigit():
            raise Fallback(f"cat-file answered {header!r}")
        size = int(header[2])
        data = stdout.read(size + 1)
        if len(data) != size + 1:
            raise Fallback("git cat-file stopped")
        if header[1].decode() != kind:
            raise Fallback(f"{spec} is a {header[1].decode()}, not a {kind}")
        return header[0].decode(), data[:size]

    def tree(self, sha: str) -> tuple[dict[str, tuple[str, str]], list[str], list[str]]:
        """(name -> (type, sha), child tree names, blob names) of a tree, in its order."""
        found = self._trees.get(sha)
        if found is None:
            got = self.get(sha, "tree")
            if got is None:
                raise Fallback(f"tree {sha} is missing")
            found = self._trees[sha] = parse_tree(got[1])
        return found

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def rev_list(root: str, path: str, limit: int) -> tuple[list[str], bool]:
    """(commits reachable from HEAD that touched `path` ('' for any), newest first, whether git
    succeeded), as GitPython's `iter_commits("HEAD", paths=path, max_count=limit)` runs it."""
    args = ["git", "rev-list", f"--max-count={limit}", "HEAD", "--", *([path] if path else [])]
    try:
        result = subprocess.run(args, cwd=root, env=_env(), capture_output=True, check=False)
    except OSError as exc:
        raise Fallback(str(exc)) from None
    shas = [line.strip() for line in result.stdout.splitlines()]
    if not all(_HEX.fullmatch(sha) for sha in shas):
        raise Fallback("unusual rev-list output")
    return [sha.decode() for sha in shas], result.returncode == 0


def parse_commit(data: bytes) -> tuple[str, str]:
    """(tree sha, subject) of a raw commit, as GitPython's Commit reads its tree and message."""
    head, blank, message = data.partition(b"\n\n")
    lines = head.split(b"\n")
    if not blank or not lines[0].startswith(b"tree ") or not _HEX.fullmatch(lines[0][5:]):
        raise Fallback("unusual commit")
    i = 1
    while i < len(lines) and lines[i].startswith(b"parent ") and _HEX.fullmatch(lines[i][7:]):
        i += 1
    people = lines[i : i + 2]
    if [p.split(b" ", 1)[0] for p in people] != [b"author", b"committer"] or not all(
        _PERSON.fullmatch(p) for p in people
    ):
        raise Fallback("unusual commit")
    # Then signature blocks, mergetags first, in the order GitPython reads them; any other header
    # (encoding among them) goes to GitPython.
    allowed = [b"mergetag ", b"gpgsig "]
    in_block = False
    for line in lines[i + 2 :]:
        if line.startswith(b" ") and in_block:
            continue
        while allowed and not line.startswith(allowed[0]):
            allowed.pop(0)
        if not allowed:
            raise Fallback("unusual commit header")
        in_block = True
    text = message.decode("utf-8", "replace")
    return lines[0][5:].decode(), (text.strip().splitlines() or [""])[0]


def parse_tree(data: bytes) -> tuple[dict[str, tuple[str, str]], list[str], list[str]]:
    """A raw tree as (name -> (type, sha), tree names, blob names); Fallback for anything GitPython
    might refuse or type otherwise (unusual modes, submodules, names it checks)."""
    entries: dict[str, tuple[str, str]] = {}
    trees: list[str] = []
    blobs: list[str] = []
    offset, end = 0, len(data)
    while offset < end:
        space = data.find(b" ", offset)
        nul = data.find(b"\0", space + 1) if space >= 0 else -1
        if space < 0 or nul < 0 or nul + 21 > end:
            raise Fallback("truncated tree")
        kind = _MODES.get(data[offset:space])
        try:
            name = data[space + 1 : nul].decode("ascii")
        except UnicodeDecodeError:
            raise Fallback("non-ASCII name") from None
        if kind is None or not _plain_name(name, kind == "link"):
            raise Fallback(f"tree entry {name!r}")
        kind = "blob" if kind == "link" else kind
        entries.setdefault(name, (kind, data[nul + 1 : nul + 21].hex()))
        (trees if kind == "tree" else blobs).append(name)
        offset = nul + 21
    return entries, trees, blobs


def _plain_name(name: str, link: bool) -> bool:
    """A name GitPython's tree entry checks surely accept (printable ASCII, nothing git-like)."""
    if not name or not name.isprintable() or name in (".", "..") or any(c in name for c in "/\\:"):
        return False
    low = name.lower()
    if low == ".git" or low.rstrip(" .") in (".git", "git~1"):
        return False
    return not link or ("~" not in name and ".gitmodules" not in (low, low.rstrip(" .")))
