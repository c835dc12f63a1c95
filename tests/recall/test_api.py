"""recall(): acceptance cases, what never comes back, the budget, sessions, cautions, bad input."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.errors import UsageError
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.api import Recaller, recall
from reasonlessons.recall.counters import COUNTERS_FILE, JOURNAL_FILE, Counters
from reasonlessons.recall.render import CLOSE
from reasonlessons.store.outcomes import OUTCOMES_FILE
from reasonlessons.store.project import Project
from tests.paths import RESOURCES

RESOURCES = RESOURCES / "recall"
NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
TEST_FILE = "tests/foo.test.ts"


def fresh(lesson: Lesson) -> Sequence[Any]:
    return []


@pytest.fixture
def loc(make_repo: Callable[[str], Path]) -> Locations:
    return Locations.discover(make_repo("recall-ts"))


def names(loc: Locations, prompt: str, **kwargs: Any) -> list[str]:
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("drift", fresh)
    return [lesson.name for lesson in recall(loc, prompt, **kwargs).lessons]


def install(loc: Locations, resource: str, name: str | None = None, *, scope_dir: Path | None = None) -> Path:
    target = (scope_dir or loc.project_dir) / f"{name or resource}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RESOURCES / f"{resource}.md", target)
    return target


# -- acceptance ----------------------------------------------------------------------------------


def test_a_code_gen_prompt_touching_a_test_file_gets_the_testing_lesson(loc: Locations) -> None:
    result = recall(loc, "Add a unit test for the parser", files=[TEST_FILE], now=NOW, drift=fresh)
    assert result.task_type == "code-gen"
    assert [lesson.name for lesson in result.lessons] == ["testing"]
    lesson = result.lessons[0]
    assert lesson.scope == "project"
    assert not lesson.caution
    assert lesson.text.startswith("Test runner + file convention\n- vitest")
    assert result.tokens == lesson.tokens == (len(lesson.text) + 3) // 4


def test_an_exploration_prompt_gets_nothing(loc: Locations) -> None:
    (loc.project_dir / "repo-map.md").unlink()  # the one lesson that serves exploration
    result = recall(loc, "Where is the parser defined and how does it work?", files=[TEST_FILE], now=NOW)
    assert result.task_type == "exploration"
    assert result.lessons == []


def test_lessons_serve_the_task_types_they_name(loc: Locations) -> None:
    assert names(loc, "Where is the parser defined and how does it work?") == ["repo-map"]
    assert "repo-map" not in names(loc, "Add a parser test, where is the fixture?", files=[TEST_FILE])


def test_a_stale_lesson_is_never_returned(loc: Locations) -> None:
    def drift(lesson: Lesson) -> list[str]:
        return ["package.json#scripts.test changed"] if lesson.name == "testing" else []

    assert names(loc, "Add a unit test", files=[TEST_FILE], drift=drift) == []
    assert names(loc, "Add a unit test", files=["src/index.ts"], drift=drift) == ["esm-imports"]


def test_staleness_end_to_end_with_the_fingerprint_checker(loc: Locations) -> None:
    project = Project(loc, now=lambda: NOW)
    project.store.add(
        "runner",
        description="Tests run through the package.json test script",
        fingerprint=["package.json#scripts.test"],
        body="- `npm test` runs vitest",
        extra={"triggers": {"files": ["tests/**/*.test.ts"]}},
    )
    assert "runner" in [
        lesson.name for lesson in recall(project, "Add a unit test", files=[TEST_FILE]).lessons
    ]
    package = loc.root / "package.json"
    package.write_text(package.read_text().replace("vitest run", "jest"))
    assert "runner" not in [
        lesson.name for lesson in recall(loc, "Add a unit test", files=[TEST_FILE]).lessons
    ]
    assert "testing" in [lesson.name for lesson in recall(loc, "Add a unit test", files=[TEST_FILE]).lessons]


def test_a_long_lived_recaller_sees_drift_that_appears_between_turns(loc: Locations) -> None:
    Project(loc, now=lambda: NOW).store.add(
        "runner",
        description="Tests run through the package.json test script",
        fingerprint=["package.json#scripts.test"],
        extra={"triggers": {"files": ["tests/**/*.test.ts"]}},
    )
    recaller = Recaller(loc)  # as a hook daemon or MCP server keeps it
    assert "runner" in [x.name for x in recaller.recall("Add a unit test", files=[TEST_FILE]).lessons]
    package = loc.root / "package.json"
    package.write_text(package.read_text().replace("vitest run", "jest"))
    assert "runner" not in [x.name for x in recaller.recall("Add a unit test", files=[TEST_FILE]).lessons]


def test_a_checker_is_made_per_call_lazily_and_saved(loc: Locations, monkeypatch: pytest.MonkeyPatch) -> None:
    import reasonlessons.fingerprint

    events: list[str] = []

    class StubChecker:
        def __init__(self, root: Path, *, state_dir: Path | None) -> None:
            assert (root, state_dir) == (loc.root, loc.state_dir)
            events.append("new")

        def drift(self, lesson: Lesson) -> list[str]:
            events.append(f"drift {lesson.name}")
            return []

        def save(self) -> None:
            events.append("save")

        def close(self) -> None:
            events.append("close")

    monkeypatch.setattr(reasonlessons.fingerprint, "Checker", StubChecker, raising=False)
    recaller = Recaller(loc)
    recaller.recall("hmm so", now=NOW)  # unsure: nothing to check, so no checker at all
    assert events == []
    recaller.recall("Add a unit test", files=[TEST_FILE], now=NOW)
    recaller.recall("Add a unit test", files=[TEST_FILE], now=NOW)
    assert events == ["new", "drift testing", "save", "close"] * 2


def test_the_budget_holds_and_no_lesson_is_cut(loc: Locations) -> None:
    body = "- " + "word " * 60  # about 80 tokens each
    for i in range(6):
        (loc.project_dir / f"tip-{i}.md").write_text(
            f"---\nname: tip-{i}\ndescription: Tip {i}\nfingerprint: []\ncaptured-at: 2026-05-0{i + 1}\n"
            f"triggers:\n  files: ['tests/**']\n---\n{body}\n"
        )
    for budget in (100, 200, 300, 1000):
        result = recall(loc, "Add a unit test", files=[TEST_FILE], budget=budget, now=NOW, drift=fresh)
        assert result.lessons
        assert result.tokens <= budget
        assert all(lesson.text.endswith("word") for lesson in result.lessons if lesson.name.startswith("tip"))
    assert (
        len(recall(loc, "Add a unit test", files=[TEST_FILE], budget=1000, now=NOW, drift=fresh).lessons) == 7
    )


def test_the_best_lesson_comes_back_even_when_it_alone_is_over_budget(loc: Locations) -> None:
    result = recall(loc, "Add a unit test", files=[TEST_FILE], budget=5, now=NOW, drift=fresh)
    assert [lesson.name for lesson in result.lessons] == ["testing"]
    assert result.tokens > 5


# -- what never comes back -----------------------------------------------------------------------


def test_deprecated_superseded_expired_and_candidate_lessons_never_come_back(loc: Locations) -> None:
    never = {"old-runner", "legacy-jest", "expired-tip", "proposed-tip"}
    for prompt in ("Add a unit test", "fix the jest config and rerun mocha", "expired tip proposed"):
        got = set(
            names(loc, prompt, files=[TEST_FILE, "tests/sub/x.test.ts"], budget=5000, task_type="code-gen")
        )
        assert not got & never
    # The same lessons do come back once nothing retires them.
    before_expiry = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)
    assert "expired-tip" in names(loc, "Add a unit test", files=[TEST_FILE], budget=5000, now=before_expiry)


def test_project_wins_over_global_on_the_same_name(loc: Locations) -> None:
    install(loc, "global-testing", "testing", scope_dir=loc.global_dir)
    install(loc, "global-style", "style", scope_dir=loc.global_dir)
    result = recall(loc, "Add a unit test", files=[TEST_FILE], budget=1000, now=NOW, drift=fresh)
    got = {(lesson.name, lesson.scope) for lesson in result.lessons}
    assert ("testing", "project") in got
    assert ("testing", "global") not in got
    assert ("style", "global") in got
    (loc.project_dir / "testing.md").unlink()
    result = recall(loc, "Add a unit test", files=[TEST_FILE], budget=1000, now=NOW, drift=fresh)
    assert ("testing", "global") in {(lesson.name, lesson.scope) for lesson in result.lessons}


# -- matching --------------------------------------------------------------------------------------


def test_keyword_and_command_triggers(loc: Locations) -> None:
    assert names(loc, "make vitest print coverage") == ["testing"]
    assert names(loc, "", cmd="npx tsc --noEmit") == ["esm-imports"]
    assert names(loc, "", cmd="npx tscx") == []


def test_untriggered_lessons_come_back_on_shared_words(loc: Locations) -> None:
    install(loc, "ungated", "date-parsing")
    assert names(loc, "Fix the date parser so timezone offsets survive") == ["date-parsing"]
    assert names(loc, "Fix the parser") == []  # one shared word is not enough


def test_task_type_override(loc: Locations) -> None:
    prompt = "Where is the parser defined and how does it work?"
    assert names(loc, prompt, files=[TEST_FILE], task_type="code-gen") == ["testing"]
    assert names(loc, "thanks", files=[TEST_FILE], task_type="exploration") == []


@pytest.mark.parametrize(
    ("kwargs", "message"), [({"budget": 0}, "--budget"), ({"task_type": "chat"}, "--task-type")]
)
def test_bad_options_are_usage_errors(loc: Locations, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        recall(loc, "Add a test", **kwargs)


# -- sessions, counters, cautions --------------------------------------------------------------------


def test_a_lesson_is_injected_once_per_session(loc: Locations) -> None:
    first = names(loc, "Add a unit test", files=[TEST_FILE], session="s1")
    assert first == ["testing"]
    assert names(loc, "Add another unit test", files=[TEST_FILE], session="s1") == []
    assert names(loc, "Add a unit test", files=[TEST_FILE], session="s2") == ["testing"]
    assert names(loc, "Add a unit test", files=[TEST_FILE]) == ["testing"]
    counters = Counters.load(loc.state_dir)
    assert counters.hits("project:testing") == 3
    assert counters.last_seen("project:testing") == NOW.isoformat()


def test_record_false_leaves_no_trace(loc: Locations) -> None:
    names(loc, "Add a unit test", files=[TEST_FILE], record=False)
    assert not (loc.state_dir / COUNTERS_FILE).exists()
    assert not (loc.state_dir / JOURNAL_FILE).exists()


def test_a_corrupt_counters_file_is_rebuilt_not_fatal(loc: Locations) -> None:
    loc.ensure_state_dir()
    (loc.state_dir / COUNTERS_FILE).write_bytes(b'{"kind": "recall-counters", "data": [1, 2')
    result = recall(loc, "Add a unit test", files=[TEST_FILE], session="s1", now=NOW, drift=fresh)
    assert [lesson.name for lesson in result.lessons] == ["testing"]
    assert any("rebuilt" in warning for warning in result.warnings)
    doc = json.loads((loc.state_dir / COUNTERS_FILE).read_text())
    assert doc["data"]["lessons"]["project:testing"]["hits"] == 1


def test_lessons_contradicted_more_often_than_confirmed_are_cautions(loc: Locations) -> None:
    loc.ensure_state_dir()
    outcomes = {"project:testing": {"confirmed": 1, "soft": 2, "direct": 0}}
    doc = {"kind": "lesson-outcomes", "version": 2, "data": outcomes}
    (loc.state_dir / OUTCOMES_FILE).write_text(json.dumps(doc))
    result = recall(loc, "Add a unit test", files=[TEST_FILE], now=NOW, drift=fresh)
    assert [(lesson.name, lesson.caution) for lesson in result.lessons] == [("testing", True)]
    assert "CAUTION" in result.render("text")
    assert '"caution": true' in result.render("json")


# -- bad input -------------------------------------------------------------------------------------


def test_an_empty_prompt_recalls_nothing(loc: Locations) -> None:
    result = recall(loc, "", now=NOW, drift=fresh)
    assert (result.task_type, result.lessons) == (None, [])
    assert names(loc, "", task_type="code-gen") == []


def test_a_one_megabyte_prompt_returns_quickly(loc: Locations) -> None:
    Recaller(loc).recall("warm up", files=[TEST_FILE], now=NOW)
    prompt = "Add a unit test for the parser.\n" + ("2026-05-05 INFO worker started pid=123 ok\n" * 25_000)
    assert len(prompt) > 1_000_000
    started = time.process_time()
    result = recall(loc, prompt, files=[TEST_FILE], now=NOW, drift=fresh)
    assert time.process_time() - started < 2.0
    assert [lesson.name for lesson in result.lessons] == ["testing"]


def test_a_catastrophic_command_pattern_returns_quickly(loc: Locations) -> None:
    install(loc, "catastrophic")
    started = time.process_time()
    result = recall(loc, "", cmd="a" * 5000 + "!", now=NOW, drift=fresh)
    assert time.process_time() - started < 2.0
    assert result.lessons == []
    assert names(loc, "", cmd="aaaa") == ["catastrophic"]


def test_a_lesson_that_tries_to_close_the_block_is_defused(loc: Locations) -> None:
    from reasonlessons.lessons.file import read_lesson
    from reasonlessons.store.trust import record_trust, scan

    lesson = read_lesson(install(loc, "evil"), scope="project")
    # Flagged, so recall skips it until trusted (tests/store/test_trust.py); trusted, it is still defused.
    record_trust(loc, lesson, now=NOW, flags=scan(lesson))
    result = recall(loc, "Add a unit test", files=[TEST_FILE], budget=1000, now=NOW, drift=fresh)
    assert "evil" in [lesson.name for lesson in result.lessons]
    block = result.render("text")
    assert block.count(CLOSE) == 1
    assert block.endswith(CLOSE + "\n")
    assert "\x1b" not in block
    assert "\x07" not in block
    assert "</system-reminder>" not in block
    assert not any(line.startswith("## admin") for line in block.split("\n"))
    hook = json.loads(result.render("claude-code"))["hookSpecificOutput"]["additionalContext"]
    assert hook == block


def test_paths_outside_the_repository_match_no_glob(loc: Locations, tmp_path: Path) -> None:
    outside = str(tmp_path / "elsewhere" / "tests" / "foo.test.ts")
    result = recall(loc, "Add a unit test", files=[outside], now=NOW, drift=fresh)
    assert all(not reason.startswith("file ") for lesson in result.lessons for reason in lesson.reasons)
    inside = os.path.join(loc.root, "tests", "foo.test.ts")
    (lesson,) = recall(loc, "Add a unit test", files=[inside], now=NOW, drift=fresh).lessons
    assert lesson.name == "testing"
    assert "file tests/**/*.test.ts" in lesson.reasons


# -- agents, confidence and settings (issue 21) ----------------------------------------------------


def _add(loc: Locations, name: str, **extra: Any) -> None:
    project = Project(loc)
    extra.setdefault("triggers", {"keywords": ["parser"]})
    project.store.add(name, description=f"{name}: how the parser is tested", extra=extra)


def test_a_lesson_limited_to_agents_reaches_only_them(loc: Locations) -> None:
    _add(loc, "for-everyone")
    _add(loc, "for-claude", agents=["claude-code"])
    _add(loc, "for-reasonix", agents=["reasonix*"])
    prompt = "Add a unit test for the parser"
    assert sorted(names(loc, prompt, agent="claude-code")) == ["for-claude", "for-everyone"]
    assert sorted(names(loc, prompt, agent="reasonix-v2")) == ["for-everyone", "for-reasonix"]
    assert sorted(names(loc, prompt, agent="codex")) == ["for-everyone"]
    assert sorted(names(loc, prompt)) == ["for-everyone"]  # who asks is unknown


def test_recall_agent_option(loc: Locations, cli_invoke: Callable[..., Any]) -> None:
    _add(loc, "for-codex", agents=["codex"])
    args = ("recall", "Add a unit test for the parser", "--format", "json", "--repo", loc.root)
    with_agent = json.loads(cli_invoke(*args, "--agent", "codex").stdout)
    without = json.loads(cli_invoke(*args).stdout)
    assert "for-codex" in [lesson["name"] for lesson in with_agent["lessons"]]
    assert "for-codex" not in [lesson["name"] for lesson in without["lessons"]]


def test_confidence_ranks_and_archived_lessons_never_come_back(loc: Locations) -> None:
    _add(loc, "sure", confidence=0.95)
    _add(loc, "unsure", confidence=0.65)
    assert names(loc, "Add a unit test for the parser", budget=10_000) == ["sure", "unsure"]
    _add(loc, "doubted", confidence=0.2)  # imported with a low confidence: archived from the start
    assert "doubted" not in names(loc, "Add a unit test for the parser")
    loc.ensure_state_dir()
    doc = {
        "kind": "lesson-outcomes",
        "version": 2,
        "data": {"project:sure": {"confirmed": 0, "soft": 0, "direct": 2}},
    }
    (loc.state_dir / OUTCOMES_FILE).write_text(json.dumps(doc))
    assert "sure" not in names(loc, "Add a unit test for the parser")


def test_settings_set_budget_top_k_and_task_types(loc: Locations) -> None:
    for n in range(4):
        _add(loc, f"extra-{n}")
    config = loc.project_dir / "config.toml"
    config.write_text("[recall]\ntop-k = 2\n")
    assert len(names(loc, "Add a unit test for the parser", budget=10_000)) == 2
    config.write_text('[recall]\ntask-types = ["qa"]\n')
    assert names(loc, "Add a unit test for the parser") == []  # code-gen turns get no lessons now
    config.write_text("[recall]\nbudget = 1\n")
    assert len(names(loc, "Add a unit test for the parser")) == 1  # the best one always fits
