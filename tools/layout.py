"""The package's layout, checked: no import cycle, each layer imports only the layers below it
(ARCHITECTURE.md), and no module but the settings reads the ``ARENA_*`` environment.

    python -m tools.layout        # print every finding; exit 1 if there is one

Imports are read from the source with ``ast``, those inside functions included (an import
moved into a function to dodge a cycle is still a cycle). Only the arena's own packages are
looked at: ``arena``, ``workers`` and ``bots``; migrations are left out (Alembic loads them).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "workers", "bots")

# Each layer and the layers it may import (besides itself), from the bottom up. A layer is a
# subpackage or module of ``arena`` (``arena.games``) or a top-level package (``workers``).
# ARCHITECTURE.md explains each one's job; keep the two in step.
FOUNDATION = {"arena", "arena.settings", "arena.ratelimit", "arena.ratings", "arena.errors", "arena.clock"}
MAY_IMPORT: dict[str, set[str]] = {
    "arena": set(),
    "arena.errors": set(),
    "arena.clock": set(),
    "arena.ratelimit": set(),
    "arena.ratings": set(),
    "arena.settings": {"arena.ratelimit", "arena.errors"},
    "arena.config": {"arena.settings"},
    "arena.games": FOUNDATION,
    "arena.metrics": FOUNDATION | {"arena.config"},
    "arena.referee": FOUNDATION | {"arena.config", "arena.games", "arena.metrics"},
    "arena.store": FOUNDATION | {"arena.config", "arena.games", "arena.referee"},
    "arena.tournaments": FOUNDATION | {"arena.config", "arena.games", "arena.referee", "arena.store",
                                       "arena.metrics"},
    "arena.web": FOUNDATION | {"arena.config", "arena.games", "arena.referee", "arena.store",
                               "arena.tournaments", "arena.metrics"},
    "workers": FOUNDATION | {"arena.config", "arena.games", "arena.referee", "arena.store",
                             "arena.tournaments", "arena.metrics"},
    "arena.server": FOUNDATION | {"arena.config", "arena.games", "arena.referee", "arena.store",
                                  "arena.tournaments", "arena.metrics", "workers"},
    "arena.cli": FOUNDATION | {"arena.config", "arena.games", "arena.referee", "arena.store",
                               "arena.tournaments", "arena.metrics", "arena.web", "arena.server",
                               "workers"},
    # The example bots speak to the arena through the SDK and play with the arena's rules.
    "bots": {"arena.games"},
}
# Entry points that start a layer from the command line may call the CLI, which wires it up.
ENTRY_POINTS = {"arena.web.__main__": {"arena.cli"}}
# The one module that reads the arena's environment. Client-side commands read the variables a
# bot author sets for the SDK (ARENA_ADDRESS, ARENA_BOT_TOKEN, ARENA_TLS...), as the SDK does.
SETTINGS_MODULE = "arena.settings"
CLIENT_VARIABLES = {"ARENA_ADDRESS", "ARENA_BOT_TOKEN", "ARENA_TLS", "ARENA_TLS_CA", "ARENA_ADMIN_TOKEN",
                    "ARENA_RULES_ADDRESS"}
CLIENT_MODULES = {"arena.cli.serve_cmd", "bots.search_bot"}


@dataclass(frozen=True)
class Module:
    name: str
    path: Path

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    def tree(self) -> ast.Module:
        return ast.parse(self.path.read_text(), filename=str(self.path))


def modules(root: Path = ROOT) -> dict[str, Module]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).with_suffix("")
            if "migrations" in relative.parts:
                continue
            parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
            found[".".join(parts)] = Module(".".join(parts), path)
    return found


def imported(module: Module, known: dict[str, Module]) -> Iterator[tuple[str, int]]:
    """The arena modules ``module`` imports, anywhere in its code, with the line."""
    here = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    for node in ast.walk(module.tree()):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here[: len(here) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            # ``from package import module`` imports the module; ``from module import name`` the module.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module.name:
                yield target, node.lineno


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[0] if parts[0] != "arena" or len(parts) == 1 else ".".join(parts[:2])


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def environment_uses(module: Module) -> Iterator[tuple[str, int, str]]:
    """Reads and writes of ``ARENA_*`` variables (or of a variable named by an expression):
    (what, line, variable)."""
    for node in ast.walk(module.tree()):
        target = None
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            target = node.slice
            kind = "writes" if isinstance(node.ctx, ast.Store | ast.Del) else "reads"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if _is_environ(func.value) and func.attr in ("get", "setdefault", "pop", "update", "__setitem__"):
                target = node.args[0] if node.args else None
                kind = "reads" if func.attr == "get" else "writes"
            elif isinstance(func.value, ast.Name) and func.value.id == "os" and func.attr in ("getenv", "putenv"):
                target = node.args[0] if node.args else None
                kind = "reads" if func.attr == "getenv" else "writes"
            else:
                continue
        else:
            continue
        variable = target.value if isinstance(target, ast.Constant) and isinstance(target.value, str) else "?"
        # Libraries configured by their own variables (GRPC_VERBOSITY, PROMETHEUS_MULTIPROC_DIR)
        # are theirs to read; the arena's values are never passed through the environment.
        if variable.startswith("ARENA_") or variable == "?":
            yield kind, node.lineno, variable


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ"
            and isinstance(node.value, ast.Name) and node.value.id == "os")


def findings(root: Path = ROOT) -> list[str]:
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    problems = []
    for module in known.values():
        allowed = MAY_IMPORT.get(layer(module.name))
        if allowed is None:
            problems.append(f"{module.name}: in no layer (add it to tools/layout.py and ARCHITECTURE.md)")
            allowed = set()
        for target, line in imported(module, known):
            graph[module.name].add(target)
            theirs = layer(target)
            if theirs != layer(module.name) and theirs not in allowed | ENTRY_POINTS.get(module.name, set()):
                problems.append(f"{module.path.relative_to(root)}:{line}: {layer(module.name)} may not import "
                                f"{theirs} ({target})")
        if module.name == SETTINGS_MODULE:
            continue
        for kind, line, variable in environment_uses(module):
            if kind == "reads" and module.name in CLIENT_MODULES and variable in CLIENT_VARIABLES:
                continue
            problems.append(f"{module.path.relative_to(root)}:{line}: {kind} the environment ({variable}); "
                            f"only {SETTINGS_MODULE} does")
    for component in cycles(graph):
        problems.append("import cycle: " + " <-> ".join(component))
    return problems


def main() -> int:
    problems = findings()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
