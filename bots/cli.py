"""The example bots' command line, kept importable as ``bots.cli``: it lives in the ``arena-bot``
distribution (sdk/python) as ``arena_bot.cli``."""

from arena_bot.cli import connection, main, parse, parser

__all__ = ["connection", "main", "parse", "parser"]
