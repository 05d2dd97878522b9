"""Presentation scoring: hearts plus each tile's effect, left to right (rules.md)."""
from __future__ import annotations

from collections.abc import Sequence

from .data import PRE_PRESENTATION, TILES

Column = tuple[str, str] | None  # (tile id, row) or an emptied column (marigold_gap=keep)

HEARTS = {t.id: t.hearts for t in TILES.values()}
SCORING = frozenset(t.id for t in TILES.values() if t.timing == "scoring")  # the tiles with an effect
# the effects that count a colour: "+1 for each <colour> tile you have, itself included"
COLOUR_COUNTED = {"red_tulip": "red", "pink_rose": "pink", "violet": "purple"}
# what the one pass over the columns reads of a tile, in one look-up: its hearts, its points before
# any effect (an apprentice's tile with an ability scores 2 more), its colour (None for the Orchid:
# it counts as its chosen colour), and whether it has an effect
TILE_FACTS = {
    t.id: (t.hearts, t.hearts, None if t.id == "orchid" else t.colour, t.id in SCORING) for t in TILES.values()
}
APPRENTICE_TILE_FACTS = {
    tile: (hearts, hearts + 2 if tile in PRE_PRESENTATION else hearts, colour, has_effect)
    for tile, (hearts, _, colour, has_effect) in TILE_FACTS.items()
}


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
    # the arrangement's tallies and each column's hearts in one pass (scoring ends every round of
    # every random playout), then the effects of the columns that have one
    facts = APPRENTICE_TILE_FACTS if apprentice else TILE_FACTS
    total_hearts = 0
    heartless = 0
    bouquet = 0
    colours = []  # each tile's colour (an Orchid counts as its chosen colour)
    points = []  # each column's points before its effect, then its effect added
    effects = []  # the columns whose tile has an effect
    for column in columns:
        if column is None:
            points.append(0)
            continue
        hearts, base_points, colour, has_effect = facts[column[0]]
        if hearts:
            total_hearts += hearts
        else:
            heartless += 1
        colours.append(colour or orchid_colour)
        if column[1] == "bouquet":
            bouquet += 1
        if has_effect:
            effects.append(len(points))
        points.append(base_points)

    for index in effects:
        column = columns[index]
        tile = column[0]
        if tile in COLOUR_COUNTED:
            effect = colours.count(COLOUR_COUNTED[tile])
        elif tile == "red_rose":
            effect = total_hearts
        elif tile == "amaryllis":
            effect = bouquet
        elif tile == "gardenia":
            effect = len(colours) - bouquet  # a colour a tile
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
            effect = 0
            if honeysuckle == "any_row" or column[1] == "bouquet":
                left, right = beside(columns, index)
                effect = (left is not None and left[1] == "bouquet") + (right is not None and right[1] == "bouquet")
        else:  # the Carnation
            effect = len(set(colours))
        points[index] += effect
    return sum(points), points
