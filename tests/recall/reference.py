"""Recall as it chose its candidates before relevance.py: every posting of every query word read,
every lesson containing one scored. Kept as the reference the pruned search must equal exactly."""

from __future__ import annotations

import datetime as dt

from reasonlessons.constants import SCOPE_GLOBAL
from reasonlessons.recall import bm25, rank
from reasonlessons.recall.api import (
    MAX_QUERY_TERMS,
    MAX_TEXT_ONLY,
    MIN_SHARED_TERMS,
    TEXT_ONLY_POOL,
    Recaller,
)
from reasonlessons.recall.counters import lesson_key
from reasonlessons.recall.index import DocInfo
from reasonlessons.recall.match import Query, for_agent, match_triggers
from reasonlessons.support.tokens import GENERIC, tokenize


class ReferenceRecaller(Recaller):
    """A Recaller whose candidates come from full posting lists (the code before MaxScore)."""

    def _candidates(
        self, query: Query, task: str, now: dt.datetime, seen: set[str], agent: str | None = None
    ) -> tuple[list[rank.Candidate], dict[int, DocInfo]]:
        idx = self.index
        specificity, reasons = match_triggers(idx, query, now=now.timestamp())
        terms = list(dict.fromkeys(tokenize(query.prompt) + tokenize(query.haystack)))[:MAX_QUERY_TERMS]
        postings = idx.postings(terms)
        scores = bm25.score(terms, postings, n_docs=idx.n_docs, avgdl=idx.avgdl)
        shared: dict[int, int] = {}
        for term, plist in postings.items():
            if term not in GENERIC:
                for doc, _, _ in plist:
                    shared[doc] = shared.get(doc, 0) + 1
        text_only = [d for d in scores if d not in specificity and shared.get(d, 0) >= MIN_SHARED_TERMS]
        text_only = sorted(text_only, key=lambda d: (-scores[d], d))[:TEXT_ONLY_POOL]
        infos = idx.docs([*specificity, *text_only])
        names = {info.name for info in infos.values()}
        superseded = idx.superseded(names)
        shadowed = idx.project_names({i.name for i in infos.values() if i.scope == SCOPE_GLOBAL})
        deadline = now.timestamp()

        def live(info: DocInfo) -> bool:
            return not (
                info.inactive
                or info.name in superseded
                or (info.scope == SCOPE_GLOBAL and info.name in shadowed)
                or (info.expires is not None and info.expires <= deadline)
                or task not in info.task_types
                or not for_agent(info.agents, agent)
                or lesson_key(info.scope, info.name) in seen
                or (bool(info.flags) and not self._trusted(info))
            )

        cands: list[rank.Candidate] = []
        admitted_text_only = 0
        for doc in [*specificity, *text_only]:
            info = infos.get(doc)
            if info is None or not live(info):
                continue
            if doc not in specificity:
                if admitted_text_only >= MAX_TEXT_ONLY:
                    continue
                admitted_text_only += 1
            cand = rank.Candidate(doc, info.name, info.scope, info.recency)
            cand.specificity = specificity.get(doc)
            cand.relevance = scores.get(doc, 0.0)
            cand.reasons = reasons.get(doc, ["text"])
            cands.append(cand)
        return cands, infos
