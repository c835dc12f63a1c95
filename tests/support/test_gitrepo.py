"""History through the git command line gives GitPython's answers, and leaves it what it cannot vouch for.

reasonlessons.support.gitrepo reads commits and trees with `git cat-file --batch` and `git rev-list`
(gitcli.py) and hands unusual objects to GitPython. Every answer (HEAD, the commits of a path, a
file's bytes, a directory's entries, at every commit) is compared with GitPython's own.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import git as gitpython
import pytest

from reasonlessons.support.gitrepo import History, history
from tests.repos import commit_all, git


def raw_commit(repo: Path, headers: bytes, message: bytes) -> str:
    """Write a commit object by hand on top of HEAD (signature blocks, odd headers) and check it out."""
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    parent = git(repo, "rev-parse", "HEAD").strip()
    person = b"Bench <bench@example.invalid> 1700000000 +0000"
    data = (
        b"tree " + tree.encode() + b"\nparent " + parent.encode() + b"\nauthor " + person
        + b"\ncommitter " + person + b"\n" + headers + b"\n\n" + message
    )  # fmt: skip
    sha = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo, input=data, capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip
    git(repo, "update-ref", "HEAD", sha)
    return sha


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "src" / "a").mkdir(parents=True)
    (git_repo / "src" / "a" / "x.ts").write_text("one\n")
    (git_repo / "src" / "b.test.ts").write_text("it()\r\n")
    (git_repo / "run.sh").write_text("#!/bin/sh\n")
    (git_repo / "run.sh").chmod(0o755)
    (git_repo / ".gitignore").write_text("*.log\n")
    os.symlink("src/a/x.ts", git_repo / "link.ts")
    commit_all(git_repo, "add sources")
    git(git_repo, "checkout", "-q", "-b", "side")
    (git_repo / "src" / "a" / "y.ts").write_text("side\n")
    commit_all(git_repo, "side branch")
    git(git_repo, "checkout", "-q", "-")
    (git_repo / "src" / "a" / "x.ts").write_text("two\n")
    commit_all(git_repo, "Multi-line\n\nsubject and body  \n")
    git(git_repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    commit_all(git_repo, "", "--allow-empty-message")
    (git_repo / "src" / "a" / "x.ts").write_text("three\n")
    commit_all(git_repo, "  leading spaces\tand a tab ")
    signature = b"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----"
    raw_commit(git_repo, signature, b"signed\n")
    raw_commit(git_repo, b"mergetag object 0\n type commit\n \n tag body", b"with a mergetag\n")
    return git_repo


def paths_of(repo: Path, sha: str) -> list[str]:
    listed = git(repo, "ls-tree", "-r", "-t", "-z", "--name-only", sha).split("\0")
    return [p for p in listed if p] + ["", "missing", "src/missing", "src/a/x.ts/deeper", "run.sh/x"]


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as exc:  # noqa: BLE001 (both must fail alike)
        return "raised", type(exc).__name__


def compare(repo: Path) -> bool:
    """Compare everything; whether GitPython had to be opened."""
    with history(str(repo)) as fast, gitpython.Repo(repo) as slow:
        assert isinstance(fast, History)
        head, expected = fast.head(), History._wrap(slow.head.commit)
        assert head is not None
        assert (head.sha, head.subject) == (expected.sha, expected.subject)
        for path in ["", "src", "src/a", "src/a/x.ts", "run.sh", "link.ts", "missing", "src/c"]:
            got = [(c.sha, c.subject) for c in fast.commits(path, 3)]
            listed = slow.iter_commits("HEAD", paths=path or None)
            want = [(c.hexsha, History._wrap(c).subject) for c in listed]
            assert got == want[:3], path
        for sha in git(repo, "rev-list", "--all").split():
            found = fast.objects().get(sha, "commit")
            assert found is not None
            mine, theirs = fast._commit(*found), History._wrap(slow.commit(sha))
            assert (mine.sha, mine.subject) == (theirs.sha, theirs.subject)
            for path in paths_of(repo, sha):
                for method in ("read", "listdir"):
                    got, want = getattr(mine, method), getattr(theirs, method)
                    assert outcome(lambda f=got, p=path: f(p)) == outcome(lambda f=want, p=path: f(p)), path
        return fast._repo is not None


def test_every_answer_is_gitpythons_and_plain_objects_do_not_need_it(repo: Path) -> None:
    assert not compare(repo)  # GitPython was never opened: everything went through the git CLI


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (b"encoding ISO-8859-1", "caf\u00e9\n".encode("latin-1")),
        (b"gpgsig-sha256 sig\n \n more", b"odd signature\n"),
        (b"gpgsig sig\n more\nmergetag object 0", b"mergetag after the signature\n"),
        (b"x-extra 1", b"unknown header\n"),
    ],
)
def test_unusual_commit_headers_go_to_gitpython(repo: Path, headers: bytes, message: bytes) -> None:
    raw_commit(repo, headers, message)
    assert compare(repo)


def test_unusual_trees_go_to_gitpython(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "r\u00e9sum\u00e9.md").write_text("non-ASCII name\n")
    commit_all(repo, "non-ASCII name")
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor/sub")
    git(repo, "commit", "-q", "-m", "a submodule")
    assert compare(repo)


def test_outside_a_repository_there_is_no_history(tmp_path: Path) -> None:
    with history(str(tmp_path)) as found:
        assert found is None
