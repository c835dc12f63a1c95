"""Okapi BM25 over a lesson's name, description and body (agentsmesh's parameters).

How recall uses it: docs/recall.md#3-ranking.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from reasonlessons.support.tokens import tokenize

K1 = 1.5
B = 0.75

# One posting: (document id, term frequency, document length in terms).
Posting = tuple[int, int, int]


def document_terms(name: str, description: str, body: str) -> dict[str, int]:
    """Term frequencies of a lesson as indexed; the name counts like any other word."""
    return dict(Counter(tokenize(f"{name}\n{description}\n{body}")))


def idf(n_docs: int, df: int) -> float:
    """Always positive, so a word found in most lessons still adds a little."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def score(
    terms: Iterable[str], postings: Mapping[str, list[Posting]], *, n_docs: int, avgdl: float
) -> dict[int, float]:
    """BM25 of each document that contains at least one of the (de-duplicated) query terms."""
    scores: dict[int, float] = {}
    avgdl = avgdl or 1.0
    for term in dict.fromkeys(terms):
        plist = postings.get(term)
        if not plist:
            continue
        weight = idf(n_docs, len(plist))
        for doc, tf, dl in plist:
            norm = tf + K1 * (1.0 - B + B * dl / avgdl)
            scores[doc] = scores.get(doc, 0.0) + weight * tf * (K1 + 1.0) / norm
    return scores
