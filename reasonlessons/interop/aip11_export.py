"""Writing an AIP-11 package: one `<slug>.md` per promoted lesson, `_index.md` regenerated.

Files carrying `metadata.reasonlessons` are ours: rewritten when the lesson changes, removed when
the lesson is gone. Any other file in the folder is left alone and listed in `_index.md`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from reasonlessons.constants import STATUS_STALE
from reasonlessons.interop import aip11_schema as schema
from reasonlessons.interop.aip11 import (
    INDEX,
    NATIVE,
    SECTIONS,
    VENDOR,
    iso_datetime,
    lesson_files,
    mapping,
    vendor_of,
)
from reasonlessons.interop.common import (
    InteropError,
    Item,
    Report,
    export_entries,
    read_input,
    remove_file,
    target_dir,
    write_file,
)
from reasonlessons.lessons.file import dump_frontmatter, split_frontmatter
from reasonlessons.lessons.model import OUTCOMES, Lesson
from reasonlessons.safety.redact import redact, redact_value
from reasonlessons.store import outcomes
from reasonlessons.store.project import Entry, Project


def slug_for(name: str) -> str:
    """An AIP-11 slug for a lesson name (names also allow '.', '_', a leading digit, one character)."""
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    if not slug or not slug[0].isalpha():
        slug = f"lesson-{slug}".rstrip("-")
    return slug if len(slug) >= 2 else f"{slug}-lesson"


def write_package(project: Project, out: Path, *, scope: str = "project") -> Report:
    """Write the promoted lessons of `scope` as an AIP-11 package in `out`, and regenerate `_index.md`."""
    report = Report()
    directory = target_dir(out)
    entries = export_entries(project, scope, live_only=False, report=report)
    slugs = {entry.lesson.name: slug_for(entry.lesson.name) for entry in entries}
    records = outcomes.load(project.loc.state_dir)
    exported: set[str] = set()
    for entry in entries:
        lesson, slug = entry.lesson, slugs[entry.lesson.name]
        path = directory / f"{slug}.md"
        if slug in exported:
            report.skipped.append(
                Item(lesson.name, str(path), f"its slug {slug!r} is taken by another lesson")
            )
            continue
        record = records.get(f"{lesson.scope}:{lesson.name}")
        meta, body = to_aip(entry, slug, slugs, (record.confirmed, record.contradicted) if record else (0, 0))
        found = schema.problems(meta, stem=slug)
        if found:
            report.skipped.append(Item(lesson.name, str(path), "; ".join(found)))
            continue
        if path.exists() and not _ours(path) and not path.is_dir():
            report.skipped.append(Item(lesson.name, str(path), "a file reasonlessons did not write is there"))
            continue
        exported.add(slug)
        meta = redact_value(meta)[0]
        changed = write_file(path, dump_frontmatter(meta, redact(body).text))
        (report.written if changed else report.unchanged).append(Item(lesson.name, str(path)))
        if entry.status == STATUS_STALE:
            report.notes.append(f"{lesson.name} is stale; exported with metadata.reasonlessons.stale: true")
    for path in lesson_files(directory):
        if path.stem not in exported and path.is_file() and _ours(path):
            remove_file(path)
            report.removed.append(Item(path.stem, str(path), "no longer a lesson here"))
    write_file(directory / INDEX, render_index(directory))
    return report


def _ours(path: Path) -> bool:
    try:
        meta, _ = split_frontmatter(read_input(path, "LESSON.md file"))
    except (ValueError, InteropError):
        return False
    return meta is not None and bool(vendor_of(meta))


def to_aip(
    entry: Entry, slug: str, slugs: dict[str, str], counts: tuple[int, int]
) -> tuple[dict[str, Any], str]:
    """The AIP-11 frontmatter and body of one lesson."""
    lesson = entry.lesson
    meta = lesson.meta
    aip = mapping(mapping(meta.get("interop")).get("aip11"))
    vendor: dict[str, Any] = {key: meta[key] for key in NATIVE if meta.get(key) not in (None, [], {})}
    title = " ".join(lesson.description.split())[:200]
    trigger: dict[str, Any] = {"description": str(aip.get("trigger-description") or when_text(lesson))[:1000]}
    tags, exact = export_tags(lesson)
    if tags:
        trigger["tags"] = tags
    if not exact:
        vendor["tags"] = meta.get("tags") or []
    for key, field in (("targets", "targets"), ("trigger-metadata", "metadata")):
        if aip.get(key):
            trigger[field] = aip[key]
    if "targets" not in trigger and lesson.agents:
        trigger["targets"] = [{"operator": agent} for agent in lesson.agents]
    evidence, reshaped = export_evidence(lesson)
    if reshaped:
        vendor["evidence"] = meta.get("evidence") if isinstance(meta.get("evidence"), list) else []
    out: dict[str, Any] = {
        "schema": schema.SCHEMA,
        "slug": slug,
        "title": title,
        "trigger": trigger,
        "outcome": meta.get("outcome") if meta.get("outcome") in OUTCOMES else "success",
        "evidence": evidence,
    }
    # The confidence the lesson states (its prior); what was observed here goes in the counts.
    stated = meta.get("confidence", aip.get("confidence"))
    if stated is not None:
        out["confidence"] = stated
    out["success_count"], out["failure_count"] = counts
    if lesson.supersedes:
        out["supersedes"] = [slugs.get(n, slug_for(n)) for n in lesson.supersedes]
    if "expires-at" in meta:
        out["expires_at"] = iso_datetime(meta["expires-at"])
    if slug != lesson.name:
        vendor["name"] = lesson.name
    if entry.status == STATUS_STALE:
        vendor["stale"] = True
    body = lesson.body.strip("\n")
    if not all(heading in body.split("\n") for heading in SECTIONS):
        vendor["body"] = "sections"
        counter = "None recorded." if out["outcome"] == "success" else "See the evidence entries above."
        parts = (SECTIONS[0], trigger["description"], SECTIONS[1], body, SECTIONS[2], counter)
        body = "\n\n".join(parts)
    metadata = dict(aip.get("metadata") or {})
    metadata[VENDOR] = vendor
    out["metadata"] = metadata
    return out, f"# {title}\n\n{body}"


def when_text(lesson: Lesson) -> str:
    """A trigger description from a lesson's triggers (AIP-11 wants prose)."""
    triggers = lesson.triggers
    parts = []
    if triggers.get("files"):
        parts.append("working on files matching " + ", ".join(f"`{g}`" for g in triggers["files"][:5]))
    if triggers.get("commands"):
        parts.append("running commands matching " + ", ".join(f"`{c}`" for c in triggers["commands"][:5]))
    if triggers.get("keywords"):
        parts.append("a task mentioning " + ", ".join(triggers["keywords"][:8]))
    if not parts:
        return f"Tasks in this repository about: {lesson.description}"
    return "When " + "; or ".join(parts) + "."


