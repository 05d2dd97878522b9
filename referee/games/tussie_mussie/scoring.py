"""Presentation scoring: hearts plus each tile's effect, left to right (docs/rules/tussie-mussie.md)."""
from __future__ import annotations

from collections.abc import Sequence

from .data import PRE_PRESENTATION, TILES

Column = tuple[str, str] | None  # (tile id, row) or an emptied column (marigold_gap=keep)

HEARTS = {t.id: t.hearts for t in TILES.values()}
COLOUR = {t.id: t.colour for t in TILES.values()}
SCORING = frozenset(t.id for t in TILES.values() if t.timing == "scoring")  # the tiles with an effect
# the effects that count a colour: "+1 for each <colour> tile you have, itself included"
COLOUR_COUNTED = {"red_tulip": "red", "pink_rose": "pink", "violet": "purple"}


def beside(columns: Sequence[Column], index: int) -> tuple[Column, Column]:
    """The columns left and right of ``index``, None where there is none (or a kept gap)."""
    return (columns[index - 1] if index else None), (columns[index + 1] if index + 1 < len(columns) else None)


def score_arrangement(
    columns: Sequence[Column],
    orchid_colour: str = "white",
    *,
    apprentice: bool = False,
    honeysuckle: str = "any_row",
) -> tuple[int, list[int]]:
    """Points of one arrangement, and each column's points (hearts + effect), left to right.

    ``columns`` are left to right, each (tile id, row) or any sequence starting with them (an
    engine's own ``[tile, row, seen]`` columns); ``None`` is a kept gap that breaks adjacency (it
    scores 0).
    """
    # the arrangement's tallies in one pass (scoring ends every round of every random playout)
    tiles = 0
    total_hearts = 0
    heartless = 0
    bouquet = 0
    colours: dict[str, int] = {}  # colour -> tiles of it (an Orchid counts as its chosen colour)
    for column in columns:
        if column is not None:
            tile = column[0]
            tiles += 1
            hearts = HEARTS[tile]
            total_hearts += hearts
            if not hearts:
                heartless += 1
            colour = orchid_colour if tile == "orchid" else COLOUR[tile]
            colours[colour] = colours.get(colour, 0) + 1
            if column[1] == "bouquet":
                bouquet += 1

    points = []
    for index, column in enumerate(columns):
        if column is None:
            points.append(0)
            continue
        tile = column[0]
        effect = 0
        if tile not in SCORING:
            if apprentice and tile in PRE_PRESENTATION:
                effect = 2
        elif tile in COLOUR_COUNTED:
            effect = colours.get(COLOUR_COUNTED[tile], 0)
        elif tile == "red_rose":
            effect = total_hearts
        elif tile == "amaryllis":
            effect = bouquet
        elif tile == "gardenia":
            effect = tiles - bouquet
        elif tile == "daisy":
            effect = heartless - 1  # every heartless tile but itself
        elif tile == "peony":
            effect = 2 if bouquet == 2 else 0
        elif tile == "forget_me_not":
            left, right = beside(columns, index)
            effect = (0 if left is None else HEARTS[left[0]]) + (0 if right is None else HEARTS[right[0]])
        elif tile == "hyacinth":
            effect = 3 if total_hearts == 0 else 0
        elif tile == "honeysuckle":
            if honeysuckle == "any_row" or column[1] == "bouquet":
                left, right = beside(columns, index)
                effect = (left is not None and left[1] == "bouquet") + (right is not None and right[1] == "bouquet")
        elif tile == "carnation":
            effect = len(colours)
        points.append(HEARTS[tile] + effect)
    return sum(points), points
