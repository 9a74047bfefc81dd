"""Action ids of Crazy 8s, prebuilt once so that listing and applying them costs a lookup.

Grammar (see docs/games/crazy_eights.md):

- ``play 7H``                 play a card matching the top card (suit or rank)
- ``play 8H suit=S``          play an eight and wish for the suit the next player must follow
- ``play 7H last_card``       the same, calling "Last card!" (option ``last_card``)
- ``draw``                    unable to play: take one card from the draw pile
- ``draw 4``                  accept a draw penalty (stacked twos, black jack) and miss the turn
- ``pass``                    keep the card just drawn (Fastplay), or nothing to play nor draw
"""

from __future__ import annotations

from arena.games import cards

SUITS = cards.SUITS
ALL_CARDS = cards.deck()

DRAW = "draw"
PASS = "pass"
LAST_CARD = "last_card"

# card -> ids of playing it; an eight has one id per wished suit (crazy_eights 4.2.1).
PLAY: dict[str, tuple[str, ...]] = {}
PLAY_AND_CALL: dict[str, tuple[str, ...]] = {}  # with and without calling "Last card!"
# id -> (card, wished suit or "", called "Last card!")
PARSE: dict[str, tuple[str, str, bool]] = {}

for _card in ALL_CARDS:
    if _card[0] == "8":
        _plain = tuple(f"play {_card} suit={s}" for s in SUITS)
        _wishes = tuple(SUITS)
    else:
        _plain = (f"play {_card}",)
        _wishes = ("",)
    PLAY[_card] = _plain
    PLAY_AND_CALL[_card] = _plain + tuple(f"{a} {LAST_CARD}" for a in _plain)
    for _a, _w in zip(_plain, _wishes, strict=True):
        PARSE[_a] = (_card, _w, False)
        PARSE[f"{_a} {LAST_CARD}"] = (_card, _w, True)

# Penalty draws: "draw 2", "draw 4", ... up to every two of two decks stacked, and "draw 5".
PENALTY_DRAW = {n: f"draw {n}" for n in range(1, 40)}
