"""What a replay found, summed up: fires, hits, noise, misses and tokens, overall, per agent and per
lesson kind, each with its sample size (docs/replay.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.replay.simulate import Replayed


@dataclass
class Totals:
    """Counts over some fires and misses, and the sessions they came from."""

    sessions: int = 0
    failures: int = 0
    addressed: int = 0  # failures some earlier fire was about
    fires: int = 0
    hits: int = 0
    relevant: int = 0
    noise: int = 0
    misses: int = 0
    tokens_injected: int = 0
    tokens_saved: int = 0
    turns_saved: int = 0
    miss_reasons: Counter[str] = field(default_factory=Counter)

    @property
    def hit_rate(self) -> float | None:
        """Hits per fire; None without fires."""
        return round(self.hits / self.fires, 3) if self.fires else None

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "failures": self.failures,
            "addressed": self.addressed,
            "fires": self.fires,
            "hits": self.hits,
            "relevant": self.relevant,
            "noise": self.noise,
            "misses": self.misses,
            "miss_reasons": dict(sorted(self.miss_reasons.items())),
            "hit_rate": self.hit_rate,
            "tokens_injected": self.tokens_injected,
            "tokens_saved": self.tokens_saved,
            "turns_saved": self.turns_saved,
        }


@dataclass
class ReplayReport:
    """Every replayed session, with what was skipped and how many sessions were only learned from."""

    repo: str
    sessions: list[Replayed] = field(default_factory=list)
    learned_only: int = 0  # sessions before --since: learned from, not replayed
    lessons: int = 0  # lessons in the scratch store at the end
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def totals(self) -> Totals:
        return _sum(self.sessions)

    def by_agent(self) -> dict[str, Totals]:
        agents = sorted({s.agent for s in self.sessions})
        return {a: _sum([s for s in self.sessions if s.agent == a]) for a in agents}

    def by_kind(self) -> dict[str, Totals]:
        kinds = sorted(
            {f.kind for s in self.sessions for f in s.fires}
            | {m.kind for s in self.sessions for m in s.misses}
        )
        return {k: _sum(self.sessions, k) for k in kinds}

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "sessions": [_session_json(s) for s in self.sessions],
            "learned_only": self.learned_only,
            "lessons": self.lessons,
            "skipped": [{"what": what, "reason": why} for what, why in self.skipped],
            "totals": self.totals().to_json(),
            "by_agent": {agent: t.to_json() for agent, t in self.by_agent().items()},
            "by_kind": {kind: t.to_json() for kind, t in self.by_kind().items()},
        }


def _sum(sessions: list[Replayed], kind: str = "") -> Totals:
    """The totals of `sessions`, over the fires and misses of one lesson kind ("": all of them; then
    every session counts in the sample, else those where the kind fired or missed)."""
    totals = Totals()
    for session in sessions:
        counted = False
        if not kind:
            totals.failures += len(session.failures)
            totals.addressed += sum(1 for f in session.failures if f.addressed_by)
        saved_tokens, saved_turns = session.saved.get(kind, (0, 0))
        totals.tokens_saved += saved_tokens
        totals.turns_saved += saved_turns
        for fire in session.fires:
            if kind and fire.kind != kind:
                continue
            counted = True
            totals.fires += 1
            totals.tokens_injected += fire.tokens
            if fire.verdict == "hit":
                totals.hits += 1
            elif fire.verdict == "relevant":
                totals.relevant += 1
            else:
                totals.noise += 1
        for miss in session.misses:
            if not kind or miss.kind == kind:
                counted = True
                totals.misses += 1
                totals.miss_reasons[miss.reason] += 1
        totals.sessions += 1 if not kind or counted else 0
    return totals


def _session_json(session: Replayed) -> dict[str, Any]:
    return {
        "agent": session.agent,
        "session": session.session,
        "started": session.started.isoformat() if session.started else None,
        "events": session.events,
        "failures": [{"ref": f.ref, "addressed_by": list(f.addressed_by)} for f in session.failures],
        "fires": [
            {
                "lesson": f.lesson,
                "kind": f.kind,
                "source": f.source,
                "ref": f.ref,
                "tokens": f.tokens,
                "verdict": f.verdict,
                **(
                    {
                        "hit": {
                            "ref": f.hit_ref,
                            "mark": f.hit_mark,
                            "tokens": f.saved_tokens,
                            "turns": f.saved_turns,
                        }
                    }
                    if f.verdict == "hit"
                    else {}
                ),
            }
            for f in session.fires
        ],
        "misses": [
            {"lesson": m.lesson, "kind": m.kind, "ref": m.ref, "mark": m.mark, "reason": m.reason}
            for m in session.misses
        ],
        "learned": list(session.learned),
    }
