"""Presentation scoring: hearts plus each tile's effect, left to right (components.md)."""
from __future__ import annotations

from collections.abc import Sequence

from .data import PRE_PRESENTATION, TILES

Column = tuple[str, str] | None  # (tile id, row) or an emptied column (marigold_gap=keep)


def score_arrangement(
    columns: Sequence[Column],
    orchid_colour: str = "white",
    *,
    apprentice: bool = False,
    honeysuckle: str = "any_row",
) -> tuple[int, list[dict]]:
    """Points of one arrangement and the breakdown per tile, left to right.

    ``columns`` are left to right; ``None`` is a kept gap that breaks adjacency.
    """
    tiles = [c for c in columns if c is not None]
    ids = [t for t, _ in tiles]

    def colour(tile_id: str) -> str:
        return orchid_colour if tile_id == "orchid" else TILES[tile_id].colour

    hearts = {t: TILES[t].hearts for t in ids}
    bouquet = [t for t, row in tiles if row == "bouquet"]
    keepsakes = [t for t, row in tiles if row == "keepsakes"]
    colours = [colour(t) for t in ids]

    def neighbours(index: int) -> list[Column]:
        return [columns[j] for j in (index - 1, index + 1) if 0 <= j < len(columns)]

    breakdown = []
    total = 0
    for index, column in enumerate(columns):
        if column is None:
            continue
        tile, row = column
        effect = 0
        if apprentice and tile in PRE_PRESENTATION:
            effect = 2
        elif tile == "red_rose":
            effect = sum(hearts.values())
        elif tile == "red_tulip":
            effect = colours.count("red")
        elif tile == "amaryllis":
            effect = len(bouquet)
        elif tile == "gardenia":
            effect = len(keepsakes)
        elif tile == "daisy":
            effect = sum(1 for t in ids if t != tile and hearts[t] == 0)
        elif tile == "peony":
            effect = 2 if len(bouquet) == 2 else 0
        elif tile == "pink_rose":
            effect = colours.count("pink")
        elif tile == "forget_me_not":
            effect = sum(hearts[n[0]] for n in neighbours(index) if n is not None)
        elif tile == "violet":
            effect = colours.count("purple")
        elif tile == "hyacinth":
            effect = 3 if not any(hearts.values()) else 0
        elif tile == "honeysuckle":
            if honeysuckle == "any_row" or row == "bouquet":
                effect = sum(1 for n in neighbours(index) if n is not None and n[1] == "bouquet")
        elif tile == "carnation":
            effect = len(set(colours))
        points = hearts[tile] + effect
        total += points
        breakdown.append({"tile": tile, "hearts": hearts[tile], "effect": effect})
    return total, breakdown
