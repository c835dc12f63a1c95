"""Write gates, all applied before anything is written.

Per session: at least `capture.min-tool-calls` tool calls (config, default 3), and the session
reached a terminal state; a session with an explicit `/lesson` writ passes with fewer, but then only
its writs are taken (a writ is the user's or agent's own intent). Per draft: a valid name, a
one-line description, at least one piece of evidence, valid fingerprint entries and trigger
patterns, a confidence of at least `capture.min-confidence` (writs always pass), no secret left
after redaction (fail closed: a draft whose text cannot be made clean is dropped, never written).
Per session again: drafts that say the same thing are merged, and at most `capture.max-candidates`
survive, strongest first. Settings: reasonlessons/store/config.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from reasonlessons.capture.dedupe import as_lesson, find_duplicate
from reasonlessons.capture.extract.draft import CandidateDraft, slug
from reasonlessons.capture.reduce.observations import SessionObservations, Writ
from reasonlessons.constants import NAME_RE
from reasonlessons.fingerprint import check_entry
from reasonlessons.lessons.model import OUTCOMES
from reasonlessons.recall.match import agent_family
from reasonlessons.safety import linear_re, textview
from reasonlessons.safety.redact import (
    assert_clean,
    find_secrets,
    holds_secret,
    redact,
    redact_value,
    secret_values,
)
from reasonlessons.safety.secretscan import ScannerUnavailableError
from reasonlessons.store.config import DEFAULTS, Config

MIN_TOOL_CALLS = DEFAULTS.min_tool_calls
MAX_PER_SESSION = DEFAULTS.max_candidates
MAX_EVIDENCE = 12
WRIT = "writ"
TOOL_RULES = ("args-fix",)  # lessons about an agent's own tools (not shell commands)


def _too_short(obs: SessionObservations, settings: Config) -> str | None:
    if obs.tool_calls < settings.min_tool_calls:
        return f"fewer than {settings.min_tool_calls} tool calls ({obs.tool_calls})"
    return None


def session_skip_reason(
    obs: SessionObservations, *, complete: bool, settings: Config = DEFAULTS
) -> str | None:
    """Why nothing may be learned from this session, or None when it may (perhaps writs only)."""
    if not complete:
        return "still being written (not in a terminal state yet)"
    short = _too_short(obs, settings)
    if short is not None and not any(isinstance(item, Writ) for item in obs.items):
        return short
    return None


def writs_only(obs: SessionObservations, settings: Config = DEFAULTS) -> str | None:
    """Why only the session's `/lesson` writs may be taken from it (too short otherwise), or None."""
    return _too_short(obs, settings)


def problem(draft: CandidateDraft) -> str | None:
    """What makes a draft unwritable, or None."""
    if not NAME_RE.match(draft.name):
        return f"invalid name {draft.name!r}"
    if not draft.description.strip() or "\n" in draft.description.strip():
        return "description must be one non-empty line"
    if not draft.body.strip():
        return "empty body"
    if not draft.evidence:
        return "no evidence"
    if draft.outcome not in OUTCOMES:
        return f"outcome {draft.outcome!r}"
    bad = [entry for entry in draft.fingerprint if check_entry(entry) is not None]
    return f"invalid fingerprint entries {bad}" if bad else None


@lru_cache(maxsize=1024)
def _pattern_problem(pattern: str) -> str | None:
    return linear_re.problem(pattern)


