"""Recall: pick the fresh, relevant lessons for an agent turn and render them as background data.

Takes a prompt, the files and command of the turn, a budget and the lessons; gives the few live
lessons that fit, ranked, as text, JSON or a Claude Code hook answer (docs/recall.md).

    api.py         Recaller and recall(): the entry point
    classify.py    the offline task classifier (code-gen, exploration, qa, other)
    index.py       the recall index as a turn reads it; indexbuild.py builds it (SQLite)
    postings.py    posting lists as the index stores them: packed arrays per term
    match.py       trigger matching: keywords, file globs (globs.py), command patterns
    bm25.py        BM25 over name, description and body: the formula, per-term bounds
    relevance.py   BM25 for one turn, reading only what its best lessons need (MaxScore)
    rank.py        reciprocal-rank fusion of the signals, and the token estimate
    counters.py    hits, injections per session and outcomes, in local state
    render.py      the labelled block, its JSON form and the hook form; result.py what recall returns

Kept import-light on purpose: `reasonlessons recall` runs before every agent turn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the loop notice of the PostToolUse hook quotes the call through render.py.
__all__ = ["render"]

if TYPE_CHECKING:
    from reasonlessons.recall import render


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.recall' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.recall.{name}")
