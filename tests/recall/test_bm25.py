"""BM25 over lessons: idf stays positive, rarer and denser matches score higher."""

from __future__ import annotations

import pytest

from reasonlessons.recall.bm25 import Posting, document_terms, idf, score


def _postings(docs: dict[int, dict[str, int]]) -> dict[str, list[Posting]]:
    out: dict[str, list[Posting]] = {}
    for doc, terms in docs.items():
        dl = sum(terms.values())
        for term, tf in terms.items():
            out.setdefault(term, []).append((doc, tf, dl))
    return out


def test_document_terms_cover_name_description_and_body() -> None:
    assert document_terms("npm-test", "Test runner", "- use vitest") == {
        "npm": 1, "test": 2, "runner": 1, "use": 1, "vitest": 1
    }  # fmt: skip


def test_idf_is_positive_even_for_a_term_in_every_document() -> None:
    assert idf(10, 10) > 0
    assert idf(10, 1) > idf(10, 5)


def test_rare_terms_and_more_matches_rank_higher() -> None:
    docs = {
        1: {"vitest": 1, "runner": 1, "test": 1},
        2: {"test": 1, "docs": 3},
        3: {"test": 1, "lint": 1},
    }
    avgdl = sum(sum(t.values()) for t in docs.values()) / len(docs)
    scores = score(["vitest", "test"], _postings(docs), n_docs=3, avgdl=avgdl)
    assert max(scores, key=scores.__getitem__) == 1
    assert scores[3] > scores[2]  # same term, shorter document
    assert set(scores) == {1, 2, 3}


def test_duplicate_query_terms_count_once() -> None:
    postings = _postings({1: {"vitest": 1}})
    once = score(["vitest"], postings, n_docs=1, avgdl=1.0)
    assert score(["vitest", "vitest"], postings, n_docs=1, avgdl=1.0) == pytest.approx(once)
    assert score(["absent"], postings, n_docs=1, avgdl=1.0) == {}
