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
FOUNDATION = {"arena", "arena.settings", "arena.ratelimit", "arena.ratings", "arena.errors", "arena.clock",
              "arena.stats", "arena.memory"}
MAY_IMPORT: dict[str, set[str]] = {
    "arena": set(),
    "arena.errors": set(),
    "arena.clock": set(),
    "arena.ratelimit": set(),
    "arena.memory": set(),
    "arena.ratings": set(),
    "arena.stats": set(),
    "arena.settings": {"arena.ratelimit", "arena.errors"},
    "arena.games": FOUNDATION,
    "arena.metrics": FOUNDATION,
    "arena.referee": FOUNDATION | {"arena.games", "arena.metrics"},
    "arena.store": FOUNDATION | {"arena.games", "arena.referee"},
    "arena.tournaments": FOUNDATION | {"arena.games", "arena.referee", "arena.store",
                                       "arena.metrics"},
    "arena.web": FOUNDATION | {"arena.games", "arena.referee", "arena.store",
                               "arena.tournaments", "arena.metrics"},
    "workers": FOUNDATION | {"arena.games", "arena.referee", "arena.store",
                             "arena.tournaments", "arena.metrics"},
    "arena.server": FOUNDATION | {"arena.games", "arena.referee", "arena.store",
                                  "arena.tournaments", "arena.metrics", "workers"},
    "arena.cli": FOUNDATION | {"arena.games", "arena.referee", "arena.store",
                               "arena.tournaments", "arena.metrics", "arena.web", "arena.server",
                               "workers"},
    # The games for learning: PettingZoo environments and each game's fixed encoding (the
    # game's ``encoding`` module sits beside its rules but belongs here: it may use numpy).
    "arena.envs": FOUNDATION | {"arena.games"},
    # The example bots speak to the arena through the SDK and play with the arena's rules.
    "bots": {"arena.games"},
}
# The name of a game's encoding module (``arena.games.<game>.encoding``), of layer ``arena.envs``.
ENCODING = "encoding"
# Entry points that start a layer from the command line may call the CLI, which wires it up.
ENTRY_POINTS = {"arena.web.__main__": {"arena.cli"}}
# The one module that reads the arena's environment; everything else is handed the model.
SETTINGS_MODULE = "arena/settings.py"
# Modules that may read an ``ARENA_*`` variable themselves, and why: clients of a server, whose
# variables (the bot SDK's) are not the server's settings.
CLIENT_READS = {
    ("arena/cli/serve_cmd.py", "ARENA_ADDRESS"): "`arena challenge` is a client of the server",
    ("arena/cli/serve_cmd.py", "ARENA_BOT_TOKEN"): "`arena challenge` is a client of the server",
    ("bots/search_bot.py", "ARENA_ADDRESS"): "an example bot, a client of the server",
    ("bots/search_bot.py", "ARENA_RULES_ADDRESS"): "an example bot, a client of the server",
}
# Variables of other libraries that the arena sets for them before they start.
FOREIGN_WRITES = {
    ("arena/cli/worker_cmd.py", "PROMETHEUS_MULTIPROC_DIR"): "prometheus_client's multiprocess mode",
    ("arena/cli/serve_cmd.py", "GRPC_VERBOSITY"): "gRPC core's logging",
}


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
    if parts[:2] == ["arena", "games"] and parts[-1] == ENCODING:
        return "arena.envs"  # a game's encoding for learning, beside its rules
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


def environment_uses(tree: ast.Module) -> list[tuple[int, str, str | None]]:
    """Where a module reads or writes the process's environment: (line, ``read`` or ``write``,
    the variable's name, None when it is not a constant)."""
    constants = {target.id: node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}

    def name_of(key: ast.AST | None) -> str | None:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return constants.get(key.id) if isinstance(key, ast.Name) else None

    def is_os_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" \
            and isinstance(node.value, ast.Name) and node.value.id == "os"

    # ``environ`` imported from os, and any other name given to it (``env = os.environ``).
    aliases = {"environ"} | {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                             and is_os_environ(node.value) for target in node.targets if isinstance(target, ast.Name)}

    def is_environ(node: ast.AST) -> bool:
        return is_os_environ(node) or (isinstance(node, ast.Name) and node.id in aliases)

    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_environ(node.value):
            kind = "read" if isinstance(node.ctx, ast.Load) else "write"
            found.append((node.lineno, kind, name_of(node.slice)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, owner = node.func.attr, node.func.value
            key = node.args[0] if node.args else None
            if is_environ(owner) and method in ("get", "__getitem__", "__contains__"):
                found.append((node.lineno, "read", name_of(key)))
            elif is_environ(owner) and method in ("setdefault", "update", "pop", "popitem", "clear", "__setitem__"):
                found.append((node.lineno, "write", name_of(key)))
            elif isinstance(owner, ast.Name) and owner.id == "os" and method in ("getenv", "putenv", "unsetenv"):
                found.append((node.lineno, "read" if method == "getenv" else "write", name_of(key)))
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            found.append((node.lineno, "read", name_of(node.left)))
    return sorted(found, key=lambda use: use[0])


def environment_problems(module: str, tree: ast.Module) -> list[str]:
    """Reads of ``ARENA_*`` variables and writes of the environment in one module (its path
    relative to the repository), but those allowed above."""
    if module == SETTINGS_MODULE:
        return []
    problems = []
    for line, kind, name in environment_uses(tree):
        if kind == "read" and (name is None or name.startswith("ARENA_")) and (module, name) not in CLIENT_READS:
            problems.append(f"{module}:{line} reads {name or 'a variable'} (take it from arena.settings)")
        if kind == "write" and (module, name) not in FOREIGN_WRITES:
            problems.append(f"{module}:{line} writes {name or 'the environment'} (pass the value instead)")
    return problems


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
        problems += environment_problems(module.path.relative_to(root).as_posix(), module.tree())
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
