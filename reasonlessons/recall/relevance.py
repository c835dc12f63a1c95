"""Text relevance for one turn: exact BM25 of given lessons, and the best lessons by their text alone.

Recall needs BM25 for two things (docs/recall.md#3-ranking): the relevance of every lesson a trigger
brought in, and the first few lessons, best first, among those that share at least two non-generic
words with the turn and have no trigger that fired ("text-only"). Scoring every lesson that contains
a query word costs as much as the number of lessons using the word: "test" is in most of them.

So the text-only lessons are found by reading posting lists in impact order (each term's postings,
highest share of a score first: recall/postings.py), with the exact scores and the exact order of
a full read:

1. Each term has a bound on what is left of it: its skyline's (bm25.bound) before anything is read,
   then the share of its next posting in impact order (`postings.rest_bound`).
2. Postings are read a chunk at a time from the term whose rest can score most, so the best
   shares of every term come first; each lesson read gets a partial sum and the set of terms it
   was read in.
3. A first threshold: the k-th best exact score among a few seed lessons, the best partial sums
   after SEED_POSTINGS postings (those read in enough non-generic terms first: they qualify). The
   k-th best lesson overall scores at least that.
4. Reading goes on until the bounds of what is left add up to less than the threshold: a lesson
   not read in any term cannot reach it. Rarer words are then usually read whole and common ones
   not at all, or only their best postings.
5. A lesson read scores at most its partial sum plus the rest bounds of the terms it was not read
   in; those that can still reach the threshold have those terms looked up (highest bound first,
   dropping each lesson that no longer can, or can no longer share enough non-generic terms), and
   what remains is scored exactly.

6. When the rests of the common words (postings.Dense) alone still reach the threshold after
   READ_BEFORE_BOUND postings, reading on would read most of their postings (a prompt of common
   words only): steps 4 and 5 are replaced by a
   bound on every lesson at once, the terms' bounds summed in C as 16-bit lanes of one integer
   (`_bound_every_lesson`; a term's lane depends on the image only and LessonIndex keeps it), and
   the lessons whose bound reaches the threshold are scored exactly.

Every lesson scoring at least the threshold survives (no bound is below a real share, and partial
sums, added in another order, get MARGIN of slack), so the survivors at or above it, in (score, id)
order, are exactly the first ones of the full order. When more are wanted, k grows and the search
reads on from where it stopped. Costs grow with k and with how far the prompt's words must be read
to separate the best lessons, not with how many lessons share a word; `work` counts what was
scanned and looked up (tests and benchmarks read it). Posting lists arrive as packed arrays, looked
up by bisection or, for many lookups, through one dict. A common word comes as bytes by lesson id
(postings.Dense) and its arrays are read only if the search reads the word itself: in step 5 every
lesson read gets, for each dense term nothing was read from, a bound from that term's share code
(its byte indexes a table of 256 bounds, a term at a time over the lessons still in reach), and its
count of non-generic terms is completed from the tf bytes; only the lessons still in reach go on to
the one-at-a-time lookups of the other terms. Exact scores read a dense term's tf from its bytes
and the lesson's length from the index.
"""

from __future__ import annotations

import heapq
import math
import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING

from reasonlessons.recall import bm25
from reasonlessons.recall.bm25 import K1, B
from reasonlessons.recall.postings import CODE_MAX, CODE_STEP, TF_CAP, rest_bound
from reasonlessons.support.tokens import GENERIC

if TYPE_CHECKING:
    from reasonlessons.recall.index import LessonIndex
    from reasonlessons.recall.postings import Dense, Lists

