"""Ranks that put a forfeited seat last, and A's score against B in one game."""
from __future__ import annotations

from collections.abc import Sequence

FORFEITED = "forfeited"


def forfeit_last(ranks: Sequence[int], statuses: Sequence[str] | None = None) -> list[int]:
    """Competition ranks (1, 1, 3) with every forfeited seat placed last, whatever its autopilot
    scored: a seat that forfeited did not win the game its autopilot finished. Forfeited seats
    share the last place; the other seats keep their order among themselves."""
    statuses = statuses or ["ok"] * len(ranks)
    keys = [(1, 0) if status == FORFEITED else (0, rank) for rank, status in zip(ranks, statuses)]
    return [1 + sum(other < key for other in keys) for key in keys]


def head_to_head(ranks: Sequence[int], statuses: Sequence[str] | None, a: int, b: int) -> float:
    """Seat ``a``'s score against seat ``b`` in one game: 1 if it ranks above, 1/2 if level, 0 if
    below (ranks as ``forfeit_last`` gives them: both forfeited is level)."""
    effective = forfeit_last(ranks, statuses)
    if effective[a] < effective[b]:
        return 1.0
    return 0.5 if effective[a] == effective[b] else 0.0
