"""The confidence model: its weights, archiving, decay for ranking, and where the prior comes from."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.store.confidence import (
    DEFAULT_PRIOR,
    DIRECT_PENALTY,
    SOFT_PENALTY,
    archived,
    confidence,
    prior_of,
    ranking,
)
from reasonlessons.store.counts import Record

FLOOR = 0.3


def test_confirmations_raise_it_less_and_less_and_never_to_one() -> None:
    values = [confidence(0.6, n) for n in range(6)]
    assert values == sorted(values)
    steps = [b - a for a, b in zip(values, values[1:], strict=False)]
    assert steps == sorted(steps, reverse=True)
    assert confidence(0.6, 5) < 1.0
    assert values[:3] == [0.6, 0.7, 0.775]


def test_a_soft_contradiction_costs_a_tenth() -> None:
    assert SOFT_PENALTY == 0.1
    assert confidence(0.7, soft=1) == 0.6
    assert confidence(0.7, soft=3) == 0.4


@given(st.floats(0.0, 1.0), st.integers(0, 1000))
def test_two_direct_contradictions_archive_any_lesson(prior: float, confirmed: int) -> None:
    assert archived(confidence(prior, confirmed, direct=2), FLOOR)


def test_one_direct_contradiction_drops_a_confirmed_lesson_without_archiving_it() -> None:
    before = confidence(0.75, 2)
    after = confidence(0.75, 2, direct=1)
    assert math.isclose(before - after, DIRECT_PENALTY)
    assert not archived(after, FLOOR)
    assert not archived(confidence(DEFAULT_PRIOR, direct=1), FLOOR)  # 0.7 - 0.4 is the floor, not below


def test_decay_is_for_ranking_only_and_takes_30_days_to_fall_to_a_third() -> None:
    assert ranking(0.8, None, 30) == 0.8
    assert ranking(0.8, 0, 30) == 0.8
    assert math.isclose(ranking(0.8, 30, 30), 0.8 / math.e)
    assert ranking(0.8, 60, 30) < ranking(0.8, 30, 30)


def test_the_prior_is_the_confidence_the_file_states() -> None:
    assert prior_of({}) == DEFAULT_PRIOR
    assert prior_of({"confidence": 0.9}) == 0.9
    assert prior_of({"interop": {"aip11": {"confidence": 0.4}}}) == 0.4
    assert prior_of({"confidence": 7}) == DEFAULT_PRIOR
    assert prior_of({"confidence": True}) == DEFAULT_PRIOR


def test_a_records_confidence_of_a_lesson_starts_from_the_prior_its_file_states() -> None:
    assert Record().confidence_of({"confidence": 0.9}) == Record().confidence(0.9)
    assert Record().confidence_of({}) == Record().confidence(DEFAULT_PRIOR)
    contradicted = Record(direct=1)
    assert contradicted.confidence_of({"confidence": 0.9}) < Record().confidence_of({"confidence": 0.9})
