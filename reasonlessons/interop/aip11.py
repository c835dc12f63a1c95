"""AIP-11 `LESSON.md` packages (docs/interop.md#aip-11): a folder of one-lesson files plus `_index.md`.

Mapping: slug <-> name, title <-> description, outcome, evidence, confidence and supersedes carry
over, expires_at <-> expires-at, trigger.tags <-> tags (and, imported, keyword triggers: AIP-11
retrieves by tag), trigger.targets -> agents (the agents a lesson is for). What AIP-11 has and
reasonlessons has not (trigger description, the targets as written, other vendors' metadata) is
kept under `interop.aip11`; what reasonlessons has and AIP-11 has not (fingerprint, triggers, task types,
capture date, status) goes under `metadata.reasonlessons`. success_count/failure_count are never
imported (author-supplied counts are not evidence); exports write the counts observed here.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from reasonlessons.constants import AGENT_RE, AGENTS, NAME_RE
from reasonlessons.interop import aip11_schema as schema
from reasonlessons.interop.common import (
    Imported,
    InteropError,
    read_input,
)
from reasonlessons.lessons.file import split_frontmatter
from reasonlessons.lessons.model import as_datetime
from reasonlessons.recall.match import for_agent

VENDOR = "reasonlessons"
INDEX = "_index.md"
SECTIONS = ("## When this applies", "## What to do (or avoid)", "## Counter-example")
# Native keys with no AIP-11 field, carried in metadata.reasonlessons.
NATIVE = (
    "fingerprint", "captured-at", "refreshed-at", "triggers", "task-types", "source", "status", "agents",
)  # fmt: skip
_TITLE = re.compile(r"\A\s*#\s+[^\n]*\n?")


# -- import --------------------------------------------------------------------------------------


def lesson_files(directory: Path) -> list[Path]:
    """The package's lesson files (validators skip `_index.md` and the `_archive/` folder)."""
    return sorted(
        p for p in directory.iterdir() if p.suffix == ".md" and p.name != INDEX and not p.name.startswith(".")
    )


def read_package(directory: Path, *, known: set[str]) -> tuple[list[Imported], list[str]]:
    """Every lesson of a package, or InteropError listing every problem; plus notes for the user."""
    if not directory.is_dir():
        raise InteropError(f"{directory}: not a folder; pass the folder holding the LESSON.md files")
    errors: list[str] = []
    parsed: list[tuple[Path, dict[str, Any], str]] = []
    for path in lesson_files(directory):
        if not path.is_file():
            continue
        try:
            meta, body = split_frontmatter(read_input(path, "LESSON.md file"))
        except ValueError as exc:
            errors.append(f"{path.name}: {exc}")
            continue
        found = schema.problems(meta, stem=path.stem) if meta is not None else ["no YAML frontmatter"]
        if found or meta is None:
            errors.extend(f"{path.name}: {p}" for p in found)
            continue
        parsed.append((path, meta, body))
    names = {meta["slug"]: _name_of(meta, errors, path) for path, meta, _ in parsed}
    if len(set(names.values())) < len(names):
        errors.append("two lessons map to the same reasonlessons name (metadata.reasonlessons.name)")
    for path, meta, _ in parsed:
        for slug in meta.get("supersedes") or []:
            if slug not in names and slug not in known:
                errors.append(
                    f"{path.name}: supersedes {slug!r}, which is neither in the package nor a lesson here"
                )
    if not parsed and not errors:
        errors.append("no lesson files (<slug>.md) in it")
    if errors:
        listed = "\n".join(f"  - {e}" for e in errors)
        raise InteropError(f"cannot import {directory}: {len(errors)} problem(s), nothing written:\n{listed}")
    notes = []
    counted = [m["slug"] for _, m, _ in parsed if m.get("success_count") or m.get("failure_count")]
    if counted:
        notes.append(
            f"ignored the success_count/failure_count written in {len(counted)} file(s) "
            f"({', '.join(counted[:5])}): counts come only from outcomes observed here"
        )
    return [_imported(path, meta, body, names) for path, meta, body in parsed], notes