SEED_POSTINGS = 256
SEED_PER_WANTED = 4
FIRST_K = 4
# Postings read from one term before the next term to read is chosen again.
CHUNK = 64
# Scores are at most a few thousand and doubles carry 15-16 significant digits: sums added in
# another order differ by far less. Only ever keeps a few more lessons than needed.
MARGIN = 1e-6
# Past this many lookups per posting of a list, one dict of the list is cheaper than bisecting.
DICT_AFTER = 1 / 16
# Bounding every lesson at once (`_bound_every_lesson`): "auto" when the common words' rests alone
# reach the threshold (reading on would read them), "always" / "never" for tests.
BOUND_ALL = "auto"
# Postings read before every lesson may be bounded at once instead (see _survivors).
READ_BEFORE_BOUND = 1024
# Terms past this many are not bounded lesson by lesson (their levels could overflow a lane).
MAX_BOUND_TERMS = 128
_HIGH_BIT = bytes(v >> 7 for v in range(256))

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
        # What a turn needs of every term, in one query: the arrays of the rarer ones (each one
        # blob), the dense bytes of the common ones (their arrays come only if they are read).
        rows = idx.term_rows(self.terms) if self.terms else {}
        self._lists: dict[str, Lists] = {t: r.lists for t, r in rows.items() if r.lists is not None}
        self._dense: dict[str, Dense] = {t: r.dense for t, r in rows.items() if r.dense is not None}
        self.work["loaded"] += sum(self.df[t] for t in self._lists)
        self._dl: dict[int, int] = {}  # lengths of the lessons read (a dense term's exact share needs it)
        self._where: dict[str, dict[int, int]] = {}
        self._exact: dict[int, tuple[float, int]] = {}  # doc -> (score, shared non-generic terms)
        # Reading in impact order, kept across rounds (a larger k reads on from here).
        self._impact: dict[str, Sequence[int]] = {}  # impact orders, fetched when first read
        self._read = dict.fromkeys(self.terms, 0)  # postings read per term
        self._rest = dict(self.bound)  # what any posting not yet read can add, per term
        self._bit = {t: 1 << i for i, t in enumerate(self.terms)}
        self._sum: dict[int, float] = {}  # each lesson read: the sum of its shares read
        self._seen: dict[int, int] = {}  # each lesson read: the terms it was read in (bits)
        self._lanes: tuple[int, int, float] | None = None  # every lesson's bound: (lanes, span, unit)

    # -- reading the index -----------------------------------------------------------------------

    def _arrays(self, term: str) -> Lists:
        """The term's arrays (a dense term's are read the first time they are needed)."""
        lists = self._lists.get(term)
        if lists is None:
            lists = self._lists[term] = self.idx.term_lists([term])[term]
            self.work["loaded"] += self.df[term]
        return lists

    def _by_id(self, term: str, top: int) -> Dense:
        """The term's dense bytes, long enough for document id `top` (lessons added after the row
        was written do not have the term: zeros)."""
        dense = self._dense[term]
        if len(dense.codes) <= top:
            pad = bytes(top + 1 - len(dense.codes))
            dense = self._dense[term] = dense._replace(tfs=dense.tfs + pad, codes=dense.codes + pad)
        return dense

    def _find(self, term: str, docs: Collection[int]) -> Iterator[tuple[int, Hit]]:
        """(doc, (tf, dl)) for each of `docs` that contains `term` (a dense term's lengths must be in
        self._dl: `_score_exactly` fetches them)."""
        if term in self._dense:
            self.work["lookups"] += len(docs)
            tfs = self._by_id(term, max(docs, default=0)).tfs
            capped = []
            for doc in docs:
                tf = tfs[doc]
                if tf >= TF_CAP:
                    capped.append(doc)  # TF_CAP or more: the arrays have it
                elif tf:
                    yield doc, (tf, self._dl[doc])
            if capped:
                yield from self._find_in_arrays(term, capped)
            return
        yield from self._find_in_arrays(term, docs)

    def _find_in_arrays(self, term: str, docs: Collection[int]) -> Iterator[tuple[int, Hit]]:
        ids, tfs, dls, _ = self._arrays(term)
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

    def _read_on(self, term: str, count: int) -> None:
        """Read the next `count` postings of `term` in impact order into the partial sums.

        The postings and their shares come from the index's kept order when a search on this
        image read that far before (the same floats, added in the same order); else they are read
        from the arrays, and kept."""
        start = self._read[term]
        end = min(start + count, self.df[term])
        kept = self.idx.read_order(term)
        acc, seen, bit, length = self._sum, self._seen, self._bit[term], self._dl
        get, seen_get = acc.get, seen.get
        rest = kept.rests.get(end)
        if rest is not None and len(kept.docs) >= end:
            read = zip(kept.docs[start:end], kept.shares[start:end], kept.dls[start:end], strict=True)
            for doc, share, dl in read:
                acc[doc] = get(doc, 0.0) + share
                seen[doc] = seen_get(doc, 0) | bit
                length[doc] = dl
        else:
            lists = self._arrays(term)
            impact = self._impact.get(term)
            if impact is None:
                impact = self._impact[term] = self.idx.term_impact(term)
            ids, tfs, dls = lists.ids, lists.tfs, lists.dls
            top, base, per = self.weight[term] * (K1 + 1.0), K1 * (1.0 - B), K1 * B / self.avgdl
            docs: list[int] = []
            shares: list[float] = []
            lengths: list[int] = []
            for i in impact[start:end]:
                doc, tf, dl = ids[i], tfs[i], dls[i]
                share = top * tf / (tf + base + per * dl)
                acc[doc] = get(doc, 0.0) + share
                seen[doc] = seen_get(doc, 0) | bit
                length[doc] = dl
                docs.append(doc)
                shares.append(share)
                lengths.append(dl)
            rest = rest_bound(self.weight[term], lists, impact, end, self.avgdl)
            have = len(kept.docs)
            if start <= have:  # kept from the first posting on (none when forgotten meanwhile)
                kept.docs += docs[have - start :]
                kept.shares += shares[have - start :]
                kept.dls += lengths[have - start :]
                kept.rests[end] = rest
        self.work["scanned"] += end - start
        self._read[term] = end
        self._rest[term] = min(self._rest[term], rest)

    def _read_best(self) -> bool:
        """Read a chunk of the term whose unread postings can score most; False when all are read."""
        term = max(
            (t for t in self.terms if self._read[t] < self.df[t]), key=self._rest.__getitem__, default=None
        )
        if term is None:
            return False
        left = self.df[term] - self._read[term]
        # A short rest is read at once: choosing again costs more than the postings.
        self._read_on(term, left if left <= 2 * CHUNK else CHUNK)
        return True

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
        if self._dense:
            self._dl.update(self.idx.lengths([d for d in todo if d not in self._dl]))
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
        survivors, theta = self._survivors(theta, exclude, min_shared, k)
        self._score_exactly(survivors)
        found = [d for d in survivors if eligible(d) and self._exact[d][0] >= theta]
        return sorted(found, key=lambda d: (-self._exact[d][0], d)), False

    def _threshold(self, k: int, eligible: Callable[[int], bool], min_shared: int) -> float | None:
        """The k-th best exact score among seed lessons, or None when fewer than k seeds qualify
        within what the fallback (`_every_eligible`) would read.

        Seeds are the best partial sums once SEED_POSTINGS postings are read. A budget spent on
        words of few lessons may leave too few seeds that qualify: the budget then grows eightfold
        while it is below the fallback's cost (every lesson with a rarer term scored: a common
        word's postings, when the prompt has two)."""
        everything = sum(self.df.values())
        fallback = sum(self.df[t] for t in self._rarer(min_shared))
        if fallback <= SEED_PER_WANTED * k:
            return None  # the fallback scores no more lessons than the seeds would
        budget = SEED_POSTINGS
        specific = sum(self._bit[t] for t in self.terms if t not in GENERIC)
        while True:
            while sum(self._read.values()) < budget and self._read_best():
                pass
            # Any seeds give a threshold no higher than the true k-th score: ties need no order.
            # Lessons read in enough non-generic terms are sure to share them: those first.
            wanted = SEED_PER_WANTED * k
            sure = [
                (d, v) for d, v in self._sum.items() if (self._seen[d] & specific).bit_count() >= min_shared
            ]
            top = heapq.nlargest(wanted, sure, key=itemgetter(1))
            if len(top) < wanted:
                top += heapq.nlargest(wanted, self._sum.items(), key=itemgetter(1))
            seeds = list(dict.fromkeys(doc for doc, _ in top))
            self._score_exactly(seeds)
            best = sorted((self._exact[d][0] for d in seeds if eligible(d)), reverse=True)
            if len(best) >= k:
                return best[k - 1]
            if sum(self._read.values()) >= everything or budget >= fallback:
                return None
            budget *= 8

    def _survivors(
        self, theta: float, exclude: Collection[int], min_shared: int, k: int
    ) -> tuple[list[int], float]:
        """Every lesson not in `exclude` that may score at least the threshold returned (`theta`, or
        a higher one that k eligible lessons reach) and share `min_shared` non-generic terms (and a
        few more)."""
        need = theta - MARGIN
        may_bound = bool(self._dense) and BOUND_ALL != "never" and len(self.terms) <= MAX_BOUND_TERMS
        while sum(self._rest.values()) >= need:
            # Reading on stays cheaper while it is short (a PreToolUse of two common words stops
            # after a few hundred postings); past READ_BEFORE_BOUND postings with the common
            # words' rests alone still reaching the threshold, every lesson is bounded instead.
            if may_bound and (
                BOUND_ALL == "always"
                or (
                    sum(self._read.values()) >= READ_BEFORE_BOUND
                    and sum(self._rest[t] for t in self._dense) >= need
                )
            ):
                # Raise the threshold first from the best partial sums read so far: every lesson
                # whose bound reaches it is scored exactly, so a higher one saves most of them.
                best = heapq.nlargest(SEED_PER_WANTED * k, self._sum.items(), key=itemgetter(1))
                self._score_exactly([d for d, _ in best])
                scores = sorted(
                    (
                        self._exact[d][0]
                        for d, _ in best
                        if d not in exclude and self._exact[d][1] >= min_shared
                    ),
                    reverse=True,
                )
                if len(scores) >= k and scores[k - 1] > theta:
                    theta = scores[k - 1]
                    need = theta - MARGIN
                bounded = self._bound_every_lesson(need)
                if bounded is not None:
                    return [d for d in bounded if d not in exclude], theta
                may_bound = False
            if not self._read_best():
                break
        # Terms not read whole, highest bound of their rest first. A dense term nothing was read
        # from gives every lesson a bound from its share code, a term at a time over all lessons
        # read (bytes and a table, no lookup); the lessons still in reach are then looked up in
        # the other terms, one lesson at a time (each lookup a bisection of a packed list), while
        # they can still reach the threshold and share enough terms.
        rest, bits, acc, seen = self._rest, self._bit, self._sum, self._seen
        left = sorted((t for t in self.terms if self._read[t] < self.df[t]), key=lambda t: -rest[t])
        coded = [t for t in left if t in self._dense and not self._read[t]]
        looked_up = [t for t in left if t not in coded]
        coded_open = sum(rest[t] for t in coded)
        others_open = sum(rest[t] for t in looked_up)
        floor = need - others_open - coded_open
        cands = [(d, v) for d, v in acc.items() if v >= floor]
        for term in coded:
            table, codes = self._bounds(term, max(acc, default=0))
            coded_open -= rest[term]
            floor = need - others_open - coded_open
            self.work["dense"] += len(cands)
            cands = [(d, u) for d, v in cands for u in (v + table[codes[d]],) if u >= floor]
        specific = sum(bits[t] for t in self.terms if t not in GENERIC)
        has = [self._dense[t].tfs for t in coded if t not in GENERIC]  # long enough: _bounds
        steps = []
        for term in looked_up:
            lists = self._arrays(term)
            share = (self.weight[term] * (K1 + 1.0), K1 * (1.0 - B), K1 * B / self.avgdl)
            where = self._where.get(term)
            steps.append((bits[term], rest[term], term not in GENERIC, lists, len(lists.ids), where, share))
        left_specific = sum(bits[t] for t in looked_up) & specific
        # By the bits of the terms a lesson was read in (it has those): what the looked-up terms
        # can still add, how many non-generic terms it lacks and how many it may still have.
        unknown: dict[int, tuple[float, int, int]] = {}
        out: list[int] = []
        lookups = 0
        for doc, value in cands:
            mask = seen[doc]
            known = unknown.get(mask)
            if known is None:
                open_bound = sum(rest[t] for t in looked_up if not mask & bits[t])
                lacking_now = min_shared - (mask & specific).bit_count()
                known = unknown[mask] = (open_bound, lacking_now, (left_specific & ~mask).bit_count())
            open_, lacking, maybe = known
            if has:
                lacking -= sum(1 for tfs in has if tfs[doc])
            if value + open_ < need or lacking > maybe or doc in exclude:
                continue
            for bit, bound, counts, lists, n, where, (top, base, per) in steps:
                if mask & bit:
                    continue
                lookups += 1
                if where is None:
                    ids = lists.ids
                    i = bisect_left(ids, doc)
                    found = i < n and ids[i] == doc
                else:
                    i = where.get(doc, -1)
                    found = i >= 0
                if found:
                    tf = lists.tfs[i]
                    value += top * tf / (tf + base + per * lists.dls[i])
                    lacking -= counts
                if counts:
                    maybe -= 1
                open_ -= bound
                if value + open_ < need or lacking > maybe:
                    break
            else:
                out.append(doc)
        self.work["lookups"] += lookups
        return out, theta

    def _bound_every_lesson(self, need: float) -> list[int] | None:
        """Every lesson whose bound reaches `need` (None when the bounds cannot tell: need <= 0).

        When the prompt's common words alone can reach the threshold, reading on would read most
        of their postings (every word of the prompt common: tens of thousands). Instead each
        lesson gets a bound, in whole levels of one unit, rounded up: a common word's from its
        share code (`Dense.codes`, mapped to two bytes a lesson by `bytes.translate`), any other
        word's from its exact shares. Each term's levels are 16-bit lanes of one big integer,
        summed in C; adding 2**15 - q to every lane sets a lane's top bit exactly when its sum is
        at least q, and `compress` lists those lessons. A lesson scoring `need` has a sum of at
        least need / unit levels, so none is missed; the rounding (a level per term at most) lets a
        few more through, which the exact scores then drop."""
        if self._lanes is None:
            self._lanes = self._sum_levels() or (0, 0, 1.0)
        lanes, span, unit = self._lanes
        q = int(need / unit) - len(self.terms) - 1
        if q <= 0 or not span:
            return None
        if q >= 0x8000:
            return []  # beyond every lesson's bound
        biased = lanes + int.from_bytes((0x8000 - q).to_bytes(2, "little") * span, "little")
        marks = biased.to_bytes(2 * span + 1, "little")[1 : 2 * span : 2].translate(_HIGH_BIT)
        self.work["bounded"] += span
        return list(compress(range(span), marks))

    def _sum_levels(self) -> tuple[int, int, float] | None:
        """(every lesson's bound in levels as 16-bit lanes of one integer, lanes, the level's unit),
        or None when the terms' levels could overflow a lane."""
        unit = self.idx.level_unit
        if sum(self.bound.values()) / unit + 3 * len(self.terms) >= 0x7FFF:
            return None
        total = 0
        for term in self.terms:
            lane = self.idx.lanes.get(term)
            if lane is None:
                lane = self.idx.keep_lane(term, self._lane(term, unit))
            total += lane
        return total, (total.bit_length() + 15) // 16, unit

    def _lane(self, term: str, unit: float) -> int:
        """A term's share of every lesson's bound in levels of `unit`, rounded up, as 16-bit lanes
        by lesson id (it depends on the image only: LessonIndex keeps it for later turns)."""
        weight = self.weight[term]
        if term in self._dense:
            dense = self._dense[term]
            ratio = weight * CODE_STEP * max(1.0, self.avgdl / (dense.at or 1.0)) / unit
            top = math.ceil(self.bound[term] / unit) + 1  # not the rest: lessons read count too
            levels = [0] + [min(int(code * ratio) + 2, top) for code in range(1, CODE_MAX + 1)]
            lane = bytearray(2 * len(dense.codes))
            lane[0::2] = dense.codes.translate(bytes(v & 0xFF for v in levels))
            lane[1::2] = dense.codes.translate(bytes(v >> 8 for v in levels))
            return int.from_bytes(lane, "little")
        # Rounded up by int() + 2 (a share's float product errs by far less than a level).
        lists = self._arrays(term)
        top_, base, per = weight * (K1 + 1.0) / unit, K1 * (1.0 - B), K1 * B / self.avgdl
        words = array("H", bytes(2 * (lists.ids[-1] + 1 if len(lists.ids) else 0)))
        for doc, tf, dl in zip(lists.ids, lists.tfs, lists.dls, strict=True):
            words[doc] = int(top_ * tf / (tf + base + per * dl)) + 2
        if sys.byteorder == "big":
            words.byteswap()
        return int.from_bytes(words.tobytes(), "little")

    def _bounds(self, term: str, top: int) -> tuple[list[float], bytes]:
        """A dense term's bound per share code, at most its rest (a lesson not read in it has no
        higher share), and its codes, long enough for document id `top`."""
        dense = self._by_id(term, top)
        step = self.weight[term] * CODE_STEP * max(1.0, self.avgdl / (dense.at or 1.0))
        table = [code * step for code in range(CODE_MAX + 1)]
        cap = self._rest[term]
        above = bisect_left(table, cap)
        table[above:] = [cap] * (len(table) - above)
        return table, dense.codes

    def _every_eligible(self, min_shared: int) -> set[int]:
        """A superset of the lessons with `min_shared` non-generic query terms (when too few stand
        out to set a threshold): each has one of the rarer ones, all but the min_shared - 1 commonest."""
        rarer = self._rarer(min_shared)
        out: set[int] = set()
        for term in rarer:
            out.update(self._arrays(term).ids)
        self.work["scanned"] += sum(self.df[t] for t in rarer)
        return out

    def _rarer(self, min_shared: int) -> list[str]:
        """The non-generic terms but the min_shared - 1 commonest: a lesson with `min_shared`
        non-generic query terms has one of them."""
        specific = sorted((t for t in self.terms if t not in GENERIC), key=lambda t: self.df[t])
        return specific[: len(specific) - (min_shared - 1)]
