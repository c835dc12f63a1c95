from __future__ import annotations

import pytest

from reasonlessons.safety.redact import (
    SecretFoundError,
    anonymize_paths,
    assert_clean,
    find_secrets,
    redact,
    redact_value,
)

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
SECRETS = [
    ("aws-access-key", "key AKIAIOSFODNN7EXAMPLE in the env", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("github-token", f"git clone https://{GITHUB}@github.com/x/y", GITHUB),
    ("github-token", "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABC"),
    ("gitlab-token", "GL=glpat-abcdefghij0123456789", "glpat-abcdefghij"),
    ("slack-token", "xoxb-123456789012-abcdefghijklmnop", "xoxb-1234"),
    ("slack-webhook", "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX", "T000/B000"),
    ("api-key", "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456", "sk-proj-abc"),
    ("api-key", "claude key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "sk-ant-api03"),
    ("api-key", "deepseek sk-0123456789abcdef0123456789abcdef", "sk-0123456789abcdef"),
    ("jwt", "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0", "eyJ"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----", "MIIEow"),
    ("url-password", "DATABASE_URL=postgres://app:pa55w0rd@db.internal/app", "pa55w0rd"),
    ("bearer-token", "curl -H 'Authorization: Bearer abcdef0123456789abcdef012345'", "abcdef0123456789"),
    ("env-secret", "DB_PASSWORD=correct-horse-battery", "correct-horse"),
    ("env-secret", "STRIPE_SECRET: 'whsec_live_value_1'", "whsec_live"),
    ("password", "password: hunter2hunter2", "hunter2"),
    ("keyed-secret", 'api_key = "a8f3k2m9x7q1w5e6r4t2"', "a8f3k2m9"),
    ("npm-token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abc"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS)
def test_each_kind_of_secret_is_redacted(kind: str, text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert "[REDACTED:" in result.text
    assert result.found
    assert find_secrets(result.text) == []
    with pytest.raises(SecretFoundError):
        assert_clean(text)
    assert_clean(result.text)


@pytest.mark.parametrize(
    "text",
    [
        "Run tests with `npx vitest run`: `npm test` fails with `vitest: not found` (exit 127).",
        "MAX_TOKENS=4000 and PASSWORD_MIN_LENGTH=12",
        "TOKEN=$GITHUB_TOKEN npm run release",
        "PWD=/home/dev/project",
        "commit 3e232a99ab04b6ce586168ef27bdc31055868a85 touched package.json#scripts.test",
        "the `tokenize` function splits on whitespace; see tests/test_tokens.py",
        "xxh3:cbb63082353e9a8a",
        "password: str",
    ],
)
def test_ordinary_lesson_text_is_left_alone(text: str) -> None:
    assert redact(text).text == text
    assert_clean(text)


def test_redaction_is_idempotent_and_keeps_the_rest() -> None:
    text = f"push with {GITHUB} then run `npm test`"
    once = redact(text)
    assert once.text == "push with [REDACTED:github-token] then run `npm test`"
    assert once.found == ["github-token"]
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.found == []


def test_overlapping_matches_become_one_placeholder() -> None:
    result = redact("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456")
    assert result.text.count("[REDACTED") == 1


def test_redact_value_walks_nested_data() -> None:
    value = {"evidence": [{"ref": f"log:1 {GITHUB}"}], "n": 3, "ok": True}
    cleaned, found = redact_value(value)
    assert cleaned == {"evidence": [{"ref": "log:1 [REDACTED:github-token]"}], "n": 3, "ok": True}
    assert found == ["github-token"]


def test_anonymize_paths_hides_other_peoples_home_directories() -> None:
    text = r"/home/ana/proj/a.py and /Users/bo/x and C:\Users\yu\AppData\Local and /opt/app/b"
    assert anonymize_paths(text) == r"~/proj/a.py and ~/x and ~\AppData\Local and /opt/app/b"


def test_holds_secret_scans_each_clean_string_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonlessons.safety import redact as privacy

    monkeypatch.setattr(privacy, "_KNOWN_CLEAN", {})
    scanned: list[str] = []
    real = privacy._spans

    def spans(text: str) -> list[tuple[int, int, str]]:
        scanned.append(text)
        return real(text)

    monkeypatch.setattr(privacy, "_spans", spans)
    body = "- Run `npx vitest run`, not `npm test`: here `npm test` fails with `vitest: not found`."
    assert not privacy.holds_secret({"body": body, "evidence": [{"ref": "log:1"}]})
    assert not privacy.holds_secret({"body": body, "evidence": [{"ref": "log:9"}]})
    assert scanned[1] == "log:9"  # the body was found clean before: only the new string is scanned
    assert not privacy.holds_secret([body, "log:9"])
    assert len(scanned) == 2  # nothing new, no scan at all


def test_holds_secret_still_finds_a_secret_beside_known_clean_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonlessons.safety import redact as privacy

    monkeypatch.setattr(privacy, "_KNOWN_CLEAN", {})
    assert not privacy.holds_secret(["plain words", "more plain words"])
    assert privacy.holds_secret(["plain words", f"git clone https://{GITHUB}@github.com/x/y"])
    assert privacy.holds_secret([f"git clone https://{GITHUB}@github.com/x/y"])  # never remembered as clean


def test_holds_secret_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonlessons.safety import redact as privacy

    monkeypatch.setattr(privacy, "_KNOWN_CLEAN", {})
    monkeypatch.setattr(privacy, "_KNOWN_CLEAN_MAX", 10)
    for n in range(25):
        assert not privacy.holds_secret([f"line number {n}", "x" * (privacy._KNOWN_CLEAN_LEN + 1)])
    # The newest are kept; a long string never is.
    assert list(privacy._KNOWN_CLEAN) == [f"line number {n}" for n in range(15, 25)]


def test_a_made_up_word_after_a_password_key_is_a_value_but_a_camel_case_name_is_not() -> None:
    # Base64 or a generated password can come out without a digit; a variable is made of words.
    assert (
        redact("data:\n  password: GuZQGlRulEIDWjCCKqeVgaYP").text == "data:\n  password: [REDACTED:password]"
    )
    for code in (
        "{ password: getUserDBPasswordFromAWSSecretsManager }",
        "password: readPasswordFromAnIOStream",
    ):
        assert redact(code).text == code


def test_a_password_stated_in_prose_with_an_adverb_is_redacted_but_words_stay() -> None:
    assert redact("the root password on staging is now Tq7!vR2mLx9pZk4w").text == (
        "the root password on staging is now [REDACTED:password]"
    )
    for prose in ("the password is now required for login", "the token is now expired"):
        assert redact(prose).text == prose


def _hint_texts() -> list[str]:
    from tests.secretcorpus import corpus, ordinary_lines, wide_corpus

    return (
        [s.context for s in corpus() + wide_corpus()]
        + ordinary_lines()
        + [
            "a pattern for the path, nothing secret",
            "",
        ]
    )


def test_the_rules_picked_by_hint_are_every_rule_the_old_loop_ran() -> None:
    """redact and secretscan pick format rules and detector patterns through an index of their
    hints; every rule whose own test passes (the loop over all rules before) must be picked."""
    from reasonlessons.safety import redact as module
    from reasonlessons.safety import secretscan
    from reasonlessons.safety.needs import may_match

    plan, words = module._plan()
    by_hint, unhinted = module._rules_by_hint()
    regex, _, _, detector_words = secretscan._detectors()
    checked = 0
    for text in _hint_texts():
        folded = text.lower()
        present = words.present(folded)
        picked = {*unhinted, *(i for low in present for i in by_hint.get(low, ()))}
        for i, (_, hints, ignore_case) in enumerate(plan):
            seen = folded if ignore_case else text
            if not hints or any(low in present and h in seen for h, low in hints):
                assert i in picked, (text, plan[i][0].kind)
                checked += 1
        present = detector_words.present(folded)
        candidates = set(secretscan._candidates(regex, present))
        for d, detector in enumerate(regex):
            for p, (_, needed, ignore_case) in enumerate(detector.patterns):
                if may_match(needed, folded if ignore_case else text, present):
                    assert (d, p) in candidates, (text, detector.kind)
                    checked += 1
    assert checked > 1000


def test_the_position_finders_first_checks_skip_nothing() -> None:
    """_assignments, _env_lines, _flags and _cli look for a character or a whole word their
    pattern needs before searching: on every corpus text, and on texts that hold the hint but not
    the rest, they find what the bare patterns find."""
    from reasonlessons.safety import positions as p

    def bare_cli(text: str) -> list[p.Span]:
        gate = p._COMMANDS
        p._COMMANDS = _ALWAYS  # type: ignore[misc]  (its check always passes)
        try:
            return list(p._cli(text))
        finally:
            p._COMMANDS = gate  # type: ignore[misc]

    texts = _hint_texts() + [
        "DB_PASS=hunter2x", "token: Zx9qLm3vTq7RpW2k", "ENV DB_PASSWORD s3cr3tValue9",
        "ARG API_TOKEN=abc12345", "setx API_KEY Zx9qLm3vTq7RpW2k", "set -x DB_PASS hunter2x",
        "mysql -u root -phunter2x db", "/usr/bin/mysql -u app --password=hunter2x",
        "~/bin/psql --password x", "lazy azure path pattern", "run `mysql` later",
        "sshpass -p hunter2x ssh host", "a-mysql -p x", "mysql.exe -p x", "-P Zx9qLm3vTq7RpW2k",
    ]  # fmt: skip
    assert all(p._RUN.fullmatch(command) for command in p._COMMANDS)  # each is one whole run
    found = 0
    for text in texts:
        assert list(p._assignments(text)) == list(p._named(p._ASSIGN, text)), text
        assert list(p._env_lines(text)) == list(p._named(p._ENV_LINE, text)), text
        assert list(p._flags(text)) == list(p._named(p._FLAG, text, flag=True)), text
        assert list(p._cli(text)) == bare_cli(text), text
        found += len(list(p._assignments(text))) + len(list(p._cli(text)))
    assert found > 100


class _Always(frozenset[str]):
    def isdisjoint(self, other: object) -> bool:
        return False


_ALWAYS = _Always()


def test_rules_skipped_for_want_of_a_long_word_cannot_match_without_one() -> None:
    """A rule's `run` (and _B64_MIN) is a length every match reaches without whitespace: checked
    on every match in the corpora and on runs of the rules' own alphabets, and what the scan finds
    with the words' lengths known is what it finds without."""
    from reasonlessons.safety import formats
    from reasonlessons.safety import redact as module

    gated = [(r.pattern, r.run) for r in (*formats.RULES, *formats.GENERIC) if r.run]
    gated.append((module._B64_RUN, module._B64_MIN))
    assert len(gated) >= 4
    texts = _hint_texts() + [
        "x " + "abcdefgh234567" * 4,
        "ghp_" + "Ab3" * 12,
        "key AbC9dEf2GhI5jKl8MnO1pQr4 end",
        "dXNlcjpwYXNzd29yZDEyMw==",
        "tok_live-" + "Zx9qLm3vTq7RpW2k" * 2,
    ]
    matched = 0
    for text in texts:
        for pattern, run in gated:
            for match in pattern.finditer(text):
                assert len(match.group(0)) >= run
                assert not any(c.isspace() for c in match.group(0))
                matched += 1
        folded = text.lower()
        present = module._plan()[1].present(folded)
        assert list(module._format_spans(text, folded, present)) == list(
            module._format_spans(text, folded, present, longest=1 << 30)
        )
        assert list(module._encoded_spans(text, 0)) == list(module._encoded_spans(text, 0, longest=1 << 30))
    assert matched > 50
