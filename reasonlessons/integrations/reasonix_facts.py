"""Reasonix v2 memory facts and skills as files, rendered byte for byte.

What Reasonix reads: docs/integrations.md#what-reasonix-loads.

Reasonix reads frontmatter with its own line parser, not YAML (`internal/frontmatter` in
esengine/DeepSeek-Reasonix): a line is split at its first `:`, the value is trimmed and loses any
leading and trailing `"`/`'`, no escape is processed, and an empty value opens a section. So every
value written here is one line, never empty, never starts or ends with a quote character; the
RFC 3339 timestamps are quoted exactly as Reasonix writes them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reasonlessons.recall.render import one_line, sanitize

if TYPE_CHECKING:
    from reasonlessons.lessons.model import Lesson

INDEX_FILE = "MEMORY.md"
INDEX_HEADER = "# Memory"
# Reasonix's own pattern for the index lines it manages (store.go, indexLineRe).
INDEX_LINE = re.compile(r"^\s*-\s\[.+?\]\(([^)]+)\.md\)\s*—\s.*$")
TITLE_CHARS = 80
_SLUG = re.compile(r"[^a-z0-9]+")
_QUOTES = "\"'"


@dataclass(frozen=True)
class Fact:
    """One memory fact file, in Reasonix's canonical key order."""

    id: str
    revision: int
    created_at: str
    updated_at: str
    name: str
    title: str
    description: str
    keywords: str
    subject_key: str
    expires_at: str | None
    last_verified_at: str | None
    scope: str
    body: str

    def content_digest(self) -> str:
        """Identity of what the fact says: a change here is a new revision; stamps are not."""
        parts = [self.name, self.title, self.description, self.keywords, self.subject_key]
        parts += [self.expires_at or "", self.last_verified_at or "", self.scope, self.body]
        return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def fact_slug(name: str) -> str:
    """Reasonix's `slug()`: lowercase alphanumeric runs joined by `-` (a lesson's `.`/`_` become `-`)."""
    return _SLUG.sub("-", name.lower()).strip("-")


def fact_id(scope: str, name: str) -> str:
    """A stable identity per lesson: the same lesson keeps its id across exports and revisions."""
    return "reasonlessons-" + hashlib.sha256(f"{scope}\0{name}".encode()).hexdigest()[:16]


def flat(text: str, *, cap: int = 200) -> str:
    """One inert line Reasonix's frontmatter parser reads back unchanged."""
    return one_line(text, cap=cap).strip().strip(_QUOTES).strip()


def body_of(lesson: Lesson) -> str:
    """What a fact or skill says: the lesson's body made inert, else its description on one line."""
    return sanitize(lesson.body) or flat(lesson.description)


def title_of(description: str) -> str:
    """A short index title from the lesson's description (brackets would break the index line)."""
    text = flat(description.replace("[", "(").replace("]", ")"))
    if len(text) <= TITLE_CHARS:
        return text
    cut = text.rfind(" ", 0, TITLE_CHARS - 3)
    return text[: cut if cut > TITLE_CHARS // 2 else TITLE_CHARS - 3].rstrip(" ,;:") + "..."


def keywords_of(words: list[str]) -> str:
    """One comma-separated string (Reasonix wants a string, not a YAML list); commas in a word go."""
    out: list[str] = []
    for word in words:
        clean = flat(word.replace(",", " "), cap=60)
        if clean and clean.lower() not in (w.lower() for w in out):
            out.append(clean)
    return ", ".join(out)


def stamp(when: dt.datetime) -> str:
    """RFC 3339 UTC with nanosecond precision, as Reasonix writes created_at/updated_at."""
    utc = when.astimezone(dt.UTC)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond * 1000:09d}Z"


def day_stamp(when: dt.datetime) -> str:
    """RFC 3339 UTC to the second, for dates that carry no time (expiry, last verification)."""
    return f"{when.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}"


def render_fact(fact: Fact) -> bytes:
    lines = [
        "---",
        f"id: {fact.id}",
        f"revision: {fact.revision}",
        f'created_at: "{fact.created_at}"',
        f'updated_at: "{fact.updated_at}"',
        f"name: {fact.name}",
        f"title: {fact.title}",
        f"description: {fact.description}",
    ]
    if fact.keywords:
        lines.append(f"keywords: {fact.keywords}")
    lines += ["activation: relevant", "volatility: stable", f"subject_key: {fact.subject_key}"]
    if fact.expires_at:
        lines.append(f'expires_at: "{fact.expires_at}"')
    if fact.last_verified_at:
        lines.append(f'last_verified_at: "{fact.last_verified_at}"')
    lines += ["metadata:", "  type: project", f"  scope: {fact.scope}", "---", "", fact.body]
    return ("\n".join(lines) + "\n").encode("utf-8")


def render_skill(name: str, description: str, body: str) -> bytes:
    """A flat `<name>.md` skill in the weakest parser's form: two unquoted one-line keys."""
    text = f"---\nname: {name}\ndescription: Lesson — {flat(description)}\n---\n\n{body}\n"
    return text.encode("utf-8")


def file_id(data: bytes) -> str | None:
    """The `id:` of a fact file's frontmatter, or None."""
    match = re.search(rb"^id:[ \t]*(\S+)[ \t]*$", data[:4096], re.M)
    return match.group(1).decode("utf-8", "replace").strip(_QUOTES) if match else None


def file_revision(data: bytes) -> int:
    match = re.search(rb"^revision:[ \t]*[\"']?(\d{1,9})", data[:4096], re.M)
    return int(match.group(1)) if match else 0


def index_line(fact: Fact) -> str:
    return f"- [{fact.title}]({fact.name}.md) — [project/{fact.scope}] {fact.description}"


def update_index(text: str, upserts: dict[str, str], removals: set[str]) -> str:
    """MEMORY.md with our lines replaced, added or removed; every other line kept as it was."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[str] = []
    done: set[str] = set()
    for line in lines:
        match = INDEX_LINE.match(line)
        name = match.group(1) if match else None
        if name in removals:
            if out and not out[-1].strip():
                out.pop()  # entries are separated by one blank line: take it along
            continue
        if name in upserts:
            out.append(upserts[name])
            done.add(name)
            continue
        out.append(line)
    pending = [upserts[name] for name in sorted(upserts) if name not in done]
    if pending and not any(line.strip() for line in out):
        out = [INDEX_HEADER]
    for line in pending:
        if out and out[-1].strip():
            out.append("")
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n" if out else ""
