"""The greedy policy for Kuhn poker: play the card's strength as it stands, never bluff.

Bet or call with the King; check, then call a bet, with the Queen; check, then fold to a bet,
with the Jack. (It never bluffs and never bets the Queen for value: a search bot learns to exploit
both.) It decides from the observation and the legal actions only."""
from __future__ import annotations

from typing import Any

from referee.games.hooks import Turn

from .data import RANK

STRONG, MIDDLE = 3, 2


def greedy(turn: Turn) -> dict[str, Any]:
    rank = RANK[turn.observation["cards"][turn.seat]["id"]]
    kinds = {action["type"]: action for action in turn.legal}
    if "bet" in kinds:
        return kinds["bet"] if rank == STRONG else kinds["check"]
    return kinds["call"] if rank >= MIDDLE else kinds["fold"]
