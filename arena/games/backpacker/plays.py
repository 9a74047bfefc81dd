"""What the player whose go it is may do once they hold 6 cards (backpacker 6 rules 2-9, 9).

``play_actions(state, seat)`` lists the action ids; ``state.py`` applies them. Every card a
player holds can be discarded except grey cards (rule 7), which must be played or discarded
with Insurance (9.6).
"""

from __future__ import annotations

from .deck import BAD_ADVICE, BONUS_CARDS, COUNTRIES, GREY, PINK
from .table import Table

# backpacker 9.3/9.4: which Good Advice removes which Bad Advice.
GOOD_FOR = {
    "good_timing": ("bad_timing",),
    "good_transport": ("bad_transport",),
    "good_bureaucracy": ("bad_bureaucracy",),
    "money_talks": tuple(sorted(BAD_ADVICE)),
}

# backpacker 9.6 Near Miss: the bad cards played on one player individually.
NEAR_MISS_TARGETS = BAD_ADVICE | PINK | {"wrong_backpack", "paths_cross", "seek_guidance", "grapevine"}

DATE_LINE_MAX = 20  # backpacker 9.6 International Date Line: between 1 and 20 cards


def status_card(state: Table, seat: int) -> str | None:
    status = state.status[seat]
    return status["card"] if status else None


def countries_blocked(state: Table, seat: int) -> bool:
    """9.3 Bad Advice, 9.7 Love and Visa Problem stop new countries."""
    card = status_card(state, seat)
    return card is not None and (card in BAD_ADVICE or card in ("love", "visa_problem"))


def bonuses_blocked(state: Table, seat: int) -> bool:
    """9.3 Bad Advice and 9.7 Love stop new bonuses."""
    card = status_card(state, seat)
    return card is not None and (card in BAD_ADVICE or card == "love")


def pink_slot(state: Table, target: int, card: str) -> bool:
    """Rule 8: one grey, red or pink card per pile. 9.3: Broken Camera, which takes the top
    country, removes Bad Advice with it, so it may be played on a pile carrying Bad Advice."""
    mine = status_card(state, target)
    return mine is None or (card == "broken_camera" and mine in BAD_ADVICE)


def visited(state: Table, seat: int) -> set[str]:
    return {COUNTRIES[e["country"]].continent for e in state.trips[seat]}


def credit_available(state: Table, seat: int) -> bool:
    """9.6 Credit Card: one second country of a colour per trip (at most 2 of a colour)."""
    seen: set[str] = set()
    for entry in state.trips[seat]:
        cont = COUNTRIES[entry["country"]].continent
        if cont in seen:
            return False
        seen.add(cont)
    return True


def country_plays(
    state: Table, seat: int, kinds: set[str], been: set[str] | None = None
) -> list[str]:
    """Countries and bonuses ``seat`` may put on its pile now (rules 5, 6; 9.1; 9.6)."""
    acts: list[str] = []
    trip = state.trips[seat]
    if not countries_blocked(state, seat):
        if been is None:
            been = visited(state, seat)
        credit = "credit_card" in kinds and credit_available(state, seat)
        for card in kinds:
            country = COUNTRIES.get(card)
            if country is None:
                continue
            if country.continent not in been:
                acts.append(f"play {card}")
            elif credit:
                acts.append(f"play {card} with=credit_card")
    if trip and not bonuses_blocked(state, seat):
        top = COUNTRIES[trip[-1]["country"]]
        acts.extend(f"play {card}" for card in kinds if card in BONUS_CARDS and card in top.bonuses)
    return acts


def play_actions(state: Table, seat: int) -> list[str]:
    """Every action of the go's main step for ``seat`` holding 6 (or more) cards."""
    hand = state.hands[seat]
    kinds = set(hand)
    n = state.num_players
    others = [t for t in range(n) if t != seat]
    mine = status_card(state, seat)
    trip = state.trips[seat]
    been = visited(state, seat)
    acts = country_plays(state, seat, kinds, been)
    for card in kinds:
        if card in COUNTRIES or card in BONUS_CARDS:
            acts.append(f"discard {card}")
            continue
        if card in GREY:
            # 9.2: Thief clears the whole pile, Sickness the top country (and so Bad Advice);
            # the others need a free slot (rule 8).
            if card == "thief" or mine is None or (card == "sickness" and mine in BAD_ADVICE):
                acts.append(f"play {card}")
            if "insurance" in kinds:
                acts.append(f"discard {card} with=insurance")
            continue
        acts.append(f"discard {card}")
        if card in BAD_ADVICE:
            # 9.3: only on an opponent with a country; rule 8: one bad card per pile.
            acts.extend(f"play {card} on={t}" for t in others if state.trips[t] and state.status[t] is None)
        elif card in GOOD_FOR:
            if mine in GOOD_FOR[card]:
                acts.append(f"play {card}")
        elif card in PINK:
            acts.extend(f"play {card} on={t}" for t in others if pink_slot(state, t, card))
        elif card in ("wrong_backpack", "seek_guidance", "grapevine"):
            acts.extend(f"play {card} on={t}" for t in others if state.hands[t])
        elif card in ("reunion", "fate", "change_of_plans", "internet_cafe", "travel_the_clock",
                      "whirlwind_tour", "everest"):
            acts.append(f"play {card}")
        elif card == "inspiration":
            acts.append("play inspiration")
            if not countries_blocked(state, seat):
                acts.extend(
                    f"play inspiration country={c}"
                    for c, country in COUNTRIES.items()
                    if country.continent not in been and c in state.past
                )
        elif card == "paths_cross":
            if not countries_blocked(state, seat):
                acts.extend(
                    f"play paths_cross from={t}"
                    for t in others
                    if state.trips[t] and COUNTRIES[state.trips[t][-1]["country"]].continent not in been
                )
        elif card == "video_camera":
            if not state.cameras[seat]:
                acts.append("play video_camera")
        elif card == "follow_the_trail":
            if state.past:
                acts.append("play follow_the_trail")
        elif card == "solar_eclipse":
            if state.future:
                acts.append("play solar_eclipse")
        elif card == "date_line":
            acts.extend(f"play date_line count={k}" for k in range(1, min(DATE_LINE_MAX, len(state.past)) + 1))
        elif card == "flying_visit":
            if trip and not kinds & GREY:
                acts.append("play flying_visit")
    if mine in BAD_ADVICE and trip:
        acts.append("abandon")  # 9.3: give up the country with the Bad Advice
    if not acts:
        # Only grey cards that rule 8 stops: the engine lets one be discarded rather than
        # leave the player with no move (documented in docs/games/backpacker.md).
        acts.extend(f"discard {card}" for card in kinds)
    return acts
