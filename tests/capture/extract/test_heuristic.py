from __future__ import annotations

from pathlib import Path

import pytest

from reasonlessons.capture.extract.draft import CandidateDraft, command_pattern, one_line, slug
from reasonlessons.capture.extract.fingerprints import RepoFacts, field_entry, for_invocation
from reasonlessons.constants import NAME_RE
from reasonlessons.fingerprint import check_entry
from reasonlessons.safety.linear_re import compile_pattern
from reasonlessons.sessions.shell import parse
from tests.capturesupport import CAPTURE, NODE_REPO, drafts_of
from tests.paths import RESOURCES

V1 = CAPTURE / "reasonix-v1"
CODEX_LOOP = CAPTURE / "codex" / "rollout-2026-05-05T08-00-00-55555555-6666-4777-8888-999999999999.jsonl"
ALL_LOGS = [
    V1 / "vitest-not-found.events.jsonl",
    V1 / "esm-fix.events.jsonl",
    V1 / "assertion.events.jsonl",
    CAPTURE / "claude-code" / "writ-and-correction.jsonl",
    CAPTURE / "claude-code" / "secrets.jsonl",
    CODEX_LOOP,
]


def _by_kind(drafts: list[CandidateDraft], kind: str) -> CandidateDraft:
    (draft,) = [d for d in drafts if d.kind == kind]
    return draft


def test_command_fix_recommends_the_working_command_and_depends_on_the_script() -> None:
    draft = _by_kind(drafts_of(V1 / "vitest-not-found.events.jsonl"), "command-fix")
    assert draft.name == "npm-test-vitest-not-found"
    assert draft.description == "`npm test` fails here with `vitest: not found`; run `npx vitest run` instead"
    assert draft.body.splitlines()[0] == (
        "- Run `npx vitest run`, not `npm test`: "
        "here `npm test` fails with `sh: 1: vitest: not found` (exit 127)."
    )
    assert draft.fingerprint == ["package.json#scripts.test", "package.json#devDependencies.vitest"]
    assert draft.outcome == "mixed"
    assert draft.source == "heuristic"
    assert {e["session"] for e in draft.evidence} == {"vitest-not-found#1"}
    assert all(
        e["agent"] == "reasonix-v1" and e["ref"].startswith("vitest-not-found.events.jsonl:")
        for e in draft.evidence
    )


def test_command_fixes_in_a_python_session(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    drafts = drafts_of(CAPTURE / "claude-code" / "python-fixes.jsonl", root=tmp_path)
    fixes = {d.name: d for d in drafts if d.kind == "command-fix"}
    assert set(fixes) == {"pytest-modulenotfounderror-no-module-named-mypkg", "python-command-not-found"}
    pytest_fix = fixes["pytest-modulenotfounderror-no-module-named-mypkg"]
    assert (
        pytest_fix.description
        == "Run `python -m pytest`, not `pytest`: ModuleNotFoundError: No module named 'mypkg'"
    )
    assert pytest_fix.fingerprint == ["pyproject.toml#tool.pytest.ini_options"]
    assert fixes["python-command-not-found"].description == (
        "`python` fails here with `python: command not found`; run `python3` instead"
    )
    # Narrowing the same command to one file after an edit is no lesson about how to run tests.
    assert not [d for d in drafts if "tests/test_parser.py" in d.description]


def test_edit_fix_quotes_the_rule_and_the_fix_and_depends_on_module_settings() -> None:
    draft = _by_kind(drafts_of(V1 / "esm-fix.events.jsonl"), "edit-fix")
    assert (
        draft.description
        == "TS2835: Relative import paths need explicit file extensions in ECMAScript imports"
    )
    assert '`"./queue"` → `"./queue.js"`' in draft.body
    assert draft.fingerprint == [
        "tsconfig.json#compilerOptions.module",
        "tsconfig.json#compilerOptions.moduleResolution",
        "package.json#type",
    ]
    assert draft.triggers["files"] == ["src/**/*.ts"]
    assert "TS2835" in draft.triggers["keywords"]


def test_verification_names_the_script_it_stands_for() -> None:
    draft = _by_kind(drafts_of(V1 / "esm-fix.events.jsonl"), "verification")
    assert draft.name == "typecheck-command"
    assert draft.description == "Type-check with `npx tsc --noEmit` (package.json `typecheck` script)"
    assert "package.json#scripts.typecheck" in draft.fingerprint
    assert not draft.update_only


def test_plain_default_commands_only_ever_add_evidence() -> None:
    draft = _by_kind(drafts_of(V1 / "assertion.events.jsonl"), "verification")
    assert draft.description == "Run tests with `npm test`"
    assert draft.update_only


def test_repeated_invocation_failure_depends_on_what_is_missing() -> None:
    draft = _by_kind(drafts_of(CODEX_LOOP), "repeated-failure")
    assert draft.description == "`npx eslint` cannot run here: `eslint: not found`"
    # eslint is absent from package.json: the lesson goes stale when it is added.
    assert draft.fingerprint == ["package.json#devDependencies.eslint"]
    assert draft.outcome == "failure"


def test_writ_and_correction_keep_the_users_words() -> None:
    drafts = drafts_of(CAPTURE / "claude-code" / "writ-and-correction.jsonl")
    writ = _by_kind(drafts, "writ")
    assert writ.name == "changelog"
    assert writ.source == "writ"
    assert writ.body.startswith("- Every user-facing change gets a line in `CHANGELOG.md`")
    correction = _by_kind(drafts, "correction")
    assert correction.description == "Tests go in tests/ as <name>.test.ts, never next to the source in src/"
    assert correction.fingerprint == ["tests/"]  # src/ is named only as where not to put them
    layout = _by_kind(drafts, "layout")
    assert layout.description == "Tests live in `tests/` as `<name>.test.ts`"
    assert layout.fingerprint == ["tests/"]
    assert layout.triggers["files"] == ["tests/**/*.test.ts"]


def test_layout_needs_the_convention_to_be_visible_in_the_repo(tmp_path: Path) -> None:
    drafts = drafts_of(CAPTURE / "claude-code" / "writ-and-correction.jsonl", root=tmp_path)
    assert not [d for d in drafts if d.kind == "layout"]


def test_nothing_is_proposed_for_an_ordinary_bug_fix() -> None:
    drafts = drafts_of(V1 / "assertion.events.jsonl")
    assert [d for d in drafts if not d.update_only] == []


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: p.name)
def test_every_draft_is_well_formed(log: Path) -> None:
    for draft in drafts_of(log):
        assert NAME_RE.match(draft.name), draft.name
        assert draft.description
        assert "\n" not in draft.description
        assert len(draft.description) <= 100
        lines = draft.body.splitlines()
        assert 1 <= len(lines) <= 6
        assert all(line.startswith("- ") for line in lines)
        assert draft.evidence
        assert all(set(e) == {"agent", "session", "ref"} for e in draft.evidence)
        assert all(not e["ref"].startswith("/") for e in draft.evidence)
        assert draft.outcome in ("success", "failure", "mixed")
        assert all(check_entry(entry) is None for entry in draft.fingerprint), draft.fingerprint
        for pattern in draft.triggers.get("commands", []):
            compile_pattern(pattern)


