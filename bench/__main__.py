"""Run every benchmark module (``bench/bench_*.py``), or those named on the command line:
``python -m bench games platform``."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import bench


def main(argv: list[str]) -> int:
    wanted = set(argv)
    for module in sorted(pkgutil.iter_modules(bench.__path__), key=lambda m: m.name):
        short = module.name.removeprefix("bench_")
        if not module.name.startswith("bench_") or (wanted and short not in wanted):
            continue
        print(f"\n=== {short} ===", flush=True)
        importlib.import_module(f"bench.{module.name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
