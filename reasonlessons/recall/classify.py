"""Offline task classifier: code-gen | exploration | qa | other, or None when unsure.

A few weighted cues per class, counted over the prompt's words. The winner must reach MIN_SCORE and
lead the runner-up by MARGIN; anything closer is "unsure" and recall injects nothing, since a wrong
lesson costs more than a missing one. `--task-type` overrides the guess.
"""

from __future__ import annotations

import re

from reasonlessons.support.tokens import word_set

CODE_GEN = "code-gen"
EXPLORATION = "exploration"
QA = "qa"
OTHER = "other"

MIN_SCORE = 2.0
MARGIN = 1.0

_EDIT_VERBS = word_set(
    """
    add implement fix write create refactor rename update change modify remove delete migrate build
    make port convert bump upgrade optimize optimise patch replace move extract introduce support
    handle wire hook debug repair resolve rewrite generate scaffold install configure setup
    bootstrap integrate split merge inline deduplicate simplify clean cleanup format lint test
    tests run rerun retry commit revert adjust tweak correct finish complete continue
    """
)
_CODE_NOUNS = word_set(
    """
    test tests bug bugs error errors failing fails failure function method class module component
    endpoint api script build ci lint type types import imports dependency dependencies config
    migration schema feature regression crash exception stacktrace traceback compile typo
    """
)
_EXPLORE_VERBS = word_set(
    """
    explain explore find locate show list summarize summarise describe trace investigate understand
    overview walk look search grep read inspect map outline document
    """
)
_EXPLORE_PHRASES = (
    "where is",
    "where are",
    "where do",
    "where does",
    "how does",
    "how do the",
    "what does",
    "which file",
    "which files",
    "which module",
    "walk me through",
    "give me an overview",
    "look at",
    "show me",
    "tell me about",
)
_REPO_WORDS = word_set(
    """
    repo repository codebase code project module modules package directory folder file files src
    """
)
_QUESTION_WORDS = word_set(
    """
    what why how where which who when does do is are can could should would will whats
    """
)
_QA_PHRASES = ("what is", "what's", "what are", "difference between", "meaning of", "define ", "why is")
_SMALL_TALK = word_set(
    """
    hi hello hey thanks thank thx ok okay yes no yep nope sure cool great nice good lgtm bye please
    go ahead continue proceed stop wait hmm done
    """
)
_POLITE = ("can you", "could you", "would you", "please", "i want", "i need", "let's", "lets", "we need")
_OPENERS = frozenset(
    (
        "can you", "could you", "would you", "will you", "i want", "i need", "i'd like",
        "we need", "we should", "help me",
    )
)  # fmt: skip
_REQUEST_LEAD = word_set(
    """
    can could would will please kindly you i we want need to lets let's help me
    """
)
_WORD = re.compile(r"[a-z0-9']+")
_PATHISH = re.compile(r"[\w.-]+/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b|`[^`]+`|\w+\(\)|\b[a-z]+[A-Z]\w*")


def classify(prompt: str, *, files: int = 0, has_cmd: bool = False) -> str | None:
    """The task type of a turn, or None when the cues do not clearly point one way."""
    scores = scores_for(prompt, files=files, has_cmd=has_cmd)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    if top < MIN_SCORE or top - second < MARGIN:
        return None
    return best


def scores_for(prompt: str, *, files: int = 0, has_cmd: bool = False) -> dict[str, float]:
    """Each class's cue score (exposed for tests and for explaining a decision)."""
    text = prompt.strip()
    lower = text.lower()
    words = _WORD.findall(lower)
    scores = {CODE_GEN: 0.0, EXPLORATION: 0.0, QA: 0.0, OTHER: 0.0}
    if files:
        scores[CODE_GEN] += 1.5
    if has_cmd:
        scores[CODE_GEN] += 1.5
    if not words:
        # A file being touched or a command being run, with no prompt: work in progress.
        scores[CODE_GEN] = MIN_SCORE if files or has_cmd else 0.0
        return scores
    lead = _lead(words)
    first = words[lead] if lead < len(words) else words[0]
    polite = lead > 0 or any(f" {p} " in f" {lower} " for p in _POLITE)
    # "Can you explain ...?" is a request, not a question.
    question = lead == 0 and (text.endswith("?") or first in _QUESTION_WORDS)
    code_refs = len(_PATHISH.findall(text)) + sum(1 for w in words if w in _REPO_WORDS)

    if all(w in _SMALL_TALK for w in words) and len(words) <= 4:
        scores[OTHER] += 4.0
        return scores

    edit_hits = [w for w in words if w in _EDIT_VERBS]
    if first in _EDIT_VERBS:
        scores[CODE_GEN] += 3.0
    elif edit_hits and (polite or not question):
        scores[CODE_GEN] += 2.5
    elif edit_hits:
        scores[CODE_GEN] += 1.0
    scores[CODE_GEN] += min(1.5, 0.5 * sum(1 for w in words if w in _CODE_NOUNS))
    if code_refs:
        scores[CODE_GEN] += 0.5
        scores[EXPLORATION] += 0.5

    if first in _EXPLORE_VERBS:
        scores[EXPLORATION] += 3.0
    elif any(w in _EXPLORE_VERBS for w in words) and not edit_hits:
        scores[EXPLORATION] += 1.5
    explore_phrase = any(p in lower for p in _EXPLORE_PHRASES)
    if explore_phrase:
        scores[EXPLORATION] += 2.5 if not polite or not edit_hits else 1.0

    if question and not (polite and edit_hits):
        # "where is X" / "how does X work" ask about this code base, not about the world.
        scores[QA] += 0.5 if explore_phrase else 2.0
        if code_refs:
            scores[EXPLORATION] += 1.0
            scores[QA] -= 1.0
    if any(p in lower for p in _QA_PHRASES) and not code_refs:
        scores[QA] += 1.5
    return scores


def _lead(words: list[str]) -> int:
    """Index of the first word after a polite request opener ("could you please ...")."""
    opener = " ".join(words[:2])
    if not (words[0] in ("please", "lets", "let's") or opener in _OPENERS):
        return 0
    i = 0
    while i < min(len(words) - 1, 5) and words[i] in _REQUEST_LEAD:
        i += 1
    return i
