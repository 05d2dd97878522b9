"""The greedy policy for Tussie Mussie: whatever makes its own arrangement score most right now."""
from __future__ import annotations

from typing import Any

from ..hooks import Turn
from .scoring import score_arrangement

# What an unknown (face-down) tile is worth on average, for a quick estimate.
UNKNOWN_TILE_VALUE = 1.5


def greedy(turn: Turn) -> dict[str, Any]:
    obs = turn.observation
    actions = turn.legal
    options = turn.config.options
    if len(actions) == 1:
        return actions[0]
    kind = actions[0]["type"]
    mine = own_columns(obs, turn.seat)
    if kind == "take":
        face_up = obs["offer"]["face_up"]["id"]
        gain = value_with(mine, face_up, "bouquet", options) - value(mine, options)
        return actions[0] if gain >= UNKNOWN_TILE_VALUE else actions[1]
    if kind == "offer":
        # keep the better tile: the receiver tends to take the face-up one, so show the worse
        return min(actions, key=lambda a: value_with(mine, a["face_up"], "keepsakes", options))
    if kind == "distribute":
        return max(actions, key=lambda a: distribute_value(obs, a, mine, options))
    return max(actions, key=lambda a: pre_presentation_value(mine, obs, a, turn))


def own_columns(obs: dict, seat: int) -> list[tuple[str, str] | None]:
    hand = obs["arrangements"][seat]
    return [None if c.get("gap") else (c["tile"]["id"], c["row"]) for c in hand]


def value(columns: list, options: dict, orchid: str = "white") -> int:
    return score_arrangement(columns, orchid, honeysuckle=options.get("honeysuckle", "any_row"))[0]


def value_with(columns: list, tile: str, row: str, options: dict) -> float:
    return value(columns + [(tile, row)], options)


def distribute_value(obs: dict, action: dict, mine: list, options: dict) -> float:
    slot = obs["table"][action["slot"]]
    if slot["tile"].get("hidden"):
        return value(mine, options) + UNKNOWN_TILE_VALUE
    return value_with(mine, slot["tile"]["id"], "bouquet", options)


def pre_presentation_value(mine: list, obs: dict, action: dict, turn: Turn) -> float:
    """The arrangement's score after the action (an ability's draw counts as a small gain)."""
    options = turn.config.options
    orchid = obs["orchid"][turn.seat]
    cols = list(mine)
    kind = action["type"]
    if kind == "orchid":
        return value(cols, options, action["colour"])
    if kind == "larkspur_draw":
        return value(cols, options, orchid) + 0.5
    if kind == "larkspur_replace":
        cols[action["column"]] = (action["tile"], cols[action["column"]][1])
    elif kind == "snapdragon":
        tile, row = cols[action["column"]]
        cols[action["column"]] = (tile, "keepsakes" if row == "bouquet" else "bouquet")
    elif kind == "marigold":
        if options.get("marigold_gap", "close") == "close":
            del cols[action["column"]]
        else:
            cols[action["column"]] = None
    return value(cols, options, orchid) + (0.01 if kind in ("done", "snapdragon_stop") else 0)
