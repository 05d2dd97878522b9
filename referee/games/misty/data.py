"""Misty's 54 cards, as rules.md gives them (the counts are a platform ruling).

Every physical copy has a fixed id (``"rocket-2"``, ``"scooter-left-1"``) given before any shuffle.
Cards of the same kind and motif are interchangeable.
"""
from __future__ import annotations

from typing import NamedTuple


class Card(NamedTuple):
    id: str
    kind: str  # flower, monster, smile, plain, up, down, left, right
    motif: str  # what is drawn on it: "rocket", "heart", ... (the kind's name for the unique motifs)
    name: str  # English, for labels


# The direction each arrow kind moves, as (row, col) steps; rows grow downward.
MOVES: dict[str, tuple[int, int]] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}

# Points of a card alone on its cell (a cell with 2+ cards scores 0; smiles add pair bonuses).
POINTS: dict[str, int] = {
    "flower": 2, "monster": 1, "smile": 1, "plain": 1, "up": 1, "down": 1, "left": 1, "right": 1,
}

KIND_ORDER = ("flower", "monster", "smile", "plain", "up", "down", "left", "right")

# (kind, motif, English name, copies, id prefix)
_TABLE: tuple[tuple[str, str, str, int, str], ...] = (
    ("flower", "flower", "Flower", 6, "flower"),
    ("monster", "monster", "Monster", 4, "monster"),
    ("smile", "smile", "Smile", 8, "smile"),
    ("plain", "house", "House", 3, "house"),
    ("plain", "star", "Star", 3, "star"),
    ("plain", "stick-figure", "Stick figure", 3, "stick-figure"),
    ("plain", "heart", "Heart", 3, "heart"),
    ("up", "rocket", "Rocket", 3, "rocket"),
    ("up", "balloon", "Balloon", 3, "balloon"),
    ("down", "leaf", "Leaf", 3, "leaf"),
    ("down", "raindrop", "Raindrop", 3, "raindrop"),
    ("left", "fire-engine", "Fire engine", 2, "fire-engine"),
    ("left", "scooter", "Scooter", 2, "scooter-left"),
    ("left", "unicycle", "Unicycle", 2, "unicycle-left"),
    ("right", "tractor", "Tractor", 2, "tractor"),
    ("right", "scooter", "Scooter", 2, "scooter-right"),
    ("right", "unicycle", "Unicycle", 2, "unicycle-right"),
)

CARDS: dict[str, Card] = {
    f"{prefix}-{i}": Card(f"{prefix}-{i}", kind, motif, name)
    for kind, motif, name, copies, prefix in _TABLE
    for i in range(1, copies + 1)
}
CARD_IDS: tuple[str, ...] = tuple(CARDS)

# What each kind does, in the words of rules.md (GameDescription.card_texts).
_ARROW_TEXT = ("arrow: when activated moves one cell {0}, once, onto whatever is there (a card moving out of "
               "the window is removed); a covered arrow never moves; 1 point alone on its cell")
KIND_TEXT: dict[str, str] = {
    "flower": "2 points alone on its cell; a monster may eat it (it leaves the game)",
    "monster": "once the arrows have moved, eats one flower alone on its cell and moves onto that cell; "
               "1 point alone on its cell",
    "smile": "1 point alone on its cell, plus a bonus for smiles side by side in the same row",
    "plain": "never moves; 1 point alone on its cell",
    **{kind: _ARROW_TEXT.format(kind) for kind in MOVES},
}
CARD_TEXTS: dict[str, dict[str, str]] = {
    c.id: {"name": c.name, "text": KIND_TEXT[c.kind]} for c in CARDS.values()}  # the fixed order of the unshuffled deck
assert len(CARD_IDS) == 54
