"""Ranks from scores: 1-based, ties share a rank (1, 1, 3)."""
from __future__ import annotations

from collections.abc import Callable, Sequence


def competition_ranks(keys: Sequence) -> list[int]:
    """Rank seats by ``keys`` (higher is better); equal keys share the best rank of their group."""
    order = sorted(range(len(keys)), key=lambda s: keys[s], reverse=True)
    ranks = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and keys[seat] == keys[order[position - 1]]:
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position + 1
    return ranks


def ranks_with_tiebreak(scores: Sequence, tiebreak: Callable[[int], object]) -> list[int]:
    """Rank by score, then order each tied group by ``tiebreak(seat)`` (higher is better)."""
    return competition_ranks([(scores[s], tiebreak(s)) for s in range(len(scores))])
