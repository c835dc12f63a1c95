"""AIP-11 `learning/v1` frontmatter rules (agentproto `LESSON.schema.json`), checked without a library."""

from __future__ import annotations

import re
from typing import Any

from reasonlessons.lessons.model import as_datetime

SCHEMA = "learning/v1"
SLUG_RE = re.compile(r"^[a-z][a-z0-9-]*[a-z0-9]$")
TAG_RE = re.compile(r"^[a-z][a-z0-9-]*$")
KEYS = (
    "schema", "slug", "title", "trigger", "outcome", "evidence", "confidence",
    "success_count", "failure_count", "supersedes", "expires_at", "metadata",
)  # fmt: skip
REQUIRED = ("schema", "slug", "title", "trigger", "outcome", "evidence")
TRIGGER_KEYS = ("description", "tags", "targets", "metadata")
TARGET_KEYS = ("operator", "role", "skill")
EVIDENCE_KINDS = ("run", "conversation", "work-item", "audit", "wiki-page")
OUTCOMES = ("success", "failure", "mixed")


def _text(value: object, limit: int, *, empty: bool = False) -> bool:
    return isinstance(value, str) and (empty or bool(value.strip())) and len(value) <= limit


def problems(meta: dict[str, Any], *, stem: str) -> list[str]:
    """Every way `meta` breaks the schema (empty when it is a valid lesson frontmatter)."""
    out = [f"missing {key}" for key in REQUIRED if key not in meta]
    out += [f"unknown key {key!r} (AIP-11 allows no extra keys)" for key in meta if key not in KEYS]
    if "schema" in meta and meta["schema"] != SCHEMA:
        out.append(f"schema must be {SCHEMA!r}")
    slug = meta.get("slug")
    if "slug" in meta:
        if not isinstance(slug, str) or not 2 <= len(slug) <= 80 or not SLUG_RE.match(slug):
            out.append(f"slug {slug!r} must be 2-80 characters of a-z, 0-9 and '-'")
        elif slug != stem:
            out.append(f"slug {slug!r} differs from the file name {stem!r}.md")
    if "title" in meta and not _text(meta["title"], 200):
        out.append("title must be a non-empty string of at most 200 characters")
    if "trigger" in meta:
        out += _trigger(meta["trigger"])
    if "outcome" in meta and meta["outcome"] not in OUTCOMES:
        out.append(f"outcome must be one of {', '.join(OUTCOMES)}")
    if "evidence" in meta:
        out += evidence_problems(meta["evidence"])
    confidence = meta.get("confidence")
    if "confidence" in meta and (
        isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1
    ):
        out.append("confidence must be a number from 0 to 1")
    for key in ("success_count", "failure_count"):
        value = meta.get(key)
        if key in meta and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            out.append(f"{key} must be a whole number >= 0")
    supersedes = meta.get("supersedes")
    if "supersedes" in meta and (
        not isinstance(supersedes, list)
        or not all(isinstance(s, str) and SLUG_RE.match(s) for s in supersedes)
    ):
        out.append("supersedes must be a list of slugs")
    if "expires_at" in meta and not _datetime(meta["expires_at"]):
        out.append("expires_at must be an ISO 8601 date-time such as 2027-01-01T00:00:00Z")
    if "metadata" in meta and not isinstance(meta["metadata"], dict):
        out.append("metadata must be a mapping of vendor names to mappings")
    return out


def _trigger(trigger: object) -> list[str]:
    if not isinstance(trigger, dict):
        return ["trigger must be a mapping with a description"]
    out = [f"unknown key trigger.{key}" for key in trigger if key not in TRIGGER_KEYS]
    if not _text(trigger.get("description"), 1000):
        out.append("trigger.description must be a non-empty string of at most 1000 characters")
    tags = trigger.get("tags", [])
    if (
        not isinstance(tags, list)
        or len(tags) > 12
        or not all(isinstance(t, str) and TAG_RE.match(t) for t in tags)
    ):
        out.append("trigger.tags must be at most 12 tags of a-z, 0-9 and '-'")
    targets = trigger.get("targets", [])
    if not isinstance(targets, list) or not all(
        isinstance(t, dict) and t and all(k in TARGET_KEYS and isinstance(v, str) for k, v in t.items())
        for t in targets
    ):
        out.append("trigger.targets must be a list of {operator|role|skill: slug-or-glob}")
    if "metadata" in trigger and not isinstance(trigger["metadata"], dict):
        out.append("trigger.metadata must be a mapping")
    return out


def evidence_problems(evidence: object) -> list[str]:
    if not isinstance(evidence, list) or not evidence:
        return ["evidence must list at least one {kind, ref, note?}"]
    out = []
    for i, item in enumerate(evidence):
        if not isinstance(item, dict) or any(k not in ("kind", "ref", "note") for k in item):
            out.append(f"evidence[{i}] must be a mapping of kind, ref and an optional note")
            continue
        if item.get("kind") not in EVIDENCE_KINDS:
            out.append(f"evidence[{i}].kind must be one of {', '.join(EVIDENCE_KINDS)}")
        if not _text(item.get("ref"), 256):
            out.append(f"evidence[{i}].ref must be an id or path of 1-256 characters")
        if "note" in item and not _text(item["note"], 500, empty=True):
            out.append(f"evidence[{i}].note must be a string of at most 500 characters")
    return out


def _datetime(value: object) -> bool:
    return as_datetime(value) is not None
