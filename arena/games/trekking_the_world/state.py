"""The whole truth of one Trekking the World match, and its turn structure.

A turn (trekking "Gameplay"): the optional Fly from an airport, the Move (announce the
location, then pay exactly its distance in trek card numbers), then one action: Draw two,
Take a Tour or Journey. Each step is one decision of the seat whose turn it is; the
action ids are listed in ``docs/games/trekking_the_world.md``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..base import State
from ..schema import BadState
from . import trek
from .data import (
    AIRPORTS,
    BONUS_TOKENS,
    COLOURS,
    DESTINATION_ICONS,
    DESTINATION_VP,
    DESTINATIONS,
    END_BONUSES,
    END_DESTINATIONS,
    FACE_UP,
    FIRST_GAME_JOURNEYS,
    HAND_SIZE,
    JOURNEY_ACTIONS,
    JOURNEY_DECK,
    LOCATIONS,
    MIN_PLAYERS_FOR_CUBE,
    REGION_LOCATIONS,
    REGION_OF,
    REGIONS,
    ROW_SIZE,
    SET_VP,
    SINGLE_SLOTS,
    TILE_MINIMUM,
    TREK_DECK,
    VP3_TOKENS,
    VP5_TOKENS,
    cubes_in_bag,
    tile_vp,
)
from .routes import LONGEST_TRAIL, blocked_mask, destinations, reach, trail_exists

PLACE, MOVE, PAY, ACTION, DRAW, JOURNEY, OVER = (
    "place", "move", "pay", "action", "draw", "journey", "over",
)


def _remove(cards: list[str], gone: list[str] | tuple[str, ...]) -> None:
    for card in gone:
        cards.remove(card)


class TrekkingState(State):
    """Board, hands, decks and whose decision it is. JSON attributes only (see base)."""

    # The schema a client's state must fit (``arena.games.schema``): trek cards and
    # destination cards are the packs; places, colours, regions and journeys are checked in
    # ``_check_json``.
    card_fields = ("hands", "known", "trek_deck", "face_up", "discard", "dest_deck", "dest_row", "toured")
    seat_fields = ("current",)
    per_seat_fields = ("positions", "hands", "known", "suitcases", "bonus_tokens", "vp_tokens", "toured")
    choices = {"phase": frozenset({PLACE, MOVE, PAY, ACTION, DRAW, JOURNEY, OVER})}

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[str]:
        return [*TREK_DECK, *DESTINATIONS]

    @classmethod
    def _check_json(cls, state: dict[str, Any]) -> None:
        places, colours, regions = set(LOCATIONS), set(COLOURS), set(REGIONS)
        journeys = {*JOURNEY_DECK["A"], *JOURNEY_DECK["B"], *FIRST_GAME_JOURNEYS}
        if any(p is not None and p not in places for p in [*state["positions"], state["target"]]):
            raise BadState("state.positions: each a place of the map or null")
        if any(place not in places or colour not in colours for place, colour in state["cubes"].items()):
            raise BadState("state.cubes: places of the map, each with a cube colour")
        if any(not set(case) <= colours for case in state["suitcases"]) or not set(state["tiles"]) <= colours:
            raise BadState(f"state.suitcases: cube colours only ({sorted(colours)})")
        if not set(state["region_bonus"]) <= regions:
            raise BadState(f"state.region_bonus: regions only ({sorted(regions)})")
        if any(j is not None and j not in journeys for j in [*state["journeys"], state["journey"]]):
            raise BadState("state.journeys: journey cards only")

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(num_players, seed, options)
        n = num_players
        self.phase = PLACE  # setup 1: trekkers are placed on airports first
        self.current = 0
        self.positions: list[str | None] = [None] * n
        self.hands: list[list[str]] = [[] for _ in range(n)]
        # Cards taken from the face-up row are public until played (card counting).
        self.known: list[list[str]] = [[] for _ in range(n)]
        self.trek_deck: list[str] = []
        self.face_up: list[str] = []
        self.discard: list[str] = []
        self.cubes: dict[str, str] = {}
        self.suitcases: list[dict[str, int]] = [{c: 0 for c in COLOURS} for _ in range(n)]
        self.tiles: dict[str, int | None] = {c: None for c in COLOURS}
        self.region_bonus: dict[str, int | None] = {r: None for r in REGIONS}
        self.bonus_tokens: list[list[int]] = [[] for _ in range(n)]
        self.unused_bonus: list[int] = []
        self.vp_tokens: list[list[int]] = [[] for _ in range(n)]
        self.vp5_left = VP5_TOKENS
        self.vp3_left = VP3_TOKENS
        self.dest_deck: list[str] = []
        self.dest_row: list[str] = []  # left to right; the last is the rightmost
        self.toured: list[list[str]] = [[] for _ in range(n)]
        self.journeys: list[str] = []
        # turn bookkeeping
        self.can_fly = False
        self.target: str | None = None
        self.journey: str | None = None
        self.journey_step = 0
        self.turns = 0
        self.over = False

    # ----- setup (trekking "Setup" 2-9), once every trekker is on an airport ------------
    def _finish_setup(self) -> None:
        rng = self.rng("setup")
        n = self.num_players
        bag = cubes_in_bag(n)
        rng.shuffle(bag)
        spots = [
            loc for loc in LOCATIONS
            if loc not in AIRPORTS and MIN_PLAYERS_FOR_CUBE[loc] <= n
        ]
        self.cubes = dict(zip(spots, bag, strict=False))
        tokens = list(BONUS_TOKENS)
        rng.shuffle(tokens)
        self.region_bonus = {r: tokens[i] for i, r in enumerate(REGIONS)}
        self.unused_bonus = sorted(tokens[len(REGIONS):])
        self.dest_deck = list(DESTINATIONS)
        rng.shuffle(self.dest_deck)
        self.dest_row = [self.dest_deck.pop() for _ in range(ROW_SIZE)]
        self.trek_deck = list(TREK_DECK)
        rng.shuffle(self.trek_deck)
        for hand in self.hands:
            for _ in range(HAND_SIZE):
                hand.append(self.trek_deck.pop())
            hand.sort()
        self.face_up = [self.trek_deck.pop() for _ in range(FACE_UP)]
        if self.options["journeys"] == "random":
            self.journeys = [rng.choice(JOURNEY_DECK["A"]), rng.choice(JOURNEY_DECK["B"])]
        else:
            self.journeys = list(FIRST_GAME_JOURNEYS)
        self._start_turn(0)

    # ----- the contract hooks -------------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        return (self.current,)

    def _finished(self) -> bool:
        return self.over

    def _legal_actions(self, seat: int) -> list[str]:
        if self.phase == PLACE:
            taken = set(self.positions)
            return [f"start {a}" for a in AIRPORTS if a not in taken]
        if self.phase == MOVE:
            return self._move_actions()
        if self.phase == PAY:
            return [f"pay {trek.fmt(p)}" for p in trek.payments(self.hands[seat], self._fits(seat))]
        if self.phase == ACTION:
            out = self._draw_actions() + self._tour_actions(0) + self._journey_actions()
            return out or ["pass"]
        if self.phase == DRAW:
            return self._draw_actions()
        if self.phase == JOURNEY:
            return self._step_actions() + ["skip"]
        return []

    def _apply(self, seat: int, action: str) -> None:
        verb, _, rest = action.partition(" ")
        if verb == "start":
            self.positions[seat] = rest
            if seat == self.num_players - 1:
                self._finish_setup()
            else:
                self.current = seat + 1
        elif verb == "fly":
            self.positions[seat] = rest
            self.can_fly = False
            self._enter_move()
        elif verb == "no_move":
            self.phase = ACTION
        elif verb == "move":
            self.target = rest
            self.phase = PAY
        elif verb == "pay":
            self._play_cards(seat, rest.split(","))
            assert self.target is not None
            self._arrive(seat, self.target)
            self.target = None
            self.phase = ACTION
        elif verb == "draw":
            self._draw(seat, rest)
            if self.phase == ACTION and self._draw_actions():
                self.phase = DRAW
            else:
                self._end_turn()
        elif verb == "tour":
            dest, _, cards = rest.partition(" cards=")
            self._tour(seat, dest, cards.split(","))
            if self.phase == ACTION:
                self._end_turn()
            else:
                self._next_step()
        elif verb == "journey":
            name, _, cards = rest.partition(" cards=")
            self._play_cards(seat, cards.split(","))
            self.journey = name
            self.journey_step = 0
            self.phase = JOURNEY
            self._settle_step()
        elif verb == "pass":
            self._end_turn()
        else:
            self._do_step(seat, verb, rest)
            self._next_step()

    # ----- the turn -----------------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        self.current = seat
        self.can_fly = self.positions[seat] in AIRPORTS and any(
            a not in self.positions for a in AIRPORTS
        )
        self._enter_move()

    def _enter_move(self) -> None:
        """The move is mandatory when possible; with no cards or every route blocked the
        phase is skipped (trekking "Move"), unless a Fly may still open a route."""
        self.phase = MOVE
        if not self.can_fly and not self._destinations(self.current):
            self.phase = ACTION

    def _end_turn(self) -> None:
        # trekking "End of the Game": the triggering player finishes the turn, then it ends
        self.turns += 1
        self.journey = None
        claimed = sum(1 for r in REGIONS if self.region_bonus[r] is None)
        if claimed >= END_BONUSES or any(len(t) >= END_DESTINATIONS for t in self.toured):
            self.over = True
            self.phase = OVER
            return
        self._start_turn((self.current + 1) % self.num_players)

    def _others(self, seat: int) -> list[str]:
        return [p for s, p in enumerate(self.positions) if s != seat and p is not None]

    def _move_sums(self, seat: int) -> tuple[str, int, int]:
        """(position, occupied locations, totals the hand can pay) for a move."""
        position = self.positions[seat]
        assert position is not None
        return position, blocked_mask(self._others(seat)), trek.sums_mask(self.hands[seat], LONGEST_TRAIL)

    def _fits(self, seat: int) -> Callable[[int], bool]:
        """Whether a move of that many connections reaches the announced location."""
        start, blocked, _ = self._move_sums(seat)
        target = self.target
        assert target is not None
        return lambda length: trail_exists(start, blocked, target, length)

    def _destinations(self, seat: int) -> tuple[str, ...]:
        """Locations the seat can move to now."""
        return destinations(*self._move_sums(seat))

    def _move_actions(self) -> list[str]:
        out = [f"move {loc}" for loc in self._destinations(self.current)]
        if self.can_fly:
            here = self.positions[self.current]
            fly = [f"fly {a}" for a in AIRPORTS if a != here and a not in self.positions]
            if not out:
                out.append("no_move")
            out += fly
        return out

    def _play_cards(self, seat: int, cards: list[str]) -> None:
        _remove(self.hands[seat], cards)
        for card in cards:
            if card in self.known[seat]:
                self.known[seat].remove(card)
        self.discard.extend(cards)

    # ----- souvenirs, region bonuses, Most Souvenirs (trekking "Move" step 3) -----------
    def _arrive(self, seat: int, location: str) -> None:
        self.positions[seat] = location
        colour = self.cubes.pop(location, None)
        if colour is not None:
            self._collect(seat, location, colour)

    def _collect(self, seat: int, location: str, colour: str) -> None:
        self.suitcases[seat][colour] += 1
        self._check_tile(seat, colour)
        region = REGION_OF[location]
        value = self.region_bonus[region]
        if value is not None and not any(loc in self.cubes for loc in REGION_LOCATIONS[region]):
            self.bonus_tokens[seat].append(value)
            self.region_bonus[region] = None

    def _check_tile(self, seat: int, colour: str) -> None:
        """Take the Most Souvenirs tile with at least 2 cubes and strictly more than its
        holder (trekking "Claiming a Most Souvenirs tile")."""
        mine = self.suitcases[seat][colour]
        holder = self.tiles[colour]
        if mine < TILE_MINIMUM or holder == seat:
            return
        if holder is None or mine > self.suitcases[holder][colour]:
            self.tiles[colour] = seat

    # ----- Draw two -----------------------------------------------------------------------
    def _deck_card(self) -> str | None:
        """The top of the trek deck, reshuffling the discards when it runs out."""
        if not self.trek_deck and self.discard:
            self.trek_deck = self.discard
            self.discard = []
            self.trek_deck.sort()
            self.rng("reshuffle").shuffle(self.trek_deck)
        return self.trek_deck.pop() if self.trek_deck else None

    def _draw_actions(self) -> list[str]:
        out = [f"draw {c}" for c in sorted(set(self.face_up))]
        if self.trek_deck or self.discard:
            out.append("draw deck")
        return out

    def _draw(self, seat: int, what: str) -> None:
        if what == "deck":
            card = self._deck_card()
            assert card is not None
        else:
            card = what
            slot = self.face_up.index(card)
            refill = self._deck_card()
            if refill is None:
                del self.face_up[slot]
            else:
                self.face_up[slot] = refill
            self.known[seat].append(card)
            self.known[seat].sort()
        self.hands[seat].append(card)
        self.hands[seat].sort()
        # a reshuffle may make cards available again for an emptied face-up spot
        while len(self.face_up) < FACE_UP and (self.trek_deck or self.discard):
            extra = self._deck_card()
            assert extra is not None
            self.face_up.append(extra)

    # ----- Take a Tour ----------------------------------------------------------------------
    def _tour_actions(self, less: int) -> list[str]:
        here = self.positions[self.current]
        if here not in self.dest_row:
            return []
        hand = self.hands[self.current]
        ways: set[tuple[str, ...]] = set()
        for req in trek.reduced_requirements(DESTINATION_ICONS[here], less):
            ways.update(trek.icon_payments(hand, req))
        return [f"tour {here} cards={trek.fmt(w)}" for w in ways]

    def must_see_rewards(self) -> list[int]:
        """VP token for touring each card of the row, left to right (trekking "Take a
        Tour": 5 VP on the rightmost, 3 VP on the second rightmost; when the 5s run out the
        3s move over the rightmost)."""
        rewards = [0] * len(self.dest_row)
        if not rewards:
            return rewards
        if self.vp5_left:
            rewards[-1] = 5
            if self.vp3_left and len(rewards) > 1:
                rewards[-2] = 3
        elif self.vp3_left:
            rewards[-1] = 3
        return rewards

    def _tour(self, seat: int, dest: str, cards: list[str]) -> None:
        self._play_cards(seat, cards)
        slot = self.dest_row.index(dest)
        reward = self.must_see_rewards()[slot]
        if reward == 5:
            self.vp5_left -= 1
        elif reward == 3:
            self.vp3_left -= 1
        if reward:
            self.vp_tokens[seat].append(reward)
        del self.dest_row[slot]
        self.toured[seat].append(dest)
        # the row slides right and the deck refills its leftmost spot
        if self.dest_deck:
            self.dest_row.insert(0, self.dest_deck.pop())

    # ----- Journey --------------------------------------------------------------------------
    def _journey_actions(self) -> list[str]:
        pays = trek.pairs(self.hands[self.current])
        return [f"journey {j} cards={trek.fmt(p)}" for j in self.journeys for p in pays]

    def _step(self) -> dict[str, Any]:
        assert self.journey is not None
        return JOURNEY_ACTIONS[self.journey][self.journey_step]

    def _step_actions(self) -> list[str]:
        """What the current journey action allows now (each one may be skipped)."""
        step = self._step()
        kind = step["kind"]
        seat = self.current
        here = self.positions[seat]
        assert here is not None
        if kind == "draw":
            return [f"draw_deck {step['count']}"] if self.trek_deck or self.discard else []
        if kind == "move_up_to":
            routes = reach(here, blocked_mask(self._others(seat)), step["count"])
            return [f"goto {loc}" for loc in routes]
        if kind == "airport":
            return [f"goto {a}" for a in AIRPORTS if a not in self.positions]
        if kind == "tour_less":
            return self._tour_actions(step["count"])
        if kind == "gain_vp":
            return ["gain_vp"] if self.vp3_left else []
        if kind == "region_cube":
            region = REGION_OF[here]
            return [f"take_cube {loc}" for loc in REGION_LOCATIONS[region] if loc in self.cubes]
        if kind == "swap":
            return [f"swap {s}" for s in range(self.num_players) if s != seat]
        if kind == "recolour":
            case = self.suitcases[seat]
            return [f"recolour {a} {b}" for a in COLOURS if case[a] for b in COLOURS if b != a]
        raise ValueError(f"unknown journey action {kind!r}")

    def _do_step(self, seat: int, verb: str, rest: str) -> None:
        if verb == "skip":
            return
        if verb == "draw_deck":
            for _ in range(int(rest)):
                card = self._deck_card()
                if card is None:
                    break
                self.hands[seat].append(card)
            self.hands[seat].sort()
        elif verb == "goto":
            self._arrive(seat, rest)
        elif verb == "gain_vp":
            self.vp3_left -= 1
            self.vp_tokens[seat].append(3)
        elif verb == "take_cube":
            self._collect(seat, rest, self.cubes.pop(rest))
        elif verb == "swap":
            other = int(rest)
            mine, theirs = self.positions[seat], self.positions[other]
            assert mine is not None and theirs is not None
            self.positions[other] = mine
            self._arrive(seat, theirs)
        elif verb == "recolour":
            # journey "A Bumpy Ride": the cube becomes the new colour for good
            old, new = rest.split()
            self.suitcases[seat][old] -= 1
            self.suitcases[seat][new] += 1
            self._check_tile(seat, new)

    def _next_step(self) -> None:
        self.journey_step += 1
        self._settle_step()

    def _settle_step(self) -> None:
        """Skip journey actions that cannot be performed; end the turn after the last."""
        assert self.journey is not None
        actions = JOURNEY_ACTIONS[self.journey]
        while self.journey_step < len(actions) and not self._step_actions():
            self.journey_step += 1
        if self.journey_step >= len(actions):
            self._end_turn()

    # ----- scoring (trekking "Final Scoring") -------------------------------------------
    def sets(self, seat: int) -> int:
        """Complete souvenir sets: full columns of the suitcase's single slots."""
        case = self.suitcases[seat]
        return min(SINGLE_SLOTS, *[case[c] for c in COLOURS])

    def points(self, seat: int, *, secret: bool = True) -> int:
        """Victory points; ``secret=False`` leaves out the face-down region bonus tokens."""
        total = self._public_points(seat, self.sets(seat))
        if secret:
            total += sum(self.bonus_tokens[seat])
        return total

    def _public_points(self, seat: int, sets: int) -> int:
        """``points(seat, secret=False)``, the seat's ``sets`` given."""
        n = self.num_players
        tiles = self.tiles
        total = sum(tile_vp(c, n) for c in COLOURS if tiles[c] == seat)
        total += sum(self.vp_tokens[seat])
        total += sum(DESTINATION_VP[d] for d in self.toured[seat])
        return total + SET_VP[sets]

    def souvenirs(self, seat: int) -> int:
        return sum(self.suitcases[seat].values())

    def _scores(self) -> list[float]:
        # ties: most souvenirs wins, then the victory is shared
        return [self.points(s) + self.souvenirs(s) / 100 for s in range(self.num_players)]

    # ----- what a seat sees -----------------------------------------------------------------
    def _observation(self, seat: int) -> dict[str, Any]:
        n = self.num_players
        sets = [self.sets(s) for s in range(n)]
        public = [self._public_points(s, sets[s]) for s in range(n)]
        pending: dict[str, Any] = {}
        if self.phase == PAY:
            pending = {"destination": self.target}
        elif self.phase == JOURNEY and self.journey is not None:
            pending = {
                "journey": self.journey,
                "steps_left": [dict(s) for s in JOURNEY_ACTIONS[self.journey][self.journey_step:]],
            }
        return {
            "phase": self.phase,
            "current": self.current,
            "turn": self.turns,
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "known_cards": [list(k) for k in self.known],
            "face_up": list(self.face_up),
            "trek_deck_size": len(self.trek_deck),
            "discard": sorted(self.discard),
            "positions": list(self.positions),
            "can_fly": self.can_fly,
            "cubes": dict(self.cubes),
            "suitcases": [dict(c) for c in self.suitcases],
            "souvenirs": [self.souvenirs(s) for s in range(n)],
            "sets": sets,
            "tiles": dict(self.tiles),
            "tile_vp": {c: tile_vp(c, n) for c in COLOURS},
            "region_bonus_left": [r for r in REGIONS if self.region_bonus[r] is not None],
            "bonus_token_counts": [len(b) for b in self.bonus_tokens],
            "my_bonus_tokens": list(self.bonus_tokens[seat]),
            "vp_tokens": [list(v) for v in self.vp_tokens],
            "vp_stacks": {"5": self.vp5_left, "3": self.vp3_left},
            "destination_row": list(self.dest_row),
            "must_see": self.must_see_rewards(),
            "destination_deck_size": len(self.dest_deck),
            "toured": [list(t) for t in self.toured],
            "journeys": list(self.journeys),
            "pending": pending,
            "public_points": public,
            "my_points": public[seat] + sum(self.bonus_tokens[seat]),
        }

    def _hand_fits_turn(self, seat: int) -> bool:
        """Whether the hand of the player to act fits what everyone saw of this turn: a
        player in the move phase has a move (or may fly); one paying can pay."""
        who = self.current
        if who == seat:
            return True
        if self.phase == PAY:
            return bool(trek.payments(self.hands[who], self._fits(who)))
        if self.phase == MOVE and not self.can_fly:
            return bool(self._destinations(who))
        return True

    def _resample(self, seat: int, rng: random.Random) -> None:
        n = self.num_players
        # trek cards: other hands' unknown cards and the deck order
        pool = list(self.trek_deck)
        unknown: dict[int, int] = {}
        for s in range(n):
            if s == seat:
                continue
            rest = Counter(self.hands[s]) - Counter(self.known[s])
            pool.extend(rest.elements())
            unknown[s] = sum(rest.values())
        keep = self.current  # whose hand must still fit the turn (see _hand_fits_turn)
        kept = self.hands[keep]
        for attempt in range(30):
            deal = list(pool)
            if attempt == 29 and keep != seat:
                # no fitting deal found: leave the player to act as it was
                deal = list((Counter(pool) - (Counter(kept) - Counter(self.known[keep]))).elements())
            rng.shuffle(deal)
            for s, count in unknown.items():
                if attempt == 29 and s == keep:
                    self.hands[s] = kept
                    continue
                self.hands[s] = sorted(self.known[s] + [deal.pop() for _ in range(count)])
            self.trek_deck = deal
            if self._hand_fits_turn(seat):
                break
        rng.shuffle(self.dest_deck)
        # region bonus tokens: only the seat's own claimed values are known to it
        if self.unused_bonus or any(v is not None for v in self.region_bonus.values()):
            tokens = Counter(BONUS_TOKENS) - Counter(self.bonus_tokens[seat])
            left = list(tokens.elements())
            rng.shuffle(left)
            for r in REGIONS:
                if self.region_bonus[r] is not None:
                    self.region_bonus[r] = left.pop()
            for s in range(n):
                if s != seat:
                    self.bonus_tokens[s] = [left.pop() for _ in self.bonus_tokens[s]]
            self.unused_bonus = sorted(left)
