"""Bszzzz! card data, exactly as ``rules.md`` gives it (nothing else lives here).

Two decks of 60 trick cards each (``deck=rulebook``: 40 pests, 9 useful insects, 11 webs; ``deck=original``:
48 / 9 / 3), plus 3 swatters per player colour. Colours and values are platform rulings.

Card ids are fixed per physical copy and never depend on a deck position: ``fly-red-2a`` and
``fly-red-2b`` are the two red 2/1 flies, ``mosquito-red-4a`` the red 4/2 mosquito and ``mosquito-red-4b``
the red 4/3 one, ``bee-red``, ``butterfly-orange-a``, ``web-red-a`` (rulebook deck) / ``web-red``
(original deck, hand penalty 2), ``swatter-red-1``..``-3``.
"""
from __future__ import annotations

from dataclasses import dataclass

# The six player colours, in the order seats receive them by default (seat k gets COLOURS[k]).
COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple", "orange")

# Card kinds. "useful" covers the bees and butterflies (insecte utile).
PEST = "pest"
USEFUL = "useful"
WEB = "web"
SWATTER = "swatter"
TRICK_KINDS = (PEST, USEFUL, WEB)


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One physical card. There is exactly one object per id (``CARDS``), so cards compare by identity."""

    id: str
    kind: str  # pest, useful, web, swatter
    name: str  # fly, mosquito, bee, butterfly, web, swatter
    colour: str
    capture: int | None  # pests > 0, useful insects < 0, webs and swatters None
    penalty: int  # hand penalty at round end (swatters 0: unused swatters cost nothing)

    def to_json(self) -> dict:
        return {
            "id": self.id, "kind": self.kind, "name": self.name, "colour": self.colour,
            "capture": self.capture, "penalty": self.penalty,
        }


def _pests(colour: str, original: bool) -> list[Card]:
    cards = []
    # The fly 1/1 exists in red, yellow, green, blue in the rulebook deck, in every colour in the original.
    if original or colour in ("red", "yellow", "green", "blue"):
        cards.append(Card(f"fly-{colour}-1", PEST, "fly", colour, 1, 1))
    cards += [
        Card(f"fly-{colour}-2a", PEST, "fly", colour, 2, 1),
        Card(f"fly-{colour}-2b", PEST, "fly", colour, 2, 1),
        Card(f"fly-{colour}-3", PEST, "fly", colour, 3, 2),
        Card(f"mosquito-{colour}-3", PEST, "mosquito", colour, 3, 2),
        Card(f"mosquito-{colour}-4a", PEST, "mosquito", colour, 4, 2),
        Card(f"mosquito-{colour}-4b", PEST, "mosquito", colour, 4, 3),
    ]
    if original:
        cards.append(Card(f"mosquito-{colour}-5", PEST, "mosquito", colour, 5, 3))
    return cards


# Useful insects, the same 9 in both decks.
USEFUL_INSECTS: tuple[Card, ...] = (
    *(Card(f"bee-{c}", USEFUL, "bee", c, -3, 1) for c in ("red", "yellow", "green", "blue", "purple")),
    Card("butterfly-blue", USEFUL, "butterfly", "blue", -2, 1),
    Card("butterfly-purple", USEFUL, "butterfly", "purple", -2, 1),
    Card("butterfly-orange-a", USEFUL, "butterfly", "orange", -2, 1),
    Card("butterfly-orange-b", USEFUL, "butterfly", "orange", -2, 1),
)

_RULEBOOK_WEBS = tuple(
    Card(f"web-{c}-{x}", WEB, "web", c, None, 1)
    for c in ("red", "yellow", "green", "blue", "purple", "orange")
    for x in (("a",) if c == "blue" else ("a", "b"))
)
_ORIGINAL_WEBS = tuple(Card(f"web-{c}", WEB, "web", c, None, 2) for c in ("red", "yellow", "green"))

DECKS: dict[str, tuple[Card, ...]] = {
    "rulebook": (*(p for c in COLOURS for p in _pests(c, False)), *USEFUL_INSECTS, *_RULEBOOK_WEBS),
    "original": (*(p for c in COLOURS for p in _pests(c, True)), *USEFUL_INSECTS, *_ORIGINAL_WEBS),
}

SWATTERS: dict[str, tuple[Card, ...]] = {
    c: tuple(Card(f"swatter-{c}-{i}", SWATTER, "swatter", c, None, 0) for i in (1, 2, 3)) for c in COLOURS
}

# Cards dealt to each seat, by player count (3 players: 45 of the 60 are dealt, the rest sit out the round).
HAND_SIZE: dict[int, int] = {3: 15, 4: 15, 5: 12, 6: 10}

# Every card of both decks by id. An id the two decks share names a card with the same data, and both
# decks hold the very same object for it.
CARDS: dict[str, Card] = {}


def _intern(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    out = []
    for card in cards:
        known = CARDS.setdefault(card.id, card)
        assert known.to_json() == card.to_json(), card
        out.append(known)
    return tuple(out)


DECKS = {name: _intern(cards) for name, cards in DECKS.items()}
SWATTERS = {colour: _intern(cards) for colour, cards in SWATTERS.items()}


def _card_text(card: Card) -> str:
    """What a card does, in the words of rules.md."""
    if card.kind == PEST:
        return f"pest: capture +{card.capture}, hand penalty {card.penalty}; only the turn seat may play it"
    if card.kind == USEFUL:
        return f"useful insect: capture {card.capture}, hand penalty {card.penalty}; any seat may play it"
    if card.kind == WEB:
        return f"web: discards the trick at once; hand penalty {card.penalty}"
    return ("swatter: on a pest takes the whole trick; on a useful insect takes only the useful insects "
            "(the pests are discarded); never on an empty trick; no value, no penalty")


# What the replay viewer shows on a card (GameDescription.card_texts): its name and what it does.
CARD_TEXTS: dict[str, dict[str, str]] = {
    c.id: {"name": f"{c.colour} {c.name}", "text": _card_text(c)} for c in CARDS.values()}
