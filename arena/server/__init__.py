"""The arena's gRPC services (Arena, Rules, health, reflection) and their server."""
