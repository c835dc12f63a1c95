"""What a command is for beyond checking the code, and the form a lesson recommends it in.

`shell.py` reads one command line; this module says what it does for a session: it installs
dependencies, migrates a database or generates code (`setup_kind`), rewrites code to satisfy a check
(`is_fixer`), is which git subcommand (`git_subcommand`), and how to write it in a lesson
(`command_form`: the flags of the run kept, the files it happened to name dropped).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from reasonlessons.sessions.shell import (
    PM_DIR_FLAGS,
    PYTHONS,
    Invocation,
    is_pathish,
    parse,
    split_segments,
    strip_prefixes,
    words_of,
)

_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
# Flags that pick which tests run or how they are shown, not how the command works: left out of the
# form a lesson recommends (`mix test --seed 0` is `mix test`), with the value that follows them.
_RUN_ONLY_FLAGS = frozenset(
    {
        "--seed", "-k", "-run", "-t", "--testNamePattern", "--grep", "-g", "--filter", "--only",
        "--color", "--no-color", "--colors", "-v", "-vv", "--verbose", "-q", "--quiet", "--timeout",
    }
)  # fmt: skip


_T = TypeVar("_T")
_MEMO_MAX = 4096


def _per_invocation(fn: Callable[[Invocation], _T]) -> Callable[[Invocation], _T]:
    """`fn` remembered per Invocation object. `parse` and `segments` hand out the same objects for
    the same command text, and the reducer asks about each successful command several times per
    call; hashing a frozen dataclass (as `lru_cache` would) costs more than most of these answers.
    The entry keeps its Invocation alive, so an id is never reused while it is remembered."""
    memo: dict[int, tuple[Invocation, _T]] = {}

    def remembered(inv: Invocation) -> _T:
        hit = memo.get(id(inv))
        if hit is not None and hit[0] is inv:
            return hit[1]
        value = fn(inv)
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[id(inv)] = (inv, value)
        return value

    remembered.__doc__ = fn.__doc__
    remembered.__name__ = fn.__name__
    return remembered


_CONFIG_FILE = re.compile(r"\.(?:json|jsonc|toml|ya?ml|ini|cfg|conf|exs)$|(?:^|[/_.-])(?:config|settings)\b")
_CONFIG_FLAG = re.compile(r"config|project|settings|manifest|tsconfig|rootdir|root-dir|cwd|env-file")


@lru_cache(maxsize=1024)  # a session runs the same few commands again and again
def _read_args(inv: Invocation) -> tuple[tuple[str, ...], bool]:
    """(the words a lesson keeps, whether the run chose files or tests): see `command_form`."""
    known = set(inv.base.split())
    argv = inv.argv
    kept: list[str] = []
    chose = False
    i = 0
    while i < len(argv):
        word = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        has_value = nxt is not None and not nxt.startswith("-") and "=" not in word and nxt not in known
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            if inv.tool in _PACKAGE_MANAGERS and name in PM_DIR_FLAGS:
                # `pnpm --filter api test`, `npm -w web run lint`: which package runs is the command.
                kept.extend((word, nxt) if "=" not in word and nxt is not None else (word,))
                i += 1 if "=" in word or nxt is None else 2
                continue
            if name in _RUN_ONLY_FLAGS:
                chose = chose or name in ("-k", "-run", "-t", "--testNamePattern", "--grep", "--filter")
                i += 2 if has_value and name not in ("-v", "-vv", "-q", "--verbose", "--quiet") else 1
                continue
            if word == "--":
                kept.append(word)
            elif (
                has_value
                and nxt is not None
                and nxt != "."
                and (not is_pathish(nxt) or _CONFIG_FILE.search(nxt) or _CONFIG_FLAG.search(name))
            ):
                kept.extend((word, nxt))
                i += 1
            elif has_value and nxt == ".":
                i += 1  # `-p .`: the default spelled out
            else:
                kept.append(word)
        elif i == 0 or word in known or word == "./...":
            kept.append(word)  # Go's every-package pattern is how the command runs, not a choice
        elif is_pathish(word) and word != ".":
            chose = True
        i += 1
    while kept and kept[-1] == "--":
        kept.pop()
    return tuple(kept), chose


@_per_invocation
def command_form(inv: Invocation) -> str:
    """The command as a lesson should recommend it: the words of `base` plus the flags of the run
    (with their values), without the files, test names and seeds that only chose what this one run
    covered (`mix test --seed 0 test/a_test.exs` is `mix test`)."""
    return " ".join([*inv.env, *_read_args(inv)[0]])


def narrows(inv: Invocation) -> bool:
    """True when the run named files or tests: it covered a part of what `command_form` covers."""
    return _read_args(inv)[1]


@lru_cache(maxsize=2048)
def segments(command: str) -> tuple[Invocation, ...]:
    """Every command of a command line (`a && b; c | d`), each read as `parse` reads one."""
    if not command or len(command) > 4000:
        return ()
    out: list[Invocation] = []
    workdir: str | None = None
    for segment in split_segments(command):
        words = words_of(segment)
        env, rest = strip_prefixes(words)
        if not rest:
            continue
        if rest[0] in ("cd", "pushd") and len(rest) > 1:
            workdir = rest[1]
            continue
        inv = parse(segment)
        if inv is not None:
            out.append(inv if workdir is None or inv.workdir else _with_workdir(inv, workdir))
    return tuple(out)


def _with_workdir(inv: Invocation, workdir: str) -> Invocation:
    return Invocation(
        inv.text, inv.argv, inv.tool, inv.runner, inv.script, inv.category, inv.base, workdir, inv.env
    )


def git_subcommand(inv: Invocation) -> str | None:
    """`commit` for `git commit -m x` (and `git -C dir commit`), else the subcommand, or None."""
    if inv.tool != "git":
        return None
    args = list(inv.argv[1:])
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in ("-C", "-c") else args[1:]
    return args[0] if args else None


# Commands that prepare the project rather than check it: dependencies, database, generated code.
_SETUP: dict[tuple[str, str | None], str] = {
    **{(pm, sub): "deps" for pm in ("npm", "pnpm", "yarn", "bun") for sub in ("install", "i", "ci")},
    ("yarn", None): "deps", ("mix", "deps.get"): "deps", ("mix", "deps.update"): "deps",
    ("pip", "install"): "deps", ("pip3", "install"): "deps", ("uv", "sync"): "deps", ("uv", "pip"): "deps",
    ("poetry", "install"): "deps", ("pipenv", "install"): "deps", ("pdm", "install"): "deps",
    ("bundle", "install"): "deps", ("bundle", None): "deps", ("go", "mod"): "deps", ("go", "get"): "deps",
    ("cargo", "fetch"): "deps", ("composer", "install"): "deps", ("dotnet", "restore"): "deps",
    ("mix", "ecto.migrate"): "migrate", ("mix", "ecto.setup"): "migrate", ("mix", "ecto.reset"): "migrate",
    ("mix", "ash.migrate"): "migrate", ("mix", "ash.setup"): "migrate", ("rails", "db:migrate"): "migrate",
    ("rake", "db:migrate"): "migrate", ("alembic", "upgrade"): "migrate", ("prisma", "migrate"): "migrate",
    ("diesel", "migration"): "migrate", ("sqlx", "migrate"): "migrate", ("goose", None): "migrate",
    ("knex", "migrate:latest"): "migrate", ("sequelize", "db:migrate"): "migrate",
    ("mix", "ash.codegen"): "codegen", ("mix", "ecto.gen.migration"): "codegen",
    ("prisma", "generate"): "codegen", ("go", "generate"): "codegen", ("buf", "generate"): "codegen",
    ("sqlc", "generate"): "codegen", ("alembic", "revision"): "codegen",
}  # fmt: skip
_SETUP_SCRIPTS = {
    "install": "deps", "setup": "deps", "bootstrap": "deps", "deps": "deps", "migrate": "migrate",
    "db:migrate": "migrate", "db:push": "migrate", "codegen": "codegen", "generate": "codegen",
    "gen": "codegen", "prisma:generate": "codegen",
}  # fmt: skip


def subcommand(inv: Invocation) -> str | None:
    """The first word after the tool that is no option: `credo` of `mix credo --strict`."""
    words = list(inv.argv)
    at = next((i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == inv.tool), 0)
    return next((w for w in words[at + 1 :] if not w.startswith("-")), None)


def _script_setup_kind(inv: Invocation) -> str | None:
    """`db:generate`, `gen-types`, `prisma:generate` by a part of the name; `pnpm prisma generate`
    (a package's binary run like a script) by the tool and its sub-command."""
    script = (inv.script or "").lower()
    kind = _SETUP_SCRIPTS.get(script)
    if kind is None:
        kind = next((_SETUP_SCRIPTS[p] for p in re.split(r"[:_-]", script) if p in _SETUP_SCRIPTS), None)
    if kind is None:
        rest = inv.argv[inv.argv.index(inv.script) + 1 :] if inv.script in inv.argv else ()
        sub = next((a for a in rest if not a.startswith("-")), None)
        kind = _SETUP.get((script, sub)) if sub else None
    return kind


@_per_invocation
def setup_kind(inv: Invocation) -> str | None:
    """`deps`, `migrate` or `codegen` for a command that prepares the project, else None."""
    if inv.category is not None:
        return None
    if inv.script is not None:
        return _script_setup_kind(inv)
    at = next((i for i, w in enumerate(inv.argv) if w.rsplit("/", 1)[-1] == inv.tool), 0)
    args = [a for a in inv.argv[at + 1 :] if not a.startswith("-")]
    if PYTHONS.match(inv.tool) and args[:2] in (["manage.py", "migrate"], ["manage.py", "makemigrations"]):
        return "migrate" if args[1] == "migrate" else "codegen"
    sub = args[0] if args else None
    tool = inv.tool
    if tool == "uv" and inv.runner is None and sub == "pip" and "install" not in args[:2]:
        return None
    return _SETUP.get((tool, sub)) or (_SETUP.get((tool, None)) if not args or tool != "yarn" else None)


_FIXERS: dict[tuple[str, str | None], tuple[str, ...]] = {
    ("mix", "format"): (), ("ruff", "format"): (), ("black", None): (), ("isort", None): (),
    ("gofmt", None): ("-w",), ("go", "fmt"): (), ("cargo", "fmt"): (), ("rustfmt", None): (),
    ("prettier", None): ("--write", "-w"), ("eslint", None): ("--fix",), ("ruff", "check"): ("--fix",),
    ("biome", None): ("--write", "--apply"), ("dotnet", "format"): (), ("rubocop", None): ("-a", "-A"),
    ("terraform", "fmt"): (), ("goimports", None): ("-w",), ("stylua", None): (), ("swiftformat", None): (),
}  # fmt: skip
_FIX_SCRIPTS = frozenset({"format", "fmt", "lint:fix", "format:fix", "fix", "prettier", "style"})


@_per_invocation
def is_fixer(inv: Invocation) -> bool:
    """True for a command that rewrites code to satisfy a check: a formatter, `eslint --fix`."""
    if inv.category is not None and not any(f in inv.argv for f in ("--fix", "--write")):
        return False
    if inv.script is not None:
        return inv.script.lower() in _FIX_SCRIPTS
    sub = subcommand(inv)
    for key in ((inv.tool, sub), (inv.tool, None)):
        if key in _FIXERS:
            needed = _FIXERS[key]
            return not needed or any(f in inv.argv for f in needed)
    return False
