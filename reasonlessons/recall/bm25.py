"""Okapi BM25 over a lesson's name, description and body (agentsmesh's parameters).

How recall uses it: docs/recall.md#3-ranking. `score` reads whole posting lists; recall itself reads
only what its top lessons need (recall/relevance.py), with the same arithmetic (`contribution`) in
the same order, and per-term upper bounds (`bound`) from each term's `Skyline`.
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
# The postings of a term that could score highest: (tf, the shortest document with that tf), for
# every tf no other point beats on both counts (a Pareto front, a handful of points per term).
Skyline = list[tuple[int, int]]


def document_terms(name: str, description: str, body: str) -> dict[str, int]:
    """Term frequencies of a lesson as indexed; the name counts like any other word."""
    return dict(Counter(tokenize(f"{name}\n{description}\n{body}")))


def idf(n_docs: int, df: int) -> float:
    """Always positive, so a word found in most lessons still adds a little."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def contribution(weight: float, tf: int, dl: int, avgdl: float) -> float:
    """One term's share of a document's score; `weight` is the term's idf.

    Every score is a sum of these, added in query-term order, so that two ways of reading the
    index give equal floats, not merely close ones (ties and ranks compare them exactly)."""
    return weight * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))


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
            scores[doc] = scores.get(doc, 0.0) + contribution(weight, tf, dl, avgdl)
    return scores


def bound(weight: float, skyline: Skyline, avgdl: float) -> float:
    """The largest contribution any posting of a term can make (its skyline holds every candidate).

    A contribution grows with tf and shrinks with dl, and IEEE arithmetic keeps both monotonic, so
    no posting's `contribution` exceeds this one's value, to the last bit."""
    return max((contribution(weight, tf, dl, avgdl) for tf, dl in skyline), default=0.0)


def add_to_skyline(skyline: Skyline, points: Iterable[tuple[int, int]]) -> Skyline:
    """The skyline of `skyline`'s points and `points`: the best (shortest) dl per tf, dominated
    points dropped, highest tf first."""
    best: dict[int, int] = dict(skyline)
    for tf, dl in points:
        if dl < best.get(tf, dl + 1):
            best[tf] = dl
    out: Skyline = []
    for tf in sorted(best, reverse=True):
        if not out or best[tf] < out[-1][1]:
            out.append((tf, best[tf]))
    return out


def skyline_text(skyline: Skyline) -> str:
    return " ".join(f"{tf}:{dl}" for tf, dl in skyline)


def parse_skyline(text: str) -> Skyline:
    out: Skyline = []
    for point in text.split():
        tf, _, dl = point.partition(":")
        out.append((int(tf), int(dl)))
    return out
