"""The greedy policy for Misty.

Draft: take the card, and then place it on the cell, that give the best window once activated, where the cells still
empty are imagined filled with still cards worth 1 (they will hold something, so an arrow pointing
into the window will hit a card), trying every 3x4 / 4x3 box the window may still become.
Activation: search the orders of its arrow cards for the best points (meals never change points).

It decides from the observation and the legal actions only; it simulates windows by card kind
with the game's card data.
"""
from __future__ import annotations

from typing import Any

from ..hooks import Turn
from .data import MOVES
from .engine import legal_cells

FILLER = "x"  # an imagined card worth 1 that never moves
DONE = "done"  # an arrow card that has moved, or a monster that has eaten: worth 1, inert
POINTS = {"flower": 2}  # every other single card is worth 1

Cell = tuple[int, int]
Grid = dict[Cell, list[str]]  # cell -> card kinds, bottom to top


def grid_points(grid: Grid, rows: int, cols: int, overlapping: bool) -> int:
    """Round points of a kind grid whose arrows have all moved, meals deducted (-2 each)."""
    total = 0
    monsters = flowers = 0
    for stack in grid.values():
        if len(stack) == 1:
            kind = stack[0]
            total += POINTS.get(kind, 1)
            if kind == "flower":
                flowers += 1
            elif kind == "monster":
                monsters += 1
        elif stack[-1] == "monster":
            monsters += 1
    for r in range(rows):
        run = 0
        for c in range(cols + 1):
            stack = grid.get((r, c))
            if stack is not None and len(stack) == 1 and stack[0] == "smile":
                run += 1
                continue
            if run:
                total += run - 1 if overlapping else run // 2
            run = 0
    return total - 2 * min(monsters, flowers)


def movable(grid: Grid) -> list[Cell]:
    return sorted(cell for cell, stack in grid.items() if stack[-1] in MOVES)


def move(grid: Grid, cell: Cell, rows: int, cols: int) -> Grid:
    """A copy of the grid where the top card of ``cell`` has moved."""
    out = {k: list(v) for k, v in grid.items()}
    stack = out[cell]
    kind = stack.pop()
    if not stack:
        del out[cell]
    dr, dc = MOVES[kind]
    r, c = cell[0] + dr, cell[1] + dc
    if 0 <= r < rows and 0 <= c < cols:
        out.setdefault((r, c), []).append(DONE)
    return out


def best_order(grid: Grid, rows: int, cols: int, overlapping: bool, budget: int = 4000) -> tuple[int, list[Cell]]:
    """Exhaustive search (memoised) over the order of the arrow cards; greedy once over budget."""
    memo: dict[tuple, tuple[int, list[Cell]]] = {}
    left = [budget]

    def search(g: Grid) -> tuple[int, list[Cell]]:
        key = tuple(sorted((cell, tuple(s)) for cell, s in g.items()))
        if key in memo:
            return memo[key]
        cells = movable(g)
        if not cells:
            result = (grid_points(g, rows, cols, overlapping), [])
        elif left[0] <= 0:
            result = greedy_order(g, rows, cols, overlapping)
        else:
            left[0] -= 1
            result = (-99, [])
            for cell in cells:
                points, order = search(move(g, cell, rows, cols))
                if points > result[0]:
                    result = (points, [cell] + order)
        memo[key] = result
        return result

    return search(grid)


def greedy_order(grid: Grid, rows: int, cols: int, overlapping: bool) -> tuple[int, list[Cell]]:
    """Move, one at a time, the arrow card whose move loses least (fast, for the draft)."""
    order = []
    while True:
        cells = movable(grid)
        if not cells:
            return grid_points(grid, rows, cols, overlapping), order
        best = None
        for cell in cells:
            after = move(grid, cell, rows, cols)
            points = grid_points(after, rows, cols, overlapping)
            if best is None or points > best[0]:
                best = (points, cell, after)
        order.append(best[1])
        grid = best[2]


def greedy(turn: Turn) -> dict[str, Any]:
    legal = turn.legal
    if len(legal) == 1:
        return legal[0]
    kind = legal[0]["type"]
    obs = turn.observation
    overlapping = turn.config.options.get("smile_pairs") == "overlapping"
    window = obs["windows"][turn.seat]
    if kind in ("take", "place"):
        return draft(turn, kind, window, overlapping)
    if kind == "activate":
        grid = kind_grid(window)
        _, order = best_order(grid, window["rows"], window["cols"], overlapping)
        if order:
            target = {"type": "activate", "row": order[0][0], "col": order[0][1]}
            if target in legal:
                return target
    return legal[0]  # meals: every choice scores the same


def kind_grid(window: dict[str, Any]) -> Grid:
    """The window by kinds; moved arrows and fed monsters are inert."""
    inert = set(window["moved"]) | set(window["fed"])
    return {(c["row"], c["col"]): [DONE if card["id"] in inert else card["kind"] for card in c["cards"]]
            for c in window["cells"]}


def draft(turn: Turn, step: str, window: dict[str, Any], overlapping: bool) -> dict[str, Any]:
    """Score every (card, cell) pair still open; take the best card, then place it on its cell
    (the cell chosen with the card is kept in the policy's memory for the place step)."""
    legal, obs = turn.legal, turn.observation
    plan = turn.memory.get("plan")
    if step == "place" and plan is not None:
        key, cell = plan
        action = {"type": "place", "row": cell[0], "col": cell[1]}
        if key == step_key(obs) and action in legal:
            return action
    grid = kind_grid(window)
    boxes = [tuple(b) for b in obs["boxes"]]
    shapes = set(boxes) | {(b[1], b[0]) for b in boxes}
    if step == "take":
        kinds = [(a["kind"], a["motif"]) for a in legal]
        cells = legal_cells(grid, boxes)
    else:
        kinds = [(obs["pending"]["kind"], obs["pending"]["motif"])]
        cells = [(a["row"], a["col"]) for a in legal]
    best, best_value = [], float("-inf")
    for km in kinds:
        for cell in cells:
            trial = dict(grid)
            trial[cell] = [km[0]]
            value = window_value(trial, shapes, overlapping)
            if value > best_value:
                best, best_value = [(km, cell)], value
            elif value == best_value:
                best.append((km, cell))
    (kind, motif), cell = turn.rng.choice(best)
    if step == "take":
        turn.memory["plan"] = (step_key(obs), cell)
        return {"type": "take", "kind": kind, "motif": motif}
    return {"type": "place", "row": cell[0], "col": cell[1]}


def step_key(obs: dict[str, Any]) -> tuple:
    draft_view = obs["draft"]
    return obs["round"], draft_view["phase"], draft_view["pick"]


def window_value(grid: Grid, shapes: set, overlapping: bool) -> float:
    """The best activated points over the boxes the window may still fill, empty cells as fillers."""
    r0 = min(r for r, _ in grid)
    r1 = max(r for r, _ in grid)
    c0 = min(c for _, c in grid)
    c1 = max(c for _, c in grid)
    best = float("-inf")
    for rows, cols in shapes:
        if r1 - r0 >= rows or c1 - c0 >= cols:
            continue
        for top in range(r1 - rows + 1, r0 + 1):
            for left in range(c1 - cols + 1, c0 + 1):
                filled = {}
                for r in range(rows):
                    for c in range(cols):
                        stack = grid.get((top + r, left + c))
                        filled[(r, c)] = stack if stack is not None else [FILLER]
                points, _ = greedy_order(filled, rows, cols, overlapping)
                best = max(best, points)
    return best
