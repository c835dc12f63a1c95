from __future__ import annotations

from dataclasses import replace

import pytest

from reasonlessons.capture import gates
from reasonlessons.capture.dedupe import find_duplicate, jaccard, score
from reasonlessons.capture.extract.draft import CandidateDraft
from reasonlessons.capture.reduce.observations import SessionObservations, Writ
from reasonlessons.lessons.model import Lesson
from reasonlessons.store.config import DEFAULTS

EVIDENCE = [{"agent": "reasonix-v1", "session": "s#1", "ref": "s.events.jsonl:9"}]


def _draft(**fields: object) -> CandidateDraft:
    base = CandidateDraft(
        name="npm-test-vitest-not-found",
        description="`npm test` fails here with `vitest: not found`; run `npx vitest run` instead",
        body="- Run `npx vitest run`, not `npm test`: here `npm test` fails (exit 127).",
        kind="command-fix",
        fingerprint=["package.json#scripts.test"],
        evidence=list(EVIDENCE),
        outcome="mixed",
        claims=["npm test", "npx vitest run"],
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def _lesson(name: str, description: str, body: str, fingerprint: list[str], scope: str = "project") -> Lesson:
    meta = {"name": name, "description": description, "fingerprint": fingerprint, "captured-at": "2026-05-05"}
    return Lesson(meta=meta, body=body, scope=scope)


@pytest.mark.parametrize(
    ("calls", "complete", "reason"),
    [
        (2, True, "fewer than 3 tool calls (2)"),
        (3, False, "still being written (not in a terminal state yet)"),
        (3, True, None),
    ],
)
def test_session_gate(calls: int, complete: bool, reason: str | None) -> None:
    obs = SessionObservations(agent="a", session_id="s", tool_calls=calls)
    assert gates.session_skip_reason(obs, complete=complete) == reason


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"evidence": []}, "no evidence"),
        ({"name": "Bad Name"}, "invalid name 'Bad Name'"),
        ({"description": "two\nlines"}, "description must be one non-empty line"),
        ({"body": "  "}, "empty body"),
        ({"fingerprint": ["/etc/passwd"]}, "invalid fingerprint entries ['/etc/passwd']"),
        ({"outcome": "great"}, "outcome 'great'"),
    ],
)
def test_a_draft_without_evidence_or_with_bad_fields_is_not_written(
    change: dict[str, object], problem: str
) -> None:
    assert gates.problem(_draft(**change)) == problem
    kept, dropped = gates.prepare([_draft(**change)])
    assert kept == []
    assert dropped[0][1] == problem


def test_secrets_are_redacted_from_every_field() -> None:
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0" * 2
    draft = _draft(
        body=f"- Push with `GH_TOKEN={token} git push`.",
        evidence=[{"agent": "a", "session": token, "ref": "x:1"}],
        triggers={"keywords": [token]},
    )
    cleaned, why = gates.clean(draft)
    assert cleaned is not None, why
    assert token not in repr(cleaned)
    assert "[REDACTED:github-token]" in cleaned.body
    evidence = gates.clean_evidence(draft.evidence)
    assert evidence == [{"agent": "a", "session": "[REDACTED:github-token]", "ref": "x:1"}]


def test_redaction_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> object:
        raise RuntimeError("regex engine broke")

    monkeypatch.setattr(gates, "redact", broken)
    monkeypatch.setattr(gates, "redact_value", broken)
    monkeypatch.setattr(gates, "holds_secret", broken)  # the one-scan fast path breaks too
    cleaned, why = gates.clean(_draft())
    assert cleaned is None
    assert "fail closed" in why
    assert gates.clean_evidence(list(EVIDENCE)) is None


def test_unclean_text_after_redaction_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonlessons.safety.redact import RedactResult

    monkeypatch.setattr(gates, "redact", lambda text: RedactResult(text, []))  # a redactor that misses
    cleaned, _ = gates.clean(_draft(body="- use AKIAIOSFODNN7EXAMPLE"))
    assert cleaned is None
    monkeypatch.setattr(gates, "redact_value", lambda value: (value, []))
    assert gates.clean_evidence([{"agent": "a", "session": "AKIAIOSFODNN7EXAMPLE", "ref": "x:1"}]) is None


