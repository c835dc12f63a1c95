"""Near-duplicates: when a draft says what an existing lesson (or an earlier draft) already says.

A draft duplicates a lesson when
  1. their text is the same up to case and whitespace (the store's content key), or
  2. their word sets overlap by Jaccard >= 0.8 (a rewording), or
  3. the lesson already mentions every key claim of the draft (its commands, error code, test
     directory and naming) and depends on an overlapping repo fact (or either depends on none), or
  4. the draft is a `/lesson` writ restating a lesson of the same name.
Rule 3 is asymmetric on purpose: "run `npx vitest run`" is covered by a lesson saying "run
`npx vitest run`, not `npm test`", but not the other way round — the second says more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.lessons.model import Lesson
from reasonlessons.support.hashing import text_key

JACCARD_MIN = 0.8
_TOKEN = re.compile(r"[a-z0-9]+(?:[._:/-][a-z0-9]+)*")
_STOP = frozenset(
    {
        "the", "a", "an", "to", "of", "in", "and", "or", "for", "is", "on", "at", "with", "be", "as", "it",
        "that", "this", "its", "here", "not"
    }
)  # fmt: skip


_WORDISH = re.compile(r"\w[\w.\-/#@=+]*")


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    """Words only, lowercase: quotes, colons, dashes and other punctuation do not count."""
    return " ".join(word.rstrip(".-#@=+") for word in _WORDISH.findall(text.lower()))


@lru_cache(maxsize=2048)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(t for t in _TOKEN.findall(text.lower()) if t not in _STOP and len(t) > 1)


def jaccard(a: str, b: str) -> float:
    """Word-set similarity of two texts in [0, 1]."""
    ta, tb = _tokens(a), _tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _mentions(text: str, claim: str) -> bool:
    """True when the normalized `text` holds the claim's words in a row (`npm test`, `tests/`)."""
    needle = _norm(claim)
    return bool(needle) and f" {needle} " in f" {text} "


@lru_cache(maxsize=4096)
def _text_key(text: str) -> str:
    # Every session of a log re-discovers the same drafts and meets the same lessons: the same
    # texts are keyed over and over (the store's content key, support/hashing.py).
    return text_key(text)


def score(draft: CandidateDraft, lesson: Lesson) -> float:
    """How surely `lesson` already says what `draft` says; 0 when it does not."""
    draft_text = f"{draft.description}\n{draft.body}"
    return _score(draft, draft_text, _text_key(draft_text), lesson)


def _score(draft: CandidateDraft, draft_text: str, draft_key: str, lesson: Lesson) -> float:
    lesson_text = f"{lesson.description}\n{lesson.body}"
    if draft_key == _text_key(lesson_text):
        return 10.0
    if draft.source == "writ" and lesson.name == draft.name:
        return 9.0
    normalized = _norm(lesson_text)
    mentioned = [_mentions(normalized, claim) for claim in draft.claims]
    similarity = jaccard(draft_text, lesson_text)
    # A rewording, unless it is about other commands (templates make unrelated drafts look alike).
    if similarity >= JACCARD_MIN and (not mentioned or any(mentioned)):
        return 5.0 + similarity
    if not mentioned or not all(mentioned):
        return 0.0
    ours, theirs = set(draft.fingerprint), set(lesson.fingerprint)
    shared = len(ours & theirs)
    if shared:
        return 2.0 + shared / len(ours | theirs)
    return 1.0 if not ours or not theirs else 0.0


def find_duplicate(draft: CandidateDraft, lessons: Sequence[Lesson]) -> Lesson | None:
    """The lesson `draft` duplicates best, or None; candidates win ties over promoted lessons."""
    best: tuple[float, int, str] | None = None
    found: Lesson | None = None
    draft_text = f"{draft.description}\n{draft.body}"
    draft_key = _text_key(draft_text)  # once per draft, not once per lesson
    for lesson in lessons:
        value = _score(draft, draft_text, draft_key, lesson)
        if value <= 0:
            continue
        rank = (value, 1 if lesson.scope == "candidate" else 0, lesson.name)
        if best is None or rank[:2] > best[:2]:
            best, found = rank, lesson
    return found


def as_lesson(draft: CandidateDraft) -> Lesson:
    """A draft viewed as a lesson, to compare drafts of one session with each other."""
    meta = {"name": draft.name, "description": draft.description, "fingerprint": list(draft.fingerprint)}
    return Lesson(meta=meta, body=draft.body, scope="draft")
