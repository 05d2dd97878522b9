"""Cutoffs: where a playout is not worth playing, a heuristic estimate of the round instead.

In Misty a uniformly random playout builds windows no player would (cards dropped anywhere,
arrows fired in any order), so its outcome says little about the position; and a playout by the
greedy bot's rules costs ~3 ms a pick, twenty times a whole iteration. The greedy bot's own
estimate of a window (its best activated points over the boxes it may still become, empty cells
imagined as still cards) costs ~0.1 ms and is memoised here, so the search stops at the node it
adds and scores every window with it: each iteration is then a lookahead of the draft (which
cards come back in the passed hands, what the others take) scored by greedy's judgement.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from referee.games import GameState
from referee.games.misty.data import CARDS
from referee.games.misty.engine import BOXES, legal_cells

from ..greedy.misty import DONE, GreedyBot, best_order

CACHE_SIZE = 50_000  # windows per memo (~0.5 kB each; a match at 150 playouts a decision adds ~6000)
Grid = tuple[tuple[tuple[int, int], tuple[str, ...]], ...]  # hashable: sorted (cell, kinds) pairs


@dataclass(frozen=True)
class Cutoff:
    """``values(state)``: each seat's estimated points at the end of the round; a seat's reward is
    ``0.5 + 0.5 tanh((its estimate - the others' mean) / scale)``. ``settled(state)``: the tree
    stops there too (nothing left worth searching, e.g. Misty's activation, solved exactly)."""

    values: Callable[[GameState], list[float]]
    scale: float
    settled: Callable[[GameState], bool]

    def rewards(self, state: GameState) -> list[float]:
        values = self.values(state)
        n = len(values)
        if n == 1:
            return [0.5 + 0.5 * math.tanh(values[0] / self.scale)]
        total = sum(values)
        return [0.5 + 0.5 * math.tanh((v - (total - v) / (n - 1)) / self.scale) for v in values]


@lru_cache(maxsize=CACHE_SIZE)
def _draft_value(grid: Grid, shapes: frozenset, overlapping: bool) -> float:
    return GreedyBot.value({cell: list(kinds) for cell, kinds in grid}, set(shapes), overlapping)


@lru_cache(maxsize=CACHE_SIZE)
def _pending_value(grid: Grid, kind: str, boxes: tuple, overlapping: bool) -> float:
    """The window's value with the card taken (not yet placed) on its best cell."""
    shapes = frozenset(boxes) | {(b[1], b[0]) for b in boxes}
    if not grid:
        return _draft_value((((0, 0), (kind,)),), shapes, overlapping)
    cells = legal_cells(dict(grid), boxes)
    return max(_draft_value(tuple(sorted(grid + ((cell, (kind,)),))), shapes, overlapping) for cell in cells)


@lru_cache(maxsize=CACHE_SIZE)
def _built_value(grid: Grid, rows: int, cols: int, overlapping: bool) -> float:
    """A built window's points after its best activation (greedy's exhaustive order search)."""
    return best_order({cell: list(kinds) for cell, kinds in grid}, rows, cols, overlapping)[0]


def misty_values(state: Any) -> list[float]:
    overlapping = state.smile_pairs == "overlapping"
    boxes = tuple(tuple(b) for b in BOXES[state.config.variant])
    shapes = frozenset(boxes) | {(b[1], b[0]) for b in boxes}
    values = []
    for seat, window in enumerate(state.windows):
        inert = state.moved[seat] | state.fed[seat]
        grid = tuple(sorted((cell, tuple(DONE if c in inert else CARDS[c].kind for c in stack))
                            for cell, stack in window.items()))
        if state.stage != "draft":
            rows, cols = state.sizes[seat]
            values.append(_built_value(grid, rows, cols, overlapping))
        elif state.taken[seat] is not None:
            values.append(_pending_value(grid, state.taken[seat][0], boxes, overlapping))
        elif grid:
            values.append(_draft_value(grid, shapes, overlapping))
        else:
            values.append(0.0)
    return values


CUTOFFS: dict[str, Cutoff] = {
    "misty": Cutoff(misty_values, 2.0, lambda state: state.stage != "draft"),
}
