"""The generated gRPC code matches proto/: nobody edited it by hand or forgot to regenerate."""

from tools import protogen


def test_generated_code_is_fresh() -> None:
    assert protogen.stale_files() == [], "run `python -m tools.protogen` and commit sdk/python/arena_bot/v1/"


def test_every_message_and_rpc_is_documented() -> None:
    """docs/protocol.md sends bot authors to the comments in the .proto files: every message
    and every rpc must have one."""
    undocumented = []
    for proto in sorted((protogen.PROTO_ROOT / "arena" / "v1").glob("*.proto")):
        lines = proto.read_text().splitlines()
        for number, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith(("message ", "rpc ", "service ", "enum ")):
                if not lines[number - 1].strip().startswith("//"):
                    undocumented.append(f"{proto.name}:{number + 1}: {stripped}")
    assert undocumented == []
