"""``--json`` for the commands that act (create, run, register, play...): one JSON document
on stdout and nothing else there, so that ``arena ... --json | jq`` always parses; whatever
a person would read along the way (progress, notices, a match's moves) goes to stderr."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime
from typing import Any, TextIO


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="machine-readable output: one JSON document on stdout (notices on stderr)")


def human_stream(args: argparse.Namespace) -> TextIO:
    """Where a command's lines for people go: stdout, or stderr when stdout carries the JSON."""
    return sys.stderr if getattr(args, "json", False) else sys.stdout


def print_json(document: Any) -> None:
    """``document`` on stdout, times in ISO 8601."""
    sys.stdout.write(json.dumps(document, indent=2, default=_plain) + "\n")
    sys.stdout.flush()


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
