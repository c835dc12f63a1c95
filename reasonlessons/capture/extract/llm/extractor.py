"""The extractor capture calls with `--extractor llm`: ask the LLM, else fall back and say why."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.extract.llm import digest as digests
from reasonlessons.capture.extract.llm.client import LLMError, chat
from reasonlessons.capture.extract.llm.config import LLMConfig, from_env
from reasonlessons.capture.extract.llm.reply import ReplyError, parse_reply
from reasonlessons.capture.reduce.observations import SessionObservations
from reasonlessons.errors import UsageError

Extract = Callable[[SessionObservations, SessionPlace], list[CandidateDraft]]
Chat = Callable[[LLMConfig, list[dict[str, str]]], str]


@dataclass
class LLMExtractor:
    """Callable like the heuristic `extract`; `notes` say, per session, when and why it fell back."""

    config: LLMConfig
    fallback: Extract
    send: Chat = chat
    notes: list[str] = field(default_factory=list)
    used: int = 0
    fell_back: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str], fallback: Extract) -> LLMExtractor:
        return cls(from_env(env), fallback)

    def __call__(self, obs: SessionObservations, place: SessionPlace) -> list[CandidateDraft]:
        digest = digests.build(obs, place)
        if digest.empty:
            return self.fallback(obs, place)  # nothing observed worth a request
        try:
            reply = self.send(self.config, digests.messages(digest))
            parsed = parse_reply(reply, digest, place)
        except (LLMError, ReplyError) as exc:
            return self._fall_back(obs, place, str(exc))
        for why in parsed.rejected:
            self.notes.append(f"session {obs.session_id}: rejected an LLM lesson: {why}")
        if parsed.proposed and not parsed.drafts:
            return self._fall_back(obs, place, "every lesson it proposed was rejected")
        self.used += 1
        return parsed.drafts

    def _fall_back(self, obs: SessionObservations, place: SessionPlace, why: str) -> list[CandidateDraft]:
        self.fell_back += 1
        self.notes.append(
            f"session {obs.session_id}: LLM extractor failed ({why}); used the heuristic extractor"
        )
        return self.fallback(obs, place)


EXTRACTORS = ("heuristic", "llm")


def choose(name: str, env: Mapping[str, str]) -> Extract | None:
    """The extractor for `capture --extractor NAME` (None: capture's own heuristic one)."""
    if name == "heuristic":
        return None
    if name == "llm":
        return LLMExtractor.from_env(env, extract)
    raise UsageError(f"--extractor {name!r}: use {' or '.join(EXTRACTORS)}")
