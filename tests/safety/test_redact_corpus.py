"""The privacy filter against a corpus of 50 secret formats, and against ordinary code and logs.

The secrets are generated at test time (tests/secretcorpus.py). End to end, they are embedded in
session logs of all three formats, captured, promoted, recalled, listed and exported: none may be
found in any file or output afterwards, while the text around them (markers) must be.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.safety import redact, secretscan
from tests import sessionlogs
from tests.invoke import Invoke
from tests.secretcorpus import Secret, corpus, ordinary_lines

CORPUS = corpus()
NOW = dt.datetime(2026, 5, 6, 12, 0, tzinfo=dt.UTC)


def test_the_corpus_covers_at_least_thirty_formats() -> None:
    assert len({s.kind for s in CORPUS}) == len(CORPUS) >= 30


@pytest.mark.parametrize("secret", CORPUS, ids=lambda s: s.kind)
def test_every_format_is_redacted(secret: Secret) -> None:
    result = redact.redact(secret.context)
    assert result.found
    for value in secret.values:
        assert value not in result.text
    assert redact.find_secrets(result.text) == []
    with pytest.raises(redact.SecretFoundError):
        redact.assert_clean(secret.context)


def _covered(spans: list[tuple[int, int, str]], secret: Secret) -> bool:
    text = secret.context
    return all(
        any(start <= text.find(v) and text.find(v) + len(v) <= end for start, end, _ in spans)
        for v in secret.values
    )


def _own_spans(text: str) -> list[tuple[int, int, str]]:
    return redact.own_spans(text)


def test_both_finders_pull_their_weight() -> None:
    """The coverage table of docs/security.md: what detect-secrets finds alone, what our patterns add."""
    library = {s.kind for s in CORPUS if _covered(secretscan.spans(s.context), s)}
    own = {s.kind for s in CORPUS if _covered(_own_spans(s.context), s)}
    assert len(library) >= 25, sorted(library)
    assert {"sendgrid", "discord-bot"} <= library - own
    assert {"anthropic", "deepseek", "openai-project", "rsa-private-key", "bearer-token", "env-db-password",
            "github-fine-grained", "google-api-key"} <= own - library  # fmt: skip
    assert library | own == {s.kind for s in CORPUS}


def test_false_positives_on_ordinary_code_and_logs_stay_under_one_percent() -> None:
    lines = ordinary_lines()
    assert len(lines) > 10_000
    changed = [line for line in lines if redact.redact(line).text != line]
    assert len(changed) / len(lines) < 0.01, changed[:20]
    generated = lines[-4200:]  # hashes, UUIDs, digests, base64 images
    assert [line for line in generated if redact.redact(line).text != line] == []


def _session(chunk: list[tuple[int, Secret]]) -> list[sessionlogs.Turn]:
    """Secrets where a session shows them: commands, their output, and `/lesson` writs kept verbatim."""
    turns: list[sessionlogs.Turn] = [("user", "deploy the preview and note what you learn")]
    for n, secret in chunk:
        turns.append(("tool", f"echo step{n} && {secret.context.splitlines()[0]}", "ok", 0))
    turns.append(("tool", "cat .env", "\n".join(s.context for _, s in chunk), 0))
    turns.append(("tool", "npx vitest run", "Test Files  2 passed (2)", 0))
    for n, secret in chunk:
        turns.append(("user", f"/lesson secret-{n}\nmarker{n}q keeps this: {secret.context}\n/endlesson"))
    turns.append(("end", "Done."))
    return turns


def test_no_secret_from_a_session_log_survives_into_any_file_or_output(
    make_repo: Callable[[str], Path],
    cli_invoke: Invoke,
    tmp_path: Path,
    isolated_home: Path,
) -> None:
    repo = make_repo("capture-node")
    numbered = list(enumerate(CORPUS))
    chunks = [numbered[i : i + 4] for i in range(0, len(numbered), 4)]
    logs: list[Path] = []
    for i, chunk in enumerate(chunks):
        session = f"{i:08x}-2222-4333-8444-555555555555"
        if i % 3 == 0:
            logs.append(sessionlogs.claude_code(tmp_path / "cc", session, _session(chunk)))
        elif i % 3 == 1:
            logs.append(sessionlogs.codex(tmp_path / "codex", session, _session(chunk)))
        else:
            logs.append(sessionlogs.reasonix_v1(tmp_path / "rx", f"sess{i}", [_session(chunk)]))
    outputs = [cli_invoke("capture", *logs, "--json", "--repo", repo).stdout]
    report = json.loads(outputs[0])
    assert len(report["candidates"]) >= len(CORPUS)
    for n in range(0, len(CORPUS), 2):  # half of them become project lessons
        outputs.append(cli_invoke("promote", f"secret-{n}", "--repo", repo).stdout)
    outputs.append(cli_invoke("promote", "secret-1", "--global", "--repo", repo).stdout)
    outputs.append(cli_invoke("refresh", "--all", "--repo", repo).stdout)
    outputs.append(cli_invoke("export", "reasonix", "--repo", repo).stdout)
    outputs.append(cli_invoke("list", "--json", "--repo", repo).stdout)
    for n in (0, 1, 3):
        outputs.append(cli_invoke("show", f"secret-{n}", "--json", "--repo", repo).stdout)
    for n in range(0, len(CORPUS), 5):
        outputs.append(cli_invoke("recall", f"secret-{n} marker{n}q keeps this", "--task-type", "code-gen",
                                  "--format", "json", "--budget", "2000", "--repo", repo).stdout)  # fmt: skip
    cli_invoke("validate", "--repo", repo)

    files = {
        p: p.read_bytes()
        for root in (repo, isolated_home)
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] != ".git"
    }
    everything = b"\n".join([*files.values(), *(o.encode() for o in outputs)])
    leaks = [(s.kind, v[:12]) for s in CORPUS for v in s.values if v.encode() in everything]
    assert leaks == []
    # The text around each secret did reach the files: the redaction, not a dropped lesson, hid it.
    lowered = everything.lower()
    assert [n for n in range(len(CORPUS)) if f"marker{n}q".encode() not in lowered] == []
    assert len(re.findall(rb"\[REDACTED:[a-z0-9-]+\]", everything)) >= len(CORPUS)
    assert any(p.is_relative_to(isolated_home / ".reasonix" / "projects") for p in files)  # exported