def test_at_most_five_candidates_per_session_strongest_first() -> None:
    drafts = [
        _draft(
            name=f"v{i}",
            kind="verification",
            claims=[f"cmd{i}"],
            description=f"Run tool{i} now",
            body=f"- t{i}",
        )
        for i in range(6)
    ]
    drafts.append(_draft(name="writ", kind="writ", claims=[], description="A stated rule", body="- stated"))
    kept, dropped = gates.prepare(drafts)
    assert len(kept) == gates.MAX_PER_SESSION
    assert kept[0].name == "writ"
    assert [reason for _, reason in dropped] == ["over the limit of 5 candidates per session"] * 2


def test_drafts_saying_the_same_thing_in_one_session_merge_their_evidence() -> None:
    other = [{"agent": "reasonix-v1", "session": "s#1", "ref": "s.events.jsonl:16"}]
    verification = _draft(
        name="test-command",
        kind="verification",
        description="Run tests with `npx vitest run`",
        body="- Run tests with `npx vitest run`; it passed.",
        claims=["npx vitest run"],
        evidence=other,
    )
    kept, dropped = gates.prepare([verification, _draft()])
    assert [d.name for d in kept] == ["npm-test-vitest-not-found"]
    assert kept[0].evidence == EVIDENCE + other
    assert dropped == []


def test_near_duplicates() -> None:
    esm = _lesson(
        "esm-imports",
        "Relative imports take a .js suffix (TypeScript with module NodeNext)",
        "- A missing suffix fails `npx tsc --noEmit` with TS2835.",
        ["tsconfig.json#compilerOptions.module", "package.json#type"],
    )
    typecheck = _lesson(
        "typecheck-command",
        "Type-check with `npx tsc --noEmit`",
        "- It is what `npm run typecheck` runs.",
        ["package.json#scripts.typecheck", "tsconfig.json"],
        scope="candidate",
    )
    ts2835 = _draft(
        name="tsc-ts2835",
        kind="edit-fix",
        description="TS2835: Relative import paths need explicit file extensions",
        fingerprint=["tsconfig.json#compilerOptions.module", "package.json#type"],
        claims=["npx tsc --noEmit", "TS2835"],
    )
    verify = _draft(
        name="typecheck-command",
        kind="verification",
        description="Type-check with `npx tsc --noEmit` (package.json `typecheck` script)",
        body="- Type-check with `npx tsc --noEmit`; it passed.",
        fingerprint=["package.json#scripts.typecheck", "package.json#devDependencies.typescript"],
        claims=["npx tsc --noEmit"],
    )
    assert find_duplicate(ts2835, [esm, typecheck]) is esm
    assert find_duplicate(verify, [esm, typecheck]) is typecheck
    # Asymmetric: the command fix says more than "run npx vitest run", so it is not covered by it.
    plain = _lesson(
        "test-command", "Run tests with `npx vitest run`", "- passes", ["package.json#scripts.test"]
    )
    assert score(_draft(), plain) == 0
    covered = _draft(
        kind="verification", claims=["npx vitest run"], description="Run tests with `npx vitest run`"
    )
    full = _lesson("x", _draft().description, _draft().body, ["package.json#scripts.test"], scope="candidate")
    assert find_duplicate(covered, [full]) is full


def test_rewording_and_exact_text_count_as_duplicates_but_other_commands_do_not() -> None:
    lesson = _lesson("a", _draft().description, _draft().body, [])
    assert score(_draft(claims=[]), lesson) == 10.0
    reworded = _draft(claims=[], description=_draft().description.upper())
    assert score(reworded, lesson) >= 5
    other = _draft(claims=["npx jest"], description="`npm test` fails here; run `npx jest` instead")
    assert jaccard(other.description + other.body, lesson.description + lesson.body) > 0.5
    assert score(other, lesson) == 0


def test_a_writ_restating_a_lesson_of_its_name_is_a_duplicate() -> None:
    lesson = _lesson("changelog", "Keep a changelog", "- something else entirely", [])
    writ = _draft(name="changelog", kind="writ", source="writ", claims=[], description="Log every change")
    assert find_duplicate(writ, [lesson]) is lesson


def test_evidence_and_outcome_merging() -> None:
    items = [{"agent": "a", "session": f"s{i}", "ref": f"r{i}"} for i in range(20)]
    merged = gates.merge_evidence(items[:3], items[2:])
    assert len(merged) == gates.MAX_EVIDENCE
    assert merged[:4] == items[:4]
    assert merged[-1] == items[-1]
    assert gates.merge_evidence(items[:2], items[:2]) == items[:2]
    assert gates.merge_outcome("success", "success") == "success"
    assert gates.merge_outcome("success", "failure") == "mixed"
    assert gates.merge_outcome(None, "failure") == "failure"


