"""A game's page text: its ``docs/games/<game>.md`` rendered from Markdown.

The docs live in the source tree (``ARENA_DOCS_DIR`` points elsewhere); an installation
without them still gets a page, built from what the game object itself declares."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup

from arena import games

_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


@lru_cache(maxsize=32)
def _render(path: Path, mtime: float) -> Markup:
    text = path.read_text(encoding="utf-8")
    if text.startswith("# "):  # the page has its own title
        text = text.split("\n", 1)[1] if "\n" in text else ""
    # Links between the game docs point at sibling .md files: send them to the game pages.
    for name in games.names():
        text = text.replace(f"]({name}.md", f"](/games/{name}")
    return Markup(_markdown.render(text))


def game_doc(game: str, docs_dir: Path) -> Markup | None:
    """The rendered rules and observation/action reference of ``game``, or None when the
    docs folder does not have it."""
    path = docs_dir / f"{games.get(game).name}.md"
    if not path.is_file():
        return None
    return _render(path, path.stat().st_mtime)
