"""Reasonix v2 memory facts and skills as files, rendered byte for byte.

What Reasonix reads: docs/integrations.md#what-reasonix-loads.

Reasonix 1.38 parses fact and skill frontmatter as YAML (Go's yaml.v3): a description written as
plain text that starts with a backtick, `@`, `-`, a quote and the like, or holds `: ` or ` #`, is
not the string it looks like (a fact is then rewritten as a `legacy-` fact with an empty
description; a skill loses its catalog line). So the frontmatter is written by a YAML emitter
(reasonlessons/support/yamlwrite.py), which quotes a value exactly when it must; every value is one
line; the RFC 3339 timestamps are double-quoted as Reasonix writes them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.render import one_line, sanitize
from reasonlessons.safety.redact import redact_value
from reasonlessons.support import jsonio
from reasonlessons.support.yamlwrite import Quoted, block_mapping

# Part of every export's source digest: a change to how facts and skills are rendered bumps it, so
# files written by an older version are rendered again.
RENDER_VERSION = 2
INDEX_FILE = "MEMORY.md"
INDEX_HEADER = "# Memory"
# Reasonix's own pattern for the index lines it manages (store.go, indexLineRe).
INDEX_LINE = re.compile(r"^\s*-\s\[.+?\]\(([^)]+)\.md\)\s*—\s.*$")
TITLE_CHARS = 80
_SLUG = re.compile(r"[^a-z0-9]+")
_QUOTES = "\"'"
# Words of a command trigger (a regex), once its escapes (`\b`, `\s`, `\.`) are blanked out.
_ESCAPE = re.compile(r"\\.")
_COMMAND_WORD = re.compile(r"[A-Za-z][\w.-]*[A-Za-z0-9]")
MAX_KEYWORDS = 16


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
    """One inert line: sanitized, whitespace runs made one space (quoting is the emitter's job)."""
    return one_line(text, cap=cap).strip()


def body_of(lesson: Lesson) -> str:
    """What a fact or skill says: the lesson's body made inert, else its description on one line."""
    return sanitize(lesson.body) or flat(lesson.description)


def title_of(description: str) -> str:
    """A short index title from the lesson's description; `](` would end the index line's link text
    early, so it gets a space (Reasonix's index pattern is `- [<title>](<name>.md) — ...`)."""
    text = flat(description).replace("](", "] (")
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
    return ", ".join(out[:MAX_KEYWORDS])


def recall_words(lesson: Lesson) -> list[str]:
    """The words a user's message would share with the lesson, for Reasonix's BM25 recall: its
    keyword triggers and tags, the names in its command triggers, and the files and fields its
    fingerprint reads (`package.json`, `scripts.test`). Reasonix ranks a fact against the message
    by name, title, description, keywords and body, and recalls it only when two words match."""
    triggers = lesson.triggers
    tags = lesson.meta.get("tags")
    words = [*triggers.get("keywords", []), *(str(t) for t in (tags if isinstance(tags, list) else []) if t)]
    for pattern in triggers.get("commands", []):
        words += _COMMAND_WORD.findall(_ESCAPE.sub(" ", pattern))
    for entry in lesson.fingerprint:
        path, _, field = str(entry).partition("#")
        name = path.rstrip("/").rsplit("/", 1)[-1]
        words += [w for w in (name, field) if w and not any(c in w for c in "*?[")]
    return words


def stamp(when: dt.datetime) -> str:
    """RFC 3339 UTC with nanosecond precision, as Reasonix writes created_at/updated_at."""
    utc = when.astimezone(dt.UTC)
    return f"{utc:%Y-%m-%dT%H:%M:%S}.{utc.microsecond * 1000:09d}Z"


def day_stamp(when: dt.datetime) -> str:
    """RFC 3339 UTC to the second, for dates that carry no time (expiry, last verification)."""
    return f"{when.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}"


def render_fact(fact: Fact) -> bytes:
    meta: dict[str, object] = {
        "id": fact.id,
        "revision": fact.revision,
        "created_at": Quoted(fact.created_at),
        "updated_at": Quoted(fact.updated_at),
        "name": fact.name,
        "title": fact.title,
        "description": fact.description,
    }
    if fact.keywords:
        meta["keywords"] = fact.keywords
    meta.update(activation="relevant", volatility="stable", subject_key=fact.subject_key)
    if fact.expires_at:
        meta["expires_at"] = Quoted(fact.expires_at)
    if fact.last_verified_at:
        meta["last_verified_at"] = Quoted(fact.last_verified_at)
    meta["metadata"] = {"type": "project", "scope": fact.scope}
    return f"---\n{block_mapping(meta)}---\n\n{fact.body}\n".encode()


def render_skill(name: str, description: str, body: str) -> bytes:
    """A flat `<name>.md` skill: `name` and `description`, the only keys Reasonix shows up front."""
    meta = {"name": name, "description": f"Lesson — {flat(description)}"}
    return f"---\n{block_mapping(meta)}---\n\n{body}\n".encode()


def file_id(data: bytes) -> str | None:
    """The `id:` of a fact file's frontmatter, or None."""
    match = re.search(rb"^id:[ \t]*(\S+)[ \t]*$", data[:4096], re.M)
    return match.group(1).decode("utf-8", "replace").strip(_QUOTES) if match else None


def file_revision(data: bytes) -> int:
    match = re.search(rb"^revision:[ \t]*[\"']?(\d{1,9})", data[:4096], re.M)
    return int(match.group(1)) if match else 0


def index_line(name: str, title: str, description: str, scope: str) -> str:
    return f"- [{title}]({name}.md) — [project/{scope}] {description}"


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


def redacted(lesson: Lesson) -> Lesson:
    """The lesson with secret-looking text in its frontmatter and body masked (safety/redact.py)."""
    pair: list[Any] = [lesson.meta, lesson.body]  # one scan for both
    meta, body = redact_value(pair)[0]
    return Lesson(meta=meta, body=body, path=lesson.path, scope=lesson.scope)


def source_digest(lesson: Lesson) -> str:
    """What a fact or skill is made from: the lesson as read, and the renderer's version. The same
    digest and untouched file bytes mean the file is already right, so nothing is redacted or
    rendered again (the secret scanner alone costs a SessionStart hook 0.4 s)."""
    doc = [RENDER_VERSION, lesson.scope, lesson.name, lesson.meta, lesson.body]
    return hashlib.sha256(jsonio.dumps(doc, sort_keys=True)).hexdigest()[:32]


def sha(data: bytes) -> str:
    """The digest a manifest keeps of a file's bytes."""
    return hashlib.sha256(data).hexdigest()[:32]
