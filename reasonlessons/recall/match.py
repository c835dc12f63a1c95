"""Trigger matching: keywords, file globs and command patterns, with specificity (docs/recall.md).

A lesson is a trigger candidate when any one of its triggers fires. Its specificity is the best
narrowness / fanout over the triggers that fired: a keyword is 0.4 narrow, a command pattern 1.0, a
glob by its literal segments; fanout is how many lessons share that trigger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from reasonlessons.recall import globs
from reasonlessons.safety import linear_re
from reasonlessons.support.tokens import contains_run, positions_of, words, words_with_parts

if TYPE_CHECKING:
    from reasonlessons.recall.index import LessonIndex

KEYWORD_NARROWNESS = 0.4
COMMAND_NARROWNESS = 1.0
MAX_FILES = 64
MAX_CMD_CHARS = 8192
# Globs and command patterns evaluated per query; past this, the rest count as non-matches.
MAX_PATTERN_EVALS = 1000
_CACHE_MAX = 4096
# pattern or glob -> compiled (negated, regex) or None when unusable
_compiled: dict[tuple[str, str], tuple[bool, linear_re.Regex] | None] = {}


class Query(NamedTuple):
    """One turn's inputs, normalized: prompt (clipped), repo-relative paths, raw files, command
    (clipped to MAX_CMD_CHARS; `cmd_complete` False when it was)."""

    prompt: str
    paths: list[str]
    files: list[str]
    cmd: str
    cmd_complete: bool = True

    @classmethod
    def build(cls, prompt: str, files: Sequence[str], cmd: str | None, *, root: str) -> Query:
        raw = [f for f in list(files)[:MAX_FILES] if isinstance(f, str) and f]
        paths = [p for p in (globs.normalize_path(f, root) for f in raw) if p]
        cmd = cmd or ""
        return cls(prompt, paths, raw, cmd[:MAX_CMD_CHARS], len(cmd) <= MAX_CMD_CHARS)

    @property
    def haystack(self) -> str:
        """The path-and-command text: keywords match it with camelCase parts, BM25 reads it too."""
        return " ".join([*self.files, self.cmd]).strip()


def _compile(kind: str, text: str) -> tuple[bool, linear_re.Regex] | None:
    key = (kind, text)
    if key in _compiled:
        return _compiled[key]
    value: tuple[bool, linear_re.Regex] | None
    try:
        if kind == "files":
            negated, regex = globs.translate(text)
            value = (negated, linear_re.compile_pattern(regex))
        else:
            value = (False, linear_re.compile_pattern(text))
    except (globs.GlobError, linear_re.PatternError):
        value = None
    if len(_compiled) >= _CACHE_MAX:
        _compiled.clear()
    _compiled[key] = value
    return value


def glob_matches(glob: str, path: str) -> bool:
    """Whether a (normalized, repo-relative) path matches a file-glob trigger."""
    compiled = _compile("files", glob)
    if compiled is None:
        return False
    negated, regex = compiled
    return regex.fullmatch(path.encode("utf-8", "surrogateescape")) != negated


def command_matches(pattern: str, cmd: str) -> bool:
    """Whether a command-pattern trigger finds a match anywhere in the command (case-sensitive)."""
    compiled = _compile("commands", pattern)
    return compiled is not None and compiled[1].search(cmd.encode("utf-8", "surrogateescape"))


def match_triggers(
    idx: LessonIndex, query: Query, *, now: float
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Specificity of every lesson with a trigger that fires, and which triggers fired."""
    fired: dict[str, list[tuple[int, str]]] = {"keywords": [], "files": [], "commands": []}
    prompt_words, path_words = words(query.prompt), words_with_parts(query.haystack)
    prompt_at, path_at = positions_of(prompt_words), positions_of(path_words)
    if prompt_at or path_at:
        needles = [
            needle
            for needle in idx.keyword_needles(prompt_at.keys() | path_at.keys())
            if contains_run(prompt_words, prompt_at, parts := needle.split(" "))
            or contains_run(path_words, path_at, parts)
        ]
        if needles:
            fired["keywords"] = idx.keyword_docs(needles)
    evals = 0
    matched_globs: set[str] = set()
    for path in query.paths:
        data = path.encode("utf-8", "surrogateescape")
        for glob in idx.glob_candidates(globs.query_keys(path)):
            if glob in matched_globs:
                continue
            evals += 1
            if evals > MAX_PATTERN_EVALS:
                break
            compiled = _compile("files", glob)
            if compiled is not None and compiled[1].fullmatch(data) != compiled[0]:
                matched_globs.add(glob)
    if matched_globs:
        fired["files"] = idx.glob_docs(matched_globs)
    if query.cmd:
        data = query.cmd.encode("utf-8", "surrogateescape")
        for doc, pattern, literal in idx.command_rows(query.cmd):
            if literal is not None and literal not in query.cmd:
                continue  # cannot match: skip compiling it
            evals += 1
            if evals > MAX_PATTERN_EVALS:
                break
            compiled = _compile("commands", pattern)
            if compiled is not None and compiled[1].search(data, complete=query.cmd_complete):
                fired["commands"].append((doc, pattern))
    specificity: dict[int, float] = {}
    reasons: dict[int, list[str]] = {}
    for kind, rows in fired.items():
        if not rows:
            continue
        fanout = idx.fanout(kind, {trigger for _, trigger in rows}, now=now)
        for doc, trigger in rows:
            if kind == "files":
                narrow = globs.narrowness(trigger)
            else:
                narrow = KEYWORD_NARROWNESS if kind == "keywords" else COMMAND_NARROWNESS
            value = narrow / max(fanout.get(trigger, 1), 1)
            specificity[doc] = max(specificity.get(doc, value), value)
            reasons.setdefault(doc, []).append(f"{kind[:-1]} {trigger}")
    return specificity, reasons


def agent_family(agent: str) -> str:
    """An agent's name as lessons name it: a log format's version suffix dropped (`reasonix-v2`)."""
    base, _, version = agent.rpartition("-v")
    return base if base and version.isdigit() else agent


def for_agent(agents: Sequence[str], agent: str | None) -> bool:
    """Whether a lesson limited to `agents` (empty: every agent) reaches `agent`.

    An unknown agent (None) gets only the lessons for every agent: a rule about one agent's tools
    must never reach another one that did not say who it is."""
    if not agents:
        return True
    if not agent:
        return False
    name = agent_family(agent)
    for wanted in agents:
        if wanted in (name, agent):
            return True
        if any(c in wanted for c in "*?[") and _glob(wanted, name):
            return True
    return False


def _glob(pattern: str, name: str) -> bool:
    import fnmatch  # rare: most lessons name agents outright

    return fnmatch.fnmatchcase(name, pattern)
