"""Board layouts the viewer draws under a game's state: where each place of a map sits.

Only Trekking the World has a map. Its data holds regions, places and connections but no
coordinates (the printed map was reconstructed), so places are laid out here: regions on a
3 x 2 grid roughly where they lie on a globe, the airport at each region's centre and its
destinations on a ring around it.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

# Region -> grid cell (column, row), west to east, north to south.
_CELLS = {"North_America": (0, 0), "Europe": (1, 0), "Asia": (2, 0),
          "South_America": (0, 1), "Africa": (1, 1), "Oceania": (2, 1)}
CELL_W, CELL_H, RING = 300, 260, 100


@cache
def board(game: str) -> dict[str, Any] | None:
    """The map of ``game`` as places (id, name, region, kind, x, y) and connections, or
    None for games without one."""
    if game != "trekking_the_world":
        return None
    from arena.games.trekking_the_world import data

    places = []
    for index, region in enumerate(data.REGIONS):
        column, row = _CELLS.get(region, (index % 3, index // 3))
        cx, cy = column * CELL_W + CELL_W / 2, row * CELL_H + CELL_H / 2
        ring = [loc for loc in data.REGION_LOCATIONS[region] if loc not in data.AIRPORTS]
        for loc in data.REGION_LOCATIONS[region]:
            if loc in data.AIRPORTS:
                x, y = cx, cy
            else:
                angle = 2 * math.pi * ring.index(loc) / max(1, len(ring)) - math.pi / 2
                x, y = cx + RING * math.cos(angle), cy + RING * 0.85 * math.sin(angle)
            places.append({"id": loc, "name": data.LOCATION_NAME[loc], "region": region,
                           "kind": "airport" if loc in data.AIRPORTS else "destination",
                           "x": round(x, 1), "y": round(y, 1)})
    return {"kind": "map", "width": CELL_W * 3, "height": CELL_H * 2,
            "regions": [{"id": r, "name": r.replace("_", " "),
                         "x": _CELLS.get(r, (i % 3, i // 3))[0] * CELL_W,
                         "y": _CELLS.get(r, (i % 3, i // 3))[1] * CELL_H} for i, r in enumerate(data.REGIONS)],
            "places": places, "connections": [list(c) for c in data.CONNECTIONS]}
