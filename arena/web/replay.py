"""Replay data for the match viewer: every decision of a finished match and, for one view
(a seat's observation, or the full state), the view after each decision.

The views are of the states ``arena.referee.transcript.replay`` rebuilds from the
transcript, which also checks that they give the recorded scores and ranks. Frames are sent
as differences: frame 0 holds every field, frame ``k`` only the top-level fields that changed
with decision ``k`` (and the names of those that disappeared), so a long match stays small. The JSON is assembled from per-field encodings, which is also how changes are
found, so nothing is encoded twice.

Beside the raw fields, each frame has its table (``arena.games.drawing``): the game's own
drawing of the view, sent the same way as differences (``tables``). Card faces are sent once
(``faces``) and a table's cards are their indexes there, so a long match of named cards
(Backpacker, Itchy Feet) stays small too.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Final, Literal

from arena import games
from arena.games import drawing
from arena.referee.transcript import replay as transcript_replay

from . import boards

ALL: Final = "all"
View = Literal["all"] | int  # the full state, or a seat's observation
_encode = json.JSONEncoder(separators=(",", ":"), default=str).encode


def parse_view(view: str, num_players: int) -> View:
    """``all`` or a seat number below ``num_players``."""
    if view == ALL:
        return ALL
    if view.isdigit() and int(view) < num_players:
        return int(view)
    raise ValueError(f"view must be {ALL!r} or a seat from 0 to {num_players - 1}")


def _fields(state: games.State, view: View) -> dict[str, Any]:
    if isinstance(view, str):  # ``all``
        return state.to_json()["state"]
    return state.observation(view)


_SCALARS = (str, int, float, bool, type(None))


def _encoded(fields: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """Each field's JSON text; an unchanged scalar keeps its previous entry (scalars are
    immutable, so comparing them is enough, while containers are encoded to compare, in
    case the game handed out a list it changes later)."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if type(value) in _SCALARS:
            before = previous.get(key)
            if before is not None and before[0] == value and type(before[0]) is type(value):
                out[key] = before
            else:
                out[key] = (value, _encode(value))
        else:
            out[key] = (None, _encode(value))
    return out


def _frame(previous: dict[str, Any], current: dict[str, Any]) -> str:
    changed = [f"{_encode(k)}:{v[1]}" for k, v in current.items()
               if (old := previous.get(k)) is None or old is not v and old[1] != v[1]]
    removed = [k for k in previous if k not in current]
    body = "{" + ",".join(changed) + "}"
    return f"[{body},{_encode(removed)}]" if removed else f"[{body}]"


class _Faces:
    """Every distinct card face of a replay, each once; a table's cards become indexes."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.texts: list[str] = []

    def intern(self, table: drawing.Table) -> drawing.Table:
        for area in [*table.get("areas", []), *(a for s in table.get("seats", []) for a in s["areas"])]:
            area["cards"] = [self._one(card) for card in area["cards"]]
        return table

    def _one(self, card: drawing.Card) -> int:
        text = _encode(card)
        if text not in self.index:
            self.index[text] = len(self.texts)
            self.texts.append(text)
        return self.index[text]


def replay_json(transcript: dict[str, Any], view: View, seats: list[str]) -> str:
    """The viewer's data as a JSON text: the match's decisions, outcome and board, and the
    frames of ``view``. Raises ``ReplayMismatch`` if the actions do not replay or do not give
    the recorded scores and ranks."""
    game = games.get(transcript["game"])
    seat = None if isinstance(view, str) else view
    previous: dict[str, Any] = {}
    frames: list[str] = []
    last_table: drawing.Table | None = None
    previous_table: dict[str, Any] = {}
    tables: list[str] = []
    faces = _Faces()

    def frame(state: games.State) -> None:
        nonlocal previous, last_table, previous_table
        fields = _fields(state, view)
        current = _encoded(fields, previous)
        frames.append(_frame(previous, current))
        previous = current
        table = drawing.draw(game.name, fields, seat)
        if table is not None:
            drawing.highlight(table, last_table)
            last_table = copy.deepcopy(table)
            encoded = _encoded(faces.intern(table), previous_table)
            tables.append(_frame(previous_table, encoded))
            previous_table = encoded

    transcript_replay(transcript, frame)
    head = {
        "match_id": transcript.get("match_id"), "game": game.name, "title": game.title,
        "num_players": transcript["num_players"], "seats": seats, "view": view,
        "options": transcript["options"], "seed": transcript["seed"],
        "outcome": {k: transcript.get(k) for k in ("scores", "game_ranks", "ranks", "strikes", "forfeited", "capped")},
        "decisions": transcript["decisions"], "board": boards.board(game.name),
    }
    drawn = f',"faces":[{",".join(faces.texts)}],"tables":[{",".join(tables)}]' if tables else ""
    return _encode(head)[:-1] + ',"frames":[' + ",".join(frames) + "]" + drawn + "}"
