"""Regenerate the Python code for proto/arena/v1/*.proto into the bot SDK's package
sdk/python/arena_bot/v1/ (the ``arena-bot`` distribution), the one copy both the SDK and the
arena import (the arena depends on ``arena-bot``).

    python -m tools.protogen          # write it
    python -m tools.protogen --check  # exit 1 if it is stale

Generated modules are never edited by hand; grpcio-tools is pinned in the dev extra so the
output is byte-for-byte reproducible.

The code is protoc's output with only its Python module path changed (``arena.v1``, which
protoc derives from the file names, to ``arena_bot.v1`` in imports and module names). The
descriptors keep the file names (``arena/v1/gateway.proto``) and the protobuf package
``arena.v1``, so the wire and the gRPC service names are the protocol's own."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
SDK_PACKAGE = ROOT / "sdk" / "python" / "arena_bot" / "v1"
# The only places protoc writes the module path: imports between generated modules, the module
# name given to the message builder, and the path in grpc's version warning.
MODULE_PATH_REWRITES = [
    (re.compile(r"^from arena\.v1 import ", re.M), "from arena_bot.v1 import "),
    (re.compile(r"(BuildTopDescriptorsAndMessages\(DESCRIPTOR, )'arena\.v1\.(\w+_pb2)'"), r"\1'arena_bot.v1.\2'"),
    (re.compile(r"generated code in arena/v1/"), "generated code in arena_bot/v1/"),
]


def sdk_module(text: str) -> str:
    """One generated module as the SDK holds it: protoc's code under ``arena_bot.v1``."""
    for pattern, replacement in MODULE_PATH_REWRITES:
        text = pattern.sub(replacement, text)
    return text


def generate(out_root: Path) -> list[Path]:
    """Run protoc for every .proto file and write the SDK's modules under out_root (laid out as
    the repository is); return the generated files, relative to out_root."""
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "arena" / "v1").glob("*.proto"))
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp)
        args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={raw}", f"--pyi_out={raw}",
                f"--grpc_python_out={raw}", *protos]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        for source in sorted((raw / "arena" / "v1").glob("*_pb2*")):
            target = out_root / SDK_PACKAGE.relative_to(ROOT) / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(sdk_module(source.read_text()))
            written.append(target.relative_to(out_root))
    return sorted(written)


def stale_files() -> list[str]:
    """Generated files that differ from (or are missing in) sdk/python/arena_bot/v1/, and
    generated files there that protoc no longer makes."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generated = generate(fresh)
        stale = []
        for rel in generated:
            committed = ROOT / rel
            if not committed.exists() or committed.read_bytes() != (fresh / rel).read_bytes():
                stale.append(str(rel))
        stale += [str(p.relative_to(ROOT)) for p in sorted(SDK_PACKAGE.glob("*_pb2*"))
                  if p.relative_to(ROOT) not in generated]
        return stale


def main(argv: list[str]) -> int:
    if "--check" in argv:
        stale = stale_files()
        for name in stale:
            print(f"stale: {name}")
        return 1 if stale else 0
    generate(ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