def export_tags(lesson: Lesson) -> tuple[list[str], bool]:
    """(AIP-11 tags, whether they are the lesson's tags unchanged); keywords stand in when untagged."""
    raw = lesson.meta.get("tags")
    given = [str(t) for t in raw] if isinstance(raw, list) else []
    source = given or lesson.triggers.get("keywords", [])
    tags: list[str] = []
    for value in source:
        tag = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")
        if tag and tag[0].isalpha() and tag not in tags and len(tags) < 12:
            tags.append(tag)
    return tags, tags == given


def export_evidence(lesson: Lesson) -> tuple[list[dict[str, str]], bool]:
    """(AIP-11 evidence, whether it had to be reshaped); capture's {agent, session, ref} become runs."""
    raw = lesson.meta.get("evidence")
    items = raw if isinstance(raw, list) else []
    if items and all(isinstance(i, dict) and not schema.evidence_problems([i]) for i in items):
        return [dict(i) for i in items], False
    out: list[dict[str, str]] = []
    for item in items:
        if isinstance(item, dict) and item.get("session"):
            note = " ".join(str(item.get(k, "")) for k in ("agent", "ref") if item.get(k))
            out.append(
                {"kind": "conversation", "ref": str(item["session"])[:256], "note": f"log {note}"[:500]}
            )
        elif isinstance(item, str | dict) and item:
            out.append({"kind": "wiki-page", "ref": _lesson_ref(lesson), "note": str(item)[:500]})
    return out or [{"kind": "wiki-page", "ref": _lesson_ref(lesson), "note": "written by hand"}], True


def _lesson_ref(lesson: Lesson) -> str:
    return f".reasonix/lessons/{lesson.name}.md"


def render_index(directory: Path) -> bytes:
    """`_index.md`: every lesson in the folder with slug, title, outcome, confidence and counts."""
    rows = []
    for path in lesson_files(directory):
        try:
            meta, _ = split_frontmatter(read_input(path, "LESSON.md file"))
        except (ValueError, InteropError):
            continue
        if meta is None or "slug" not in meta:
            continue
        cells = [
            meta.get("slug"), meta.get("title"), meta.get("outcome"), meta.get("confidence", 0.5),
            meta.get("success_count", 0), meta.get("failure_count", 0),
        ]  # fmt: skip
        rows.append("| " + " | ".join(" ".join(str(c).replace("|", "\\|").split()) for c in cells) + " |")
    head = (
        "| slug | title | outcome | confidence | success_count | failure_count |\n|---|---|---|---|---|---|"
    )
    text = "# Lessons\n\nRegenerated by `reasonlessons export aip11`; do not edit.\n\n" + head + "\n"
    return (text + "\n".join(rows) + ("\n" if rows else "")).encode("utf-8")
