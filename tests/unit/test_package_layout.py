"""The package's shape, as docs/architecture.md draws it: what the import-linter contracts in
pyproject.toml (checked by `lint-imports` in CI) cannot say.

- A project module is imported at the top of a module, never inside a function or under
  TYPE_CHECKING, where an import circle would hide (third-party packages may load lazily).
- No import cycle, counting every import wherever it is made.
- No flat folder holds more than about a fifth of the package's lines.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dorisql"

#: The project imports allowed inside a function, each with its reason.
LAZY_PROJECT_IMPORTS = {
    # Batch mode (-e, -f, a pipe) never loads prompt-toolkit: the interactive shell is imported
    # only when it starts (tests/shell/test_shell_cli.py checks it).
    ("dorisql.shell.cli", "dorisql.shell.repl"),
    # psycopg (half a second at start-up) loads only for a PostgreSQL catalog, and for
    # `dorisql catalog migrate`.
    ("dorisql.catalog", "dorisql.catalog.postgres"),
    ("dorisql.shell.cli", "dorisql.catalog.migrate"),
    # mysql-mimic loads only for `dorisql server` (the one import from shell to server).
    ("dorisql.shell.cli", "dorisql.server.main"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if "grammar" in path.relative_to(PACKAGE).parts:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, ast.stmt, bool]]:
    """(imported project module, import statement, made at module top) for each project import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{name}: relative import (line {node.lineno})"
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                targets.append(full if full in modules else node.module)
        for target in targets:
            if target.split(".")[0] == "dorisql" and target != name:
                yield target, node, id(node) in top


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {t for t, _, _ in _imports(name, path, modules) if t in modules} for name, path in modules.items()}


def test_project_modules_are_imported_at_module_top_only():
    modules = _modules()
    misplaced = sorted(
        f"{name} imports {target} inside a block (line {node.lineno})"
        for name, path in modules.items()
        for target, node, at_top in _imports(name, path, modules)
        if not at_top and (name, target) not in LAZY_PROJECT_IMPORTS
    )
    assert misplaced == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_counting_imports_made_anywhere():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_flat_folder_holds_more_than_a_fifth_of_the_lines():
    lines = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in _modules().values()}
    total = sum(lines.values())
    by_folder: dict[Path, int] = {}
    for path, count in lines.items():
        by_folder[path.parent] = by_folder.get(path.parent, 0) + count
    too_big = {str(folder.relative_to(PACKAGE.parent)): n for folder, n in by_folder.items() if n > total * 0.22}
    assert too_big == {}, f"of {total} lines"
