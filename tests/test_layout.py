"""The package's layout holds (ARCHITECTURE.md): no import cycle, each layer imports only the
layers below it, and no module but the settings reads the ``ARENA_*`` environment. The checks
are ``tools.layout``'s; the tests on small made-up trees show that each of them can fail.

The test suite's own layout holds too: shared fixtures live in ``conftest.py`` and shared
functions in ``helpers.py`` (or ``services.py``) modules, so no module of the suite imports a
test file or a ``conftest.py``."""

from __future__ import annotations

import ast
from pathlib import Path

from tools import layout

TESTS = Path(__file__).resolve().parent


def suite_imports(root: Path = TESTS) -> list[str]:
    """Each import, in any module under ``root`` (the folder of package ``tests``), of a test
    file or a ``conftest`` module."""
    found = []
    for path in sorted(root.rglob("*.py")):
        package = ["tests", *path.relative_to(root).parent.parts]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                module = [*base, *(node.module.split(".") if node.module else [])]
                # ``from . import test_x`` names the module in the imported names.
                names = [".".join(module)] + [".".join([*module, alias.name]) for alias in node.names]
            else:
                continue
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if name.startswith("tests") and (last.startswith("test_") or last == "conftest"):
                    found.append(f"{path.relative_to(root)}:{node.lineno} imports {name}")
    return found


def test_the_arena_holds_its_layout() -> None:
    assert layout.findings() == []


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in layout.PACKAGES:
        (root / package).mkdir(exist_ok=True)
    return root


def test_a_cycle_is_found_even_through_an_import_inside_a_function(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "arena/__init__.py": "",
        "arena/games/__init__.py": "",
        "arena/games/one.py": "from . import two\n",
        "arena/games/two.py": "def late():\n    from arena.games import one\n",
    })
    assert layout.findings(root) == ["import cycle: arena.games.one <-> arena.games.two"]


def test_a_layer_importing_one_above_it_is_found(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "arena/__init__.py": "",
        "arena/games/__init__.py": "",
        "arena/games/rules.py": "from arena.store import db\n",
        "arena/store/__init__.py": "",
        "arena/store/db.py": "",
        "workers/__init__.py": "",
        "arena/web/__init__.py": "import workers\n",
    })
    assert layout.findings(root) == [
        "arena/games/rules.py:1: arena.games may not import arena.store (arena.store.db)",
        "arena/web/__init__.py:1: arena.web may not import workers (workers)",
    ]


def test_the_environment_check_sees_reads_and_writes(tmp_path: Path) -> None:
    root = write(tmp_path, {"arena/__init__.py": "", "arena/games/__init__.py": "", "arena/games/sly.py": (
        "import os\nfrom os import environ\nNAME = 'ARENA_QUEUE'\n"
        "a = os.environ.get(NAME)\nb = os.getenv('ARENA_DB_POOL')\nc = environ['ARENA_ELO_K']\n"
        "d = 'ARENA_X' in os.environ\ne = os.environ.get('HOME')\nos.environ['ARENA_Y'] = '1'\n"
        "os.environ.setdefault('OTHER', '2')\nenv = os.environ\nf = env.get('ARENA_WEB_ADDRESS')\n"),
        "arena/settings.py": "import os\nos.environ.get('ARENA_QUEUE')\n"})
    assert layout.findings(root) == [
        "arena/games/sly.py:4 reads ARENA_QUEUE (take it from arena.settings)",
        "arena/games/sly.py:5 reads ARENA_DB_POOL (take it from arena.settings)",
        "arena/games/sly.py:6 reads ARENA_ELO_K (take it from arena.settings)",
        "arena/games/sly.py:7 reads ARENA_X (take it from arena.settings)",
        "arena/games/sly.py:9 writes ARENA_Y (pass the value instead)",
        "arena/games/sly.py:10 writes OTHER (pass the value instead)",
        "arena/games/sly.py:12 reads ARENA_WEB_ADDRESS (take it from arena.settings)",
    ]


def test_no_test_module_imports_a_test_file_or_a_conftest() -> None:
    assert suite_imports() == []


def test_the_suite_check_finds_each_kind_of_import(tmp_path: Path) -> None:
    write(tmp_path, {
        "one/test_a.py": "from .test_b import helper\nfrom . import conftest\n",
        "one/test_c.py": "import tests.one.test_a\nfrom ..two import helpers\nfrom ..two.conftest import x\n",
        "two/helpers.py": "from tests.one import test_c\nfrom tests.helpers import wait_until\n",
    })
    assert suite_imports(tmp_path) == [
        "one/test_a.py:1 imports tests.one.test_b",
        "one/test_a.py:2 imports tests.one.conftest",
        "one/test_c.py:1 imports tests.one.test_a",
        "one/test_c.py:3 imports tests.two.conftest",
        "two/helpers.py:1 imports tests.one.test_c",
    ]
