"""``arena play GAME``: one match of house bots (and optionally a person) in the terminal.

With ``--json`` the result is the one document on stdout; the match as it goes (and a
person's prompts) is written to stderr instead."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from arena import games
from arena.clock import Clock
from arena.errors import BadInput
from arena.games import house

from .jsonout import add_json_flag, human_stream, print_json
from .options import parse_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("play", help="play one match in the terminal")
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default="heuristic,random", help="house bots by seat, comma separated "
                        "(the last one fills the remaining seats)")
    parser.add_argument("--human", type=int, action="append", default=[], metavar="SEAT",
                        help="a person plays this seat from the keyboard (repeatable)")
    parser.add_argument("--bot", metavar="FILE.py:CLASS",
                        help="your bot, written with the SDK (a subclass of arena_bot.sdk.Bot or "
                             "arena_bot.aio.AsyncBot), plays --bot-seat here, on the Turns it gets over the "
                             "wire, with no server; --bots fills the other seats")
    parser.add_argument("--bot-seat", type=int, default=0, metavar="SEAT", help="the seat --bot plays (default 0)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help="a rule option")
    parser.add_argument("--quiet", action="store_true", help="print only the outcome")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def seat_bots(spec: str, players: int) -> list[str]:
    names = [b.strip() for b in spec.split(",") if b.strip()] or ["random"]
    return (names + [names[-1]] * players)[:players]


def ask_human(seat: int, observation: dict, legal: list[str], out: TextIO = sys.stdout) -> str:
    """Show the seat its observation and legal actions on ``out``; read a choice by number or id."""
    print(f"\n--- seat {seat}, your observation:", file=out)
    print(json.dumps(observation, indent=1), file=out)
    for i, action in enumerate(legal):
        print(f"  [{i}] {action}", file=out)
    while True:
        prompt = f"seat {seat}> "
        if out is not sys.stdout:  # ``input()`` writes its prompt to stdout, kept for the JSON
            print(prompt, end="", file=out, flush=True)
            prompt = ""
        try:
            answer = input(prompt).strip()
        except EOFError:
            raise KeyboardInterrupt from None
        if answer.isdigit() and int(answer) < len(legal):
            return legal[int(answer)]
        if answer in legal:
            return answer
        print("not a legal action: give its number or its exact id", file=out)


def run(args: argparse.Namespace) -> int:
    game = games.get(args.game)
    options = parse_options(game, args.option)
    state = game.new_state(args.players, args.seed, options)
    if args.bot:
        return run_with_bot(args, game, options, state)
    names = seat_bots(args.bots, args.players)
    bots = {s: house.house_bot(game.name, names[s], s, args.seed)
            for s in range(args.players) if s not in args.human}
    out = human_stream(args)
    show_table(args, game, options, ["human" if seat in args.human else names[seat] for seat in range(args.players)])
    while to_act := state.to_act():
        seat = to_act[0]
        legal = state.legal_actions(seat)
        observation = state.observation(seat)
        if seat in bots:
            # A searching bot gets the sample state the referee would send it.
            sample = house.sampler(state, seat, args.seed, state.moves)
            action = house.decide(bots[seat], observation, legal, sample)
        else:
            action = ask_human(seat, observation, legal, out)
        state.apply(seat, action)
        if not args.quiet:
            print(f"{state.moves:5d}  seat {seat}: {action}", file=out)
    show_outcome(args, game, options, state, ["human" if seat in args.human else names[seat]
                                              for seat in range(args.players)])
    return 0


def show_table(args: argparse.Namespace, game: Any, options: dict[str, Any], labels: list[str]) -> None:
    out = human_stream(args)
    print(f"{game.title}: {args.players} players, seed {args.seed}, options {json.dumps(options)}", file=out)
    for seat, label in enumerate(labels):
        print(f"  seat {seat}: {label}", file=out)


def show_outcome(args: argparse.Namespace, game: Any, options: dict[str, Any], state: Any, labels: list[str]) -> None:
    """The result, as a table on the human stream or the one ``--json`` document."""
    out = human_stream(args)
    outcome = state.outcome()
    if args.json:
        print_json({
            "game": game.name, "players": args.players, "seed": args.seed, "options": options,
            "moves": state.moves, "capped": state.capped(),
            "winners": [seat for seat in range(args.players) if outcome.ranks[seat] == 1],
            "seats": [{"seat": seat, "bot": labels[seat], "rank": outcome.ranks[seat],
                       "score": outcome.scores[seat]} for seat in range(args.players)],
        })
        return
    print("outcome:" + (" (turn cap reached)" if state.capped() else ""), file=out)
    for seat in range(args.players):
        print(f"  seat {seat} ({labels[seat]}): rank {outcome.ranks[seat]}, score {outcome.scores[seat]:g}", file=out)


def run_with_bot(args: argparse.Namespace, game: Any, options: dict[str, Any], state: Any) -> int:
    """``--bot``: the SDK bot in its seat, house bots from ``--bots`` in the others, in order."""
    from arena.referee.remote import MatchInfo

    from .play_bot import OfflineSeat, load_bot, run_offline

    if args.human:
        raise BadInput("--bot and --human: play one or the other here")
    if not 0 <= args.bot_seat < args.players:
        raise BadInput(f"--bot-seat {args.bot_seat}: a seat from 0 to {args.players - 1}")
    bot = load_bot(args.bot)
    others = iter(seat_bots(args.bots, args.players - 1))
    labels = [f"{type(bot).__name__} (--bot)" if s == args.bot_seat else next(others) for s in range(args.players)]
    house_bots = {s: house.house_bot(game.name, labels[s], s, args.seed)
                  for s in range(args.players) if s != args.bot_seat}
    clock = Clock()
    info = MatchInfo(match_id="offline", game=game.name, options=options, seat=args.bot_seat,
                     num_players=args.players, players=labels, move_deadline_ms=int(clock.move * 1000),
                     time_bank_ms=int(clock.bank * 1000))
    show_table(args, game, options, labels)
    out = human_stream(args)

    def shown(seat: int, action: str) -> None:
        if not args.quiet:
            print(f"{state.moves:5d}  seat {seat}: {action}", file=out)

    run_offline(state, OfflineSeat(bot, info, args.seed), house_bots, args.seed, shown)
    show_outcome(args, game, options, state, labels)
    return 0
