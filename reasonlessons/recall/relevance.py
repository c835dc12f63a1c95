"""Text relevance for one turn: exact BM25 of given lessons, and the best lessons by their text alone.

Recall needs BM25 for two things (docs/recall.md#3-ranking): the relevance of every lesson a trigger
brought in, and the first few lessons, best first, among those that share at least two non-generic
words with the turn and have no trigger that fired ("text-only"). Scoring every lesson that contains
a query word costs as much as the number of lessons using the word: "test" is in most of them.

So the text-only lessons are found MaxScore-style, with the exact scores and the exact order of a
full read:

1. Each query term has an upper bound: the largest share of a score any of its postings can make,
   from the term's skyline in the index (bm25.bound).
2. A first threshold: the k-th best exact score among a few seed lessons, the best by the terms that
   can score most (scanning at most SEED_POSTINGS postings, or one term's). The k-th best lesson
   overall scores at least that.
3. Terms whose bounds add up to less than the threshold ("non-essential": the common words) cannot
   make a lesson reach it alone, so only the postings of the other ("essential") terms are scanned,
   keeping the lessons whose partial sum plus every bound still missing reaches the threshold.
4. The non-essential terms are then looked up for those lessons only, highest bound first, dropping
   each lesson that can no longer reach the threshold; what remains is scored exactly.

Every lesson scoring at least the threshold survives (no bound is below a real share, and partial
sums, added in another order, get MARGIN of slack), so the survivors at or above it, in (score, id)
order, are exactly the first ones of the full order. When more are wanted, k grows and the search
runs again. Costs grow with k and with the postings of the prompt's rarer words, not with how many
lessons share a common word; `work` counts what was scanned and looked up (tests and benchmarks read
it). Posting lists arrive as packed arrays (recall/postings.py): a common word's list is copied, not
turned into Python objects, and looked up by bisection or, for many lookups, through one dict.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from operator import itemgetter
from typing import TYPE_CHECKING

from reasonlessons.recall import bm25
from reasonlessons.recall.bm25 import K1, B
from reasonlessons.support.tokens import GENERIC

if TYPE_CHECKING:
    from reasonlessons.recall.index import LessonIndex
    from reasonlessons.recall.postings import Lists

SEED_POSTINGS = 1024
SEED_PER_WANTED = 4
FIRST_K = 4
# Scores are at most a few thousand and doubles carry 15-16 significant digits: sums added in
# another order differ by far less. Only ever keeps a few more lessons than needed.
MARGIN = 1e-6
# Past this many lookups per posting of a list, one dict of the list is cheaper than bisecting.
DICT_AFTER = 1 / 16

Hit = tuple[int, int]  # (tf, dl) of a term in a lesson


class TextSearch:
    """BM25 over the index for one turn's terms (de-duplicated, in query order)."""

    def __init__(self, idx: LessonIndex, terms: Iterable[str]) -> None:
        self.idx = idx
        self.avgdl = idx.avgdl or 1.0
        wanted = list(dict.fromkeys(terms))
        stats = idx.term_stats(wanted) if wanted else {}
        # Query order is the order in which every score is summed (bm25.score does the same).
        self.terms = [t for t in wanted if t in stats]
        self.df = {t: stats[t][0] for t in self.terms}
        self.weight = {t: bm25.idf(idx.n_docs, self.df[t]) for t in self.terms}
        self.bound = {
            t: bm25.bound(self.weight[t], bm25.parse_skyline(stats[t][1]), self.avgdl) for t in self.terms
        }
        self.work: Counter[str] = Counter()
        # Every list a turn needs, in one query: a list is one blob copied into arrays (even a
        # common word's costs microseconds); exact scores need every term anyway.
        self._lists: dict[str, Lists] = idx.term_lists(self.terms) if self.terms else {}
        self.work["loaded"] += sum(self.df.values())
        self._where: dict[str, dict[int, int]] = {}
        self._exact: dict[int, tuple[float, int]] = {}  # doc -> (score, shared non-generic terms)
        self._every_sum: dict[int, float] | None = None  # every term's partial sums, when read
        self._seed_sum: dict[int, float] = {}  # the seed terms' partial sums (_threshold)
        self._seeding = (SEED_POSTINGS, 0, 0)  # (budget, terms taken in bound order, postings read)

    # -- reading the index -----------------------------------------------------------------------

    def _find(self, term: str, docs: Collection[int]) -> Iterator[tuple[int, Hit]]:
        """(doc, (tf, dl)) for each of `docs` that contains `term`."""
        ids, tfs, dls = self._lists[term]
        self.work["lookups"] += len(docs)
        where = self._where.get(term)
        if where is None and len(docs) > DICT_AFTER * len(ids):
            where = self._where[term] = dict(zip(ids, range(len(ids)), strict=True))
        if where is not None:
            for doc in docs:
                i = where.get(doc)
                if i is not None:
                    yield doc, (tfs[i], dls[i])
            return
        n = len(ids)
        for doc in docs:
            i = bisect_left(ids, doc)
            if i < n and ids[i] == doc:
                yield doc, (tfs[i], dls[i])

    def _partial(self, terms: Iterable[str], acc: dict[int, float] | None = None) -> dict[int, float]:
        """Each lesson's sum of the `terms`' shares (in list order: for bounds, not for ranking),
        added to `acc` when given."""
        acc = {} if acc is None else acc
        get = acc.get
        for term in terms:
            ids, tfs, dls = self._lists[term]
            self.work["scanned"] += len(ids)
            top, base, per = self.weight[term] * (K1 + 1.0), K1 * (1.0 - B), K1 * B / self.avgdl
            for doc, tf, dl in zip(ids, tfs, dls, strict=True):
                acc[doc] = get(doc, 0.0) + top * tf / (tf + base + per * dl)
        return acc

    # -- exact scores ----------------------------------------------------------------------------

    def scores(self, docs: Iterable[int]) -> dict[int, float]:
        """BM25 of each of `docs` that contains a query term (as bm25.score gives it)."""
        docs = list(docs)
        self._score_exactly(docs)
        return {d: self._exact[d][0] for d in docs if self._exact[d][0] > 0.0}

    def score_of(self, doc: int) -> float:
        return self._exact[doc][0]

    def _score_exactly(self, docs: Iterable[int]) -> None:
        todo = [d for d in dict.fromkeys(docs) if d not in self._exact]
        if not todo:
            return
        self.work["exact"] += len(todo)
        found: dict[int, dict[str, Hit]] = {d: {} for d in todo}
        for term in self.terms:
            for doc, hit in self._find(term, todo):
                found[doc][term] = hit
        avgdl = self.avgdl
        for doc, have in found.items():
            total, shared = 0.0, 0
            for term in self.terms:  # query order, as bm25.score adds them
                found_hit = have.get(term)
                if found_hit is not None:
                    tf, dl = found_hit
                    total = total + bm25.contribution(self.weight[term], tf, dl, avgdl)
                    shared += term not in GENERIC
            self._exact[doc] = (total, shared)

    # -- the best text-only lessons --------------------------------------------------------------

    def ranked(self, *, exclude: Collection[int], min_shared: int, limit: int) -> Iterator[int]:
        """Lessons not in `exclude` that share `min_shared` non-generic terms, best first (score, then
        id, as `sorted(key=(-score, doc))` of a full read gives them), at most `limit`."""
        if sum(t not in GENERIC for t in self.terms) < min_shared:
            return
        given, k = 0, FIRST_K
        while given < limit:
            top, complete = self._best(min(k, limit), exclude, min_shared)
            for doc in top[given:limit]:
                yield doc
                given += 1
            if complete or given >= limit:
                return
            k *= 4

    def _best(self, k: int, exclude: Collection[int], min_shared: int) -> tuple[list[int], bool]:
        """The first lessons of the order (at least k, unless there are fewer: then all, complete)."""

        def eligible(doc: int) -> bool:
            return doc not in exclude and self._exact[doc][1] >= min_shared

        theta = self._threshold(k, eligible, min_shared)
        if theta is None:
            candidates = self._every_eligible(min_shared)
            self._score_exactly(candidates)
            found = [d for d in candidates if eligible(d)]
            return sorted(found, key=lambda d: (-self._exact[d][0], d)), True
        survivors = self._survivors(theta, exclude)
        self._score_exactly(survivors)
        found = [d for d in survivors if eligible(d) and self._exact[d][0] >= theta]
        return sorted(found, key=lambda d: (-self._exact[d][0], d)), False

    def _threshold(self, k: int, eligible: Callable[[int], bool], min_shared: int) -> float | None:
        """The k-th best exact score among seed lessons, or None when fewer than k seeds qualify
        within what the fallback (`_every_eligible`) would read.

        Seeds come from the terms that can score most, as many postings as the budget allows. A
        budget spent on a term few lessons have (a word of one lesson) may leave too few seeds
        that qualify: the budget then grows eightfold while it is below the fallback's cost (every
        lesson with a rarer term scored: a common word's postings, when the prompt has two)."""
        order = sorted(self.terms, key=lambda t: -self.bound[t])
        everything = sum(self.df.values())
        fallback = sum(self.df[t] for t in self._rarer(min_shared))
        # Kept across rounds (a larger k): the partial sums read so far stay valid.
        budget, taken, read = self._seeding
        acc = self._seed_sum
        while True:
            more: list[str] = []  # the terms this budget adds to the seeds' partial sums
            for term in order[taken:]:
                if (taken or more) and read + self.df[term] > budget:
                    break
                more.append(term)
                read += self.df[term]
            taken += len(more)
            self._partial(more, acc)
            self._seeding = (budget, taken, read)
            # Any seeds give a threshold no higher than the true k-th score: ties need no order.
            top = heapq.nlargest(SEED_PER_WANTED * k, acc.items(), key=itemgetter(1))
            seeds = [doc for doc, _ in top]
            self._score_exactly(seeds)
            best = sorted((self._exact[d][0] for d in seeds if eligible(d)), reverse=True)
            if len(best) >= k:
                # Seeds from every term hold every lesson's full (bound-order) sum: no scan left.
                self._every_sum = acc if taken == len(order) else None
                return best[k - 1]
            if read >= everything or budget >= fallback:
                return None
            budget *= 8

    def _survivors(self, theta: float, exclude: Collection[int]) -> list[int]:
        """Every lesson not in `exclude` that may score at least `theta` (and a few more)."""
        if self._every_sum is not None:
            return [d for d, v in self._every_sum.items() if v >= theta - MARGIN and d not in exclude]
        rest: list[str] = []  # non-essential terms, lowest bound first
        total = 0.0
        for term in sorted(self.terms, key=lambda t: self.bound[t]):
            if total + self.bound[term] >= theta - MARGIN:
                break
            total += self.bound[term]
            rest.append(term)
        essential = [t for t in self.terms if t not in rest]
        seeded = set(sorted(self.terms, key=lambda t: -self.bound[t])[: self._seeding[1]])
        if seeded and seeded.issubset(essential):
            # The seeds' sums already hold those terms: a common word's list is not read twice.
            acc = self._partial([t for t in essential if t not in seeded], dict(self._seed_sum))
        else:
            acc = self._partial(essential)
        floor = theta - total - MARGIN
        partial = {d: v for d, v in acc.items() if v >= floor and d not in exclude}
        while rest and partial:
            term = rest.pop()  # the highest bound left
            missing = sum(self.bound[t] for t in rest)
            weight, avgdl = self.weight[term], self.avgdl
            for doc, (tf, dl) in self._find(term, partial):
                partial[doc] += bm25.contribution(weight, tf, dl, avgdl)
            partial = {d: v for d, v in partial.items() if v + missing >= theta - MARGIN}
        return list(partial)

    def _every_eligible(self, min_shared: int) -> set[int]:
        """A superset of the lessons with `min_shared` non-generic query terms (when too few stand
        out to set a threshold): each has one of the rarer ones, all but the min_shared - 1 commonest."""
        rarer = self._rarer(min_shared)
        out: set[int] = set()
        for term in rarer:
            out.update(self._lists[term][0])
        self.work["scanned"] += sum(self.df[t] for t in rarer)
        return out

    def _rarer(self, min_shared: int) -> list[str]:
        """The non-generic terms but the min_shared - 1 commonest: a lesson with `min_shared`
        non-generic query terms has one of them."""
        specific = sorted((t for t in self.terms if t not in GENERIC), key=lambda t: self.df[t])
        return specific[: len(specific) - (min_shared - 1)]
