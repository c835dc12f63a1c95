"""replay(): the synthetic three-session history, determinism, and nothing written outside the scratch."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.replay.api import replay
from tests.invoke import Invoke
from tests.paths import RESOURCES
from tests.repos import git

HERE = RESOURCES / "replay"
LESSON = "pytest-modulenotfounderror-no-module-named-calc"


def _run(repo: Path, tmp_path: Path, **options: Any) -> dict[str, Any]:
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    report = replay(repo, env={}, home=tmp_path / "home", scratch=scratch, **options)
    return report.to_json()


def test_a_lesson_learned_in_session_one_hits_in_session_three_and_is_quiet_in_two(
    repo: Path, tmp_path: Path
) -> None:
    report = _run(repo, tmp_path)
    first, second, third = report["sessions"]
    assert [s["session"] for s in report["sessions"]] == [
        "aider-2026-03-02T09-00-00",
        "aider-2026-03-03T09-00-00",
        "aider-2026-03-05T14-30-00",
    ]
    assert first["fires"] == []  # nothing learned yet
    assert LESSON in first["learned"]
    assert second["fires"] == []  # a README typo: the lesson stays quiet
    fire = next(f for f in third["fires"] if f["lesson"] == LESSON)
    assert (fire["kind"], fire["source"], fire["verdict"]) == ("command-fix", "recall", "hit")
    assert fire["ref"] == ".aider.chat.history.md:75"  # before `/run pytest -q`
    assert fire["hit"]["ref"] == ".aider.chat.history.md:81"  # the same failure, explained by the model
    assert fire["hit"]["mark"] in ("cmd:pytest", "sig:ModuleNotFoundError: No module named <str>")
    assert fire["hit"]["tokens"] > 0
    assert third["failures"] == [{"ref": fire["hit"]["ref"], "addressed_by": [LESSON]}]
    assert not third["misses"]
    totals = report["totals"]
    assert totals["hits"] >= 1
    assert totals["noise"] == 0
    assert totals["hit_rate"] is not None
    assert report["by_agent"]["aider"]["sessions"] == 3
    assert report["by_kind"]["command-fix"]["hits"] == 1


def test_the_same_history_gives_the_same_report(repo: Path, tmp_path: Path) -> None:
    assert _run(repo, tmp_path) == _run(repo, tmp_path)


def _tree(root: Path) -> dict[str, tuple[int, str]]:
    """Every file under `root`: (mtime in ns, content hash); directories as ('dir')."""
    out: dict[str, tuple[int, str]] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel] = (0, "dir")
        else:
            out[rel] = (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return out


def test_nothing_is_written_outside_the_scratch_folder(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".reasonix" / "lessons").mkdir(parents=True)
    (home / ".reasonix" / "lessons" / "keep.md").write_text("---\nname: keep\n---\n")
    other_tmp = tmp_path / "tmp"
    other_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(other_tmp))
    monkeypatch.setattr("tempfile.tempdir", None)
    before = _tree(tmp_path)
    report = replay(repo, env={"REASONIX_HOME": str(home / ".reasonix")}, home=home)
    assert report.lessons >= 1  # it did learn, somewhere
    assert _tree(tmp_path) == before  # the repo, its .git, the home and the temp folder as they were
    assert not (repo / ".reasonix").exists()


def test_sessions_before_since_are_only_learned_from(repo: Path, tmp_path: Path) -> None:
    import datetime as dt

    report = _run(repo, tmp_path, since=dt.datetime(2026, 3, 4, tzinfo=dt.UTC))
    assert report["learned_only"] == 2
    (third,) = report["sessions"]
    assert any(f["lesson"] == LESSON and f["verdict"] == "hit" for f in third["fires"])


def test_the_command_line(
    repo: Path, tmp_path: Path, cli_invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    result = cli_invoke("replay", "--repo", repo, "--json")
    doc = result.json()
    assert isinstance(doc, dict)
    assert set(doc) == {
        "repo",
        "sessions",
        "learned_only",
        "lessons",
        "skipped",
        "totals",
        "by_agent",
        "by_kind",
    }
    assert doc["totals"]["hits"] >= 1
    text = cli_invoke("replay", "--repo", repo).stdout
    assert f"hit   aider-2026-03-05T14-30-00: {LESSON} (command-fix)" in text
    assert "replayed 3 sessions" in text
    bad = cli_invoke("replay", "--repo", repo, "--since", "last week", expect=2)
    assert "--since" in bad.stderr


def test_a_lesson_that_did_not_fire_before_its_failure_is_a_miss_with_why(repo: Path, tmp_path: Path) -> None:
    shutil.copyfile(HERE / "miss.aider.chat.history.md", repo / ".aider.chat.history.md")
    report = _run(repo, tmp_path)
    _, second = report["sessions"]
    assert second["fires"] == []
    (miss,) = second["misses"]
    assert miss == {
        "lesson": LESSON,
        "kind": "command-fix",
        "ref": ".aider.chat.history.md:55",  # the model's answer, which says how it failed
        "mark": "sig:ModuleNotFoundError: No module named <str>",
        "reason": "triggers",
    }
    assert report["totals"]["miss_reasons"] == {"triggers": 1}


def test_stats_adds_the_replay_totals(
    repo: Path, tmp_path: Path, cli_invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    doc = cli_invoke("stats", "--replay", "--json", "--repo", repo).json()
    assert isinstance(doc, dict)
    assert doc["replay"]["totals"] == _run(repo, tmp_path)["totals"]
    assert "replay of 3 sessions" in cli_invoke("stats", "--replay", "--repo", repo).stdout


def test_savings_of_hits_over_the_same_failures_count_once(tmp_path: Path) -> None:
    # The genuine textkit history: in its fourth launch the SEARCH-block rule and two loop notices
    # hit failures of the same edit, whose spans (failure to fix) nest; the session spent its tokens
    # on that edit once.
    root = tmp_path / "textkit"
    shutil.copytree(RESOURCES / "aider" / "textkit", root)
    shutil.copyfile(RESOURCES / "aider" / "textkit.aider.chat.history.md", root / ".aider.chat.history.md")
    git(root, "init", "-q")
    report = _run(root, tmp_path)
    spent = []
    for session in report["sessions"]:
        hits = [f["hit"] for f in session["fires"] if f["verdict"] == "hit"]
        spent.append(max((h["tokens"] for h in hits), default=0))
        if len(hits) > 1:
            assert sum(h["tokens"] for h in hits) > spent[-1]  # per fire, the same tokens again
    assert sum(spent) > 0
    assert report["totals"]["tokens_saved"] == sum(spent)
    loops = [
        f["hit"]["tokens"]
        for s in report["sessions"]
        for f in s["fires"]
        if f["kind"] == "loop" and "hit" in f
    ]
    assert len(loops) == 2
    assert report["by_kind"]["loop"]["tokens_saved"] == max(loops)
