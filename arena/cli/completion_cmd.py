"""``arena completion bash|zsh|fish``: a shell completion script made from the command line's own
parser (``shtab``), so it always knows the current commands and options."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "fish")

INSTALL = """\
install (once; a new shell then completes arena's commands, options and game names):
  bash  arena completion bash > ~/.local/share/bash-completion/completions/arena
  zsh   arena completion zsh > ~/.zfunc/_arena   (with fpath+=(~/.zfunc) before compinit in ~/.zshrc)
  fish  arena completion fish > ~/.config/fish/completions/arena.fish
The script is static: make it again after an upgrade that adds commands or games."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("completion", help="print a shell completion script",
                                   description=INSTALL, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(func=run)


def script(shell: str) -> str:
    """The completion script for ``shell``. Arguments that name a game complete to the
    registered games: the parser built here serves the script only and never parses."""
    import shtab

    from arena import games

    from . import build_parser, commands

    parser = build_parser()
    names = games.names()
    for _, command in commands(parser):
        for action in command._actions:
            if action.dest == "game" and not action.choices:
                action.choices = names
    return shtab.complete(parser, shell=shell)


def run(args: argparse.Namespace) -> int:
    print(script(args.shell))
    return 0
