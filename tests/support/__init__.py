"""Helpers the test folders share: processes, services, gRPC servers and bots."""
