"""Misty: the rules, top to bottom.

A round: construction (a simultaneous draft: every seat picks a card from its hand and the cell where
it goes, all reveal together, the rest of the hands pass; standard: 6 cards dealt twice, passing
left then right, into a 3x4 or 4x3 window; ``variant=beginner``: 3 cards three times, left, right,
left, into a 3x3 window), then activation (seat by seat from the first player: the owner moves its
arrow cards in the order it likes, then its monsters eat flowers), then scoring. The highest points
win the round (ties all win it); the first seat alone at 2+ round wins takes the match; at
``round_cap`` rounds, most round wins then most points over all rounds (ties share). Score = round
wins.

Coordinates: during construction, relative to the seat's first card at (0, 0), rows growing
downward (so they may be negative); when construction ends, every window is renumbered from its
top-left corner, (0, 0) to (rows-1, cols-1).

Choices where rulings.md and the rulebook are silent (the platform's):
- The first player is seat 0 in round 1 and moves one seat left each round (it only orders the
  activation decisions; windows never interact).
- Every seat is asked at every draft step, even when its choice is forced (being asked must reveal
  nothing). An activation decision with a single option is played by the engine, not asked (windows
  are public, so this reveals nothing).
- Taking a (kind, motif) takes the lowest-numbered copy of it in the hand (copies are interchangeable).
- Each arrow card is activated at most once; "covered" means not on top of its cell. A card moving
  onto an empty cell (emptied by an earlier move or meal) simply lands there.
- Meals: one decision per meal, naming both the monster and the flower (the owner chooses which
  monster eats first and which flower). A monster that has eaten eats no more. A flower "alone on its
  cell" is the only card of its cell.
- Smile pairs count only smiles alone on their cell (a stack scores 0 as a whole).
- Card ids (fixed per physical copy) are shown; legal actions name (kind, motif, cell) only.
- The match end is checked after every round; ``round_cap`` counts every round played, play-off
  rounds included, in both variants.

Position JSON (``to_position()["state"]``), every card by its id (data.CARD_IDS):
``round`` (1-based), ``first`` (first player of the round), ``stage`` (``draft`` | ``activation`` |
``over``), ``draft_phase`` (0-based index into the variant's phases), ``pick`` (0-based pick within
the phase), ``deck`` (undealt cards, next dealt first), ``hands`` (per seat, the cards it holds now),
``pending`` (per seat, its sealed draft action or null), ``windows`` (per seat, ``[row, col,
[card ids bottom to top]]`` for every non-empty cell), ``sizes`` (per seat ``[rows, cols]`` once
construction has ended, else null), ``active`` (the seat activating, or null), ``moved`` (per seat,
the arrow cards already activated), ``fed`` (per seat, the monsters that have eaten), ``log`` (this
round's events: ``reveal``, ``move``, ``eat``), ``rounds`` (finished rounds: ``points``,
``winners``, final ``windows``). A hand-built position in the activation stage is advanced through
forced steps on load.
"""
from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Mapping
from typing import Any

from ..interface import (
    Action,
    GameDescription,
    GameState,
    IllegalActionError,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
)
from ..ranking import ranks_with_tiebreak
from ..seeding import draw_seed, stream
from .data import CARD_IDS, CARDS, KIND_ORDER, MOVES, POINTS

Cell = tuple[int, int]
Window = dict[Cell, list[str]]  # cell -> card ids, bottom to top

# Draft phases per variant: (passing direction, cards dealt to each seat).
PHASES: dict[str, tuple[tuple[str, int], ...]] = {
    "standard": (("left", 6), ("right", 6)),
    "beginner": (("left", 3), ("right", 3), ("left", 3)),
}
# The (rows, cols) boxes a window must fit in.
BOXES: dict[str, tuple[Cell, ...]] = {"standard": ((3, 4), (4, 3)), "beginner": ((3, 3),)}
WINS_NEEDED = 2
NEIGHBOURS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
ORDER = {card_id: i for i, card_id in enumerate(CARD_IDS)}
KIND = {card_id: card.kind for card_id, card in CARDS.items()}
ARROWS = frozenset(MOVES)
MOTIF_NAME = {(c.kind, c.motif): c.name for c in CARDS.values()}
KIND_MOTIF = {card_id: (card.kind, card.motif) for card_id, card in CARDS.items()}
KIND_MOTIF_ORDER = {km: (KIND_ORDER.index(km[0]), km[1]) for km in MOTIF_NAME}

