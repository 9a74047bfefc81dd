"""Regenerate the Python code for proto/arena/v1/*.proto into arena/v1/.

    python -m tools.protogen          # write arena/v1/
    python -m tools.protogen --check  # exit 1 if arena/v1/ is stale

Generated modules are never edited by hand; grpcio-tools is pinned in the dev extra so the
output is byte-for-byte reproducible."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUT_PACKAGE = ROOT / "arena" / "v1"


def generate(out_root: Path) -> list[Path]:
    """Run protoc for every .proto file; return the generated files (relative to out_root)."""
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "arena" / "v1").glob("*.proto"))
    args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={out_root}", f"--pyi_out={out_root}",
            f"--grpc_python_out={out_root}", *protos]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    return sorted(p.relative_to(out_root) for p in (out_root / "arena" / "v1").glob("*_pb2*"))


def stale_files() -> list[str]:
    """Generated files that differ from (or are missing in) arena/v1/."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        stale = []
        for rel in generate(fresh):
            committed = ROOT / rel
            if not committed.exists() or committed.read_bytes() != (fresh / rel).read_bytes():
                stale.append(str(rel))
        generated = {p.name for p in (fresh / "arena" / "v1").glob("*_pb2*")}
        stale += [str(p.relative_to(ROOT)) for p in OUT_PACKAGE.glob("*_pb2*") if p.name not in generated]
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
