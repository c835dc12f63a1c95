"""Where lessons and state live: every writing command refuses a lessons or state directory that
leaves its scope's root through a symlink, and a state folder that arrived by git is not used."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.errors import UnsafeLocationError
from reasonlessons.lessons import statedir
from reasonlessons.lessons.locations import Locations, reasonix_home
from tests.invoke import Invoke
from tests.paths import RESOURCES
from tests.repos import git

AIP11 = RESOURCES / "aip11" / "lessons"
LOG = sorted((RESOURCES / "capture" / "claude-code").rglob("*.jsonl"))[0]

# Each writing command, as run on the command line (after `--repo REPO`): what it needs is in the
# `recall-ts` repository (a candidate `proposed-tip`, a project lesson `testing`).
COMMANDS: dict[str, list[str | Path]] = {
    "add": ["add", "fresh-tip", "--description", "Run the unit tests with vitest"],
    "promote": ["promote", "proposed-tip"],
    "reject": ["reject", "proposed-tip"],
    "rm": ["rm", "testing"],
    "refresh": ["refresh", "--all", "--yes"],
    "capture": ["capture", LOG],
    "export": ["export", "reasonix", "--skills"],
    "import": ["import", "aip11", AIP11, "--scope", "project"],
}
# The directories a clone (or anyone) could turn into symlinks leaving the repository.
LINKED = {
    "lessons": ".reasonix/lessons",
    "candidates": ".reasonix/lessons/_candidates",
    "state": ".reasonix/state",
    "reasonix": ".reasonix",
}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _link_out(repo: Path, relative: str, outside: Path) -> Path:
    """Move `relative` out of the repository and leave a symlink to it in its place."""
    place = repo / relative
    place.parent.mkdir(parents=True, exist_ok=True)
    if place.exists():
        shutil.move(str(place), str(outside))
    else:
        outside.mkdir(parents=True)
    place.symlink_to(outside, target_is_directory=True)
    return outside


@pytest.mark.parametrize("linked", sorted(LINKED))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_writing_command_refuses_a_directory_that_leaves_the_repository(
    command: str, linked: str, make_repo: Callable[[str], Path], tmp_path: Path, cli_invoke: Invoke
) -> None:
    repo = make_repo("recall-ts")
    (repo / ".reasonix" / "state").mkdir(exist_ok=True)
    (repo / ".reasonix" / "state" / "keep.txt").write_text("mine\n")
    outside = _link_out(repo, LINKED[linked], tmp_path / "elsewhere" / linked)
    before = _snapshot(outside)
    result = cli_invoke(*COMMANDS[command], "--repo", repo, expect=1)
    assert "outside" in result.stderr
    assert _snapshot(outside) == before  # nothing written, renamed or deleted through the link


@pytest.mark.parametrize("command", ["add", "promote"])
def test_the_global_lessons_directory_may_not_leave_reasonix_home(
    command: str, make_repo: Callable[[str], Path], isolated_home: Path, tmp_path: Path, cli_invoke: Invoke
) -> None:
    repo = make_repo("recall-ts")
    outside = _link_out(repo, "x", tmp_path / "elsewhere")  # any folder outside REASONIX_HOME
    (repo / "x").unlink()
    (isolated_home / ".reasonix").mkdir(exist_ok=True)
    (isolated_home / ".reasonix" / "lessons").symlink_to(outside, target_is_directory=True)
    args = COMMANDS[command] + (["--global"] if command == "promote" else ["--scope", "global"])
    cli_invoke(*args, "--repo", repo, expect=1)
    assert list(outside.iterdir()) == []


def test_directories_inside_the_repository_may_be_symlinks(make_repo: Callable[[str], Path]) -> None:
    repo = make_repo("recall-ts")
    real = repo / "docs" / "lessons"
    real.parent.mkdir()
    shutil.move(str(repo / ".reasonix" / "lessons"), str(real))
    (repo / ".reasonix" / "lessons").symlink_to(real, target_is_directory=True)
    Locations.discover(repo).guard_writes()  # no error: it stays inside


def test_guard_names_the_link_and_the_fix(make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("recall-ts")
    _link_out(repo, ".reasonix/lessons", tmp_path / "elsewhere")
    with pytest.raises(UnsafeLocationError, match="replace the symlink with a real directory"):
        Locations.discover(repo).guard_writes()


def test_a_state_folder_tracked_by_git_is_replaced_by_one_in_reasonix_home(
    make_repo: Callable[[str], Path], isolated_home: Path
) -> None:
    repo = make_repo("recall-ts")
    loc = Locations.discover(repo)
    assert loc.state_dir == repo / ".reasonix" / "state"  # none yet: the repository's own
    state = repo / ".reasonix" / "state"
    state.mkdir()
    (state / "rejections.json").write_text("{}")
    assert Locations.discover(repo).state_dir == state  # ours, untracked
    git(repo, "add", "-f", ".reasonix/state/rejections.json")
    moved = Locations.discover(repo).state_dir
    assert moved != state
    assert moved.is_relative_to(isolated_home / ".reasonix" / "state" / "projects")
    git(repo, "rm", "-q", "--cached", ".reasonix/state/rejections.json")
    assert Locations.discover(repo).state_dir == state  # the index changed: read again


def test_a_state_folder_that_leaves_the_repository_is_not_used(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("recall-ts")
    _link_out(repo, ".reasonix/state", tmp_path / "elsewhere")
    loc = Locations.discover(repo)
    assert loc.state_dir == Path(statedir.machine_dir(str(repo), str(loc.home)))


def test_the_tracked_check_reads_the_index_once_per_change(
    make_repo: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo("recall-ts")
    (repo / ".reasonix" / "state").mkdir()
    home = str(Locations.discover(repo).home)
    reads: list[str] = []
    real = statedir._tracked
    monkeypatch.setattr(statedir, "_tracked", lambda index, root: reads.append(index) or real(index, root))
    for _ in range(3):
        statedir.resolve(str(repo), home)
    assert len(reads) == 1


def test_reasonix_home_is_the_variable_when_set_else_dot_reasonix_in_the_user_home(tmp_path: Path) -> None:
    # One answer for the Path world (Locations) and the str world (hook and stale fast paths).
    assert statedir.reasonix_home({"REASONIX_HOME": "~/elsewhere"}, str(tmp_path)) == os.path.expanduser(
        "~/elsewhere"
    )
    assert statedir.reasonix_home({}, str(tmp_path)) == str(tmp_path / ".reasonix")
    assert statedir.reasonix_home({"REASONIX_HOME": ""}, str(tmp_path)) == str(tmp_path / ".reasonix")
    assert reasonix_home({}, tmp_path) == tmp_path / ".reasonix"


@pytest.mark.parametrize("tracked", [False, True])
def test_the_remembered_answer_is_read_without_json_as_json_reads_it(
    make_repo: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tracked: bool
) -> None:
    repo = make_repo("recall-ts")
    (repo / ".reasonix" / "state").mkdir()
    home = str(Locations.discover(repo).home)
    monkeypatch.setattr(statedir, "_tracked", lambda index, root: tracked)
    assert statedir.foreign(str(repo), home) is tracked  # read from the index, remembered
    cache = Path(statedir.machine_dir(str(repo), home), statedir.CACHE_FILE)
    doc = json.loads(cache.read_bytes())
    assert doc["tracked"] is tracked
    monkeypatch.setattr(statedir, "_tracked", lambda index, root: pytest.fail("the index was read again"))
    assert statedir.foreign(str(repo), home) is tracked  # the quick read of the file as written
    cache.write_text(json.dumps(doc, indent=2))  # written some other way: json reads it
    assert statedir.foreign(str(repo), home) is tracked


def test_the_repository_key_is_a_sha256_of_the_real_path(tmp_path: Path) -> None:
    real = os.path.realpath(tmp_path)
    digest = hashlib.sha256(real.encode()).hexdigest()[:20]
    assert statedir.repo_key(str(tmp_path)) == f"{os.path.basename(real)}-{digest}"