OPTIONS = (
    OptionSpec("smile_pairs", "choice", "disjoint", ("disjoint", "overlapping"),
               doc="side-by-side smiles score +1 per pair not overlapping (3 in a row = 4), "
                   "or per adjacent pair (3 in a row = 5)"),
    OptionSpec("round_cap", "int", 7, low=3, high=15,
               doc="the match ends after this many rounds at the latest"),
)


def card_json(card_id: str) -> dict[str, Any]:
    """What a viewer needs to draw a card."""
    c = CARDS[card_id]
    return {"id": c.id, "kind": c.kind, "motif": c.motif, "name": c.name,
            "moves": c.kind if c.kind in ARROWS else None}


# Action dicts are interned: the legal lists are rebuilt at every draft step and are read-only by
# contract, so they are gathered from here rather than built anew.
_PLACE: dict[tuple[str, str], dict[Cell, Action]] = {}


def place_action(kind: str, motif: str, row: int, col: int) -> Action:
    cells = _PLACE.setdefault((kind, motif), {})
    action = cells.get((row, col))
    if action is None:
        action = cells[(row, col)] = {"type": "place", "kind": kind, "motif": motif, "row": row, "col": col}
    return action


for _kind, _motif in MOTIF_NAME:  # every cell a window can use: within 3 of its first card
    for _row in range(-3, 4):
        for _col in range(-3, 4):
            place_action(_kind, _motif, _row, _col)


# ---------------------------------------------------------------------------------- construction
def box_limits(boxes: Iterable[Cell]) -> tuple[int, int, int]:
    """(max height, max width, max height + width): fitting 3x4 or 4x3 is h <= 4, w <= 4, h + w <= 7."""
    boxes = tuple(boxes)
    return max(b[0] for b in boxes), max(b[1] for b in boxes), max(b[0] + b[1] for b in boxes)


def legal_cells(cells: Iterable[Cell], boxes: Iterable[Cell]) -> list[Cell]:
    """Empty cells touching a placed card (8 directions) where the occupied area still fits a box."""
    occupied = set(cells)
    if not occupied:
        return [(0, 0)]
    frontier = {(r + dr, c + dc) for r, c in occupied for dr, dc in NEIGHBOURS} - occupied
    bbox = (min(r for r, _ in occupied), max(r for r, _ in occupied),
            min(c for _, c in occupied), max(c for _, c in occupied))
    return fitting_cells(frontier, bbox, box_limits(boxes))


def fitting_cells(frontier: Iterable[Cell], bbox: tuple[int, int, int, int],
                  limits: tuple[int, int, int]) -> list[Cell]:
    """The frontier cells that keep the bounding box (r0, r1, c0, c1) within the limits, sorted."""
    r0, r1, c0, c1 = bbox
    max_h, max_w, max_sum = limits
    out = []
    for cell in frontier:
        r, c = cell
        h = (r1 - r if r < r0 else r - r0 if r > r1 else r1 - r0) + 1
        w = (c1 - c if c < c0 else c - c0 if c > c1 else c1 - c0) + 1
        if h <= max_h and w <= max_w and h + w <= max_sum:
            out.append(cell)
    out.sort()
    return out


def take_copy(hand: list[str], kind: str, motif: str) -> str:
    """The lowest-numbered copy of (kind, motif) in the hand (copies are interchangeable)."""
    return min((c for c in hand if CARDS[c].kind == kind and CARDS[c].motif == motif), key=ORDER.get)


def renumber(window: Window) -> tuple[Window, Cell]:
    """The window with (0, 0) at its top-left corner, and its (rows, cols)."""
    r0 = min(r for r, _ in window)
    c0 = min(c for _, c in window)
    moved = {(r - r0, c - c0): stack for (r, c), stack in window.items()}
    return moved, (max(r for r, _ in moved) + 1, max(c for _, c in moved) + 1)


