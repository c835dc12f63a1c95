"""Shell command lines as invocations: which tool really runs, through which runner, and what for.

`npx vitest run tests/a.test.ts 2>&1 | tail -5` is the tool `vitest` via the runner `npx`, a test
command whose general form is `npx vitest run`. Capture compares, classifies and fingerprints
commands through this one reading of them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

TEST, BUILD, LINT, TYPECHECK = "test", "build", "lint", "typecheck"
CATEGORY_VERBS = {TEST: "Run tests", BUILD: "Build", LINT: "Lint", TYPECHECK: "Type-check"}

_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_REDIRECT = re.compile(r"^\d*(?:>>?|<<?|>&|&>)(.*)$")
_PREFIXES = frozenset({"env", "time", "command", "exec", "nice", "nohup", "sudo", "stdbuf"})
_SKIP = frozenset(
    {"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "echo", "printf", "true", ":"}
)
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_PM_BUILTINS = frozenset(
    {
        "install", "i", "add", "remove", "rm", "uninstall", "update", "up", "upgrade", "ci", "init",
        "exec", "dlx", "x", "run", "run-script", "link", "unlink", "publish", "pack", "audit", "outdated",
        "list", "ls", "why", "info", "view", "config", "cache", "create", "global", "workspace",
        "workspaces", "install-test", "prune", "dedupe", "rebuild", "version", "help", "login", "whoami",
    }
)  # fmt: skip
_PY_RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye"})
PYTHONS = re.compile(r"^(?:python[0-9.]*|py)$")
_FORMATTERS = frozenset({"ruff", "biome", "prettier", "black", "isort", "cargo", "dprint", "deno"})
_SIGNIFICANT_FLAGS = frozenset(
    {"--noEmit", "--check", "--build", "-b", "--check-only", "--diff", "--check-formatted"}
)

# (tool, first sub-argument or None) -> category; checked with the sub-argument first.
_TOOLS: dict[tuple[str, str | None], str] = {
    **{(t, None): TEST for t in ("pytest", "py.test", "vitest", "jest", "mocha", "ava", "karma", "jasmine",
                                 "tap", "rspec", "phpunit", "tox", "nox", "ctest", "unittest", "nextest")},
    **{(t, None): TYPECHECK for t in ("mypy", "pyright", "basedpyright", "svelte-check", "flow", "vue-tsc")},
    **{(t, None): LINT for t in ("eslint", "ruff", "flake8", "pylint", "golangci-lint", "stylelint",
                                 "shellcheck", "rubocop", "hadolint", "markdownlint", "oxlint", "biome")},
    **{(t, None): BUILD for t in ("webpack", "rollup", "esbuild", "tsup", "parcel")},
    ("ruff", "format"): "", ("biome", "format"): "", ("vitest", "bench"): "",
    ("playwright", "test"): TEST, ("cypress", "run"): TEST,
    ("go", "test"): TEST, ("go", "vet"): LINT, ("go", "build"): BUILD,
    ("cargo", "test"): TEST, ("cargo", "nextest"): TEST, ("cargo", "clippy"): LINT,
    ("cargo", "check"): TYPECHECK, ("cargo", "build"): BUILD,
    ("dotnet", "test"): TEST, ("dotnet", "build"): BUILD,
    ("mvn", "test"): TEST, ("mvn", "verify"): TEST, ("mvn", "package"): BUILD, ("mvn", "compile"): BUILD,
    ("gradle", "test"): TEST, ("gradle", "check"): TEST, ("gradle", "build"): BUILD,
    ("gradlew", "test"): TEST, ("gradlew", "check"): TEST, ("gradlew", "build"): BUILD,
    ("bun", "test"): TEST, ("deno", "test"): TEST, ("mix", "test"): TEST, ("swift", "test"): TEST,
    ("mix", "credo"): LINT, ("mix", "dialyzer"): TYPECHECK, ("mix", "compile"): BUILD, ("mix", "format"): "",
    ("swift", "build"): BUILD, ("vite", "build"): BUILD, ("next", "build"): BUILD, ("build", None): BUILD,
    ("cmake", "--build"): BUILD, ("deno", "check"): TYPECHECK, ("deno", "lint"): LINT,
    ("prettier", "--check"): LINT, ("black", "--check"): LINT, ("isort", "--check"): LINT,
    ("isort", "--check-only"): LINT,
}  # fmt: skip
_SCRIPT_WORDS = {
    TEST: ("test", "tests", "unit", "e2e", "spec", "integration", "unittest", "coverage"),
    BUILD: ("build", "compile", "all", "dist", "bundle"),
    LINT: ("lint", "eslint", "vet", "stylelint", "format:check", "fmt:check", "fmt-check", "check-format"),
    TYPECHECK: ("typecheck", "type-check", "types", "tsc", "check-types", "mypy", "typecheck:all", "typing"),
}
_SCRIPT_CATEGORY = {word: category for category, words in _SCRIPT_WORDS.items() for word in words}


@dataclass(frozen=True)
class Invocation:
    """The meaningful part of one command line."""

    text: str  # the core command as run (env prefix kept, `cd x &&` and pipes dropped)
    argv: tuple[str, ...]  # its words without env assignments and redirections
    tool: str  # what really runs: `vitest`, `pytest`, `npm` (for scripts), `make`, `cargo`
    runner: str | None  # `npx`, `uv run`, `python -m`, ... when the tool runs through one
    script: str | None  # a package.json script or make/just target
    category: str | None  # test | build | lint | typecheck
    base: str  # the general form: runner, tool and sub-commands without paths or most flags
    workdir: str | None  # from a leading `cd DIR &&`
    env: tuple[str, ...] = ()  # `NAME=value` prefixes, and a `source .venv/bin/activate` before it

    @property
    def manager(self) -> str | None:
        """The package manager running a package script (`npm test`), else None."""
        return self.argv[0] if self.tool in _PACKAGE_MANAGERS and self.script else None


def split_segments(command: str) -> list[str]:
    """Split on unquoted `&&`, `||`, `;`, `|`, `&` and newlines (pipes included: only the head counts)."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"' and i + 1 < len(command):
                current.append(ch)
                i += 1
                ch = command[i]
            current.append(ch)
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch in ";|&\n" and not (
            ch == "&" and (command[i - 1 : i] in (">", "<") or command[i + 1 : i + 2] == ">")
        ):
            if current:
                parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    if current:
        parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def words_of(segment: str) -> list[str]:
    try:
        words = shlex.split(segment, comments=False, posix=True)
    except ValueError:
        words = segment.split()
    out: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        redirect = _REDIRECT.match(word)
        if redirect:
            skip_next = not redirect.group(1)
            continue
        out.append(word)
    return out


