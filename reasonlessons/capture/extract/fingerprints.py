"""Which repo facts a captured lesson depends on: commands, errors and files mapped to fingerprint entries.

Only facts that exist in the repository now are named (a lesson about `npm test` in a repo without
a `test` script depends on nothing we can check). `npm test` / `npm run X` / `pnpm X` / `yarn X`
depend on `package.json#scripts.X`; a Node tool run through `npx` on its `devDependencies` entry;
Python tools on their `pyproject.toml` table or config file; `make X` on the Makefile; `cargo` on
Cargo.toml; `go` on go.mod. Import-style errors depend on the module settings of tsconfig.json
and the package type.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.errors import InvalidFingerprintError
from reasonlessons.fingerprint.entry import parse_entry
from reasonlessons.fingerprint.fields import lookup, parse_document
from reasonlessons.sessions.commands import subcommand
from reasonlessons.sessions.shell import Invocation, parse

if TYPE_CHECKING:
    from collections.abc import Callable

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# Node tools whose npm package has another name.
_NODE_PACKAGES = {
    "tsc": "typescript",
    "playwright": "@playwright/test",
    "biome": "@biomejs/biome",
    "next": "next",
    "vue-tsc": "vue-tsc",
    "tsx": "tsx",
}
_NODE_TOOLS = frozenset(
    {
        "vitest", "jest", "mocha", "ava", "tsc", "eslint", "prettier", "playwright", "cypress", "webpack",
        "rollup", "esbuild", "tsup", "vite", "next", "biome", "stylelint", "vue-tsc", "svelte-check",
        "oxlint", "tsx", "ts-node"
    }
)  # fmt: skip
_PY_CONFIG = {
    "pytest": ("pyproject.toml#tool.pytest.ini_options", "pytest.ini"),
    "mypy": ("pyproject.toml#tool.mypy", "mypy.ini"),
    "ruff": ("pyproject.toml#tool.ruff", "ruff.toml", ".ruff.toml"),
    "black": ("pyproject.toml#tool.black",),
    "isort": ("pyproject.toml#tool.isort",),
    "pyright": ("pyproject.toml#tool.pyright", "pyrightconfig.json"),
    "basedpyright": ("pyproject.toml#tool.basedpyright", "pyrightconfig.json"),
    "pylint": ("pyproject.toml#tool.pylint", ".pylintrc"),
    "flake8": (".flake8",),
    "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
    "coverage": ("pyproject.toml#tool.coverage",),
}
_PY_PROJECT = ("pyproject.toml", "setup.cfg", "Pipfile", "requirements-dev.txt", "requirements.txt")
_PY_RUNNER_FILES = {"pipenv run": ("Pipfile", "pyproject.toml")}
_BUILD_FILES = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "just": ("justfile", "Justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"),
    "cargo": ("Cargo.toml",),
    "go": ("go.mod",),
    "gradle": ("build.gradle.kts", "build.gradle"),
    "gradlew": ("build.gradle.kts", "build.gradle"),
    "mvn": ("pom.xml",),
    "deno": ("deno.json", "deno.jsonc"),
    "mix": ("mix.exs",),
    "mise": ("mise.toml", ".mise.toml"),
    "golangci-lint": (".golangci.yml", ".golangci.yaml", ".golangci.toml", "go.mod"),
    "rake": ("Rakefile",),
    "bundle": ("Gemfile",),
    "rspec": (".rspec", "Gemfile"),
    "rubocop": (".rubocop.yml", "Gemfile"),
    "uv": ("pyproject.toml",),
    "poetry": ("pyproject.toml",),
    "composer": ("composer.json",),
}
# Tool configs of subcommands: `mix credo` reads .credo.exs, `mix format` .formatter.exs.
_SUBCOMMAND_FILES = {
    ("mix", "credo"): (".credo.exs", "mix.exs"),
    ("mix", "format"): (".formatter.exs", "mix.exs"),
    ("mix", "dialyzer"): (".dialyzer_ignore.exs", "mix.exs"),
    ("cargo", "clippy"): ("clippy.toml", ".clippy.toml", "Cargo.toml"),
    ("cargo", "fmt"): ("rustfmt.toml", ".rustfmt.toml", "Cargo.toml"),
}
# Task runners whose config names each task: `mise run test` depends on `mise.toml#tasks.test`.
_TASK_TABLES = {"mise": ("mise.toml", ".mise.toml"), "task": ("Taskfile.yml", "Taskfile.yaml")}
_PACKAGE_TOOLS = frozenset({"npm", "pnpm", "yarn", "bun"})
_INTERPRETERS = frozenset(
    {"node", "python", "python3", "bash", "sh", "ruby", "perl", "tsx", "ts-node", "deno", "bun"}
)
# Import/module errors depend on how modules resolve.
_IMPORT_WORDS = re.compile(r"\bimport|\bmodule|extension|\bESM\b|ECMAScript|require\(", re.IGNORECASE)
_TS_IMPORT_FIELDS = (
    "tsconfig.json#compilerOptions.module",
    "tsconfig.json#compilerOptions.moduleResolution",
    "package.json#type",
)
_TS_STRICT_FIELDS = ("tsconfig.json#compilerOptions.strict",)
MAX_ENTRIES = 4


def field_entry(path: str, *keys: str) -> str:
    """`path#a.b` with each key quoted when it is not a plain word (`scripts."test:unit"`)."""
    parts = [
        k if _BARE_KEY.match(k) else '"' + k.replace("\\", "\\\\").replace('"', '\\"') + '"' for k in keys
    ]
    return f"{path}#{'.'.join(parts)}"


class RepoFacts:
    """Read-only, cached look-ups of the repository's files and config fields."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._docs: dict[str, object] = {}
        self._exists: dict[str, bool] = {}  # one capture run sees one state of the repository
        # for_invocation's answers: every session of a log runs the same few commands again.
        self.defining: dict[tuple[Invocation, str, bool], list[str]] = {}

    def _under(self, rel: str) -> Path | None:
        path = (self.root / rel).resolve() if rel else self.root
        try:
            path.relative_to(self.root.resolve())
        except ValueError:
            return None
        return path

    def is_file(self, rel: str) -> bool:
        key = f"file:{rel}"
        if key not in self._exists:
            path = self._under(rel)
            self._exists[key] = path is not None and path.is_file()
        return self._exists[key]

    def is_dir(self, rel: str) -> bool:
        key = f"dir:{rel}"
        if key not in self._exists:
            path = self._under(rel.rstrip("/"))
            self._exists[key] = path is not None and path.is_dir()
        return self._exists[key]

    def document(self, rel: str) -> object:
        """A parsed JSON/TOML/YAML file, None when absent or unreadable."""
        if rel not in self._docs:
            self._docs[rel] = None
            path = self._under(rel)
            if path is not None and path.is_file() and path.stat().st_size <= 2 * 1024 * 1024:
                with contextlib.suppress(OSError, ValueError):
                    self._docs[rel] = parse_document(rel, path.read_bytes())
        return self._docs[rel]

    def value(self, entry: str) -> tuple[bool, Any]:
        """(found, value) of a field entry such as `package.json#scripts.test`."""
        try:
            parsed = parse_entry(entry)
        except InvalidFingerprintError:
            return False, None
        found, value, _ = (
            lookup(self.document(parsed.path), parsed.field) if parsed.field else (False, None, "")
        )
        return found, value

    def exists(self, entry: str) -> bool:
        """True when a file, `dir/` or field entry names something present."""
        known = self._exists.get(entry)
        if known is None:
            if "#" in entry:
                known = self.value(entry)[0]
            else:
                known = self.is_dir(entry) if entry.endswith("/") else self.is_file(entry)
            self._exists[entry] = known
        return known

    def count_kind(self, directory: str, predicate: Callable[[str], bool], *, limit: int = 200) -> int:
        """How many files under `directory` (depth <= 3) satisfy `predicate(relative path)`."""
        base = self._under(directory.rstrip("/"))
        if base is None or not base.is_dir():
            return 0
        count = 0
        for seen, path in enumerate(base.glob("**/*")):
            if seen >= 5000 or count >= limit:
                break
            if len(path.relative_to(base).parts) <= 3 and path.is_file() and predicate(path.name):
                count += 1
        return count


