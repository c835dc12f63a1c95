"""Per-session summaries in local state: what `stats` compares, and which verdicts were already given.

`session-summaries.json` (state envelope, kind `session-summaries`):
`{"<agent>:<session>": {"agent", "session", "started", "ended", "tokens": {"in", "out",
"cache_read", "cache_write"}, "total", "calls", "terms", "commands", "files", "recalled": [key...],
"linked_by", "outcomes": {key: "success"|"failure"}, "successful", "last_seq"}}`.
Bounded to MAX_SESSIONS, the oldest dropped first. A session captured in parts (a log that grew)
adds up its tokens, and a lesson gets at most one verdict per session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reasonlessons.learning.link import Link
from reasonlessons.learning.outcomes import Outcome
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.store.state import load_state, save_state

SUMMARIES_FILE = "session-summaries.json"
SUMMARIES_KIND = "session-summaries"
MAX_SESSIONS = 2000
_TOKEN_FIELDS = ("in", "out", "cache_read", "cache_write")


def session_key(agent: str, session_id: str) -> str:
    return f"{agent}:{session_id}"


def _merge(old: list[Any], new: list[str], cap: int) -> list[str]:
    out = [str(v) for v in old if isinstance(v, str)]
    for value in new:
        if value not in out and len(out) < cap:
            out.append(value)
    return out


class Summaries:
    """The summaries document, loaded once and saved once per learning step."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data
        # Whether a record changed the document since it was read or saved (a re-capture must not
        # touch the file): compared entry by entry as recorded, not by rendering the whole
        # document, thousands of sessions, at every save.
        self._changed = False

    @classmethod
    def load(cls, state_dir: Path) -> Summaries:
        path = state_dir / SUMMARIES_FILE
        return cls(path, load_state(path, kind=SUMMARIES_KIND))

    def sessions(self) -> list[dict[str, Any]]:
        return [v for v in self.data.values() if isinstance(v, dict)]

    def judged(self, key: str) -> set[str]:
        """Lesson keys that already have a verdict for this session."""
        entry = self.data.get(key)
        outcomes = entry.get("outcomes") if isinstance(entry, dict) else None
        return set(outcomes) if isinstance(outcomes, dict) else set()

    def record(self, trace: SessionTrace, link: Link, outcomes: list[Outcome], *, successful: bool) -> None:
        key = session_key(trace.agent, trace.session_id)
        old = self.data.get(key)
        old = old if isinstance(old, dict) else {}
        new = _entry(trace)
        old_first, old_last = _int(old.get("first_seq"), -1), _int(old.get("last_seq"), -1)
        old_tokens = {f: _int(_tokens(old).get(f)) for f in _TOKEN_FIELDS}
        if old and trace.first_seq > old_last:  # the log grew: a later part of the same session
            new["tokens"] = {f: old_tokens[f] + new["tokens"][f] for f in _TOKEN_FIELDS}
            new["calls"] += _int(old.get("calls"))
            new["first_seq"], new["started"] = old_first, old.get("started") or new["started"]
        elif old and not (trace.first_seq <= old_first and trace.last_seq >= old_last):
            # A re-read of part of what was counted (checkpoints lost): keep the counts as they are.
            new.update(
                tokens=old_tokens, calls=_int(old.get("calls")), first_seq=old_first, last_seq=old_last
            )
            new.update(started=old.get("started"), ended=old.get("ended"))
        new["total"] = sum(new["tokens"].values())
        for field, cap in (("terms", 64), ("commands", 40), ("files", 40)):
            new[field] = _merge(old.get(field) or [], new[field], cap)
        verdicts = dict(old["outcomes"]) if isinstance(old.get("outcomes"), dict) else {}
        verdicts.update({o.key: o.verdict for o in outcomes})
        new["recalled"] = _merge(old.get("recalled") or [], sorted(link.keys), 64)
        new["linked_by"] = link.how or old.get("linked_by")
        new["outcomes"] = verdicts
        new["successful"] = successful
        if not self._changed and self.data.get(key) != new:
            self._changed = True
        self.data[key] = new

    def save(self) -> None:
        """Write the document, unless nothing changed (a re-capture must not touch the file)."""
        if not self._changed:
            return
        if len(self.data) > MAX_SESSIONS:
            order = sorted(self.data, key=lambda k: str(_when(self.data[k])))
            for key in order[: len(self.data) - MAX_SESSIONS]:
                del self.data[key]
        save_state(self.path, self.data, kind=SUMMARIES_KIND)
        self._changed = False  # saved: the next save writes only if a record changes it


def _when(entry: object) -> str:
    if not isinstance(entry, dict):
        return ""
    return str(entry.get("ended") or entry.get("started") or "")


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _tokens(entry: dict[str, Any]) -> dict[str, Any]:
    tokens = entry.get("tokens")
    return tokens if isinstance(tokens, dict) else {}


def _entry(trace: SessionTrace) -> dict[str, Any]:
    """The summary of what one trace saw (counts only; verdicts and links are added by `record`)."""
    tokens = trace.tokens
    return {
        "agent": trace.agent,
        "session": trace.session_id,
        "started": trace.started.isoformat() if trace.started else None,
        "ended": trace.ended.isoformat() if trace.ended else None,
        "tokens": dict(
            zip(_TOKEN_FIELDS, (tokens.in_, tokens.out, tokens.cache_read, tokens.cache_write), strict=True)
        ),
        "calls": trace.tool_calls,
        "terms": list(trace.terms),
        "commands": trace.commands,
        "files": list(trace.files),
        "first_seq": trace.first_seq,
        "last_seq": trace.last_seq,
    }