def test_helpers() -> None:
    assert slug("npm test: vitest not found!") == "npm-test-vitest-not-found"
    assert slug("!!!") == "lesson"
    assert len(slug("word " * 40)) <= 48
    assert one_line("a `b c` d " * 30, 40).endswith("…")
    assert one_line("a `bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb` c", 30).count("`") % 2 == 0
    assert command_pattern(["npm", "test"]) == r"\bnpm\s+test\b"
    assert command_pattern(["./gradlew"]) == r"\./gradlew\b"
    assert field_entry("package.json", "scripts", "test:unit") == 'package.json#scripts."test:unit"'


def test_fingerprint_inference_names_only_what_exists(tmp_path: Path) -> None:
    facts = RepoFacts(NODE_REPO)
    vitest, eslint, pytest_ = parse("npx vitest run"), parse("npx eslint ."), parse("pytest -q")
    assert vitest is not None
    assert eslint is not None
    assert pytest_ is not None
    assert for_invocation(vitest, facts) == ["package.json#devDependencies.vitest"]
    assert for_invocation(eslint, facts) == []
    assert for_invocation(eslint, facts, absent_ok=True) == ["package.json#devDependencies.eslint"]
    assert for_invocation(pytest_, facts) == []
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    assert for_invocation(pytest_, RepoFacts(tmp_path)) == ["pyproject.toml#tool.pytest.ini_options"]
    cd = parse("cd web && npm test")
    assert cd is not None
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text('{"scripts": {"test": "jest"}}')
    assert for_invocation(cd, RepoFacts(tmp_path)) == ["web/package.json#scripts.test"]


PYTEST_TABLE = "pyproject.toml#tool.pytest.ini_options"
TS_PACKAGE = '{"devDependencies": {"typescript": "5"}}'