def _clean_triggers(triggers: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for kind, values in triggers.items():
        kept = [v for v in dict.fromkeys(values) if isinstance(v, str) and v.strip()]
        if kind == "commands":
            kept = [v for v in kept if _pattern_problem(v) is None]
        if kept:
            out[kind] = kept[:5]
    return out


def _without_bidi(draft: CandidateDraft) -> CandidateDraft:
    """Bidirectional controls taken out of every text of a draft: a lesson file may not hold them
    (lessons/file.py refuses), and a log's text is kept, not dropped, for one."""
    fields = (draft.description, draft.body, draft.triggers, draft.evidence, draft.claims, draft.tags)
    if all(s.isascii() for s in _strings(list(fields))):
        return draft
    return replace(
        draft,
        description=textview.BIDI.sub("", draft.description),
        body=textview.BIDI.sub("", draft.body),
        triggers=_map_strings(draft.triggers, lambda s: textview.BIDI.sub("", s)),
        evidence=_map_strings(draft.evidence, lambda s: textview.BIDI.sub("", s)),
        claims=[textview.BIDI.sub("", c) for c in draft.claims],
        tags=[textview.BIDI.sub("", t) for t in draft.tags],
    )


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    return value


def sanitize(draft: CandidateDraft) -> CandidateDraft | None:
    """The draft with secrets redacted from every field, or None if it cannot be made clean.

    Names, keywords, tags and claims are derived from the text (lower-cased, cut into words), so
    they are checked for the shapes a secret keeps then too (`derived`), and every secret found
    anywhere in the draft is taken out of them wherever it appears, in any case. A fingerprint
    entry holding a secret is dropped: it cannot be redacted and still name a fact."""
    draft = _without_bidi(draft)
    try:
        if not holds_secret(_texts([draft])) and not holds_secret(_derived_texts(draft), derived=True):
            return _as_is(draft)  # the common case: one scan, nothing to redact
        secrets = secret_values(_strings(_texts([draft])))
        description = redact(draft.description).text
        body = redact(draft.body).text
        triggers: Any = _without(redact_value(draft.triggers, derived=True)[0], secrets)
        evidence: Any = _without(redact_value(draft.evidence, derived=True)[0], secrets)
        claims = _without([redact(c, derived=True).text for c in draft.claims], secrets)
        tags = _without([redact(t, derived=True).text for t in draft.tags], secrets)
        fingerprint = [
            e for e in draft.fingerprint if not holds_secret(e, derived=True) and not _holds_any(e, secrets)
        ]
        name = draft.name
        if find_secrets(name, derived=True) or _holds_any(name, secrets):
            name = slug(description, fallback="redacted-lesson")  # built from the redacted text
        cleaned = replace(
            draft,
            name=name,
            description=description,
            body=body,
            triggers=_clean_triggers(triggers),
            evidence=evidence,
            claims=claims,
            tags=tags,
            fingerprint=fingerprint,
        )
        # Field by field: unchanged sentences recur across sessions and hit the redaction cache.
        for text in _strings([cleaned.description, cleaned.body, cleaned.extra()]):
            assert_clean(text)
        for text in _strings(_derived_texts(cleaned)):
            assert_clean(text, derived=True)
        if _holds_any(cleaned.name, secrets):
            return None
    except ScannerUnavailableError:
        # The environment, not the draft, is at fault: abort the run so checkpoints stay put and
        # the same sessions are captured once the scanner is back. Dropping here would lose them.
        raise
    except Exception:  # fail closed: any trouble redacting means the draft is not written
        return None
    return cleaned


def _derived_texts(draft: CandidateDraft) -> list[Any]:
    """The fields made of pieces of the text: where a secret shows lower-cased or cut up."""
    return [draft.name, draft.triggers.get("keywords", []), draft.tags, draft.claims, draft.fingerprint]


def _holds_any(text: str, secrets: list[str]) -> bool:
    folded = text.lower()
    return any(secret in folded for secret in secrets)


def _without(value: Any, secrets: list[str]) -> Any:
    """`value` with every secret replaced wherever it appears, whatever its case."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            if secret in value.lower():
                value = re.sub(re.escape(secret), "[REDACTED:secret]", value, flags=re.IGNORECASE)
        return value
    if isinstance(value, list):
        return [_without(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: _without(item, secrets) for key, item in value.items()}
    return value


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def merge_evidence(old: list[Any], new: list[dict[str, str]]) -> list[Any]:
    """Evidence without repeats; past MAX_EVIDENCE keep the first few and the most recent."""
    merged = list(old)
    for item in new:
        if item not in merged:
            merged.append(item)
    if len(merged) > MAX_EVIDENCE:
        merged = merged[:4] + merged[-(MAX_EVIDENCE - 4) :]
    return merged


def merge_outcome(old: object, new: str) -> str:
    """Outcomes of two experiences of one lesson: equal stays, different becomes `mixed`."""
    if old not in OUTCOMES:
        return new
    return str(old) if old == new else "mixed"


def prepare(
    drafts: list[CandidateDraft], *, settings: Config = DEFAULTS, only_writs: str | None = None
) -> tuple[list[CandidateDraft], list[tuple[str, str]]]:
    """Valid, sure enough, merged and capped drafts of one session; plus (name, reason) of those
    dropped. `only_writs` (why, from `writs_only`) keeps the writs alone.

    Not yet redacted: the writer redacts what it writes (`clean`), evidence alone for a duplicate.
    """
    kept: list[CandidateDraft] = []
    dropped: list[tuple[str, str]] = []
    for draft in sorted(drafts, key=lambda d: -d.strength):
        _scope_tool_rule(draft)
        reason = problem(draft)
        if reason is None and draft.kind != WRIT:
            reason = _unsure(draft, settings) or (
                f"{only_writs}: only `/lesson` writs" if only_writs else None
            )
        if reason is not None:
            dropped.append((draft.name, reason))
            continue
        twin = find_duplicate(draft, [as_lesson(d) for d in kept])
        if twin is not None:
            target = next(d for d in kept if d.name == twin.name)
            target.evidence = merge_evidence(target.evidence, draft.evidence)
            continue
        # Drafts that can only add evidence never become a file: they take no place in the limit;
        # a writ is the author's own intent and always lands.
        taken = sum(not d.update_only for d in kept)
        if draft.kind != WRIT and not draft.update_only and taken >= settings.max_candidates:
            limit = settings.max_candidates
            dropped.append((draft.name, f"over the limit of {limit} candidates per session"))
            continue
        kept.append(draft)
    return kept, dropped


def _scope_tool_rule(draft: CandidateDraft) -> None:
    """A lesson about how one agent's own tools take their arguments (Edit, apply_patch...) is for
    that agent only: `agents: [claude-code]` keeps a Claude Code tool rule from Codex and Reasonix."""
    if draft.kind not in TOOL_RULES or draft.agents:
        return
    agent = next((str(e["agent"]) for e in draft.evidence if isinstance(e, dict) and e.get("agent")), None)
    if agent:
        draft.agents = [agent_family(agent)]


def _unsure(draft: CandidateDraft, settings: Config) -> str | None:
    if draft.certainty >= settings.min_confidence:
        return None
    floor = settings.min_confidence
    return f"confidence {draft.certainty:g} is below the minimum {floor:g} (capture.min-confidence)"


def _texts(drafts: list[CandidateDraft]) -> list[Any]:
    """Every field of the drafts that is written (the name, the body, the frontmatter)."""
    return [
        field
        for d in drafts
        for field in (d.name, d.description, d.body, d.triggers, d.claims, d.tags, d.fingerprint, d.extra())
    ]


def _as_is(draft: CandidateDraft) -> CandidateDraft:
    """A draft with no secret, as sanitize returns it: only its trigger lists tidied (and any
    bidirectional control taken out)."""
    draft = _without_bidi(draft)
    return replace(draft, triggers=_clean_triggers(draft.triggers))


def clean(draft: CandidateDraft) -> tuple[CandidateDraft | None, str]:
    """The draft redacted and re-checked, or (None, why it must not be written)."""
    return _verdict(sanitize(draft))


def _verdict(cleaned: CandidateDraft | None) -> tuple[CandidateDraft | None, str]:
    if cleaned is None:
        return None, "could not be redacted cleanly (dropped, fail closed)"
    reason = problem(cleaned)
    return (None, reason) if reason is not None else (cleaned, "")


def clean_evidence(evidence: list[dict[str, str]]) -> list[dict[str, str]] | None:
    """Evidence entries redacted, or None when they cannot be made clean (fail closed)."""
    try:
        if not holds_secret(evidence, derived=True):
            return evidence  # the common case: one scan
        redacted: list[dict[str, str]] = redact_value(evidence, derived=True)[0]
        if holds_secret(redacted, derived=True):  # checked again: a redactor that missed must not get through
            return None
    except ScannerUnavailableError:
        raise  # see sanitize: never turn a broken install into lost evidence
    except Exception:  # fail closed, as in sanitize
        return None
    return redacted


@dataclass
class Checked:
    """A draft with the redaction verdicts the writer needs worked out up front, where it was
    extracted (a read worker): `cleaned` is `clean(draft)`, `evidence` is
    `clean_evidence(draft.evidence)`."""

    draft: CandidateDraft
    cleaned: tuple[CandidateDraft | None, str]
    evidence: list[dict[str, str]] | None


def check_all(drafts: list[CandidateDraft]) -> list[Checked]:
    """`check` for one session's drafts: one scan of all their text when it is clean (the common
    case: evidence makes every session's text new, so no cache helps), else draft by draft."""
    try:
        clean_all = (
            bool(drafts)
            and not holds_secret(_texts(drafts))
            and not holds_secret([_derived_texts(d) for d in drafts], derived=True)
        )
    except ScannerUnavailableError:
        raise
    except Exception:  # fail closed, as in sanitize: the slow path decides draft by draft
        clean_all = False
    if not clean_all:
        return [check(draft) for draft in drafts]
    # Scanned with the rest, each draft and its evidence are clean as they are.
    return [Checked(draft, _verdict(_as_is(draft)), _without_bidi(draft).evidence) for draft in drafts]


def check(draft: CandidateDraft) -> Checked:
    """Both redaction verdicts for `draft`: for a new candidate and for more evidence."""
    cleaned = clean(draft)
    # A cleaned draft's evidence went through the same redaction and check as clean_evidence's.
    evidence = cleaned[0].evidence if cleaned[0] is not None else clean_evidence(draft.evidence)
    return Checked(draft, cleaned, evidence)