def _prefix(inv: Invocation, base: str) -> str:
    parts = [p for p in (base, (inv.workdir or "").strip("/").removeprefix("./")) if p and p != "."]
    return "/".join(parts) + "/" if parts else ""


# Flags that point a command at a sub-project: `npm run lint -w web`, `npm --prefix web test`,
# `pnpm -C web test`, `yarn --cwd web test`, `tsc -p web` (a directory or its tsconfig file).
_NODE_DIR_FLAGS = frozenset({"-w", "--workspace", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F"})
_TSC_DIR_FLAGS = frozenset({"-p", "--project"})


def _target_dir(inv: Invocation) -> str:
    """The sub-project directory a flag of `inv` names (`web/`), or ``."""
    flags = _TSC_DIR_FLAGS if inv.tool in ("tsc", "vue-tsc") else _NODE_DIR_FLAGS
    if inv.tool not in ("tsc", "vue-tsc") and not inv.manager and inv.tool not in _PACKAGE_TOOLS:
        return ""
    argv = list(inv.argv)
    for i, word in enumerate(argv):
        name, eq, value = word.partition("=")
        if name not in flags:
            continue
        target = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        target = target.strip("'\"").removeprefix("./").rstrip("/")
        if target.endswith(".json"):  # `tsc -p web/tsconfig.app.json`: its directory
            target = target.rpartition("/")[0]
        if target and not target.startswith(("/", "~", "..", "-")) and "*" not in target:
            return target + "/"
    return ""


def for_invocation(
    inv: Invocation, facts: RepoFacts, *, base: str = "", absent_ok: bool = False
) -> list[str]:
    """The facts that define how `inv` runs: its package script, dependency or config.

    With `absent_ok`, a script or dependency missing from an existing package.json is named too:
    a lesson born of `Missing script: lint` depends on that absence and goes stale when it ends.
    """
    key = (inv, base, absent_ok)
    known = facts.defining.get(key)
    if known is not None:
        return list(known)
    found: list[str] = []
    for prefix in _prefixes(_prefix(inv, base) + _target_dir(inv)):
        found = _defining(inv, prefix, facts, absent_ok=absent_ok)
        if found:
            break
    if len(facts.defining) < 4096:
        facts.defining[key] = list(found)
    return found


def _prefixes(prefix: str) -> list[str]:
    """`web/app/`, `web/`, ``: where a command run in a sub-project finds its config, nearest first."""
    parts = [p for p in prefix.split("/") if p]
    return ["/".join(parts[:n]) + "/" if n else "" for n in range(len(parts), -1, -1)]


def _defining(inv: Invocation, prefix: str, facts: RepoFacts, *, absent_ok: bool) -> list[str]:
    """The facts of one directory that define how `inv` runs (see `for_invocation`)."""
    out: list[str] = []
    manifest = f"{prefix}package.json"
    sub = subcommand(inv)
    first = (inv.tool, sub)
    single = True  # the first config found is the one the tool reads
    if inv.manager and inv.script:
        out.append(field_entry(manifest, "scripts", inv.script))
        single = False
    elif inv.tool in _TASK_TABLES and inv.script:
        out.extend(field_entry(f"{prefix}{name}", "tasks", inv.script) for name in _TASK_TABLES[inv.tool])
        out.extend(f"{prefix}{name}" for name in _TASK_TABLES[inv.tool])  # tasks kept elsewhere
    elif inv.tool in _NODE_TOOLS:
        package = _NODE_PACKAGES.get(inv.tool, inv.tool)
        if inv.tool in ("tsc", "vue-tsc"):
            out.append(f"{prefix}tsconfig.json")
        out.extend(field_entry(manifest, section, package) for section in ("devDependencies", "dependencies"))
        single = False
    elif inv.tool in _PY_CONFIG:
        out.extend(f"{prefix}{entry}" for entry in _PY_CONFIG[inv.tool])
        # No table of its own: the project file that installs the tool and runs it (`uv run pytest`).
        out.extend(f"{prefix}{name}" for name in _PY_RUNNER_FILES.get(inv.runner or "", _PY_PROJECT))
    elif first in _SUBCOMMAND_FILES:
        out.extend(f"{prefix}{name}" for name in _SUBCOMMAND_FILES[first])
    elif inv.tool in _BUILD_FILES:
        out.extend(f"{prefix}{name}" for name in _BUILD_FILES[inv.tool])
    elif inv.tool in _INTERPRETERS and sub and "." in sub.rsplit("/", 1)[-1] and ".." not in sub:
        out.append(f"{prefix}{sub.removeprefix('./')}")  # `node build.js`: the script is the fact
    present = [entry for entry in out if facts.exists(entry)]
    if single:
        present = present[:1]
    elif inv.tool in ("tsc", "vue-tsc"):
        present = present[:2]
    elif not present and absent_ok and out and facts.is_file(manifest):
        present = out[:1]
    return present


def script_value(inv: Invocation, facts: RepoFacts, *, base: str = "") -> str | None:
    """The text of the package script `inv` runs, when it is one."""
    if not (inv.manager and inv.script):
        return None
    found, value = facts.value(field_entry(f"{_prefix(inv, base)}package.json", "scripts", inv.script))
    return value if found and isinstance(value, str) else None


def script_running(command: str, facts: RepoFacts, *, base: str = "") -> str | None:
    """The package.json script whose text is `command` (so `npx tsc --noEmit` finds `typecheck`)."""
    scripts = facts.value(f"{base}package.json#scripts")[1] if facts.is_file(f"{base}package.json") else None
    if not isinstance(scripts, dict):
        return None
    wanted = " ".join(command.split())
    for name, value in scripts.items():
        if isinstance(value, str) and " ".join(value.split()) == wanted:
            return str(name)
    return None


def for_error(text: str, inv: Invocation | None, facts: RepoFacts, *, base: str = "") -> list[str]:
    """Settings an error depends on: module settings for import errors from TypeScript, else none."""
    out: list[str] = []
    typescript = inv is not None and inv.tool in ("tsc", "vue-tsc") or bool(re.search(r"\bTS\d{4}\b", text))
    if typescript and _IMPORT_WORDS.search(text):
        out.extend(f"{base}{entry}" for entry in _TS_IMPORT_FIELDS)
    elif typescript and re.search(r"implicitly has an|possibly '(?:null|undefined)'|strict", text):
        out.extend(f"{base}{entry}" for entry in _TS_STRICT_FIELDS)
    return [entry for entry in out if facts.exists(entry)]


def for_paths(paths: list[str], facts: RepoFacts) -> list[str]:
    """Entries for paths a lesson names: files as files, `dir/` as directory shapes."""
    out: list[str] = []
    for path in paths:
        clean = path.strip().strip("`'\"").removeprefix("./")
        if not clean or clean.startswith(("/", "~", "..")) or any(c in clean for c in "*?[ \\#"):
            continue
        if clean.endswith("/") and facts.is_dir(clean) or facts.is_file(clean):
            out.append(clean)
    return out


def merge(*groups: list[str]) -> list[str]:
    """Entries in order of first mention, without repeats, at most MAX_ENTRIES."""
    seen: dict[str, None] = {}
    for group in groups:
        for entry in group:
            seen.setdefault(entry, None)
    return list(seen)[:MAX_ENTRIES]


_SPAN = re.compile(r"`([^`\n]{1,200})`")
_PATHISH = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.*-]*|[\w-]+\.(?:json|toml|ya?ml|ts|js|py|go|rs|md|cfg|ini))(?![\w/])"
)
_FIELD = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:json|toml|ya?ml)#[\w.\":@/-]+)")


