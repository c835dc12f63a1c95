"""Reading the LLM's answer: one JSON object, checked against a strict schema; lessons whose
evidence does not resolve to a ref of this session are rejected (an LLM must not invent evidence)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.capture.extract import fingerprints as fpi
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft, command_pattern, one_line, slug
from reasonlessons.capture.extract.llm.digest import Digest
from reasonlessons.errors import ReasonLessonsError
from reasonlessons.lessons.model import OUTCOMES
from reasonlessons.sessions.shell import parse

MAX_LESSONS = 3
_LESSON_KEYS = {"name", "description", "body", "outcome", "evidence", "commands", "keywords"}
_REQUIRED = ("name", "description", "body", "outcome", "evidence")
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_PATHISH = re.compile(r"`([\w.-]+(?:/[\w.*-]+)*/?)`")


class ReplyError(ReasonLessonsError):
    """The reply as a whole is unusable (not JSON, wrong shape)."""


@dataclass
class Parsed:
    drafts: list[CandidateDraft] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why each rejected lesson was rejected
    proposed: int = 0


def json_object(text: str) -> dict[str, Any]:
    """The JSON object in a reply: the whole text, a fenced block, or the outermost {...} in prose."""
    candidates = [text.strip()]
    candidates += [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            doc = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(doc, dict):
            return doc
    raise ReplyError("the reply holds no JSON object")


def _strings(value: object, cap: int, limit: int) -> list[str] | None:
    if not isinstance(value, list) or len(value) > cap:
        return None
    if not all(isinstance(v, str) and v.strip() and len(v) <= limit for v in value):
        return None
    return [v.strip() for v in value]


def problem(item: object, refs: dict[str, str]) -> str | None:
    """Why one proposed lesson is unacceptable, or None."""
    if not isinstance(item, dict):
        return "not an object"
    unknown = sorted(set(item) - _LESSON_KEYS)
    if unknown:
        return f"unknown keys {unknown}"
    missing = [k for k in _REQUIRED if k not in item]
    if missing:
        return f"missing {missing}"
    for key, limit in (("name", 64), ("description", 200), ("body", 1200)):
        if not isinstance(item[key], str) or not item[key].strip() or len(item[key]) > limit:
            return f"{key} must be a non-empty string of at most {limit} characters"
    if item["outcome"] not in OUTCOMES:
        return f"outcome must be one of {', '.join(OUTCOMES)}"
    evidence = _strings(item["evidence"], 8, 300)
    if not evidence:
        return "evidence must list 1-8 refs"
    invented = [e for e in evidence if e not in refs]
    if invented:
        return f"evidence {invented} is not in this session (invented)"
    if "commands" in item and _strings(item["commands"], 3, 200) is None:
        return "commands must be at most 3 strings"
    if "keywords" in item and _strings(item["keywords"], 5, 40) is None:
        return "keywords must be at most 5 strings"
    return None


def parse_reply(text: str, digest: Digest, place: SessionPlace) -> Parsed:
    """Drafts from a reply; ReplyError when the reply as a whole is unusable."""
    doc = json_object(text)
    if set(doc) != {"lessons"} or not isinstance(doc["lessons"], list):
        raise ReplyError('the reply must be {"lessons": [...]} and nothing else')
    parsed = Parsed(proposed=len(doc["lessons"]))
    for item in doc["lessons"][:MAX_LESSONS]:
        why = problem(item, digest.refs)
        if why is not None:
            name = item.get("name") if isinstance(item, dict) else None
            parsed.rejected.append(f"{name or 'a lesson'}: {why}")
            continue
        parsed.drafts.append(to_draft(item, digest, place))
    return parsed


def to_draft(item: dict[str, Any], digest: Digest, place: SessionPlace) -> CandidateDraft:
    """A candidate draft (source `llm`) from one accepted lesson; fingerprint inferred as capture does."""
    body = "\n".join(line.rstrip() for line in item["body"].strip().splitlines() if line.strip())
    if not body.startswith(("- ", "* ")):
        body = f"- {body}"
    commands = [c for c in item.get("commands", []) if parse(c) is not None]
    invocations = [inv for c in commands if (inv := parse(c)) is not None]
    paths = _PATHISH.findall(f"{item['description']}\n{body}")
    fingerprint = fpi.merge(
        fpi.for_paths(paths, place.facts),
        *(fpi.for_invocation(inv, place.facts, base=place.base) for inv in invocations),
    )
    patterns = [command_pattern(inv.base.split()[:3]) for inv in invocations]
    raw_refs = [digest.refs[e] for e in item["evidence"]]
    return CandidateDraft(
        name=slug(item["name"]),
        description=one_line(item["description"]),
        body=body,
        kind="llm",
        fingerprint=fingerprint,
        triggers={"commands": [p for p in patterns if p], "keywords": list(item.get("keywords", []))},
        evidence=place.evidence(*raw_refs),
        outcome=item["outcome"],
        source="llm",
        claims=[inv.base for inv in invocations][:3],
    )
