"""The counts recall reads every turn: `lesson-outcomes.json`, derived from the decisions.

Per lesson key `<scope>:<name>`, the sessions since its last revival that confirmed it, and that
contradicted it softly or directly, and when it was last confirmed: `{"confirmed", "soft", "direct",
"last-confirmed"?, "base"?}` (version 2, in the state.py envelope). reasonlessons/store/outcomes.py
writes it with the decisions it comes from; this module only reads it, with the stdlib json module
(importing orjson would cost more than the whole per-turn budget) and with nothing but one small
NamedTuple to build, because recall imports it every turn. A damaged document reads as empty.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons.store import confidence as conf

OUTCOMES_FILE = "lesson-outcomes.json"
OUTCOMES_KIND = "lesson-outcomes"
OUTCOMES_VERSION = 2


class Record(NamedTuple):
    """The counts recall and `list` read for one lesson: sessions since it was last revived.

    A NamedTuple, not a frozen dataclass: recall imports this module every turn, and building the
    dataclass would cost that import four times what the NamedTuple does (valgrind, ~5M vs ~1.2M
    instructions)."""

    confirmed: int = 0
    soft: int = 0
    direct: int = 0
    last_confirmed: str | None = None
    base: float | None = None  # set by `revive`: the confidence it restarts from at least

    @property
    def contradicted(self) -> int:
        return self.soft + self.direct

    @property
    def caution(self) -> bool:
        """Contradicted more often than confirmed: shown as a warning, not as advice (AIP-11)."""
        return self.contradicted > self.confirmed

    def confidence(self, prior: float) -> float:
        start = prior if self.base is None else max(prior, self.base)
        return conf.confidence(start, self.confirmed, self.soft, self.direct)

    def confidence_of(self, meta: Mapping[str, object]) -> float:
        """The confidence of the lesson whose frontmatter is `meta`: its stated prior, then these counts."""
        return self.confidence(conf.prior_of(meta))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"confirmed": self.confirmed, "soft": self.soft, "direct": self.direct}
        if self.last_confirmed:
            out["last-confirmed"] = self.last_confirmed
        if self.base is not None:
            out["base"] = self.base
        return out


def count_of(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def text_of(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def unit_of(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        return None
    return float(value)


def version_1(entry: object) -> Record:
    """What a version 1 entry (`success`, `failure`, `streak`, `last`) counts now: its successes.

    Version 1 counted a lesson's own warned failure against it, so its failures are not counted."""
    if not isinstance(entry, dict):
        return Record()
    success = count_of(entry.get("success"))
    last = text_of(entry.get("last")) if count_of(entry.get("streak")) == 0 and success else None
    return Record(confirmed=success, last_confirmed=last)


def record_of(entry: object) -> Record:
    """The Record an entry of the version 2 outcomes document stands for."""
    if not isinstance(entry, dict):
        return Record()
    return Record(
        count_of(entry.get("confirmed")),
        count_of(entry.get("soft")),
        count_of(entry.get("direct")),
        text_of(entry.get("last-confirmed")),
        unit_of(entry.get("base")),
    )


def counts(state_dir: Path) -> dict[str, Record]:
    """Every lesson's Record: the cheap read recall makes every turn (stdlib json, one file)."""
    try:
        doc = json.loads((state_dir / OUTCOMES_FILE).read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("kind") != OUTCOMES_KIND or not isinstance(doc.get("data"), dict):
        return {}
    if doc.get("version") == 1:  # not migrated yet: what version 1 knew, read as the migration will
        return {str(k): version_1(e) for k, e in doc["data"].items()}
    if doc.get("version") != OUTCOMES_VERSION:
        return {}
    return {str(key): record_of(entry) for key, entry in doc["data"].items()}
