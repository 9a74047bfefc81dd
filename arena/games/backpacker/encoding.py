"""Backpacker for learning: the observation tensor and the fixed action space
(``arena.envs.encoding``; the layout is in docs/games/backpacker.md)."""

from __future__ import annotations

from typing import Any

from arena.envs.encoding import (
    Encoding,
    Write,
    card,
    cards,
    choice,
    growing,
    mark,
    number,
    per_seat,
    positions,
    seat,
    seats_cards,
)
from arena.games.backpacker.deck import COUNTRIES, EVENTS, build_deck

from .plays import DATE_LINE_MAX
from .state import BackpackerState

# Every card id, countries first then events, in the data files' order: the card blocks.
ALL = [*COUNTRIES, *EVENTS]
PHASES = sorted(BackpackerState.choices["phase"])
WINDOWS = ("pass", "companion", "trail")  # the simultaneous windows (pending.kind)
# Answers with no card: whose go it is, and the reaction windows (docs: Phases and action ids).
WORDS = ("draw", "go_home", "stop", "abandon", "no_exchange", "cancel", "keep", "reject", "decline",
         "agree", "refuse", "accept")
# Action verbs followed by a card; those followed by a card and a seat; "with=" cards.
CARD_VERBS = ("play", "discard", "pass", "offer", "take", "give", "force")
SEAT_VERBS = (("play", "on"), ("ask", "from"), ("play", "from"))
WITH = (("play", "credit_card"), ("discard", "insurance"))
PLAYING = 300  # points beyond which the score blocks are capped


def actions(num_players: int) -> list[str]:
    """Every action id at ``num_players``, a fixed superset of those the rules produce (not every
    card goes with every verb): the answers without a card, then for each card (countries, then
    events): ``<verb> <card>`` for play, discard, pass, offer, take, give, force; ``play <card>
    with=credit_card``, ``discard <card> with=insurance``; ``play <card> on=<seat>``, ``ask
    <card> from=<seat>``, ``play <card> from=<seat>`` for each seat; then ``play inspiration
    country=<country>`` for each country and ``play date_line count=<k>`` for k = 1-20."""
    seats = range(num_players)
    out = list(WORDS)
    for c in ALL:
        out += [f"{verb} {c}" for verb in CARD_VERBS]
        out += [f"{verb} {c} with={helper}" for verb, helper in WITH]
        out += [f"{verb} {c} {key}={s}" for verb, key in SEAT_VERBS for s in seats]
    out += [f"play inspiration country={c}" for c in COUNTRIES]
    out += [f"play date_line count={k}" for k in range(1, DATE_LINE_MAX + 1)]
    return out


def _status(player: dict[str, Any]) -> list[str]:
    status = player["status"]
    return [status["card"]] if status else []


def _choice(o: dict[str, Any]) -> str | None:
    """The card of the seat's own choice in a simultaneous window (``pass <card>``)."""
    chosen = o["pending"].get("your_choice")
    return chosen.split()[1] if chosen and chosen.startswith("pass ") else None


def encoding(num_players: int, options: dict[str, Any]) -> Encoding:
    n = num_players
    copies = {c: max(1, build_deck("advanced", tuple(EVENTS)).count(c)) for c in ALL}
    deck = [c for c in ALL for _ in range(copies[c])]  # the most any pack holds of each card
    countries = list(COUNTRIES)
    size = len(deck)

    def players(key: str) -> Any:
        return lambda o: [p[key] for p in o["players"]]

    def known(o: dict[str, Any]) -> list[list[str]]:
        hands: list[list[str]] = [[] for _ in range(n)]
        for s, held in o["known_hands"].items():
            hands[int(s)] = held
        return hands

    def pending(key: str) -> Any:
        return lambda o: o["pending"].get(key)

    blocks = [
        cards("hand", deck, lambda o: o["hand"], "the seat's hand, over every card id (countries, then events)"),
        choice("phase", PHASES, lambda o: o["phase"], f"the phase: {', '.join(PHASES)}"),
        seat("current", n, lambda o: o["current"], "whose go it is, relative (0: the seat itself)"),
        seat("dealer", n, lambda o: o["dealer"], "who dealt the year, relative"),
        number("year", lambda o: o["year"], "the year being played", 5),
        number("years", lambda o: o["years"], "years in the match", 5),
        number("future_size", lambda o: o["future_size"], "cards left in the Future pile", size),
        cards("future_top_known", deck, lambda o: o["future_top_known"], "Future cards everyone knows"),
        cards("past_pile", deck, lambda o: o["past_pile"], "the whole Past pile"),
        card("past_top", deck, lambda o: o["past_top"], "its top card"),
        seats_cards("trips", n, countries, lambda o: [[t["country"] for t in p["trip"]] for p in o["players"]],
                    "per seat, the countries of its trip"),
        seats_cards("trip_tops", n, countries, lambda o: [[p["trip"][-1]["country"]] if p["trip"] else []
                                                          for p in o["players"]],
                    "per seat, the top country of its trip"),
        seats_cards("bonuses", n, deck, lambda o: [[b for t in p["trip"] for b in t["bonuses"]]
                                                   for p in o["players"]],
                    "per seat, the bonus cards on its trip"),
        per_seat("boosts", n, lambda o: [sum(t["boost"] for t in p["trip"]) for p in o["players"]],
                 "per seat, its countries' cards placed after a Video Camera", 20),
        per_seat("video_camera", n, players("video_camera"), "per seat, a Video Camera on its pile", 1),
        seats_cards("status", n, deck, lambda o: [_status(p) for p in o["players"]],
                    "per seat, the grey, red or pink card on its pile"),
        per_seat("misses", n, lambda o: [(p["status"] or {}).get("miss") or 0 for p in o["players"]],
                 "per seat, goes still to miss", 10),
        per_seat("hand_sizes", n, players("hand_size"), "cards in each hand, the seat's first", 20),
        per_seat("scores", n, players("score"), f"banked points (capped at {PLAYING})", PLAYING),
        number("extra_goes", lambda o: o["extra_goes"], "further goes of the current player", 20),
        seats_cards("known_hands", n, deck, known, "per seat, the cards the seat knows it holds now"),
        card("pending_card", deck, pending("card"), "the card of the pending decision (near miss, seek, grapevine)"),
        seat("pending_by", n, pending("by"), "who played it, relative"),
        seat("pending_target", n, pending("target"), "its target, relative"),
        choice("window", WINDOWS, pending("kind"), "the simultaneous window: pass, companion, trail"),
        card("your_choice", deck, _choice, "the card the seat chose to pass in it"),
        card("asked", deck, pending("asked"), "the card asked for in an Internet Cafe"),
        card("offered", deck, pending("offered"), "the card offered for it"),
        card("drawn", deck, pending("drawn"), "the card drawn in a Solar Eclipse (its drawer only)"),
        card("forced", deck, pending("forced"), "the card forced Under the Influence"),
        number("eclipse_count", lambda o: o["pending"].get("count") or 0, "cards drawn in the Solar Eclipse", 8),
    ]
    return Encoding("backpacker", n, blocks, actions(n), direct=lambda enc: _writer(enc, deck))


