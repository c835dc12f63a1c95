"""The stored `stale` answer: replayed while every stamp holds, never after a path it read changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reasonlessons.fingerprint.deps import Deps
from reasonlessons.stale import answer_cache

OUTPUTS = {"stderr": "", "json": b"[]\n", "text": b"no stale lessons (1 checked)\n", "stale": False}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "state").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("a\n")
    (tmp_path / "other").mkdir()
    return tmp_path


def _seen(tree: Path, *, stat: list[Path], lstat: list[Path]) -> Deps:
    """The Deps a check that looked at these paths would have collected."""
    deps = Deps()
    for paths, follow in ((stat, True), (lstat, False)):
        for path in paths:
            try:
                st: os.stat_result | None = os.stat(path, follow_symlinks=follow)
            except OSError:
                st = None
            deps.saw(str(path), st, follow=follow)
    return deps


def _store(tree: Path, deps: Deps) -> bool:
    return answer_cache.store(
        str(tree / "state"),
        root=str(tree),
        global_dir=str(tree / "global"),
        deps=deps,
        started_ns=deps.newest() + 10**10,  # as if the check began well after every change
        until_ns=None,
        outputs=OUTPUTS,
    )


def _lookup(tree: Path) -> dict[str, object] | None:
    return answer_cache.lookup(str(tree / "state"), root=str(tree), global_dir=str(tree / "global"))


def _stored(tree: Path) -> dict[str, object]:
    import marshal

    doc: dict[str, object] = marshal.loads((tree / "state" / answer_cache.RESULT_FILE).read_bytes())
    return doc


def test_replayed_while_every_stamp_holds(tree: Path) -> None:
    deps = _seen(tree, stat=[tree / "src" / "a.ts"], lstat=[tree / "src", tree])
    assert _store(tree, deps)
    found = _lookup(tree)
    assert found is not None
    assert {key: found[key] for key in OUTPUTS} == OUTPUTS


@pytest.mark.parametrize(
    "change",
    [
        lambda tree: (tree / "src" / "a.ts").write_text("changed\n"),
        lambda tree: (tree / "src" / "a.ts").unlink(),
        lambda tree: (tree / "src" / "b.ts").write_text("new\n"),  # the directory's stamp moves
        lambda tree: os.chmod(tree / "src" / "a.ts", 0o600),
    ],
)
def test_not_replayed_after_a_change(tree: Path, change: object) -> None:
    os.chmod(tree / "src" / "a.ts", 0o644)
    os.utime(tree / "src", ns=(10**18, 10**18))  # a stamp the change below surely moves
    deps = _seen(tree, stat=[tree / "src" / "a.ts"], lstat=[tree / "src", tree])
    assert _store(tree, deps)
    assert callable(change)
    change(tree)
    assert _lookup(tree) is None


def test_a_missing_name_in_a_kept_directory_is_not_stat_again_but_still_counts(tree: Path) -> None:
    ignore = tree / "src" / ".gitignore"
    lone = tree / "nowhere" / "x"
    deps = _seen(tree, stat=[ignore, lone], lstat=[tree / "src", tree])
    assert _store(tree, deps)
    stat_table = _stored(tree)["stat"]
    assert isinstance(stat_table, tuple)
    # Its directory's stamp answers for the .gitignore; `nowhere` has no stamp kept, so x is stat'ed.
    assert stat_table[2] == [str(lone)]
    assert _lookup(tree) is not None
    ignore.write_text("*.ts\n")
    assert _lookup(tree) is None


def test_a_path_missing_elsewhere_is_stat_again(tree: Path) -> None:
    lone = tree / "nowhere" / "x"
    deps = _seen(tree, stat=[lone], lstat=[tree])
    assert _store(tree, deps)
    assert _lookup(tree) is not None
    (tree / "nowhere").mkdir()
    lone.write_text("here\n")
    assert _lookup(tree) is None


def test_a_dangling_link_is_stat_again(tree: Path) -> None:
    """Its name is in the directory: when its target appears, the directory's stamp stays the same."""
    link = tree / "src" / "link.json"
    link.symlink_to(tree / "other" / "target.json")
    deps = _seen(tree, stat=[link], lstat=[tree / "src", tree])
    assert _store(tree, deps)
    stat_table = _stored(tree)["stat"]
    assert isinstance(stat_table, tuple)
    assert stat_table[2] == [str(link)]
    assert _lookup(tree) is not None
    (tree / "other" / "target.json").write_text("{}\n")
    assert _lookup(tree) is None


def test_empty_tables(tree: Path) -> None:
    assert _store(tree, Deps())
    assert _lookup(tree) is not None
