"""Reciprocal-rank fusion, competition ranks, the confidence signal and the token estimate."""

from __future__ import annotations

from reasonlessons.recall.rank import (
    Candidate,
    competition_ranks,
    estimate_tokens,
    fuse,
    within_budget,
)


def _cand(
    name: str,
    *,
    spec: float | None = None,
    rel: float = 0.0,
    recency: str = "",
    scope: str = "project",
    confidence: float = 0.7,
) -> Candidate:
    cand = Candidate(0, name, scope, recency)
    cand.specificity, cand.relevance, cand.confidence = spec, rel, confidence
    return cand


def test_competition_ranks_share_the_best_rank() -> None:
    assert competition_ranks([5, 7, 7, 1]) == [3, 1, 1, 4]
    assert competition_ranks([]) == []


def test_specificity_outweighs_text_relevance() -> None:
    narrow = _cand("narrow", spec=1.0, rel=0.1)
    wordy = _cand("wordy", spec=0.1, rel=9.0)
    assert [c.name for c in fuse([wordy, narrow])] == ["narrow", "wordy"]


def test_triggered_lessons_rank_above_text_only_ones_with_equal_text() -> None:
    triggered = _cand("b-triggered", spec=0.0, rel=1.0)
    text_only = _cand("a-text", rel=1.0)
    assert [c.name for c in fuse([text_only, triggered])] == ["b-triggered", "a-text"]


def test_confidence_and_recency_break_otherwise_equal_rankings() -> None:
    proven = _cand("proven", spec=0.5, confidence=0.9)
    unknown = _cand("unknown", spec=0.5)
    assert [c.name for c in fuse([unknown, proven])] == ["proven", "unknown"]
    newer = _cand("newer", spec=0.5, recency="2026-05-01")
    older = _cand("older", spec=0.5, recency="2025-01-01")
    assert [c.name for c in fuse([older, newer])] == ["newer", "older"]


def test_full_ties_go_by_name_then_project_before_global() -> None:
    ranked = fuse([_cand("b"), _cand("a", scope="global"), _cand("a")])
    assert [(c.name, c.scope) for c in ranked] == [("a", "project"), ("a", "global"), ("b", "project")]


def test_token_estimate_is_ceil_of_characters_over_four() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_budget_admits_the_first_lesson_whatever_its_size() -> None:
    assert within_budget(0, 500, budget=200, taken=0)
    assert within_budget(150, 50, budget=200, taken=1)
    assert not within_budget(150, 51, budget=200, taken=1)
