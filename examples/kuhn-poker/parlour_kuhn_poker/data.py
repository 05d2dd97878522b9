"""Kuhn poker's three cards (rules.md): one of each rank, the King highest."""
from __future__ import annotations

CARDS: dict[str, dict[str, object]] = {
    "jack": {"id": "jack", "name": "Jack", "rank": 1, "value": "J"},
    "queen": {"id": "queen", "name": "Queen", "rank": 2, "value": "Q"},
    "king": {"id": "king", "name": "King", "rank": 3, "value": "K"},
}
RANK = {card: data["rank"] for card, data in CARDS.items()}
# What each card does, in the rules' words (the replay viewer's tooltips).
CARD_TEXTS = {
    "jack": {"name": "Jack", "text": "the lowest card: loses every showdown"},
    "queen": {"name": "Queen", "text": "the middle card: beats the Jack, loses to the King"},
    "king": {"name": "King", "text": "the highest card: wins every showdown"},
}
