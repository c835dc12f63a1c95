"""The LLM extractor against a real HTTP llm_server on loopback with scripted replies.

Every reply the llm_server can give (valid JSON, prose-wrapped JSON, garbage, 429, 500, too slow, evidence
that is not in the session) either yields checked drafts or falls back to the heuristic extractor and
says why. Timeouts are bounded so the whole file runs in about a second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import extract
from reasonlessons.capture.extract.llm import digest as digests
from reasonlessons.capture.extract.llm.client import request_body
from reasonlessons.capture.extract.llm.config import DEFAULT_MODEL, LLMConfig, from_env
from reasonlessons.capture.extract.llm.extractor import LLMExtractor
from reasonlessons.capture.reduce.observations import SessionObservations
from reasonlessons.errors import UsageError
from tests.capturesupport import CAPTURE, NODE_REPO, observe
from tests.llmserver import Script, completion

VITEST_LOG = CAPTURE / "reasonix-v1" / "vitest-not-found.events.jsonl"
SECRETS_LOG = CAPTURE / "claude-code" / "secrets.jsonl"
SECRET = "ghp_0123456789abcdefghijABCDEFGHIJ012345"


def session(log: Path = VITEST_LOG) -> tuple[SessionObservations, SessionPlace]:
    (obs,) = observe(log)
    return obs, SessionPlace(obs.agent, obs.session_id, RepoFacts(NODE_REPO), cwd=obs.cwd)


def extractor(base_url: str, *, timeout: float = 2.0, key: str | None = "test-key") -> LLMExtractor:
    return LLMExtractor(LLMConfig(base_url, "deepseek-v4-flash", key, timeout), extract)


def lesson_json(evidence: list[str], **over: Any) -> dict[str, Any]:
    lesson = {
        "name": "use-npx-vitest",
        "description": "Run tests with `npx vitest run`; `npm test` cannot find vitest here",
        "body": "- Run `npx vitest run`, not `npm test`: vitest is not on the PATH of the npm script.",
        "outcome": "mixed",
        "evidence": evidence,
        "commands": ["npx vitest run"],
        "keywords": ["vitest"],
    }
    lesson.update(over)
    return lesson


def refs() -> list[str]:
    obs, place = session()
    return list(digests.build(obs, place).refs)


def heuristic() -> list[CandidateDraft]:
    obs, place = session()
    return extract(obs, place)


def test_a_valid_reply_becomes_drafts_citing_the_session(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    ref = refs()[0]
    script.replies.append((200, completion(json.dumps({"lessons": [lesson_json([ref])]})), 0))
    llm = extractor(url)
    (draft,) = llm(*session())
    assert (draft.name, draft.source, draft.outcome) == ("use-npx-vitest", "llm", "mixed")
    assert draft.evidence == [{"agent": "reasonix-v1", "session": session()[0].session_id, "ref": ref}]
    assert draft.triggers["commands"] == [r"\bnpx\s+vitest\s+run\b"]
    assert "package.json#devDependencies.vitest" in draft.fingerprint
    assert (llm.used, llm.fell_back, llm.notes) == (1, 0, [])
    sent = script.received[0]
    assert sent["temperature"] == 0
    assert sent["max_tokens"] == 600
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["thinking"] == {"type": "disabled"}
    assert sent["model"] == "deepseek-v4-flash"
    assert script.headers[0]["Authorization"] == "Bearer test-key"
    assert ref in sent["messages"][1]["content"]


def test_prose_wrapped_json_is_accepted(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    payload = json.dumps({"lessons": [lesson_json(refs()[:1])]})
    wrapped = f"Sure! Here is the lesson:\n```json\n{payload}\n```\nHope it helps."
    script.replies.append((200, completion(wrapped), 0))
    assert [d.name for d in extractor(url)(*session())] == ["use-npx-vitest"]


@pytest.mark.parametrize(
    ("status", "body", "why"),
    [
        (200, completion("I could not find anything useful, sorry."), "holds no JSON object"),
        (200, completion(json.dumps({"lessons": [], "extra": 1})), "nothing else"),
        (200, "<html>bad gateway</html>", "not a chat-completions response"),
        (429, '{"error": "rate limited"}', "HTTP 429"),
        (500, '{"error": "boom"}', "HTTP 500"),
    ],
)
def test_unusable_replies_fall_back_and_say_so(
    llm_server: tuple[str, Script], status: int, body: str, why: str
) -> None:
    url, script = llm_server
    script.replies.append((status, body, 0))
    llm = extractor(url)
    drafts = llm(*session())
    assert [d.name for d in drafts] == [d.name for d in heuristic()]
    assert llm.fell_back == 1
    (note,) = llm.notes
    assert why in note
    assert "used the heuristic extractor" in note


def test_a_slow_server_hits_the_hard_timeout(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    script.replies.append((200, completion('{"lessons": []}'), 1.5))
    llm = extractor(url, timeout=0.3)
    started = time.monotonic()
    drafts = llm(*session())
    assert time.monotonic() - started < 1.2
    assert drafts
    assert "within 0.3s" in llm.notes[0]


def test_invented_evidence_is_rejected(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    invented = lesson_json(["vitest-not-found.events.jsonl:999"], name="made-up")
    script.replies.append((200, completion(json.dumps({"lessons": [invented]})), 0))
    llm = extractor(url)
    drafts = llm(*session())
    assert "made-up" not in [d.name for d in drafts]  # the only lesson was rejected: heuristic instead
    assert any("invented" in n for n in llm.notes)
    assert any("every lesson it proposed was rejected" in n for n in llm.notes)

    good = lesson_json(refs()[:1])
    script.replies.append((200, completion(json.dumps({"lessons": [invented, good]})), 0))
    llm = extractor(url)
    assert [d.name for d in llm(*session())] == ["use-npx-vitest"]
    assert len(llm.notes) == 1
    assert "made-up" in llm.notes[0]


def test_schema_is_strict_per_lesson(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    ref = refs()[:1]
    bad = [
        lesson_json(ref, outcome="great"),
        lesson_json(ref, surprise="x"),
        lesson_json(ref, description=""),
        lesson_json([], name="no-evidence"),
    ]
    script.replies.append((200, completion(json.dumps({"lessons": bad})), 0))
    llm = extractor(url)
    llm(*session())
    assert llm.fell_back == 1
    assert len([n for n in llm.notes if "rejected an LLM lesson" in n]) == 3  # at most 3 are read


def test_only_redacted_text_is_sent(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    script.replies.append((200, completion('{"lessons": []}'), 0))
    extractor(url)(*session(SECRETS_LOG))
    sent = json.dumps(script.received[0])
    assert SECRET not in sent
    assert "[REDACTED:" in sent
    assert "/work/demo" not in sent  # absolute paths stay home


def test_no_key_no_request(llm_server: tuple[str, Script]) -> None:
    url, script = llm_server
    llm = extractor(url, key=None)
    assert llm(*session())
    assert script.received == []
    assert "no API key" in llm.notes[0]


def test_config_from_environment() -> None:
    config = from_env({"DEEPSEEK_API_KEY": "k1"})
    assert (config.base_url, config.model, config.api_key) == (
        "https://api.deepseek.com",
        DEFAULT_MODEL,
        "k1",
    )
    assert config.endpoint == "https://api.deepseek.com/chat/completions"
    assert "k1" not in repr(config)
    other = from_env(
        {
            "REASONLESSONS_LLM_BASE_URL": "http://127.0.0.1:9/v1/",
            "REASONLESSONS_LLM_MODEL": "qwen2.5-coder",
            "REASONLESSONS_LLM_API_KEY": "k2",
            "DEEPSEEK_API_KEY": "k1",
            "REASONLESSONS_LLM_TIMEOUT": "5",
        }
    )
    assert (other.endpoint, other.api_key, other.timeout) == (
        "http://127.0.0.1:9/v1/chat/completions",
        "k2",
        5.0,
    )
    assert "thinking" not in request_body(other, [])  # only DeepSeek understands it
    with pytest.raises(UsageError, match="http"):
        from_env({"REASONLESSONS_LLM_BASE_URL": "file:///etc/passwd"})
    with pytest.raises(UsageError, match="seconds"):
        from_env({"REASONLESSONS_LLM_TIMEOUT": "soon"})


def test_the_digest_carries_the_workflow_observations(llm_server: tuple[str, Script]) -> None:
    """Commit gates, loops, fixes named by an error, setup steps and a subagent's tool rule reach the
    model as they reach the heuristic extractor, each line citing its log lines."""
    from tests.paths import RESOURCES

    repos = RESOURCES / "repos"
    shown = []
    for log in ("elixir-commit.jsonl", "elixir-setup.jsonl"):
        (obs,) = observe(CAPTURE / "claude-code" / log, root=repos / "capture-elixir")
        place = SessionPlace(obs.agent, obs.session_id, RepoFacts(repos / "capture-elixir"), cwd=obs.cwd)
        built = digests.build(obs, place)
        shown.append(built.text)
        url, script = llm_server
        script.replies.append((200, completion(json.dumps({"lessons": []})), 0))
        assert extractor(url)(obs, place) == []
        assert built.text in script.received[-1]["messages"][1]["content"]
    commit, setup = shown
    assert "`git commit` was rejected 4x by a check (Pre-commit validation failed: [FORMAT]" in commit
    assert "accepted after `mix format`, `mix dialyzer` ran" in commit
    assert "a loop: `git commit` failed 3 times with: Pre-commit validation failed: [DIALYZER]" in commit
    assert "also with `--no-verify`" in commit
    assert "the message said to run `mix deps.get`; after `mix deps.get` it passed" in setup
    assert (
        "[ref: agent-f00d1.jsonl:3] the agent's own tool refused a call (in a subagent) (read-too-large"
        in setup
    )
    assert "`MIX_ENV=test mix ecto.migrate` ran and then `mix test` passed" in setup


def test_the_digest_says_when_a_named_command_ran_in_place_of_the_refused_one(tmp_path: Path) -> None:
    from reasonlessons.capture.reduce.observations import (
        Call,
        Failure,
        SessionObservations,
        Step,
        SuggestedFix,
    )
    from reasonlessons.sessions.commands import segments

    (npm,), (bun,) = segments("npm test"), segments("bun test")
    call = Call(1, "shell", "npm test", "s.jsonl:1", npm, command="npm test")
    said = "PreToolUse:Bash hook error: npm is not used here. Use bun instead (e.g. `bun test`)."
    fix = SuggestedFix(
        Failure(call, "sig", call.ref, said, excerpt=said), "bun test", Step("bun test", bun, "s.jsonl:2"),
        "s.jsonl:2", replaces=True,
    )  # fmt: skip
    obs = SessionObservations("claude-code", "s", items=[fix])
    text = digests.build(obs, SessionPlace("claude-code", "s", RepoFacts(tmp_path))).text
    assert "the message named `bun test` instead; `bun test` passed in its place" in text