def strip_prefixes(words: list[str]) -> tuple[list[str], list[str]]:
    """(env assignments, remaining words) with `env`, `time`, `timeout 60` and similar dropped."""
    env: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if _ENV.match(word):
            env.append(word)
        elif word in _PREFIXES or word.startswith("-") and i > 0 and words[i - 1] in _PREFIXES:
            pass
        elif word == "timeout" and i + 1 < len(words):
            i += 1
        else:
            break
        i += 1
    return env, words[i:]


PM_DIR_FLAGS = frozenset({"--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "-w", "--workspace"})


def _program(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return name.removesuffix(".exe").removesuffix(".cmd")


def _resolve(words: list[str]) -> tuple[str, str | None, str | None, list[str]]:
    """(tool, runner, script, args after the tool) for a word list starting at the program."""
    prog = _program(words[0])
    args = words[1:]
    if (
        prog in ("npx", "bunx")
        or prog in ("pnpm", "yarn", "bun")
        and args[:1]
        and args[0] in ("exec", "dlx", "x")
    ):
        runner = prog if prog in ("npx", "bunx") else f"{prog} {args[0]}"
        rest = args if prog in ("npx", "bunx") else args[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-p", "--package") else rest[1:]
        if rest:
            tool, _, script, tail = _resolve(rest)
            return tool, runner, script, tail
        return prog, None, None, []
    if prog in _PACKAGE_MANAGERS:
        # `npm --prefix web test`, `pnpm -C web --filter api test`: the sub-project flags come first.
        while args and args[0].split("=", 1)[0] in PM_DIR_FLAGS:
            args = args[1:] if "=" in args[0] else args[2:]
        if prog == "yarn" and args[:1] == ["workspace"] and len(args) > 2:
            args = args[2:]  # `yarn workspace web test`
        if args[:1] in (["run"], ["run-script"]) and len(args) > 1:
            return prog, None, args[1], args[2:]
        if prog == "npm" and args[:1] in (["test"], ["t"], ["start"]):
            return prog, None, "test" if args[0] == "t" else args[0], args[1:]
        if prog == "bun" and args[:1] == ["test"]:
            return "bun", None, None, args
        if prog != "npm" and args and not args[0].startswith("-") and args[0] not in _PM_BUILTINS:
            return prog, None, args[0], args[1:]
        return prog, None, None, args
    if PYTHONS.match(prog) and args[:1] == ["-m"] and len(args) > 1:
        tool, _, script, tail = _resolve(args[1:])
        return tool, f"{prog} -m", script, tail
    if prog in _PY_RUNNERS and args[:1] == ["run"] and len(args) > 1:
        rest = args[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[1:]
        if rest:
            tool, inner, script, tail = _resolve(rest)
            return tool, f"{prog} run" + (f" {inner}" if inner else ""), script, tail
    if prog == "bundle" and args[:1] == ["exec"] and len(args) > 1:
        tool, _, script, tail = _resolve(args[1:])
        return tool, "bundle exec", script, tail
    if prog in ("make", "just", "task") and args and not args[0].startswith("-") and "=" not in args[0]:
        return prog, None, args[0], args[1:]
    if prog == "mise" and args[:1] in (["run"], ["r"]) and len(args) > 1 and not args[1].startswith("-"):
        return prog, None, args[1], args[2:]
    return prog, None, None, args


def is_pathish(word: str) -> bool:
    return (
        "/" in word
        or "\\" in word
        or "::" in word
        or bool(re.search(r"\.[A-Za-z]{1,5}$", word))
        or word == "."
    )


_TASK = re.compile(r"^[a-z][a-z0-9_-]*(?:[.:][a-z][a-z0-9_-]*)+$")
_FILE_EXTENSIONS = frozenset(
    {
        "js", "mjs", "cjs", "ts", "tsx", "jsx", "py", "rb", "go", "rs", "ex", "exs", "sh", "json", "toml",
        "yaml", "yml", "md", "txt", "lock", "java", "kt", "php", "pl", "lua", "sql", "html", "css", "c", "h",
    }
)  # fmt: skip


def _is_task(word: str) -> bool:
    """`deps.get`, `ecto.migrate`, `db:migrate`: a task name with a dot, not a file name."""
    return bool(_TASK.match(word)) and word.rsplit(".", 1)[-1] not in _FILE_EXTENSIONS


_NO_SUBCOMMANDS = frozenset(
    {
        "pytest", "py.test", "jest", "mocha", "eslint", "mypy", "pyright", "basedpyright", "flake8",
        "pylint", "tsc", "vue-tsc", "prettier", "black", "isort", "tox", "nox", "shellcheck", "stylelint",
        "rspec", "phpunit", "ava", "tap", "karma", "jasmine", "unittest", "golangci-lint", "webpack",
        "rollup", "esbuild", "tsup", "ls", "cat", "grep", "rg", "find", "head", "tail", "wc", "tree",
    }
)  # fmt: skip
_INTERPRETERS = re.compile(r"^(?:python[0-9.]*|py|node|bash|sh|zsh|ruby|perl|tsx|ts-node|php)$")


def _base(head: list[str], args: list[str], tool: str, script: str | None) -> str:
    """Runner + tool + leading sub-commands + significant flags: no paths, values or selectors."""
    subs: list[str] = []
    if script is None and tool not in _NO_SUBCOMMANDS:
        limit = 2
        if _INTERPRETERS.match(tool) and args and not args[0].startswith("-"):
            subs.append(args[0])  # `python manage.py test`: the script file is the point
            args = args[1:]
        for word in args:
            pathish = is_pathish(word) and not (not subs and _is_task(word))
            if word.startswith("-") or pathish or len(subs) >= limit:
                break
            subs.append(word)
    flags = (
        [w for w in args[: args.index("--")] if w in _SIGNIFICANT_FLAGS]
        if "--" in args
        else [w for w in args if w in _SIGNIFICANT_FLAGS]
    )
    head = [w for w in head if not w.startswith("-") or w == "-m"]
    return " ".join([*head, *subs, *flags])


def _category(tool: str, script: str | None, args: list[str]) -> str | None:
    if any(a in ("--version", "-V", "--help", "-h") for a in args[:2]):
        return None
    if script is not None:
        word = script.lower()
        for candidate in (word, word.split(":")[0], word.split(":")[-1]):
            if candidate in _SCRIPT_CATEGORY:
                return _SCRIPT_CATEGORY[candidate]
        return None
    if tool == "make" and not args:
        return BUILD
    if tool == "tsc" or tool == "vue-tsc":
        return TYPECHECK if "--noEmit" in args else BUILD
    if "--check" in args and tool in _FORMATTERS or tool == "mix" and "--check-formatted" in args:
        return LINT
    if _INTERPRETERS.match(tool) and len(args) > 1 and not args[0].startswith("-"):
        return _SCRIPT_CATEGORY.get(args[1]) if args[1] in _SCRIPT_WORDS[TEST] else None
    sub = next(
        (a for a in args if not a.startswith("-") or a in ("--check", "--check-only", "--build")), None
    )
    for key in ((tool, sub), (tool, None)):
        if key in _TOOLS:
            return _TOOLS[key] or None
    return None


@lru_cache(maxsize=4096)
def parse(command: str) -> Invocation | None:
    """The invocation a shell command line is about, or None for an empty or no-op line."""
    if not command or len(command) > 4000:
        return None
    segments = split_segments(command)
    workdir: str | None = None
    activate: list[str] = []
    chosen: Invocation | None = None
    for segment in segments:
        words = words_of(segment)
        if not words:
            continue
        env, rest = strip_prefixes(words)
        if not rest:
            continue
        if rest[0] in ("cd", "pushd") and len(rest) > 1 and chosen is None:
            workdir = rest[1]
            continue
        if rest[0] in ("source", ".") and len(rest) > 1 and rest[1].endswith("activate") and chosen is None:
            activate = [f"{rest[0]} {rest[1]} &&"]  # a virtualenv: part of how the command runs
            continue
        if _program(rest[0]) in _SKIP:
            continue
        env = [*activate, *env]
        tool, runner, script, args = _resolve(rest)
        head = rest[: len(rest) - len(args)]
        category = _category(tool, script, args)
        invocation = Invocation(
            text=" ".join([*env, shlex.join(rest)]),
            argv=tuple(rest),
            tool=tool,
            runner=runner,
            script=script,
            category=category,
            base=" ".join([*env, _base(head, args, tool, script)]),
            workdir=workdir,
            env=tuple(env),
        )
        if category is not None:
            return invocation
        if chosen is None:
            chosen = invocation
    return chosen