def _name_of(meta: dict[str, Any], errors: list[str], path: Path) -> str:
    vendor = vendor_of(meta)
    name = vendor.get("name")
    if isinstance(name, str) and NAME_RE.match(name):
        return name
    slug = str(meta["slug"])
    if not NAME_RE.match(slug):
        errors.append(f"{path.name}: slug {slug!r} is longer than a reasonlessons name (64 characters)")
    return slug


def mapping(value: object) -> dict[str, Any]:
    """`value` when it is a mapping, else an empty one (YAML from elsewhere may hold anything)."""
    return dict(value) if isinstance(value, dict) else {}


def vendor_of(meta: dict[str, Any]) -> dict[str, Any]:
    """`metadata.reasonlessons` of an AIP-11 frontmatter."""
    return mapping(mapping(meta.get("metadata")).get(VENDOR))


def _imported(path: Path, meta: dict[str, Any], body: str, names: dict[str, str]) -> Imported:
    vendor = vendor_of(meta)
    trigger = meta["trigger"]
    extra: dict[str, Any] = {key: vendor[key] for key in NATIVE if key in vendor}
    extra["outcome"] = meta["outcome"]
    extra["evidence"] = vendor["evidence"] if isinstance(vendor.get("evidence"), list) else meta["evidence"]
    tags = vendor.get("tags", trigger.get("tags"))
    if tags:
        extra["tags"] = list(tags)
        if "triggers" not in vendor:  # AIP-11 retrieves by tag overlap: tags match as keywords here
            extra["triggers"] = {"keywords": [str(t).replace("-", " ") for t in tags]}
    if "agents" not in vendor:
        agents = agents_of(trigger.get("targets"))
        if agents:
            extra["agents"] = agents
    if meta.get("supersedes"):
        extra["supersedes"] = [names.get(s, s) for s in meta["supersedes"]]
    if "expires_at" in meta:
        extra["expires-at"] = iso_datetime(meta["expires_at"])
    aip: dict[str, Any] = {"trigger-description": " ".join(str(trigger["description"]).split())}
    # `confidence` stays here: it is the lesson's prior (store/confidence.py reads it from here).
    for key, field in (("confidence", None), ("targets", "targets"), ("trigger-metadata", "metadata")):
        value = trigger.get(field) if field else meta.get(key)
        if value not in (None, [], {}):
            aip[key] = value
    others = {k: v for k, v in (meta.get("metadata") or {}).items() if k != VENDOR}
    if others:
        aip["metadata"] = others
    extra["interop"] = {"aip11": aip}
    fingerprint = extra.pop("fingerprint", None)
    text = _TITLE.sub("", body, count=1).strip("\n")
    if vendor.get("body") == "sections":
        text = section(text, SECTIONS[1]) or text
    return Imported(
        names[meta["slug"]],
        " ".join(str(meta["title"]).split()),
        text,
        [str(e) for e in fingerprint] if isinstance(fingerprint, list) else [],
        extra,
        str(path),
    )


def agents_of(targets: object) -> list[str]:
    """The agents `trigger.targets` limits a lesson to: the targets (operator, role or skill) that name
    an agent reasonlessons knows (`claude-code`, `reasonix*`, ...). None when a target is `*` or none
    names an agent (`role: coder`): the lesson is for every agent then."""
    out: list[str] = []
    for target in targets if isinstance(targets, list) else []:
        values = (
            [v.strip() for v in target.values() if isinstance(v, str)] if isinstance(target, dict) else []
        )
        for value in values:
            if value in ("*", "**"):
                return []
            if (
                AGENT_RE.match(value)
                and any(for_agent([value], agent) for agent in AGENTS)
                and value not in out
            ):
                out.append(value)
    return out


def section(body: str, heading: str) -> str | None:
    """The text under one `## heading` of a body, up to the next `## ` heading."""
    lines = body.split("\n")
    if heading not in (line.rstrip() for line in lines):
        return None
    start = [line.rstrip() for line in lines].index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).strip("\n")


def iso_datetime(value: object) -> str:
    """An AIP-11 date-time string (`2027-01-01T00:00:00Z`) for a YAML date, datetime or string."""
    when = as_datetime(value)
    if when is None:
        return str(value)
    return when.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"
