"""Why a lesson that was about a repeated mistake did not fire: the token budget, or its rank.

Launch 3 of the three-session history runs `/run pytest -q` and fails again with the
`ModuleNotFoundError` that launch 1 taught the `python -m pytest` lesson about. Here a second lesson
also triggers on `pytest` and ranks first (higher confidence, more of the turn's words); the
recall settings then leave no room for the lesson that was about the failure. After the failure the
fix, `python -m pytest -q`, asks recall again: the rival, not yet injected there, is noise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reasonlessons import capture
from reasonlessons.lessons.locations import Locations
from reasonlessons.replay import timeline
from reasonlessons.replay.api import replay
from reasonlessons.replay.learn import Learned
from reasonlessons.replay.scratch import scratch_project
from reasonlessons.replay.simulate import Replayed, replay_session
from reasonlessons.store import config
from tests.paths import RESOURCES

HERE = RESOURCES / "replay"
LESSON = "pytest-needs-python-m"
RIVAL = "pytest-quiet-output"
FAILED = ("cmd:pytest", "sig:ModuleNotFoundError: No module named <str>")
_LESSON_FILE = """---
name: {name}
description: '{description}'
fingerprint: []
captured-at: 2026-03-02
fingerprint-recorded: {{}}
triggers:
  commands:
  - \\bpytest\\b
  keywords:
  - pytest
tags:
- test
confidence: {confidence}
outcome: mixed
source: heuristic
---

- {body}
"""


def _write(folder: Path, name: str, confidence: float, description: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = _LESSON_FILE.format(name=name, description=description, confidence=confidence, body=body)
    (folder / f"{name}.md").write_text(text)


def _replay_third(repo: Path, tmp_path: Path, settings: str) -> Replayed:
    """Launch 3 replayed against LESSON and RIVAL, with `settings` as the scratch's recall config."""
    history = repo / ".aider.chat.history.md"
    spots = timeline.spots([(history, capture.adapters.get("aider"))], [])
    third = spots[2]
    with scratch_project(repo, tmp_path) as project:
        lessons = project.loc.project_dir
        _write(
            lessons,
            LESSON,
            0.5,
            "Run `python -m pytest`, not `pytest`: ModuleNotFoundError: No module named calc",
            "Run `python -m pytest`, not `pytest`: here `pytest` cannot import the `calc` package.",
        )
        _write(lessons, RIVAL, 0.95, "pytest: run pytest -q", "Run `pytest -q`: pytest output stays short.")
        (lessons / "config.toml").write_text(settings)
        known = {
            LESSON: Learned(LESSON, "command-fix", "launch-1", failures=set(FAILED)),
            RIVAL: Learned(RIVAL, "command-fix", "launch-1", failures={"cmd:make"}),
        }
        return replay_session(
            project, known, "aider", f"aider:{third.session_id}", timeline.events(third), now=third.at
        )


def _fired(replayed: Replayed) -> list[tuple[str, str, str]]:
    """(lesson, the line it came before, verdict) of each recall fire."""
    return [(f.lesson, f.ref.rsplit(":", 1)[1], f.verdict) for f in replayed.fires if f.source == "recall"]


def test_with_room_for_both_the_lesson_fires_and_hits(repo: Path, tmp_path: Path) -> None:
    replayed = _replay_third(repo, tmp_path, "[recall]\nbudget = 2000\n")
    # Both before `/run pytest -q` (line 75); nothing new before the fix (line 90): both were injected.
    assert _fired(replayed) == [(RIVAL, "75", "noise"), (LESSON, "75", "hit")]
    assert replayed.misses == []


def test_a_lesson_left_out_by_the_token_budget_is_a_budget_miss(repo: Path, tmp_path: Path) -> None:
    # The first lesson always fits; the second only within the budget, which 20 tokens is not.
    replayed = _replay_third(repo, tmp_path, "[recall]\nbudget = 20\n")
    # Before the fix (line 90) the rival was injected already: the lesson gets in, too late.
    assert _fired(replayed) == [(RIVAL, "75", "noise"), (LESSON, "90", "noise")]
    (miss,) = replayed.misses
    assert (miss.lesson, miss.kind, miss.reason) == (LESSON, "command-fix", "budget")
    assert miss.mark in FAILED
    assert miss.ref.endswith(":81")  # the failure, told by the model's answer
    assert [f.addressed_by for f in replayed.failures] == [()]


def test_a_lesson_that_ranked_below_the_top_k_is_a_ranking_miss(repo: Path, tmp_path: Path) -> None:
    # Room for any number of tokens, but one lesson per turn: the rival ranks first.
    replayed = _replay_third(repo, tmp_path, "[recall]\nbudget = 100000\ntop-k = 1\n")
    assert _fired(replayed) == [(RIVAL, "75", "noise"), (LESSON, "90", "noise")]
    (miss,) = replayed.misses
    assert (miss.lesson, miss.reason) == (LESSON, "ranking")


def test_replay_uses_the_repository_recall_settings_and_leaves_them(repo: Path, tmp_path: Path) -> None:
    # Recall switched off for every task type: the lesson of launch 1 never fires in launch 3, and
    # its failure is a miss that ranking (here: the settings) explains, not the triggers.
    settings = repo / ".reasonix" / "lessons" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[recall]\nbudget = 20\ntop-k = 1\ntask-types = []\n")
    before = settings.stat().st_mtime_ns
    real = Locations(root=repo, home=tmp_path / "home" / ".reasonix")
    with scratch_project(repo, tmp_path, settings_of=real) as project:
        loaded = config.load(project.loc)
    assert (loaded.budget, loaded.top_k, loaded.task_types) == (20, 1, ())
    report: dict[str, Any] = replay(repo, env={}, home=tmp_path / "home", scratch=tmp_path).to_json()
    third = report["sessions"][2]
    assert third["fires"] == []
    assert [(m["lesson"], m["reason"]) for m in third["misses"]] == [
        ("pytest-modulenotfounderror-no-module-named-calc", "ranking")
    ]
    assert settings.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calc"]  # the scratch folder is gone
