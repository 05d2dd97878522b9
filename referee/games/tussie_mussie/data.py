"""Tussie Mussie's components, as rules.md gives them."""
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
# Each tile's effect in the words of rules.md ("none" for the two plain tiles).
EFFECTS: dict[str, str] = {
    "camellia": "none",
    "red_rose": "+1 for each heart on all your tiles",
    "red_tulip": "+1 for each red tile you have, itself included",
    "amaryllis": "+1 for each tile in your Bouquet",
    "gardenia": "+1 for each tile in your Keepsakes",
    "daisy": "+1 for each other tile of yours that has no heart",
    "orchid": "pick a colour: for all scoring the Orchid is that colour only (it stays white if unused)",
    "peony": "+2 if your Bouquet holds exactly 2 tiles",
    "phlox": "none",
    "pink_rose": "+1 for each pink tile you have, itself included",
    "pink_larkspur": "you may draw 2 tiles; if you do, one of them must replace one tile of your Arrangement "
                     "(the Larkspur itself allowed), in that tile's column and row; the other drawn tile and the "
                     "replaced one leave the round",
    "forget_me_not": "+1 for each heart on the tiles adjacent to it",
    "violet": "+1 for each purple tile you have, itself included",
    "snapdragon": "you may move up to 2 of your tiles (itself allowed) between Bouquet and Keepsakes, "
                  "each staying in its column",
    "hyacinth": "+3 if none of your tiles has a heart",
    "honeysuckle": "+1 for each adjacent tile that is in your Bouquet (0–2); see the option honeysuckle",
    "carnation": "+1 for each distinct colour among your tiles (an Orchid counts as its chosen colour)",
    "marigold": "you must discard one of your other tiles; see the option marigold_gap",
}


def _card_text(tile: Tile) -> str:
    hearts = f"{tile.hearts} heart{'s' if tile.hearts != 1 else ''}, {tile.colour}"
    effect = EFFECTS[tile.id]
    return f"{hearts}; {tile.timing}: {effect}" if tile.timing else f"{hearts}; no effect"


# What the replay viewer shows on a tile (GameDescription.card_texts): its name and what it does.
CARD_TEXTS: dict[str, dict[str, str]] = {t.id: {"name": t.name, "text": _card_text(t)} for t in TILES.values()}
TILE_IDS: tuple[str, ...] = tuple(TILES)  # fixed order, never a deck position
PRE_PRESENTATION = frozenset(t.id for t in TILES.values() if t.timing == "pre-presentation")
ALPHABETICAL_RANK = {tid: i for i, tid in enumerate(sorted(TILES, key=lambda t: TILES[t].name))}

# Solo Turn cards (a platform ruling, rules.md). Organization: the sides of the 2 drawn tiles
# ("U" face up, "D" face down). An option: (choose side: "U", "D" or "*"; you place; apprentice places).
TURN_CARDS: dict[str, dict] = {
    "T1": {"layout": ("U", "U"), "options": {"a": ("U", "U", "U"), "b": ("U", "D", "D")}},
    "T2": {"layout": ("U", "D"), "options": {"a": ("*", "U", "D")}},
    "T3": {"layout": ("U", "D"), "options": {"a": ("U", "U", "D"), "b": ("D", "D", "U")}},
    "T4": {"layout": ("D", "D"), "options": {"a": ("D", "U", "D"), "b": ("D", "D", "U")}},
    "T5": {"layout": ("D", "D"), "options": {"a": ("D", "D", "D")}},
    "T6": {"layout": ("U", "D"), "options": {"a": ("*", "D", "U")}, "discard_top": True},
}