# ---------------------------------------------------------------------------------- activation
def arrow_cells(window: Mapping[Cell, list[str]], moved: Iterable[str]) -> list[Cell]:
    """Cells whose top card is an arrow card not yet activated (a covered card never moves)."""
    moved = set(moved)
    return sorted(cell for cell, stack in window.items()
                  if KIND[stack[-1]] in ARROWS and stack[-1] not in moved)


def meal_pairs(window: Mapping[Cell, list[str]], fed: Iterable[str]) -> list[tuple[Cell, Cell]]:
    """(monster cell, flower cell) pairs: an uncovered monster that has not eaten, and a flower
    alone on its cell anywhere in the window."""
    fed = set(fed)
    monsters = sorted(cell for cell, stack in window.items()
                      if KIND[stack[-1]] == "monster" and stack[-1] not in fed)
    if not monsters:
        return []
    flowers = sorted(cell for cell, stack in window.items()
                     if len(stack) == 1 and KIND[stack[0]] == "flower")
    return [(m, f) for m in monsters for f in flowers]


def activate(window: Window, cell: Cell, size: Cell) -> Cell | None:
    """Move the top card of ``cell`` one space; on top of the target's stack, or out of the
    window (removed). Returns the target cell, or None when the card left the window."""
    stack = window[cell]
    card = stack.pop()
    if not stack:
        del window[cell]
    dr, dc = MOVES[KIND[card]]
    target = (cell[0] + dr, cell[1] + dc)
    if 0 <= target[0] < size[0] and 0 <= target[1] < size[1]:
        window.setdefault(target, []).append(card)
        return target
    return None


def eat(window: Window, monster_cell: Cell, flower_cell: Cell) -> tuple[str, str]:
    """The flower leaves the game; the monster moves onto its cell. Returns (monster, flower)."""
    flower = window[flower_cell][0]
    stack = window[monster_cell]
    monster = stack.pop()
    if not stack:
        del window[monster_cell]
    window[flower_cell] = [monster]
    return monster, flower


def window_points(window: Mapping[Cell, list[str]], size: Cell, smile_pairs: str = "disjoint") -> int:
    """Round points: a single card its points (flower 2, others 1), a stack 0, plus smile pairs."""
    total = 0
    for stack in window.values():
        if len(stack) == 1:
            total += POINTS[KIND[stack[0]]]
    for r in range(size[0]):
        run = 0
        for c in range(size[1] + 1):
            stack = window.get((r, c))
            if stack is not None and len(stack) == 1 and KIND[stack[0]] == "smile":
                run += 1
                continue
            if run:
                total += run // 2 if smile_pairs == "disjoint" else run - 1
            run = 0
    return total


def best_activation(
    window: Mapping[Cell, list[str]], size: Cell, smile_pairs: str = "disjoint",
    moved: Iterable[str] = (), fed: Iterable[str] = (), limit: int = 20000,
) -> tuple[int, list[Cell]]:
    """The best points the owner can reach from here, and an order of arrow cells reaching it
    (exhaustive search over orders, memoised; meals never change the points: -2 each, whatever
    the choice). ``limit`` bounds the states explored (then the best found so far)."""
    memo: dict[tuple, tuple[int, list[Cell]]] = {}
    budget = [limit]

    def finish(w: Window) -> int:
        meals = meal_pairs(w, fed)
        monsters = len({m for m, _ in meals})
        flowers = len({f for _, f in meals})
        return window_points(w, size, smile_pairs) - 2 * min(monsters, flowers)

    def search(w: Window, done: frozenset) -> tuple[int, list[Cell]]:
        key = (done, tuple(sorted((cell, tuple(s)) for cell, s in w.items())))
        if key in memo:
            return memo[key]
        cells = arrow_cells(w, done)
        if not cells or budget[0] <= 0:
            result = (finish(w), [])
        else:
            budget[0] -= 1
            result = (-1, [])
            for cell in cells:
                nxt = {k: list(v) for k, v in w.items()}
                card = nxt[cell][-1]
                activate(nxt, cell, size)
                points, order = search(nxt, done | {card})
                if points > result[0]:
                    result = (points, [cell] + order)
        memo[key] = result
        return result

    return search({k: list(v) for k, v in window.items()}, frozenset(moved))


