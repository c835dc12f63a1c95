"""How sure we are that a lesson still holds: its confidence (docs/learning.md#confidence).

    confidence = clamp(support - SOFT_PENALTY * soft - DIRECT_PENALTY * direct, 0, 1)
    support    = 1 - (1 - prior) * (1 - CONFIRM_GAIN) ** confirmed

* prior: what the lesson came with: the extractor's estimate for a candidate (by the kind of
  evidence it saw), an imported AIP-11 `confidence`, else DEFAULT_PRIOR (written by hand).
* confirmed: sessions that confirmed it (its claim held, its advice worked, or capture found the
  same lesson again); each closes CONFIRM_GAIN of the gap to 1, so repeats raise it less and less
  and it never reaches 1.
* soft / direct: sessions that contradicted it. A soft contradiction (a user correction, a warned
  command that now runs but fails otherwise) costs SOFT_PENALTY; a direct one (its own claim
  observed false: the command it says fails now passes, the command it says to run cannot run)
  costs DIRECT_PENALTY, so two of them archive even a lesson at full confidence.

Below the archive floor (config `learning.archive-floor`, 0.3) a lesson is archived. Ranking uses
confidence * exp(-days since the last confirmation / decay-days): old, unconfirmed advice sinks
but is never archived for age alone. Everything here is a function of counts, never of the order
the sessions came in. Pure arithmetic: recall runs it every turn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

DEFAULT_PRIOR = 0.7
CONFIRM_GAIN = 0.25
SOFT_PENALTY = 0.1
DIRECT_PENALTY = 0.4
# A revived lesson restarts from its prior, but never lower than this (or it would stay archived).
REVIVE_BASE = 0.5
DIGITS = 4  # rounding: 0.7 - 0.4 is 0.3, not 0.29999999999999993


def _unit(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        return None
    return float(value)


def prior_of(meta: Mapping[str, object]) -> float:
    """The confidence a lesson file states (`confidence`, or an imported AIP-11 one), else the default."""
    found = _unit(meta.get("confidence"))
    if found is None:
        interop = meta.get("interop")
        aip = interop.get("aip11") if isinstance(interop, dict) else None
        found = _unit(aip.get("confidence")) if isinstance(aip, dict) else None
    return DEFAULT_PRIOR if found is None else found


def confidence(prior: float, confirmed: int = 0, soft: int = 0, direct: int = 0) -> float:
    """The confidence after these counts of sessions (see the module docstring)."""
    support = 1.0 - (1.0 - prior) * (1.0 - CONFIRM_GAIN) ** max(confirmed, 0)
    value = support - SOFT_PENALTY * max(soft, 0) - DIRECT_PENALTY * max(direct, 0)
    return round(min(1.0, max(0.0, value)), DIGITS)


def archived(value: float, floor: float) -> bool:
    """Below the floor: out of recall, kept on disk, listed with `list --archived`."""
    return round(value, DIGITS) < floor


def ranking(value: float, days_unconfirmed: float | None, decay_days: float) -> float:
    """The confidence recall ranks by: decayed by the days since the lesson was last confirmed."""
    if days_unconfirmed is None or days_unconfirmed <= 0:
        return value
    return value * math.exp(-days_unconfirmed / decay_days)