@pytest.mark.parametrize(
    ("files", "command", "entries"),
    [
        ({"mix.exs": "", ".credo.exs": ""}, "mix test", ["mix.exs"]),
        ({"mix.exs": "", ".credo.exs": ""}, "mix credo --strict", [".credo.exs"]),
        ({"mix.exs": ""}, "mix credo --strict", ["mix.exs"]),
        ({"mix.exs": "", ".formatter.exs": ""}, "mix format", [".formatter.exs"]),
        ({"go.mod": ""}, "go test ./...", ["go.mod"]),
        ({"Cargo.toml": ""}, "cargo test", ["Cargo.toml"]),
        ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, "uv run pytest", [PYTEST_TABLE]),
        ({"pyproject.toml": "[project]\n"}, "uv sync", ["pyproject.toml"]),
        ({"pyproject.toml": "[project]\n"}, "uv run pytest -q", ["pyproject.toml"]),  # no table: the project
        ({"setup.cfg": "[tool:pytest]\n"}, "pytest", ["setup.cfg"]),
        ({"Pipfile": ""}, "pipenv run mypy src", ["Pipfile"]),
        ({"web/package.json": '{"scripts": {"lint": "eslint ."}}'}, "npm run lint -w web", [
            "web/package.json#scripts.lint"]),
        ({"web/package.json": '{"scripts": {"test": "jest"}}'}, "npm --prefix web test", [
            "web/package.json#scripts.test"]),
        ({"web/tsconfig.json": "{}", "web/package.json": TS_PACKAGE}, "npx tsc --noEmit -p web", [
            "web/tsconfig.json", "web/package.json#devDependencies.typescript"]),
        ({"web/tsconfig.app.json": "{}", "web/tsconfig.json": "{}"}, "npx tsc -p web/tsconfig.app.json", [
            "web/tsconfig.json"]),
        ({"Makefile": "test:\n"}, "make test", ["Makefile"]),
        ({"justfile": "test:\n"}, "just test", ["justfile"]),
        ({"mise.toml": "[tasks.test]\nrun = 'x'\n"}, "mise run test", ["mise.toml#tasks.test"]),
        ({"Taskfile.yml": "tasks:\n  test:\n    cmds: [x]\n"}, "task test", ["Taskfile.yml#tasks.test"]),
        (
            {"todo-app/tsconfig.json": "{}", "todo-app/package.json": TS_PACKAGE},
            "cd todo-app && npx tsc --noEmit --skipLibCheck",
            ["todo-app/tsconfig.json", "todo-app/package.json#devDependencies.typescript"],
        ),
        (
            {"assets/package.json": '{"scripts": {"test": "vitest run"}}'},
            "cd assets && npm test",
            ["assets/package.json#scripts.test"],
        ),
        ({"assets/build.js": ""}, "cd assets && node build.js", ["assets/build.js"]),
        ({"go.mod": ""}, "cd cmd/server && go build", ["go.mod"]),
    ],
)  # fmt: skip
def test_fingerprints_name_the_config_that_defines_the_command_in_every_ecosystem(
    tmp_path: Path, files: dict[str, str], command: str, entries: list[str]
) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    inv = parse(command)
    assert inv is not None
    assert for_invocation(inv, RepoFacts(tmp_path)) == entries


TEXTKIT = RESOURCES / "aider" / "textkit.aider.chat.history.md"
TEXTKIT_REPO = RESOURCES / "aider" / "textkit"


def test_aider_tool_rules_say_the_rule_in_the_sessions_words() -> None:
    rules = [d for d in drafts_of(TEXTKIT, root=TEXTKIT_REPO) if d.kind == "tool-rule"]
    assert [d.name for d in rules] == [
        "aider-edit-textkit-slug-py-must-match",
        "aider-no-such-command",
        "aider-one-command-per-message",
        "aider-edit-textkit-slug-py-must-match",
    ]
    edit, invalid, several, loop = rules
    assert edit.description == (
        "Aider edit to `textkit/slug.py` failed (`SearchReplaceNoExactMatch`); re-read the file first"
    )
    assert "it looked for `def slugify(text):`; the file held `def slugify(text: str) -> str:`" in edit.body
    assert (edit.fingerprint, edit.triggers, edit.outcome) == (
        ["textkit/slug.py"],
        {"files": ["textkit/slug.py"]},
        "mixed",
    )
    assert edit.tags == ["aider", "tool-rule"]
    assert invalid.description.startswith("Aider has no `/grep` command (`Invalid command: /grep`)")
    assert "`/run <command>`" in invalid.body
    assert invalid.triggers == {"commands": ["^/[a-z]"]}
    assert "one command per message" in several.body.lower()
    assert (
        loop.description
        == "`UnifiedDiffNoMatch: hunk failed to apply!` 4 times on `textkit/slug.py`: stop resending the edit"
    )
    assert "It failed 4 times in one session (4 in a row)" in loop.body
    for draft in rules:
        for pattern in draft.triggers.get("commands", []):
            compile_pattern(pattern)  # recall can evaluate it in linear time


def test_an_edit_fix_shows_the_command_as_run_and_the_proposed_fix() -> None:
    drafts = drafts_of(
        RESOURCES / "capture" / "aider" / "cargo-sleep.aider.chat.history.md", root=TEXTKIT_REPO
    )
    draft = _by_kind(drafts, "edit-fix")
    assert draft.description == "E0425: cannot find function `sleep` in this scope"
    assert draft.body.splitlines() == [
        "- `cargo run -- --start-bpm 60` fails with "
        "`error[E0425]: cannot find function 'sleep' in this scope`.",
        "- The output proposed the fix: `help: consider importing one of these functions`.",
        "- Fix it as the agent did in `src/main.rs`: add `use std::thread::sleep;`; the command then passed.",
    ]
