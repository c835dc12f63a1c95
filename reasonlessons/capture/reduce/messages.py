"""Lessons stated in words: `/lesson` writs in any message, and user corrections of the agent."""

from __future__ import annotations

import re

_CLAUDE_COMMAND = re.compile(
    r"<command-name>/?lesson</command-name>.*?<command-args>(.*?)</command-args>", re.DOTALL
)
_BLOCK = re.compile(r"(?ms)^[ \t]*/lesson[ \t]+([^\n]{1,100}?)[ \t]*\n(.*?)^[ \t]*/endlesson[ \t]*$")
_LINE = re.compile(r"(?m)^[ \t]*/lesson[ \t]+([^\n:]{1,100}?)[ \t]*:[ \t]*(\S[^\n]*)$")
_MAX_WRITS = 5
_TEXT_CAP = 2000

# A correction opens by contradicting the agent...
_OPENING = re.compile(
    r"^(?:no\b|nope\b|not like that|don'?t\b|do not\b|stop\b|wrong\b|that'?s (?:wrong|not)|actually\b|"
    r"instead\b|never\b|always\b|please (?:don'?t|do not|never|always|use)\b|you (?:should|must|need to)\b|"
    r"we (?:use|don'?t|never|always)\b|use \S+ instead\b)",
    re.IGNORECASE,
)
# ...and states something durable...
_DIRECTIVE = re.compile(
    r"\b(?:use|run|put|keep|place|goes?|live|lives|belong|never|always|don'?t|do not|instead|must|should|"
    r"prefer|avoid|only)\b",
    re.IGNORECASE,
)
# ...about something concrete: a `code span`, a path, a file name or a command word.
_CONCRETE = re.compile(
    r"`[^`\n]+`|\b[\w.-]+/[\w./-]*|\b[\w-]+\.[a-z]{1,5}\b|\b(?:npm|npx|pnpm|yarn|pytest|make|cargo|uv|pip)\b|"
    r"\bgo (?:test|build|run|vet|mod|get|install|generate|fmt)\b"  # "go ahead" names nothing
)
_NOISE = ("<", "Caveat:", "[Request interrupted")
_LEAD = re.compile(r"^(?:(?:no|nope|wrong|actually|stop|not like that)\b[\s,.!:;—-]*)+", re.IGNORECASE)


def writs(text: str) -> list[tuple[str, str]]:
    """(title, text) of each `/lesson` writ in a message, blocks first."""
    if "/lesson" not in text and "lesson</command-name>" not in text:
        return []
    text = _CLAUDE_COMMAND.sub(lambda m: "/lesson " + m.group(1).strip(), text)
    found: list[tuple[str, str]] = []
    for match in _BLOCK.finditer(text):
        body = match.group(2).strip()
        if body:
            found.append((match.group(1).strip(), body[:_TEXT_CAP]))
    rest = _BLOCK.sub("", text)
    for match in _LINE.finditer(rest):
        found.append((match.group(1).strip(), match.group(2).strip()[:_TEXT_CAP]))
    return found[:_MAX_WRITS]


def correction(text: str) -> str | None:
    """The rule a user correction states, cleaned (`no, use X` -> `Use X`), or None."""
    stripped = text.strip()
    if not stripped or stripped.startswith(_NOISE) or len(stripped) > 500 or stripped.count("\n") > 6:
        return None
    if not _OPENING.match(stripped) or not _DIRECTIVE.search(stripped) or not _CONCRETE.search(stripped):
        return None
    cleaned = _LEAD.sub("", stripped).strip()
    if len(cleaned) < 12:
        return None
    return cleaned[0].upper() + cleaned[1:]
