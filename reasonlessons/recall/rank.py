"""Ranking by reciprocal-rank fusion of four signals, and the token estimate the budget uses.

Each signal orders the candidates on its own (competition ranks: 1, 1, 3); a candidate's score is
the sum of weight / (RRF_K + rank) over the signals it has. Fusing ranks rather than raw values keeps
BM25's unbounded scale from drowning the others (agentsmesh does the same).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

RRF_K = 60
# A matched trigger says the most about relevance; prompt words next; confidence and age refine.
W_SPECIFICITY = 5.0
W_RELEVANCE = 2.0
W_OUTCOME = 1.0
W_RECENCY = 1.0
SCOPE_ORDER = {"project": 0, "global": 1}


def estimate_tokens(text: str) -> int:
    """ceil(characters / 4): the usual rule of thumb for English and code, and free to compute."""
    return (len(text) + 3) // 4


class Candidate:
    """One lesson that may be recalled, with the signals ranking looks at."""

    __slots__ = (
        "caution",
        "confidence",
        "doc",
        "name",
        "reasons",
        "recency",
        "relevance",
        "scope",
        "score",
        "specificity",
    )

    def __init__(self, doc: int, name: str, scope: str, recency: str = "") -> None:
        self.doc = doc
        self.name = name
        self.scope = scope
        self.recency = recency
        self.specificity: float | None = None
        self.relevance = 0.0
        self.confidence = 0.0  # decayed for ranking (store/confidence.py)
        self.caution = False
        self.score = 0.0
        self.reasons: list[str] = []

    def __repr__(self) -> str:
        return f"Candidate({self.name!r}, {self.scope!r}, score={self.score:.4f})"


def competition_ranks(values: Sequence[Any]) -> list[int]:
    """Descending competition ranks: equal values share the best rank (1, 1, 3)."""
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=True)
    ranks = [0] * len(values)
    for position, index in enumerate(order):
        if position and values[index] == values[order[position - 1]]:
            ranks[index] = ranks[order[position - 1]]
        else:
            ranks[index] = position + 1
    return ranks


def _add(cands: list[Candidate], weight: float, value: Callable[[Candidate], Any]) -> None:
    have = [c for c in cands if value(c) is not None]
    for cand, rank in zip(have, competition_ranks([value(c) for c in have]), strict=True):
        cand.score += weight / (RRF_K + rank)


def fuse(cands: list[Candidate]) -> list[Candidate]:
    """Score every candidate and return them best first (ties: newer, then name, project first)."""
    for cand in cands:
        cand.score = 0.0
    _add(cands, W_SPECIFICITY, lambda c: c.specificity)
    _add(cands, W_RELEVANCE, lambda c: c.relevance if c.relevance > 0 else None)
    _add(cands, W_OUTCOME, lambda c: c.confidence)
    _add(cands, W_RECENCY, lambda c: c.recency or None)
    cands.sort(key=lambda c: (c.name, SCOPE_ORDER.get(c.scope, 2)))
    cands.sort(key=lambda c: c.recency, reverse=True)
    cands.sort(key=lambda c: round(c.score, 12), reverse=True)
    return cands


def within_budget(used: int, cost: int, *, budget: int, taken: int) -> bool:
    """The first lesson always fits; later ones only while the running total stays within budget."""
    return taken == 0 or used + cost <= budget
