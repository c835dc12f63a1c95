"""Extract: observations in, candidate lesson drafts out (docs/capture.md#drafts).

Takes one session's observations and what is known of the repository; gives CandidateDrafts with
name, description, body, fingerprint, triggers, evidence and outcome, for the gates to judge.

    heuristic.py     the offline extractor
    failures.py      drafts from failures: commands that cannot run here, refused arguments
    workflow.py      drafts from how work gets done: commit gates, setup, loops, git, tool rules
    fingerprints.py  which repo facts a draft depends on
    context.py       where a session ran: the repository, its cwd, its facts
    draft.py         a candidate before it is written
    llm/             the optional LLM extractor, falling back to the heuristic one
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use, when a session is read (reasonlessons/capture/reading.py).
__all__ = ["heuristic"]

if TYPE_CHECKING:
    from reasonlessons.capture.extract import heuristic


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture.extract' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.capture.extract.{name}")