def _writer(enc: Encoding, deck: list[str]) -> Write:
    """The blocks above written straight from the state, reading only what ``observation(seat)``
    shows: the seat's own hand and the hands it knows, the piles and trips; the pending
    decision's blocks are filled from the observation's own view of it (``_pending_view``)."""
    n = enc.num_players
    where, in_countries = positions(deck), positions(COUNTRIES)
    width, country_width = len(where), len(in_countries)
    copies = max(deck.count(c) for c in where)
    size = len(deck)
    phases = {phase: i for i, phase in enumerate(PHASES)}
    first_pending = [b.name for b in enc.blocks].index("pending_card")
    pending_fills = [(b.fill, at) for b, at in zip(enc.blocks[first_pending:], enc.offsets[first_pending:], strict=True)]
    (hand, phase, current, dealer, year, years, future_size, future_top_known, past_pile, past_top, trips, trip_tops,
     bonuses, boosts, video_camera, status, misses, hand_sizes, scores, extra_goes,
     known_hands) = enc.offsets[:first_pending]

    def write(state: BackpackerState, me: int, out: memoryview[float]) -> None:
        mark(out, hand, where, state.hands[me], copies)
        if state.phase in phases:
            out[phase + phases[state.phase]] = 1
        for block, s in ((current, state.current), (dealer, state.dealer)):
            if s is not None and s >= 0:
                out[block + (s - me) % n] = 1
        out[year] = min(max(state.year, 0), 5)
        out[years] = min(max(state.years, 0), 5)
        future = state.future
        out[future_size] = min(len(future), size)
        mark(out, future_top_known, where, future[len(future) - state.future_known:], copies)
        past(state.past, me, out)
        if state.past:
            out[past_top + where[state.past[-1]]] = 1
        for s in range(n):
            rel = (s - me) % n
            trip = state.trips[s]
            for entry in trip:
                out[trips + rel * country_width + in_countries[entry["country"]]] = 1
                mark(out, bonuses + rel * width, where, entry["bonuses"], copies)
            if trip:
                out[trip_tops + rel * country_width + in_countries[trip[-1]["country"]]] = 1
            out[boosts + rel] = min(max(sum(entry["boost"] for entry in trip), 0), 20)
            out[video_camera + rel] = min(max(state.cameras[s], 0), 1)
            held = state.status[s]
            if held:
                mark(out, status + rel * width, where, (held["card"],), copies)
                out[misses + rel] = min(max(held.get("miss") or 0, 0), 10)
            out[hand_sizes + rel] = min(len(state.hands[s]), 20)
            out[scores + rel] = min(max(state.banked[s], 0), PLAYING)
        for s, known in enumerate(state.known[me]):  # the hands the seat knows, its own left out
            if known and s != me:
                mark(out, known_hands + ((s - me) % n) * width, where, known, copies)
        out[extra_goes] = min(max(state.extra_goes, 0), 20)
        pending = state._pending_view(me)
        if pending:  # its blocks write nothing of an empty view
            view = {"seat": me, "pending": pending}
            for fill, at in pending_fills:
                fill(view, out, at)

    past = growing(past_pile, where, copies)
    return write  # type: ignore[return-value]  # a writer of Backpacker's states only