def for_text(text: str, facts: RepoFacts, *, base: str = "") -> list[str]:
    """Entries for what a lesson's own words name that exists here: files and `dir/`s, config fields
    (`package.json#scripts.test`), and the script, dependency or config of the commands it quotes.

    For lessons written elsewhere (imports), which come with no fingerprint of their own."""
    spans = _SPAN.findall(text)
    fields = [f for f in dict.fromkeys(_FIELD.findall(text)) if facts.exists(f.rstrip(".,;:"))]
    paths = for_paths(list(dict.fromkeys([*spans, *_PATHISH.findall(text)])), facts)
    dirs = [e for e in paths if e.endswith("/")][:1]  # "not in src/": a directory in passing says little
    invocations = [inv for span in spans if " " in span.strip() and (inv := parse(span)) is not None]
    named = [f.rstrip(".,;:") for f in fields]
    commands = [
        e for inv in invocations if inv.category or inv.script for e in for_invocation(inv, facts, base=base)
    ]
    # A field of a file says more than the whole file (`package.json` changes for many reasons).
    narrowed = {entry.split("#", 1)[0] for entry in (*named, *commands) if "#" in entry}
    files = [e for e in paths if (not e.endswith("/") or e in dirs) and e not in narrowed]
    return merge(named, files, commands)
