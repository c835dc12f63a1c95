from __future__ import annotations

import pytest

from reasonlessons.sessions.commands import (
    command_form,
    git_subcommand,
    is_fixer,
    narrows,
    segments,
    setup_kind,
)
from reasonlessons.sessions.shell import parse


def _inv(command: str):  # type: ignore[no-untyped-def]
    inv = parse(command)
    assert inv is not None, command
    return inv


@pytest.mark.parametrize(
    ("command", "form", "narrower"),
    [
        ("npx tsc --noEmit --skipLibCheck", "npx tsc --noEmit --skipLibCheck", False),
        ("npx tsc --noEmit --skipLibCheck -p .", "npx tsc --noEmit --skipLibCheck", False),
        ("npx tsc -p tsconfig.build.json", "npx tsc -p tsconfig.build.json", False),
        ("mix test --seed 0 2>&1 | tail -5", "mix test", False),
        ("MIX_ENV=test mix test test/a_test.exs", "MIX_ENV=test mix test", True),
        ("mix credo --strict lib/a.ex lib/b.ex", "mix credo --strict", True),
        ("go test ./... -run TestParse", "go test ./...", True),
        ("go test -race ./...", "go test -race ./...", False),
        ("pytest -x tests/test_a.py -k empty", "pytest -x", True),
        ("pytest -n 4", "pytest -n 4", False),
        ("uv run pytest -q", "uv run pytest", False),
        ("npm test -- --run", "npm test -- --run", False),
        ("cargo test --workspace -- --nocapture", "cargo test --workspace -- --nocapture", False),
        ("cd assets && npx vitest run --config v.config.ts", "npx vitest run --config v.config.ts", False),
        ("pnpm --filter api test", "pnpm --filter api test", False),  # which package is the command
        ("npm run lint -w web -- --fix", "npm run lint -w web -- --fix", False),
        ("npx vitest run --filter parser", "npx vitest run", True),
    ],
)  # fmt: skip
def test_command_form_keeps_the_flags_and_drops_the_selection(
    command: str, form: str, narrower: bool
) -> None:
    inv = _inv(command)
    assert command_form(inv) == form
    assert narrows(inv) is narrower


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("mix deps.get", "deps"),
        ("npm ci", "deps"),
        ("pnpm install --frozen-lockfile", "deps"),
        ("uv sync", "deps"),
        ("go mod tidy", "deps"),
        ("bundle install", "deps"),
        ("MIX_ENV=test mix ecto.migrate", "migrate"),
        ("bin/rails db:migrate", "migrate"),
        ("python manage.py migrate", "migrate"),
        ("npx prisma migrate dev", "migrate"),
        ("alembic upgrade head", "migrate"),
        ("mix ash.codegen --name add_x", "codegen"),
        ("npx prisma generate", "codegen"),
        ("npm run codegen", "codegen"),
        ("pnpm --filter api db:generate", "codegen"),  # by a part of the script's name
        ("pnpm prisma generate", "codegen"),  # a package's binary run like a script
        ("npm run lint:fix", None),
        ("mix test", None),
        ("npm run build", None),
        ("git status", None),
    ],
)
def test_setup_kind(command: str, kind: str | None) -> None:
    assert setup_kind(_inv(command)) == kind


@pytest.mark.parametrize(
    ("command", "fixer"),
    [
        ("mix format", True),
        ("mix format --check-formatted", False),
        ("npx prettier --write .", True),
        ("npx prettier --check .", False),
        ("ruff format", True),
        ("ruff check --fix .", True),
        ("ruff check .", False),
        ("cargo fmt", True),
        ("gofmt -w .", True),
        ("npm run format", True),
        ("npx eslint --fix src", True),
        ("npm test", False),
    ],
)
def test_fixers_rewrite_code(command: str, fixer: bool) -> None:
    assert is_fixer(_inv(command)) is fixer


def test_segments_read_every_command_of_a_line() -> None:
    found = segments("cd web && git add -A && git -C . commit -m 'x; y' && npm test")
    assert [inv.tool for inv in found] == ["git", "git", "npm"]
    assert [git_subcommand(inv) for inv in found] == ["add", "commit", None]
    assert {inv.workdir for inv in found} == {"web"}


def test_elixir_tasks_are_subcommands_not_files() -> None:
    assert _inv("mix deps.get").base == "mix deps.get"
    assert _inv("mix credo --strict lib/a.ex").category == "lint"
    assert _inv("mix dialyzer").category == "typecheck"
    assert _inv("mix format --check-formatted").category == "lint"
    assert _inv("mix format").category is None
    assert _inv("node build.js").base == "node build.js"
    assert _inv("rubocop app.rb").base == "rubocop"
    assert (_inv("mise run test").tool, _inv("mise run test").script) == ("mise", "test")
