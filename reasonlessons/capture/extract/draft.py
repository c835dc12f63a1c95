"""A candidate lesson before it is written: content, identity (name, key claims) and evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.constants import NAME_RE
from reasonlessons.safety import formats
from reasonlessons.safety.redact import redact

# Higher is stronger: what the cap of candidates per session keeps first.
STRENGTH = {
    "writ": 100,
    "correction": 90,
    "suggested-fix": 85,
    "commit-gate": 83,
    "command-fix": 80,
    "setup": 76,
    "tool-rule": 75,
    "workdir-fix": 74,
    "edit-fix": 70,
    "git-workflow": 66,
    "loop": 63,
    "args-fix": 60,
    "repeated-failure": 50,
    # Which command runs the tests matters more to the next agent than where new tests go.
    "verification": 40,
    "layout": 30,
}
# The confidence a candidate starts from, by the kind of evidence the extractor saw (the learning
# loop raises it when later sessions confirm it, lowers it when they contradict it: docs/learning.md).
# A writ is the user's or agent's own statement; a correction a human's; a failure followed by what
# worked is seen evidence; a check that passed, where files went, or a failure with no fix, less so.
CONFIDENCE = {
    "writ": 0.9,
    "correction": 0.8,
    "command-fix": 0.75,
    "edit-fix": 0.7,
    "args-fix": 0.7,
    "llm": 0.65,
    "verification": 0.65,
    "layout": 0.6,
    "repeated-failure": 0.6,
}
DEFAULT_CONFIDENCE = 0.6
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
_NAME_MAX = 48
_REGEX_META = re.compile(r"([.^$*+?()\[\]{}|\\])")


@dataclass
class CandidateDraft:
    """What the extractor proposes; the gates decide whether and where it is written."""

    name: str
    description: str
    body: str
    kind: str
    fingerprint: list[str] = field(default_factory=list)
    triggers: dict[str, list[str]] = field(default_factory=dict)
    evidence: list[dict[str, str]] = field(default_factory=list)
    outcome: str = "success"
    source: str = "heuristic"
    tags: list[str] = field(default_factory=list)
    # Key claims: an existing lesson that mentions all of them says what this draft says.
    claims: list[str] = field(default_factory=list)
    # Only adds evidence to a lesson that already says this; never written as a new candidate.
    update_only: bool = False
    # How sure the extractor is (0-1); None: the usual for its kind (CONFIDENCE).
    confidence: float | None = None
    # The agents the lesson is for (`agents` in the file); empty: every agent.
    agents: list[str] = field(default_factory=list)

    @property
    def strength(self) -> int:
        return STRENGTH.get(self.kind, 0)

    @property
    def certainty(self) -> float:
        """The confidence the candidate is written with."""
        value = (
            self.confidence if self.confidence is not None else CONFIDENCE.get(self.kind, DEFAULT_CONFIDENCE)
        )
        return round(min(1.0, max(0.0, value)), 2)

    def extra(self) -> dict[str, Any]:
        """The optional frontmatter keys (docs/lesson-format.md#optional-keys) this draft carries."""
        out: dict[str, Any] = {}
        triggers = {k: v for k, v in self.triggers.items() if v}
        if triggers:
            out["triggers"] = triggers
        if self.tags:
            out["tags"] = list(self.tags)
        if self.agents:
            out["agents"] = list(self.agents)
        out["outcome"] = self.outcome
        out["confidence"] = self.certainty
        out["source"] = self.source
        out["evidence"] = [dict(e) for e in self.evidence]
        return out


def slug(text: str, *, fallback: str = "lesson") -> str:
    """A valid lesson name from free text: lowercase words joined by '-', at most 48 characters.

    Names become file names, export paths and output, so they are built from the redacted text
    (a secret reads `redacted-<kind>`), and a word that still looks random once lower-cased is
    left out."""
    words = [w for w in _SLUG_DROP.split(redact(text).text.lower()) if w and not formats.looks_derived(w)]
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > _NAME_MAX:
            break
        out = candidate
    if not out and words:
        out = words[0][:_NAME_MAX]
    out = out or fallback
    return out if NAME_RE.match(out) else fallback


def one_line(text: str, limit: int = 100) -> str:
    """`text` on one line, cut at a word boundary to at most `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:-(")
    if cut.count("`") % 2:
        cut = cut[: cut.rfind("`")].rstrip()
    return cut + "…"


def code(text: str) -> str:
    """`text` as inline code, with backticks inside it made harmless."""
    inner = text.replace("`", "'")
    return f"`{inner}`"


def command_pattern(words: list[str]) -> str:
    """A linear-time trigger pattern matching these words in a shell command (`\\bnpm\\s+test\\b`)."""
    if not words:
        return ""
    body = r"\s+".join(_REGEX_META.sub(r"\\\1", w) for w in words)
    start = r"\b" if re.match(r"\w", words[0]) else ""
    end = r"\b" if re.search(r"\w$", words[-1]) else ""
    return f"{start}{body}{end}"