def test_checking_a_sessions_drafts_together_gives_what_checking_each_gives() -> None:
    """check_all scans a session's drafts in one go; a secret anywhere sends it draft by draft,
    and either way the verdicts are those of `check`."""
    token = "ghp_" + "Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc"
    clean = [_draft(), _draft(name="second", body="- Run `npx vitest run`.", evidence=[dict(EVIDENCE[0])])]
    leaky = [*clean, _draft(name="third", body=f"- Push with {token}.")]
    bad = [_draft(name="Not A Name")]  # fails a gate other than redaction
    for drafts in (clean, leaky, bad, []):
        assert gates.check_all(drafts) == [gates.check(d) for d in drafts]
    together = gates.check_all(leaky)
    cleaned = together[2].cleaned[0]
    assert cleaned is not None
    assert token not in cleaned.body
    assert together[0].cleaned[0] is not None
    assert together[0].evidence == EVIDENCE


def test_evidence_holding_a_secret_is_redacted_when_checked_together() -> None:
    token = "ghp_" + "Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc"
    evidence = [{"agent": "reasonix-v1", "session": f"s-{token}", "ref": "s.events.jsonl:9"}]
    (checked,) = gates.check_all([_draft(evidence=evidence)])
    assert checked.evidence is not None
    assert token not in str(checked.evidence)
    assert checked.cleaned[0] is not None
    assert token not in str(checked.cleaned[0].evidence)


# -- settings, confidence, writs (issue 21) --------------------------------------------------------


def test_settings_move_the_gates() -> None:
    obs = SessionObservations(agent="a", session_id="s", tool_calls=2)
    assert gates.session_skip_reason(obs, complete=True, settings=DEFAULTS.replace(min_tool_calls=2)) is None
    drafts = [_draft(name=f"d{i}", claims=[f"x{i}"], description=f"Run `tool{i}` here") for i in range(3)]
    kept, dropped = gates.prepare(drafts, settings=DEFAULTS.replace(max_candidates=2))
    assert len(kept) == 2
    assert dropped[0][1] == "over the limit of 2 candidates per session"


def test_drafts_below_the_minimum_confidence_are_not_written() -> None:
    assert _draft().certainty == 0.75  # a command fix: a failure, then what worked
    assert _draft(confidence=0.55).certainty == 0.55
    kept, dropped = gates.prepare([_draft(confidence=0.55)])
    assert kept == []
    assert dropped == [
        ("npm-test-vitest-not-found", "confidence 0.55 is below the minimum 0.6 (capture.min-confidence)")
    ]
    kept, _ = gates.prepare([_draft()], settings=DEFAULTS.replace(min_confidence=0.8))
    assert kept == []
    assert gates.prepare([_draft()])[0][0].extra()["confidence"] == 0.75


def test_writs_always_land() -> None:
    writ = _draft(name="pnpm-only", kind="writ", confidence=0.1, claims=["pnpm"], description="Use `pnpm`")
    strict = DEFAULTS.replace(min_confidence=0.95, max_candidates=1)
    short = SessionObservations(
        agent="a", session_id="s", tool_calls=1, items=[Writ("pnpm", "Use pnpm", "r")]
    )
    assert gates.session_skip_reason(short, complete=True) is None  # a writ opens a short session
    assert gates.session_skip_reason(replace(short, items=[]), complete=True) == "fewer than 3 tool calls (1)"
    only = gates.writs_only(short)
    kept, dropped = gates.prepare([_draft(), writ], settings=strict, only_writs=only)
    assert [d.name for d in kept] == ["pnpm-only"]
    assert dropped[0][0] == "npm-test-vitest-not-found"
    kept, _ = gates.prepare([_draft(), writ], only_writs=only)
    assert [d.name for d in kept] == ["pnpm-only"]  # only its writs are taken from a short session


def test_a_tool_rule_is_limited_to_the_agent_it_was_seen_with() -> None:
    rule = _draft(
        name="edit-absolute-path",
        kind="args-fix",
        claims=["file_path"],
        description="Pass `file_path` absolute",
    )
    rule.evidence = [{"agent": "claude-code", "session": "s", "ref": "t.jsonl:4"}]
    (kept,), _ = gates.prepare([rule])
    assert kept.agents == ["claude-code"]
    assert kept.extra()["agents"] == ["claude-code"]
    (shell,), _ = gates.prepare([_draft()])
    assert shell.agents == []  # a shell command lesson is for every agent
