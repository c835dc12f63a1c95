from __future__ import annotations

import pytest

from reasonlessons.sessions.shell import parse


@pytest.mark.parametrize(
    ("command", "tool", "runner", "script", "category", "base"),
    [
        ("npx vitest run tests/a.test.ts 2>&1 | tail -5", "vitest", "npx", None, "test", "npx vitest run"),
        ("npm test -- --run", "npm", None, "test", "test", "npm test"),
        ("npm run test:unit -- -t x", "npm", None, "test:unit", "test", "npm run test:unit"),
        ("pnpm lint", "pnpm", None, "lint", "lint", "pnpm lint"),
        ("yarn typecheck", "yarn", None, "typecheck", "typecheck", "yarn typecheck"),
        ("python -m pytest -x tests/", "pytest", "python -m", None, "test", "python -m pytest"),
        ("uv run pytest -q", "pytest", "uv run", None, "test", "uv run pytest"),
        ("pytest -q tests/test_a.py::test_b", "pytest", None, None, "test", "pytest"),
        ("cargo test --all", "cargo", None, None, "test", "cargo test"),
        ("go test ./...", "go", None, None, "test", "go test"),
        ("make test", "make", None, "test", "test", "make test"),
        ("npx tsc --noEmit -p .", "tsc", "npx", None, "typecheck", "npx tsc --noEmit"),
        ("tsc -p .", "tsc", None, None, "build", "tsc"),
        ("ruff check .", "ruff", None, None, "lint", "ruff check"),
        ("ruff format --check", "ruff", None, None, "lint", "ruff format --check"),
        ("ruff format", "ruff", None, None, None, "ruff format"),
        ("CI=1 npx vitest run", "vitest", "npx", None, "test", "CI=1 npx vitest run"),
        ("poetry run python -m mypy src", "mypy", "poetry run python -m", None, "typecheck",
         "poetry run python -m mypy"),
        ("python manage.py test app", "python", None, None, "test", "python manage.py test"),
        ("git status", "git", None, None, None, "git status"),
        ("vitest --version", "vitest", None, None, None, "vitest"),
        ("npm install", "npm", None, None, None, "npm install"),
        ("npm --prefix web test", "npm", None, "test", "test", "npm web test"),
        ("pnpm -C web lint", "pnpm", None, "lint", "lint", "pnpm web lint"),
        ("pnpm --filter=web test", "pnpm", None, "test", "test", "pnpm test"),
        ("yarn workspace web test", "yarn", None, "test", "test", "yarn workspace web test"),
        ("bundle exec rspec spec/a_spec.rb", "rspec", "bundle exec", None, "test", "bundle exec rspec"),
    ],
)  # fmt: skip
def test_parse_finds_the_tool_runner_and_purpose(
    command: str, tool: str, runner: str | None, script: str | None, category: str | None, base: str
) -> None:
    inv = parse(command)
    assert inv is not None
    assert (inv.tool, inv.runner, inv.script, inv.category, inv.base) == (
        tool,
        runner,
        script,
        category,
        base,
    )


def test_cd_prefix_becomes_the_workdir_and_pipes_are_dropped() -> None:
    inv = parse("cd todo-app && npm run build 2>&1 | tail -20")
    assert inv is not None
    assert inv.workdir == "todo-app"
    assert inv.text == "npm run build"
    assert inv.category == "build"


def test_a_verification_step_wins_over_setup_steps() -> None:
    inv = parse("npm install && npm test")
    assert inv is not None
    assert inv.text == "npm test"


def test_virtualenv_activation_is_part_of_the_command() -> None:
    inv = parse("source .venv/bin/activate && pytest -q")
    assert inv is not None
    assert inv.base == "source .venv/bin/activate && pytest"
    assert inv.env == ("source .venv/bin/activate &&",)


def test_quoted_separators_do_not_split() -> None:
    inv = parse('pytest -k "a and b; c" tests')
    assert inv is not None
    assert inv.argv == ("pytest", "-k", "a and b; c", "tests")


@pytest.mark.parametrize("command", ["", "   ", "cd x", "echo hi", 'pytest "unbalanced'])
def test_degenerate_commands_do_not_crash(command: str) -> None:
    inv = parse(command)
    assert inv is None or inv.tool == "pytest"
