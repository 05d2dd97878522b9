"""Tussie Mussie's components, as docs/rules/tussie-mussie.md gives them."""
from __future__ import annotations

from typing import NamedTuple

COLOURS = ("red", "pink", "purple", "yellow", "white")
ROWS = ("bouquet", "keepsakes")  # face up / face down once Pre-Presentation has shifted them


class Tile(NamedTuple):
    id: str
    name: str  # English, canonical (the tie-break uses it)
    name_fr: str
    hearts: int
    colour: str
    timing: str  # "", "scoring" or "pre-presentation"


TILES: dict[str, Tile] = {
    t.id: t
    for t in (
        Tile("camellia", "Camellia", "Camélia", 1, "red", ""),
        Tile("red_rose", "Red Rose", "Rose rouge", 0, "red", "scoring"),
        Tile("red_tulip", "Red Tulip", "Tulipe rouge", 0, "red", "scoring"),
        Tile("amaryllis", "Amaryllis", "Amaryllis", 0, "red", "scoring"),
        Tile("gardenia", "Gardenia", "Gardénia", 0, "white", "scoring"),
        Tile("daisy", "Daisy", "Marguerite", 0, "white", "scoring"),
        Tile("orchid", "Orchid", "Orchidée", 1, "white", "pre-presentation"),
        Tile("peony", "Peony", "Pivoine", 1, "pink", "scoring"),
        Tile("phlox", "Phlox", "Phlox", 2, "pink", ""),
        Tile("pink_rose", "Pink Rose", "Rose rose", 0, "pink", "scoring"),
        Tile("pink_larkspur", "Pink Larkspur", "Pied-d'alouette rose", 0, "pink", "pre-presentation"),
        Tile("forget_me_not", "Forget-me-not", "Myosotis", 1, "purple", "scoring"),
        Tile("violet", "Violet", "Violette", 0, "purple", "scoring"),
        Tile("snapdragon", "Snapdragon", "Gueule-de-loup", 1, "purple", "pre-presentation"),
        Tile("hyacinth", "Hyacinth", "Hyacinthe", 0, "purple", "scoring"),
        Tile("honeysuckle", "Honeysuckle", "Chèvrefeuille", 1, "yellow", "scoring"),
        Tile("carnation", "Carnation", "Œillet", 0, "yellow", "scoring"),
        Tile("marigold", "Marigold", "Œillet d'Inde", 2, "yellow", "pre-presentation"),
    )
}
TILE_IDS: tuple[str, ...] = tuple(TILES)  # fixed order, never a deck position
PRE_PRESENTATION = frozenset(t.id for t in TILES.values() if t.timing == "pre-presentation")
ALPHABETICAL_RANK = {tid: i for i, tid in enumerate(sorted(TILES, key=lambda t: TILES[t].name))}

# Solo Turn cards (a platform ruling, docs/rules/tussie-mussie.md). Organization: the sides of the 2 drawn tiles
# ("U" face up, "D" face down). An option: (choose side: "U", "D" or "*"; you place; apprentice places).
TURN_CARDS: dict[str, dict] = {
    "T1": {"layout": ("U", "U"), "options": {"a": ("U", "U", "U"), "b": ("U", "D", "D")}},
    "T2": {"layout": ("U", "D"), "options": {"a": ("*", "U", "D")}},
    "T3": {"layout": ("U", "D"), "options": {"a": ("U", "U", "D"), "b": ("D", "D", "U")}},
    "T4": {"layout": ("D", "D"), "options": {"a": ("D", "U", "D"), "b": ("D", "D", "U")}},
    "T5": {"layout": ("D", "D"), "options": {"a": ("D", "D", "D")}},
    "T6": {"layout": ("U", "D"), "options": {"a": ("*", "D", "U")}, "discard_top": True},
}
