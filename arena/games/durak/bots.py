"""The heuristic house bot for Durak: it sees only the observation and the legal actions.

What a steady player does (durak 3.5 tactics and common sense):
- attack with the lowest cards, all copies of a rank at once, keeping trumps back;
- beat each card as cheaply as possible, and take low cards rather than spend high
  trumps while the stock is still thick;
- throw in cheap cards, and once the stock is gone unload everything it can; while the
  defence is under way it waits to see the defender's cards, until the stock is gone;
- count cards: once the stock is empty the unseen cards are exactly in the other
  hands, so it leads cards the defender cannot beat.
"""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot

from .cards import VALUE, beats, pack

TRUMP_BONUS = 13  # the six of trumps outranks a plain ace


def cost(card: str, trump: str) -> int:
    """How dear a card is to give up: plain ranks 2-14, trumps 15-27."""
    return VALUE[card[0]] + (TRUMP_BONUS if card[1] == trump else 0)


class DurakHeuristic(HouseBot):
    """Cheap attacks, cheap defences, card counting in the endgame."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        phase = observation["phase"]
        if phase == "redeal":
            # A hand without a single trump is weak: ask for a new deal.
            return "redeal"
        if phase == "defend":
            if observation["seat"] == observation["defender"]:
                return self._defend(observation, legal_actions)
            if observation["stock_count"]:
                # Joining in while the defence is under way: wait and see which cards the
                # defender spends (3.5 tactics); the room stays, as beating a card uses one.
                return "done"
        if phase == "lead":
            return self._lead(observation, legal_actions)
        return self._throw_in(observation, legal_actions)

    # ----- card counting -------------------------------------------------------------
    def _unseen(self, obs: dict[str, Any]) -> set[str]:
        """Cards that may be in another hand or in the stock, unknown to everyone."""
        seen = set(self._all_visible(obs))
        full = pack(obs["pack"])
        if obs["trump_card_in_stock"]:
            seen.add(obs["trump_card"])
        return {c for c in full if c not in seen}

    @staticmethod
    def _all_visible(obs: dict[str, Any]) -> list[str]:
        out = list(obs["hand"]) + list(obs["discards"])
        for row in obs["table"]:
            out.append(row["attack"])
            if row["defence"]:
                out.append(row["defence"])
        for known in obs["known_cards"]:
            out.extend(known)
        return out

    def _defender_cards(self, obs: dict[str, Any]) -> list[str] | None:
        """The defender's whole hand when card counting pins it down (stock empty, only
        the defender's hand hides cards), else None."""
        if obs["stock_count"] or obs["hidden_bottom_card"]:
            return None
        me, defender = obs["seat"], obs["defender"]
        counts = obs["hand_counts"]
        hidden_elsewhere = sum(
            counts[s] - len(obs["known_cards"][s])
            for s in range(obs["num_players"])
            if s not in (me, defender)
        )
        if hidden_elsewhere:
            return None
        return list(obs["known_cards"][defender]) + sorted(self._unseen(obs))

    # ----- decisions -------------------------------------------------------------------
    def _lead(self, obs: dict[str, Any], legal: list[str]) -> str:
        trump = obs["trump"]
        defender_hand = self._defender_cards(obs)

        def score(action: str) -> float:
            group = action.split()[1:]
            value = sum(cost(c, trump) for c in group) / len(group) - 1.5 * (len(group) - 1)
            if defender_hand is not None:
                # Endgame: cards the defender cannot beat force him to take.
                unbeatable = sum(
                    1 for c in group if not any(beats(d, c, trump) for d in defender_hand)
                )
                value -= 20 * unbeatable
            return value

        return min(legal, key=score)

    def _defend(self, obs: dict[str, Any], legal: list[str]) -> str:
        trump = obs["trump"]
        hand = obs["hand"]
        open_cards = [r["attack"] for r in obs["table"] if r["defence"] is None]
        plan = self._plan(open_cards, hand, trump)
        shoves = [a for a in legal if a.startswith("shove")]
        if shoves and (plan is None or any(d[1] == trump for d in plan.values())):
            return min(shoves, key=lambda a: (len(a.split()), a))
        if plan is None:
            return "take"
        spent = [d for d in plan.values() if d[1] == trump]
        if obs["stock_count"] > 6 and spent:
            table_size = len(obs["table"])
            dear = sum(VALUE[d[0]] for d in spent) >= 12 + 4 * (table_size - 1)
            if dear and table_size <= 3:
                return "take"
        # Beat the hardest card first with its planned card.
        attack = max(plan, key=lambda a: cost(a, trump))
        return f"defend {attack} {plan[attack]}"

    @staticmethod
    def _plan(open_cards: list[str], hand: list[str], trump: str) -> dict[str, str] | None:
        """Cheapest beating card for each open card, hardest first; None if one fails."""
        free = sorted(hand, key=lambda c: cost(c, trump))
        plan = {}
        for attack in sorted(open_cards, key=lambda c: -cost(c, trump)):
            for card in free:
                if beats(card, attack, trump):
                    plan[attack] = card
                    free.remove(card)
                    break
            else:
                return None
        return plan

    def _throw_in(self, obs: dict[str, Any], legal: list[str]) -> str:
        trump = obs["trump"]
        endgame = obs["stock_count"] == 0
        limit = 27 if endgame and obs["taking"] is False else (14 if endgame else 11)
        if obs["teams"] is not None:
            limit = max(limit, 11)

        def acceptable(action: str) -> bool:
            group = action.split()[1:]
            if obs["taking"] and any(c[1] == trump for c in group):
                return False  # never hand the taker a trump
            return all(cost(c, trump) <= limit for c in group)

        options = [a for a in legal if a != "done" and acceptable(a)]
        if not options:
            return "done"
        return max(options, key=lambda a: (len(a.split()), -max(cost(c, trump) for c in a.split()[1:])))
