"""``python -m arena.web [--address HOST:PORT] [--database URL]``: the same as ``arena web``;
``arena serve --web`` starts the web face this way, in a process of its own."""

from __future__ import annotations

import sys

from arena.cli import main

if __name__ == "__main__":
    sys.exit(main(["web", *sys.argv[1:]]))
