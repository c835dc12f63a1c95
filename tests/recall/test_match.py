"""Trigger matching against a real index: which triggers fire, and how specific they are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.lessons.locations import Locations
from reasonlessons.recall import match
from reasonlessons.recall.index import LessonIndex
from reasonlessons.recall.match import Query, match_triggers

NOW = 1_795_000_000.0  # 2026-11-18


@pytest.fixture
def index(make_repo: Callable[[str], Path]) -> LessonIndex:
    idx = LessonIndex(Locations.discover(make_repo("recall-ts")))
    idx.ensure()
    return idx


def _fired(idx: LessonIndex, query: Query) -> dict[str, tuple[float, list[str]]]:
    specificity, reasons = match_triggers(idx, query, now=NOW)
    docs = idx.docs(specificity)
    return {docs[d].name: (round(specificity[d], 3), reasons[d]) for d in specificity}


def test_query_build_normalizes_and_bounds_inputs() -> None:
    query = Query.build(
        "p", ["./tests//a.ts", "/repo/src/b.ts", "/etc/passwd", ""], "x" * 10_000, root="/repo"
    )
    assert query.paths == ["tests/a.ts", "src/b.ts"]
    assert query.files == ["./tests//a.ts", "/repo/src/b.ts", "/etc/passwd"]
    assert len(query.cmd) == match.MAX_CMD_CHARS
    assert len(Query.build("", [f"f{i}.ts" for i in range(500)], None, root="/r").paths) == match.MAX_FILES


def test_globs_fire_with_narrowness_over_fanout(index: LessonIndex) -> None:
    fired = _fired(index, Query.build("", ["tests/foo.test.ts"], None, root=str(index.loc.root)))
    # tests/**/*.test.ts: 1 literal of 3 segments + 1 globstar = 0.25; the superseded and expired
    # lessons that share it do not count towards its fanout.
    assert fired["testing"] == (0.25, ["file tests/**/*.test.ts"])
    assert fired["old-runner"] == (round(1 / 3, 3), ["file tests/**"])
    assert "esm-imports" not in fired


def test_keywords_fire_on_whole_words_of_the_prompt_or_path_parts(index: LessonIndex) -> None:
    root = str(index.loc.root)
    assert _fired(index, Query.build("run Vitest now", [], None, root=root))["testing"] == (
        0.4,
        ["keyword vitest"],
    )
    assert "testing" not in _fired(index, Query.build("run vitests now", [], None, root=root))
    assert "testing" in _fired(index, Query.build("", ["src/useVitest.ts"], None, root=root))


def test_commands_fire_and_are_the_most_specific(index: LessonIndex) -> None:
    fired = _fired(index, Query.build("", [], "npx tsc -p .", root=str(index.loc.root)))
    assert fired == {"esm-imports": (1.0, ["command \\btsc\\b"])}


def test_pattern_evaluations_are_capped(index: LessonIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match, "MAX_PATTERN_EVALS", 0)
    root = str(index.loc.root)
    assert _fired(index, Query.build("", ["tests/foo.test.ts"], "npx tsc", root=root)) == {}


def test_a_command_cut_to_the_window_never_turns_a_non_match_into_a_match(tmp_path: Path) -> None:
    """`(a+)+$` does not match `"a" * 20000 + "!"`; cut to the window, the text ends in `a` and it would."""
    root = tmp_path / "repo"
    lessons = root / ".reasonix" / "lessons"
    lessons.mkdir(parents=True)
    for name, pattern in [("anchored", "(a+)+$"), ("bounded", r"a\b"), ("early", "^aaa")]:
        (lessons / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: d\nfingerprint: []\ncaptured-at: 2026-05-05\n"
            f"triggers:\n  commands: ['{pattern}']\n---\n- body\n"
        )
    idx = LessonIndex(Locations.discover(root))
    idx.ensure()
    long = Query.build("", [], "a" * 20_000 + "!", root=str(root))
    assert not long.cmd_complete
    assert set(_fired(idx, long)) == {"early"}  # a match before the cut still counts
    short = Query.build("", [], "a" * 50, root=str(root))
    assert set(_fired(idx, short)) == {"anchored", "bounded", "early"}
