"""The layout holds: packages depend on each other one way, lazy imports live only where start-up
time needs them, and nothing sits loose in the package root.

Read from the source with `ast`, so an import inside a function or under `TYPE_CHECKING` counts as
much as one at the top: a lazy import still ties two packages together.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import PACKAGE

ROOT_NAME = PACKAGE.name
# Loose in the package root: the entry points and the two leaves every package may use.
ROOT_MODULES = {"__init__", "__main__", "constants", "errors"}
# Where an import inside a function is allowed: the per-turn command lines decide what to load.
LAZY_ALLOWED_UNDER = (f"{ROOT_NAME}.cli.fast",)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported module (or package), dotted
    lazy: bool  # inside a function (not at module level, not under `if TYPE_CHECKING:`)
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _package_of(name: str) -> str:
    """The package a module belongs to; the root's leaves are nodes of their own."""
    if _is_package(name):
        return name
    parent = name.rpartition(".")[0]
    return name if parent == ROOT_NAME else parent


def _walk(node: ast.AST, lazy: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, lazy
        inside = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inside)


def _imports() -> list[Import]:
    found: list[Import] = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, lazy in _walk(tree, False):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.append(sub if sub in MODULES else node.module)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target.split(".")[0] == ROOT_NAME and target in MODULES and target != name:
                    found.append(Import(name, target, lazy, getattr(node, "lineno", 0)))
    return found


IMPORTS = _imports()


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in IMPORTS:
        if imp.source in (ROOT_NAME, f"{ROOT_NAME}.__main__"):
            continue  # the front door and the entry point import everything; nothing imports them
        a, b = _package_of(imp.source), _package_of(imp.target)
        if a != b:
            graph[a].add(b)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _explain(component: list[str]) -> list[str]:
    members = set(component)
    return sorted(
        f"{imp.source}:{imp.line} -> {imp.target}{' (lazy)' if imp.lazy else ''}"
        for imp in IMPORTS
        if imp.source not in (ROOT_NAME, f"{ROOT_NAME}.__main__")
        and _package_of(imp.source) in members
        and _package_of(imp.target) in members
        and _package_of(imp.source) != _package_of(imp.target)
    )


def test_no_import_cycle_between_packages() -> None:
    cycles = _cycles(_package_graph())
    assert not cycles, "\n".join(f"{c}:\n  " + "\n  ".join(_explain(c)) for c in cycles)


def test_the_cycle_check_can_fail() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_lazy_imports_only_in_fast_paths_and_package_inits() -> None:
    offenders = [
        f"{imp.source}:{imp.line} imports {imp.target} inside a function"
        for imp in IMPORTS
        if imp.lazy and not _is_package(imp.source) and not imp.source.startswith(LAZY_ALLOWED_UNDER)
    ]
    assert not offenders, "\n".join(offenders)


def test_nothing_loose_in_the_package_root() -> None:
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in ROOT_MODULES)
    assert not loose, f"modules to move into a package: {loose}"


def test_argparse_only_under_cli() -> None:
    users = [
        name
        for name, path in MODULES.items()
        if not name.startswith(f"{ROOT_NAME}.cli")
        and any(
            (isinstance(n, ast.Import) and any(a.name == "argparse" for a in n.names))
            or (isinstance(n, ast.ImportFrom) and n.module == "argparse")
            for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert not users, f"argparse outside cli/: {users}"


@pytest.mark.parametrize("package", sorted(n for n in MODULES if _is_package(n) and n != ROOT_NAME))
def test_every_package_opens_with_a_map(package: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text(encoding="utf-8"))) or ""
    assert len([line for line in doc.splitlines() if line.strip()]) >= 3, (
        f"{MODULES[package]}: open with a short map of the stage (what it takes, what it gives, its modules)"
    )