# ---------------------------------------------------------------------------------- the state
class MistyState(GameState):
    # ------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> MistyState:
        state = cls(config, seed)
        state.start_round()
        return state

    def __init__(self, config: MatchConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.n = config.players
        self.phases = PHASES[config.variant]
        self.boxes = BOXES[config.variant]
        self.smile_pairs: str = config.options["smile_pairs"]
        self.round_cap: int = config.options["round_cap"]
        self.round = 1
        self.first = 0
        self.stage = "draft"
        self.draft_phase = 0
        self.pick = 0
        self.deck: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        self.pending: list[Action | None] = [None] * self.n
        self.windows: list[Window] = [{} for _ in range(self.n)]
        self.sizes: list[Cell | None] = [None] * self.n
        self.active: int | None = None
        self.moved: list[set[str]] = [set() for _ in range(self.n)]
        self.fed: list[set[str]] = [set() for _ in range(self.n)]
        self.log: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        # per seat during construction: [frontier (empty cells touching the window), bounding box
        # (r0, r1, c0, c1) or None], kept up to date as cards are placed; None = to recompute
        self._shapes: list[list | None] = [None] * self.n
        self.limits = box_limits(self.boxes)
        self._touch()

    def _touch(self) -> None:
        """Forget cached legal lists (call after anything changes)."""
        self._legal: dict[int, list[Action]] = {}
        self._check: dict[int, tuple[set, set]] = {}

    def start_round(self) -> None:
        """Shuffle all 54 cards (the deal of round r from its own stream) and deal the first phase."""
        self.deck = list(CARD_IDS)
        stream(self.seed, "deal", self.round).shuffle(self.deck)
        self.stage = "draft"
        self.draft_phase = 0
        self.pick = 0
        self.pending = [None] * self.n
        self.windows = [{} for _ in range(self.n)]
        self._shapes = [None] * self.n
        self.sizes = [None] * self.n
        self.active = None
        self.moved = [set() for _ in range(self.n)]
        self.fed = [set() for _ in range(self.n)]
        self.log = []
        self.deal_hands()

    def deal_hands(self) -> None:
        size = self.phases[self.draft_phase][1]
        for seat in range(self.n):
            self.hands[seat] = sorted(self.deck[seat * size:(seat + 1) * size], key=ORDER.get)
        del self.deck[: self.n * size]
        self._touch()

    # ------------------------------------------------------------------ construction (draft)
    def direction(self) -> int:
        """+1 when hands pass left (to seat s+1), -1 when they pass right."""
        return 1 if self.phases[self.draft_phase][0] == "left" else -1

    def knows_hand(self, seat: int, holder: int) -> bool:
        """Whether ``seat`` has held the hand ``holder`` holds now during this draft phase (then it
        knows its contents: what it saw, minus the picks revealed since)."""
        return (self.direction() * (holder - seat)) % self.n <= self.pick

    def shape(self, seat: int) -> list:
        """[frontier, bounding box] of a seat's window under construction (see ``_shapes``)."""
        shape = self._shapes[seat]
        if shape is None:
            window = self.windows[seat]
            frontier = {(r + dr, c + dc) for r, c in window for dr, dc in NEIGHBOURS} - set(window)
            bbox = None
            if window:
                bbox = (min(r for r, _ in window), max(r for r, _ in window),
                        min(c for _, c in window), max(c for _, c in window))
            shape = self._shapes[seat] = [frontier, bbox]
        return shape

    def grow(self, seat: int, cell: Cell) -> None:
        """Update the frontier and bounding box after a card is placed on ``cell``."""
        shape = self._shapes[seat]
        if shape is None:
            return
        frontier, bbox = shape
        window = self.windows[seat]
        r, c = cell
        frontier.discard(cell)
        for dr, dc in NEIGHBOURS:
            if (r + dr, c + dc) not in window:
                frontier.add((r + dr, c + dc))
        shape[1] = (r, r, c, c) if bbox is None else (
            min(bbox[0], r), max(bbox[1], r), min(bbox[2], c), max(bbox[3], c))

    def draft_actions(self, seat: int) -> list[Action]:
        """Every (kind, motif) in the hand times every legal cell, ignoring a pending submission."""
        frontier, bbox = self.shape(seat)
        cells = [(0, 0)] if bbox is None else fitting_cells(frontier, bbox, self.limits)
        kinds = sorted({KIND_MOTIF[c] for c in self.hands[seat]}, key=KIND_MOTIF_ORDER.get)
        self._check[seat] = (kinds, cells)
        actions: list[Action] = []
        for km in kinds:
            interned = _PLACE[km]
            actions += [interned[cell] for cell in cells]
        return actions

    def submit(self, seat: int, action: Action) -> None:
        """Seal a seat's draft choice; reveal them all when the last seat has chosen."""
        self.pending[seat] = place_action(action["kind"], action["motif"], action["row"], action["col"])
        self._legal.pop(seat, None)
        if all(p is not None for p in self.pending):
            self.reveal_and_pass()

    def reveal_and_pass(self) -> None:
        placements = []
        for seat, action in enumerate(self.pending):
            card = take_copy(self.hands[seat], action["kind"], action["motif"])
            self.hands[seat].remove(card)
            self.windows[seat][(action["row"], action["col"])] = [card]
            self.grow(seat, (action["row"], action["col"]))
            placements.append({"seat": seat, "card": card, "row": action["row"], "col": action["col"]})
        self.log.append({"event": "reveal", "phase": self.draft_phase + 1, "pick": self.pick + 1,
                         "placements": placements})
        self.pending = [None] * self.n
        self.pick += 1
        if self.pick < self.phases[self.draft_phase][1]:
            d = self.direction()
            self.hands = [self.hands[(seat - d) % self.n] for seat in range(self.n)]
            self._touch()
        else:
            self.draft_phase += 1
            self.pick = 0
            if self.draft_phase < len(self.phases):
                self.deal_hands()
            else:
                self.begin_activation()

    # ------------------------------------------------------------------ activation
    def begin_activation(self) -> None:
        for seat in range(self.n):
            self.windows[seat], self.sizes[seat] = renumber(self.windows[seat])
        self.stage = "activation"
        self.active = self.first
        self.advance_activation()

    def activation_actions(self, seat: int) -> list[Action]:
        """Which arrow card moves next; once none can, which monster eats which flower."""
        window = self.windows[seat]
        cells = arrow_cells(window, self.moved[seat])
        if cells:
            return [{"type": "activate", "row": r, "col": c} for r, c in cells]
        return [{"type": "eat", "row": m[0], "col": m[1], "flower_row": f[0], "flower_col": f[1]}
                for m, f in meal_pairs(window, self.fed[seat])]

    def advance_activation(self) -> None:
        """Play forced steps; move to the next seat when one is done; score after the last."""
        self._touch()
        while self.stage == "activation":
            seat = self.active
            actions = self.activation_actions(seat)
            if len(actions) > 1:
                self._legal[seat] = actions
                return
            if actions:
                self.activation_step(seat, actions[0])
                continue
            self.active = (seat + 1) % self.n
            if self.active == self.first:
                self.active = None
                self.end_round()

    def activation_step(self, seat: int, action: Action) -> None:
        window = self.windows[seat]
        cell = (action["row"], action["col"])
        if action["type"] == "activate":
            card = window[cell][-1]
            target = activate(window, cell, self.sizes[seat])
            self.moved[seat].add(card)
            self.log.append({"event": "move", "seat": seat, "card": card, "from": list(cell),
                             "to": None if target is None else list(target)})
        else:
            flower_cell = (action["flower_row"], action["flower_col"])
            monster, flower = eat(window, cell, flower_cell)
            self.fed[seat].add(monster)
            self.log.append({"event": "eat", "seat": seat, "monster": monster, "flower": flower,
                             "from": list(cell), "to": list(flower_cell)})

    # ------------------------------------------------------------------ scoring, match end
    def end_round(self) -> None:
        points = [window_points(self.windows[s], self.sizes[s], self.smile_pairs) for s in range(self.n)]
        best = max(points)
        self.rounds.append({
            "round": self.round,
            "points": points,
            "winners": [s for s in range(self.n) if points[s] == best],
            "windows": [self.window_rows(s) for s in range(self.n)],
        })
        wins = self.round_wins()
        top = max(wins)
        alone = wins.count(top) == 1
        if (top >= WINS_NEEDED and alone) or len(self.rounds) >= self.round_cap:
            self.stage = "over"
            self._touch()
            return
        self.round += 1
        self.first = (self.first + 1) % self.n
        self.start_round()

    def round_wins(self) -> list[int]:
        wins = [0] * self.n
        for summary in self.rounds:
            for seat in summary["winners"]:
                wins[seat] += 1
        return wins

    def total_points(self) -> list[int]:
        return [sum(summary["points"][s] for summary in self.rounds) for s in range(self.n)]

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def result(self) -> dict[str, Any]:
        wins, totals = self.round_wins(), self.total_points()
        return {
            "scores": wins,
            "ranks": ranks_with_tiebreak(wins, lambda s: totals[s]),
            "round_wins": wins,
            "points": totals,
            "rounds": [{"points": list(r["points"]), "winners": list(r["winners"])} for r in self.rounds],
        }

    # ------------------------------------------------------------------ the interface
    def to_move(self) -> list[int]:
        if self.stage == "draft":
            return [s for s in range(self.n) if self.pending[s] is None]
        if self.stage == "activation":
            return [self.active]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        actions = self._legal.get(seat)
        if actions is None:
            if self.stage == "draft" and self.pending[seat] is None:
                actions = self.draft_actions(seat)
            elif self.stage == "activation" and seat == self.active:
                actions = self.activation_actions(seat)
            else:
                actions = []
            self._legal[seat] = actions
        return actions

    def apply(self, seat: int, action: Action) -> None:
        if self.stage == "draft":
            # checked without scanning the (up to ~100) actions: the hand's kinds and the legal cells
            if not isinstance(action, dict) or not 0 <= seat < self.n or self.pending[seat] is not None:
                raise IllegalActionError(f"seat {seat}: {action!r} is not a legal action now")
            self.legal_actions(seat)
            kinds, cells = self._check[seat]
            if (action.get("type") != "place" or len(action) != 5
                    or (action.get("kind"), action.get("motif")) not in kinds
                    or (action.get("row"), action.get("col")) not in cells):
                raise IllegalActionError(f"seat {seat}: {action!r} is not a legal action now")
            self.submit(seat, action)
            return
        self.check_legal(seat, action)
        self.activation_step(seat, action)
        self.advance_activation()

    def default_action(self, seat: int) -> Action:
        return self.legal_actions(seat)[0]

    def action_label(self, seat: int, action: Action) -> str:
        kind = action.get("type")
        if kind == "place":
            name = MOTIF_NAME.get((action["kind"], action["motif"]), action["motif"])
            arrow = f" ({action['kind']})" if action["kind"] in ARROWS else ""
            return f"place a {name}{arrow} at row {action['row']}, col {action['col']}"
        window = self.windows[seat]
        cell = (action.get("row"), action.get("col"))
        stack = window.get(cell)
        name = CARDS[stack[-1]].name if stack else "card"
        if kind == "activate":
            return f"move the {name} at ({cell[0]}, {cell[1]}) {KIND[stack[-1]] if stack else ''}".rstrip()
        if kind == "eat":
            return (f"the Monster at ({cell[0]}, {cell[1]}) eats the Flower at "
                    f"({action.get('flower_row')}, {action.get('flower_col')})")
        return str(action)

    # ------------------------------------------------------------------ observations
    def window_rows(self, seat: int) -> list[list]:
        """A window as sorted ``[row, col, [ids bottom to top]]`` (the position form)."""
        return [[r, c, list(stack)] for (r, c), stack in sorted(self.windows[seat].items())]

    def window_view(self, seat: int) -> dict[str, Any]:
        size = self.sizes[seat]
        return {
            "seat": seat,
            "rows": size[0] if size else None,
            "cols": size[1] if size else None,
            "cells": [{"row": r, "col": c, "cards": [card_json(i) for i in stack]}
                      for (r, c), stack in sorted(self.windows[seat].items())],
            "moved": sorted(self.moved[seat], key=ORDER.get),
            "fed": sorted(self.fed[seat], key=ORDER.get),
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """The observation of ``seat``; with None, the spectator's (no hand is shown)."""
        data: dict[str, Any] = {
            "round": self.round,
            "phase": self.stage,
        }
        if seat is not None:
            data["seat"] = seat
        data["to_move"] = self.to_move()
        data["first_player"] = self.first
        data["boxes"] = [list(b) for b in self.boxes]
        if self.stage == "draft":
            direction, size = self.phases[self.draft_phase]
            data["draft"] = {"phase": self.draft_phase + 1, "phases": len(self.phases),
                             "pick": self.pick + 1, "picks": size, "direction": direction}
        else:
            data["draft"] = None
        if seat is not None:
            data["hand"] = [card_json(c) for c in self.hands[seat]]
            data["pending"] = None if self.pending[seat] is None else dict(self.pending[seat])
        hands = []
        for holder in range(self.n):
            entry: dict[str, Any] = {"seat": holder, "count": len(self.hands[holder])}
            known = seat is not None and self.stage == "draft" and self.knows_hand(seat, holder)
            entry["cards"] = [card_json(c) for c in self.hands[holder]] if known else None
            hands.append(entry)
        data["hands"] = hands
        data["windows"] = [self.window_view(s) for s in range(self.n)]
        data["active"] = self.active
        data["log"] = copy.deepcopy(self.log)
        data["round_wins"] = self.round_wins()
        data["points"] = self.total_points()
        data["rounds"] = copy.deepcopy(self.rounds)
        return data

    def observation(self, seat: int) -> dict[str, Any]:
        return self.view(seat)

    def public_view(self) -> dict[str, Any]:
        return self.view(None)

    # ------------------------------------------------------------------ hidden information
    def resample_hidden(self, seat: int, rng: random.Random) -> MistyState:
        """Redraw every card ``seat`` cannot know (the undealt deck, the hands it has not held this
        phase) and the other seats' sealed choices; a fresh seed for future rounds."""
        other = self.copy()
        slots = [other.deck]
        if other.stage == "draft":
            slots += [other.hands[t] for t in range(other.n) if not other.knows_hand(seat, t)]
        pool = [card for slot in slots for card in slot]
        rng.shuffle(pool)
        for slot in slots:
            size = len(slot)
            slot[:] = pool[:size]
            del pool[:size]
        for hand in other.hands:
            hand.sort(key=ORDER.get)
        other._touch()
        for t in range(other.n):
            if t != seat and other.pending[t] is not None:
                other.pending[t] = rng.choice(other.draft_actions(t))
        other.seed = draw_seed(rng)
        other._touch()
        return other

    def copy(self) -> MistyState:
        other = MistyState(self.config, self.seed)
        other.round, other.first, other.stage = self.round, self.first, self.stage
        other.draft_phase, other.pick = self.draft_phase, self.pick
        other.deck = list(self.deck)
        other.hands = [list(h) for h in self.hands]
        other.pending = list(self.pending)
        other.windows = [{cell: list(s) for cell, s in w.items()} for w in self.windows]
        other._shapes = [None if sh is None else [set(sh[0]), sh[1]] for sh in self._shapes]
        other.sizes = list(self.sizes)
        other.active = self.active
        other.moved = [set(m) for m in self.moved]
        other.fed = [set(f) for f in self.fed]
        other.log = copy.deepcopy(self.log)
        other.rounds = copy.deepcopy(self.rounds)
        return other

    # ------------------------------------------------------------------ positions
    def position_state(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "first": self.first,
            "stage": self.stage,
            "draft_phase": self.draft_phase,
            "pick": self.pick,
            "deck": list(self.deck),
            "hands": [list(h) for h in self.hands],
            "pending": [None if p is None else dict(p) for p in self.pending],
            "windows": [self.window_rows(s) for s in range(self.n)],
            "sizes": [None if s is None else list(s) for s in self.sizes],
            "active": self.active,
            "moved": [sorted(m, key=ORDER.get) for m in self.moved],
            "fed": [sorted(f, key=ORDER.get) for f in self.fed],
            "log": copy.deepcopy(self.log),
            "rounds": copy.deepcopy(self.rounds),
        }

    @classmethod
    def from_position_state(cls, config: MatchConfig, seed: int, data: dict) -> MistyState:
        n = config.players
        state = cls(config, seed)
        state.round = int(data.get("round", 1))
        state.first = int(data.get("first", 0))
        state.stage = data["stage"]
        state.draft_phase = int(data.get("draft_phase", 0))
        state.pick = int(data.get("pick", 0))
        state.deck = list(data.get("deck", []))
        state.hands = [sorted(h, key=lambda c: ORDER.get(c, -1)) for h in data.get("hands", [[]] * n)]
        state.windows = [{(int(r), int(c)): list(stack) for r, c, stack in w} for w in data["windows"]]
        sizes = data.get("sizes", [None] * n)
        state.sizes = [None if s is None else (int(s[0]), int(s[1])) for s in sizes]
        state.active = data.get("active")
        state.moved = [set(m) for m in data.get("moved", [[]] * n)]
        state.fed = [set(f) for f in data.get("fed", [[]] * n)]
        state.log = copy.deepcopy(data.get("log", []))
        state.rounds = copy.deepcopy(data.get("rounds", []))
        state.validate(n)
        pending = data.get("pending", [None] * n)
        for seat, action in enumerate(pending):
            if action is None:
                continue
            if state.stage != "draft" or action not in state.draft_actions(seat):
                raise PositionError(f"seat {seat}: pending {action!r} is not a legal choice")
            state.pending[seat] = place_action(action["kind"], action["motif"], action["row"], action["col"])
        state._touch()
        if state.stage == "activation":
            state.advance_activation()
        elif state.stage == "draft" and all(p is not None for p in state.pending):
            raise PositionError("every seat has a pending choice: the step should have been revealed")
        return state

    def validate(self, n: int) -> None:
        if self.stage not in ("draft", "activation", "over"):
            raise PositionError(f"unknown stage {self.stage!r}")
        if not (len(self.hands) == len(self.windows) == len(self.sizes) == n
                and len(self.moved) == len(self.fed) == n):
            raise PositionError(f"expected hands, windows, sizes, moved and fed for {n} seats")
        if not 0 <= self.first < n or self.round < 1:
            raise PositionError("bad round or first player")
        cards = list(self.deck) + [c for h in self.hands for c in h]
        cards += [c for w in self.windows for stack in w.values() for c in stack]
        unknown = [c for c in cards if c not in CARDS]
        if unknown or len(cards) != len(set(cards)):
            raise PositionError(f"cards unknown or repeated: {sorted(set(unknown or cards))}")
        if any(not stack for w in self.windows for stack in w.values()):
            raise PositionError("an empty stack is listed as a cell")
        if self.stage == "draft":
            if not (0 <= self.draft_phase < len(self.phases) and 0 <= self.pick < self.phases[self.draft_phase][1]):
                raise PositionError("bad draft phase or pick")
        if self.stage == "activation":
            if self.active is None or not 0 <= self.active < n:
                raise PositionError("the activation stage needs an active seat")
            for seat in range(n):
                size = self.sizes[seat]
                if size is None or any(not (0 <= r < size[0] and 0 <= c < size[1]) for r, c in self.windows[seat]):
                    raise PositionError(f"seat {seat}: window cells outside its size {size}")


def _variants() -> dict[str, Variant]:
    return {
        "standard": Variant("standard", (2, 3, 4), OPTIONS,
                            "two drafts of 6 cards (left, then right) into a 3x4 or 4x3 window"),
        "beginner": Variant("beginner", (2, 3, 4), OPTIONS,
                            "three drafts of 3 cards (left, right, left) into a 3x3 window"),
    }


GAME = GameDescription(
    id="misty",
    name="Misty",
    engine_version="1.0.0",
    variants=_variants(),
    state_class=MistyState,
)
MistyState.description = GAME
