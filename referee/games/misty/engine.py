"""Misty: the rules, top to bottom.

A round: construction (a simultaneous draft: every seat takes a card from its hand and chooses the
cell where it goes, all are revealed together, the rest of the hands pass; standard: 6 cards dealt
twice, passing left then right, into a 3x4 or 4x3 window; ``variant=beginner``: 3 cards three
times, left, right, left, into a 3x3 window), then activation (seat by seat from the first player:
the owner moves its arrow cards in the order it likes, then its monsters eat flowers), then
scoring. The highest points win the round (ties all win it); the first seat alone at 2+ round wins
takes the match; at ``round_cap`` rounds, most round wins then most points over all rounds (ties
share). Score = round wins.

A draft step is two sealed decisions per seat: ``{"type": "take", "kind", "motif"}`` (which card:
copies of a kind and motif are interchangeable, so actions never name a copy), then ``{"type":
"place", "row", "col"}`` (its cell). Nothing is revealed until every seat has placed its card.

Coordinates: during construction, relative to the seat's first card at (0, 0), rows growing
downward (so they may be negative); when construction ends, every window is renumbered from its
top-left corner, (0, 0) to (rows-1, cols-1).

Choices where the rulings (rules.md) and the rulebook are silent (the platform's):
- The draft choice is split in two steps (the card, then its cell), both sealed: one list of every
  card x cell pair would run to ~100 actions.
- The first player is seat 0 in round 1 and moves one seat left each round (it only orders the
  activation decisions; windows never interact).
- Every seat is asked at every draft step, even when its choice is forced, and observations list
  every seat as asked until the step is revealed (being asked, or having answered, reveals
  nothing). An activation decision with a single option is played by the engine, not asked
  (windows are public, so this reveals nothing).
- Taking a (kind, motif) takes the lowest-numbered copy of it in the hand.
- Each arrow card is activated at most once; "covered" means not on top of its cell. A card moving
  onto an empty cell (emptied by an earlier move or meal) simply lands there.
- Meals: one decision per meal, naming both the monster and the flower (the owner chooses which
  monster eats first and which flower). A monster that has eaten eats no more. A flower "alone on
  its cell" is the only card of its cell.
- Smile pairs count only smiles alone on their cell (a stack scores 0 as a whole).
- Card ids (fixed per physical copy) are shown in hands and windows.
- Each round deals its cards (12 or 9 per seat) from all 54 shuffled; the others stay out unseen.
- The match end is checked after every round; ``round_cap`` counts every round played, play-off
  rounds included, in both variants.

Position JSON (``to_position()["state"]``), every card by its id (data.CARD_IDS):
``round`` (1-based), ``first`` (first player of the round), ``stage`` (``draft`` | ``activation`` |
``over``), ``draft_phase`` (0-based index into the variant's phases), ``pick`` (0-based pick within
the phase), ``deck`` (the cards still to be dealt this round, next dealt first; cards in no list
are out of the round), ``hands`` (per seat, the cards it holds now), ``pending`` (per seat, its
sealed choice of this step: null, ``{"kind", "motif"}``, or ``{"kind", "motif", "row", "col"}``),
``windows`` (per seat, ``[row, col, [card ids bottom to top]]`` for every non-empty cell),
``sizes`` (per seat ``[rows, cols]`` once construction has ended, else null), ``active`` (the seat
activating, or null), ``moved`` (per seat, the arrow cards already activated), ``fed`` (per seat,
the monsters that have eaten), ``log`` (this round's events: ``{"event": "reveal", "phase",
"pick", "placements": [{"seat", "card", "row", "col"}]}``, ``{"event": "move", "seat", "card",
"row", "col", "to_row", "to_col"}`` (no ``to_*`` when the card left the window), ``{"event":
"eat", "seat", "monster", "flower", "row", "col", "to_row", "to_col"}``),
``rounds`` (finished rounds: ``round``, ``points``, ``winners``, final ``windows``). A hand-built
position in the activation stage is advanced through forced steps when loaded.
"""
from __future__ import annotations

import random
from bisect import bisect_left
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
    copy_json,
)
from ..ranking import ranks_with_tiebreak
from ..seeding import Draws, draw_seed
from .data import CARD_IDS, CARD_TEXTS, CARDS, MOVES, POINTS

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
KIND_MOTIF = {card_id: (card.kind, card.motif) for card_id, card in CARDS.items()}
MOTIF_NAME = {(c.kind, c.motif): c.name for c in CARDS.values()}
ARROWS = frozenset(MOVES)
# the cards of a kind, so that rules test a card id without looking its kind up
ARROW_CARDS = frozenset(card_id for card_id, kind in KIND.items() if kind in ARROWS)
MONSTER_CARDS = frozenset(card_id for card_id, kind in KIND.items() if kind == "monster")
FLOWER_CARDS = frozenset(card_id for card_id, kind in KIND.items() if kind == "flower")
SMILE_CARDS = frozenset(card_id for card_id, kind in KIND.items() if kind == "smile")
CARD_POINTS = {card_id: POINTS[kind] for card_id, kind in KIND.items()}  # alone on its cell

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


# Actions are interned: legal lists are rebuilt at every step and are read-only by contract.
_TAKE: dict[tuple[str, str], Action] = {
    km: {"type": "take", "kind": km[0], "motif": km[1]} for km in MOTIF_NAME}
# each card's (kind, motif) as one string (hashed once, unlike a tuple) with its take action
_TAKE_OF_CARD: dict[str, tuple[str, Action]] = {
    card_id: (f"{km[0]}/{km[1]}", _TAKE[km]) for card_id, km in KIND_MOTIF.items()}
# each card's take action (copies of a kind and motif share one)
_TAKE_OF: dict[str, Action] = {card_id: _TAKE[km] for card_id, km in KIND_MOTIF.items()}
# copies of a kind and motif are consecutive in card order (so in a hand)
_KINDS_MOTIFS = [KIND_MOTIF[card_id] for card_id in CARD_IDS]
assert sum(a != b for a, b in zip(_KINDS_MOTIFS, _KINDS_MOTIFS[1:])) + 1 == len(set(_KINDS_MOTIFS))
_PLACE: dict[Cell, Action] = {}
_ACTIVATE: dict[Cell, Action] = {}


def place_action(cell: Cell) -> Action:
    action = _PLACE.get(cell)
    if action is None:
        action = _PLACE[cell] = {"type": "place", "row": cell[0], "col": cell[1]}
    return action


def activate_action(cell: Cell) -> Action:
    action = _ACTIVATE.get(cell)
    if action is None:
        action = _ACTIVATE[cell] = {"type": "activate", "row": cell[0], "col": cell[1]}
    return action


# ---------------------------------------------------------------------------------- construction
def box_limits(boxes: Iterable[Cell]) -> tuple[int, int, int]:
    """(max height, max width, max height + width): fitting 3x4 or 4x3 is h <= 4, w <= 4, h + w <= 7."""
    boxes = tuple(boxes)
    return max(b[0] for b in boxes), max(b[1] for b in boxes), max(b[0] + b[1] for b in boxes)


def neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The 8 cells touching ``cell`` (precomputed around the first card)."""
    found = _NEIGHBOURS.get(cell)
    if found is None:
        found = tuple((cell[0] + dr, cell[1] + dc) for dr, dc in NEIGHBOURS)
    return found


_NEIGHBOURS: dict[Cell, tuple[Cell, ...]] = {}
_NEIGHBOURS.update({(r, c): neighbours((r, c)) for r in range(-4, 5) for c in range(-4, 5)})
_RINGS: dict[tuple, list[Cell]] = {}


def ring(bbox: tuple[int, int, int, int], limits: tuple[int, int, int]) -> list[Cell]:
    """The cells of the bounding box (r0, r1, c0, c1) grown by one on every side that keep it within
    the limits, sorted (memoised: there are few bounding boxes)."""
    key = (bbox, limits)
    cells = _RINGS.get(key)
    if cells is None:
        r0, r1, c0, c1 = bbox
        max_h, max_w, max_sum = limits
        cells = []
        for r in range(r0 - 1, r1 + 2):
            h = max(r1, r) - min(r0, r) + 1
            for c in range(c0 - 1, c1 + 2):
                w = max(c1, c) - min(c0, c) + 1
                if h <= max_h and w <= max_w and h + w <= max_sum:
                    cells.append((r, c))
        _RINGS[key] = cells
    return cells


# Construction stays within 3 cells of the first card, so a set of cells there is one int, a bit per
# cell of the 9x9 square around it, row by row: the draft's sets are updated by a few int operations
# at every pick (set operations allocated), and bits in order are cells sorted as (row, col) are.
GRID = range(-4, 5)
CELL_BIT: dict[Cell, int] = {(r, c): 1 << ((r + 4) * 9 + c + 4) for r in GRID for c in GRID}
NEIGHBOUR_BITS: dict[Cell, int] = {
    cell: sum(CELL_BIT.get(n, 0) for n in neighbours(cell)) for cell in CELL_BIT}
_RING_BITS: dict[tuple, int] = {}
# A window's span: the rows and the columns it occupies as bits (row r: bit r + 4, column c: bit
# 13 + c), which give its bounding box: a card placed grows the span by an int operation (no tuple
# built, no comparisons), and the ring around the box is looked up by the span (an int key).
CELL_SPAN: dict[Cell, int] = {(r, c): 1 << (r + 4) | 1 << (13 + c) for r in GRID for c in GRID}
# a placed cell's bit, its neighbours' bits and its span, in one lookup
CELL_GROWTH: dict[Cell, tuple[int, int, int]] = {
    cell: (CELL_BIT[cell], NEIGHBOUR_BITS[cell], CELL_SPAN[cell]) for cell in CELL_BIT}
# per variant, the ring bits of each span met (memoised: a few hundred spans)
_SPAN_RINGS: dict[str, dict[int, int]] = {variant: {} for variant in BOXES}
# A window under construction is one of a bounded set of shapes (27,701 in the standard game, 1,541
# in the beginner; ~5 MB once all met): per variant, each shape met, by its occupied cells (bits),
# as (legal cells, span, ring, occupied cells, place actions), so that a card placed looks the next
# one up by an int instead of recomputing its legal cells.
_SHAPES: dict[str, dict[int, tuple]] = {variant: {} for variant in BOXES}
# the place actions on a set of legal cells, by its bits (memoised: one list per set met, bounded as
# the windows are: 27,701 shapes in the standard game, 1,541 in the beginner)
_PLACE_LISTS: dict[int, list[Action]] = {}
_PLACE_BY_INDEX = {bit.bit_length() - 1: place_action(cell) for cell, bit in CELL_BIT.items()}


def cell_bits(cells: Iterable[Cell]) -> int:
    return sum(map(CELL_BIT.__getitem__, cells))


def ring_bits(bbox: tuple[int, int, int, int], limits: tuple[int, int, int]) -> int:
    """``ring(bbox, limits)``'s cells as bits (memoised likewise)."""
    key = (bbox, limits)
    bits = _RING_BITS.get(key)
    if bits is None:
        bits = _RING_BITS[key] = cell_bits(ring(bbox, limits))
    return bits


def span_box(span: int) -> tuple[int, int, int, int]:
    """The bounding box (r0, r1, c0, c1) of a (non-empty) span."""
    rows, cols = span & 511, span >> 9
    return ((rows & -rows).bit_length() - 5, rows.bit_length() - 5,
            (cols & -cols).bit_length() - 5, cols.bit_length() - 5)


def place_actions(legal: int) -> list[Action]:
    """The place actions on the cells of ``legal`` (bits), sorted (shared: legal lists are read-only)."""
    actions = _PLACE_LISTS.get(legal)
    if actions is None:
        actions = _PLACE_LISTS[legal] = []
        bits = legal
        while bits:
            low = bits & -bits
            actions.append(_PLACE_BY_INDEX[low.bit_length() - 1])
            bits ^= low
    return actions


def bounding_box(cells: Iterable[Cell]) -> tuple[int, int, int, int]:
    rows, cols = zip(*cells)
    return min(rows), max(rows), min(cols), max(cols)


def legal_cells(cells: Iterable[Cell], boxes: Iterable[Cell]) -> list[Cell]:
    """Empty cells touching a placed card (8 directions) where the occupied area still fits a box;
    (0, 0) for the first card."""
    occupied = set(cells)
    if not occupied:
        return [(0, 0)]
    touched = {n for cell in occupied for n in neighbours(cell)}
    return [c for c in ring(bounding_box(occupied), box_limits(boxes)) if c in touched and c not in occupied]


def take_actions(hand: list[str]) -> list[Action]:
    """One take action per (kind, motif) of a hand, in hand order (later copies update the same key)."""
    return list(dict(map(_TAKE_OF_CARD.__getitem__, hand)).values())


def without(actions: list[Action], action: Action) -> list[Action]:
    """A copy of a (read-only) legal list less one of its actions."""
    actions = list(actions)
    actions.remove(action)
    return actions


def renumber(window: Window, bbox: tuple[int, int, int, int] | None = None) -> tuple[Window, Cell]:
    """The window with (0, 0) at its top-left corner, and its (rows, cols); ``bbox``, its bounding
    box when already known."""
    r0, r1, c0, c1 = bbox or bounding_box(window)
    return {(r - r0, c - c0): stack for (r, c), stack in window.items()}, (r1 - r0 + 1, c1 - c0 + 1)


# ---------------------------------------------------------------------------------- activation
def arrow_cells(window: Mapping[Cell, list[str]], moved: set[str] | frozenset[str]) -> list[Cell]:
    """Cells whose top card is an arrow card not yet activated (a covered card never moves)."""
    cells = [cell for cell, stack in window.items() if stack[-1] in ARROW_CARDS and stack[-1] not in moved]
    cells.sort()
    return cells


def meal_pairs(window: Mapping[Cell, list[str]], fed: set[str] | frozenset[str]) -> list[tuple[Cell, Cell]]:
    """(monster cell, flower cell) pairs: an uncovered monster that has not eaten, and a flower
    alone on its cell anywhere in the window."""
    monsters = [cell for cell, stack in window.items() if stack[-1] in MONSTER_CARDS and stack[-1] not in fed]
    if not monsters:
        return []
    flowers = [cell for cell, stack in window.items() if len(stack) == 1 and stack[0] in FLOWER_CARDS]
    monsters.sort()
    flowers.sort()
    return [(m, f) for m in monsters for f in flowers]


def activate(window: Window, cell: Cell, size: Cell) -> Cell | None:
    """Move the top card of ``cell`` one space: onto the top of the target's stack, or out of the
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


def window_points(window: Mapping[Cell, list[str]], smile_pairs: str = "disjoint") -> int:
    """Round points: a single card its points (flower 2, others 1), a stack 0, plus smile pairs."""
    total = 0
    smiles = []  # the cells of single smiles
    for cell, stack in window.items():
        if len(stack) == 1:
            card = stack[0]
            total += CARD_POINTS[card]
            if card in SMILE_CARDS:
                smiles.append(cell)
    if len(smiles) > 1:
        total += smile_bonus(smiles, smile_pairs)
    return total


def smile_bonus(smiles: list[Cell], smile_pairs: str) -> int:
    """The bonus of single smiles side by side in a row: per run of them, +1 per pair not
    overlapping (run // 2) or per adjacent pair (run - 1)."""
    smiles.sort()
    bonus = 0
    run = 1
    row, col = smiles[0]
    for r, c in smiles[1:]:
        if r == row and c == col + 1:
            run += 1
        else:
            bonus += run // 2 if smile_pairs == "disjoint" else run - 1
            run = 1
        row, col = r, c
    return bonus + (run // 2 if smile_pairs == "disjoint" else run - 1)


# ---------------------------------------------------------------------------------- the state
class MistyState(GameState):
    # ------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> MistyState:
        state = cls(config, seed)
        state.start_round()
        return state

    def __init__(self, config: MatchConfig, seed: int) -> None:
        # Fewer than 30 attributes (29 with the interface's _legal): CPython 3.11 shares the keys of
        # instance dicts, which its fast attribute loads and method calls rely on, only up to 30
        # keys; a 30th slows every attribute access (a random playout: +4 % instructions).
        self.config = config
        self.seed = seed
        self.n = config.players
        self.seats = tuple(range(self.n))  # iterated and copied at every step (range() costs a call)
        self.phases = PHASES[config.variant]
        self.boxes = BOXES[config.variant]
        self.smile_pairs: str = config.options["smile_pairs"]
        self.round = 1
        self.first = 0
        self.stage = "draft"
        self.draft_phase = 0
        self.pick = 0
        self.deck: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        self.taken: list[tuple[str, str] | None] = [None] * self.n  # sealed: the card chosen
        self.placed: list[Cell | None] = [None] * self.n  # sealed: its cell
        self.windows: list[Window] = [{} for _ in range(self.n)]
        self.sizes: list[Cell | None] = [None] * self.n
        self.active: int | None = None
        self.moved: list[set[str]] = [set() for _ in range(self.n)]
        self.fed: list[set[str]] = [set() for _ in range(self.n)]
        self.log: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        # per seat during construction, the shape of its window: (legal cells (empty, touching
        # the window, keeping it within a box), span (CELL_SPAN), ring_bits(bounding box), occupied
        # cells, place actions on the legal cells), cells as CELL_BIT bits, replaced as cards are
        # placed; None = to look up
        self._shapes: list[tuple | None] = [None] * self.n
        self._shape_memo = _SHAPES[config.variant]  # shared by the variant's states
        # per seat during construction, the take actions of the hand it holds, passed with it and
        # updated as cards are taken (a hand's list only changes when its last copy of a kind and
        # motif is taken); None = to recompute
        self._takes: list[list[Action]] | None = None
        # during activation, the active seat's cells whose top card is an arrow not yet activated,
        # sorted, and their activate actions, kept up to date as cards move; None = to recompute
        self._arrows: tuple[list[Cell], list[Action]] | None = None
        self._touch()

    def _touch(self) -> None:
        """Forget the cached legal lists and take lists (after a change outside ``apply``)."""
        self._legal = self._step_legal = {}
        self._takes = None

    def take_lists(self) -> list[list[Action]]:
        """Each seat's take actions (``_takes``, computed if need be)."""
        if self._takes is None:
            self._takes = [take_actions(hand) for hand in self.hands]
        return self._takes

    def cache_takes(self) -> None:
        """A new draft step: every seat is asked which card to take, so its list goes at once into
        the cache of ``legal_actions``."""
        self._legal = self._step_legal = dict(enumerate(self._takes or self.take_lists()))

    def start_round(self) -> None:
        """Deal the round's cards (the deal of round r from its own stream) and the first hands."""
        per_seat = sum(size for _, size in self.phases)
        self.deck = Draws(self.seed, "deal", self.round).sample(CARD_IDS, self.n * per_seat)
        self.stage = "draft"
        self.draft_phase = 0
        self.pick = 0
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
            # hands are kept in card order: it hides the deal order and lists kinds in data order
            self.hands[seat] = sorted(self.deck[seat * size:(seat + 1) * size], key=ORDER.__getitem__)
        del self.deck[: self.n * size]
        self.taken = [None] * self.n
        self.placed = [None] * self.n
        self._takes = None
        self.cache_takes()

    # ------------------------------------------------------------------ construction (draft)
    def direction(self) -> int:
        """+1 when hands pass left (to seat s+1), -1 when they pass right."""
        return 1 if self.phases[self.draft_phase][0] == "left" else -1

    def knows_hand(self, seat: int, holder: int) -> bool:
        """Whether ``seat`` has held the hand ``holder`` holds now during this draft phase (then it
        knows its contents: what it saw, minus the picks revealed since)."""
        return (self.direction() * (holder - seat)) % self.n <= self.pick

    def shape(self, seat: int) -> tuple:
        """(legal cells, span, ring, occupied cells, place actions) of a seat's window under
        construction."""
        shape = self._shapes[seat]
        if shape is None:
            window = self.windows[seat]
            occupied = cell_bits(window)
            shape = self._shape_memo.get(occupied)
            if shape is None:
                if not window:
                    legal, span, ring = CELL_BIT[0, 0], 0, 0
                else:
                    span = touching = 0
                    for cell in window:
                        span |= CELL_SPAN[cell]
                        touching |= NEIGHBOUR_BITS[cell]
                    ring = self.ring(span)
                    legal = touching & ring & ~occupied
                shape = self.memo_shape(legal, span, ring, occupied)
            self._shapes[seat] = shape
        return shape

    def memo_shape(self, legal: int, span: int, ring: int, occupied: int) -> tuple:
        """The shape of ``occupied`` (its place actions added), memoised."""
        shape = self._shape_memo[occupied] = (legal, span, ring, occupied, place_actions(legal))
        return shape

    def ring(self, span: int) -> int:
        """``ring_bits`` of the span's bounding box (memoised by span)."""
        rings = _SPAN_RINGS[self.config.variant]
        ring = rings.get(span)
        if ring is None:
            ring = rings[span] = ring_bits(span_box(span), box_limits(self.boxes))
        return ring

    def grow(self, seat: int, cell: Cell) -> None:
        """The shape after a card is placed on ``cell``: looked up, or derived from the last one
        (its empty neighbours join the legal cells, then those that no longer fit a box leave
        them: the bounding box only grows, so they never fit again)."""
        shape = self._shapes[seat]
        if shape is None:
            return
        bit, touching, cell_span = CELL_GROWTH[cell]
        occupied = shape[3] | bit
        grown = self._shape_memo.get(occupied)
        if grown is None:
            legal, span, ring = shape[0], shape[1], shape[2]
            if span | cell_span != span:  # the bounding box grows
                span |= cell_span
                ring = self.ring(span)
            grown = self.memo_shape((legal | touching) & ring & ~occupied, span, ring, occupied)
        self._shapes[seat] = grown

    def draft_actions(self, seat: int) -> list[Action]:
        """The seat's next draft step, ignoring whether it has already answered: which (kind,
        motif) to take, then which legal cell to place it on."""
        if self.taken[seat] is None:
            return (self._takes or self.take_lists())[seat]
        return (self._shapes[seat] or self.shape(seat))[4]

    def reveal_and_pass(self) -> None:
        """Every seat's sealed card goes to its window (the log reveals them all); then the hands
        pass, or the next hands are dealt, or construction ends."""
        placements = []
        hands, windows, takes = self.hands, self.windows, self._takes
        taken, placed = self.taken, self.placed
        for seat in self.seats:
            hand, take, cell = hands[seat], _TAKE[taken[seat]], placed[seat]
            # the lowest copy taken: the first card of the hand (in card order) the action takes
            index = 0
            while _TAKE_OF[hand[index]] is not take:
                index += 1
            card = hand.pop(index)
            # copies being consecutive, the next card tells whether it was the last one
            if takes is not None and (index == len(hand) or _TAKE_OF[hand[index]] is not take):
                takes[seat] = without(takes[seat], take)  # no more to take
            windows[seat][cell] = [card]
            self.grow(seat, cell)
            placements.append({"seat": seat, "card": card, "row": cell[0], "col": cell[1]})
        self.log.append({"event": "reveal", "phase": self.draft_phase + 1, "pick": self.pick + 1,
                         "placements": placements})
        self.taken = [None] * self.n
        self.placed = [None] * self.n
        self.pick += 1
        direction, size = self.phases[self.draft_phase]
        if self.pick < size:
            # the hands pass (their take lists with them), rotated in place (no list built)
            if direction == "left":  # seat s now holds what seat s-1 held
                hands.insert(0, hands.pop())
                if takes is not None:
                    takes.insert(0, takes.pop())
            else:  # seat s now holds what seat s+1 held
                hands.append(hands.pop(0))
                if takes is not None:
                    takes.append(takes.pop(0))
            self.cache_takes()
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
            bbox = span_box(self.shape(seat)[1])  # kept up to date through the draft
            self.windows[seat], self.sizes[seat] = renumber(self.windows[seat], bbox)
        self._shapes = [None] * self.n
        self.stage = "activation"
        self.active = self.first
        self._arrows = None
        self.advance_activation()

    def ready_arrows(self, seat: int) -> tuple[list[Cell], list[Action]]:
        """The active seat's cells whose top card is an arrow not yet activated, sorted, and the
        actions activating them."""
        if self._arrows is None:
            cells = arrow_cells(self.windows[seat], self.moved[seat])
            self._arrows = (cells, [_ACTIVATE.get(c) or activate_action(c) for c in cells])
        return self._arrows

    def recheck_arrows(self, seat: int, cells: Iterable[Cell | None]) -> None:
        """Update the ready arrows after the top cards of ``cells`` changed (None: a card that left
        the window): the card a move or meal uncovers may be an arrow, the one it covers no longer is."""
        if self._arrows is None:
            return
        arrows, actions = self._arrows
        window, moved = self.windows[seat], self.moved[seat]
        for cell in cells:
            if cell is None:
                continue
            stack = window.get(cell)
            ready = stack is not None and stack[-1] in ARROW_CARDS and stack[-1] not in moved
            if ready and cell not in arrows:
                index = bisect_left(arrows, cell)
                arrows.insert(index, cell)
                actions.insert(index, _ACTIVATE.get(cell) or activate_action(cell))
            elif not ready and cell in arrows:
                index = arrows.index(cell)
                del arrows[index], actions[index]

    def activation_actions(self, seat: int) -> list[Action]:
        """Which arrow card moves next; once none can, which monster eats which flower."""
        window = self.windows[seat]
        cells, actions = self.ready_arrows(seat)
        if cells:
            return actions.copy()  # the list kept changes as arrows move; a legal list does not
        return [{"type": "eat", "row": m[0], "col": m[1], "flower_row": f[0], "flower_col": f[1]}
                for m, f in meal_pairs(window, self.fed[seat])]

    def advance_activation(self) -> None:
        """Play forced steps; move to the next seat when one is done; score after the last."""
        self._touch()
        while self.stage == "activation":
            seat = self.active
            actions = self.activation_actions(seat)
            if len(actions) > 1:
                self._legal = {seat: actions}  # computed already: the cache of legal_actions
                return
            if actions:
                self.activation_step(seat, actions[0])
                continue
            self.active = (seat + 1) % self.n
            self._arrows = None
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
            self.recheck_arrows(seat, (cell, target))
            event = {"event": "move", "seat": seat, "card": card, "row": cell[0], "col": cell[1]}
            if target is not None:  # no target: the card left the window
                event["to_row"], event["to_col"] = target
            self.log.append(event)
        else:
            flower_cell = (action["flower_row"], action["flower_col"])
            monster, flower = eat(window, cell, flower_cell)
            self.fed[seat].add(monster)
            self.recheck_arrows(seat, (cell, flower_cell))
            self.log.append({"event": "eat", "seat": seat, "monster": monster, "flower": flower,
                             "row": cell[0], "col": cell[1], "to_row": flower_cell[0], "to_col": flower_cell[1]})

    # ------------------------------------------------------------------ scoring, match end
    def end_round(self) -> None:
        points = [window_points(window, self.smile_pairs) for window in self.windows]
        best = max(points)
        self.rounds.append({
            "round": self.round,
            "points": points,
            "winners": [s for s in range(self.n) if points[s] == best],
            "windows": [self.window_rows(s) for s in range(self.n)],
        })
        wins = self.round_wins()
        top = max(wins)
        round_cap = self.config.options["round_cap"]
        if (top >= WINS_NEEDED and wins.count(top) == 1) or len(self.rounds) >= round_cap:
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
            placed = self.placed
            if placed.count(None) == self.n:  # nobody has placed yet (no Python loop needed)
                return list(self.seats)
            return [seat for seat, cell in enumerate(placed) if cell is None]
        if self.stage == "activation":
            return [self.active]
        return []

    def _legal_actions(self, seat: int) -> list[Action]:
        if self.stage == "draft" and 0 <= seat < self.n and self.placed[seat] is None:
            return self.draft_actions(seat)
        if self.stage == "activation" and seat == self.active:
            return self.activation_actions(seat)
        return []

    def _apply(self, seat: int, action: Action) -> None:
        if self.stage != "draft":
            self.activation_step(seat, action)
            self.advance_activation()
            return
        # a draft step (most of a game's decisions, so played here rather than in a further call):
        # seal the seat's answer; reveal every card when the last seat has placed its. The legal
        # lists cached for this step stay (an answer changes no other seat's choices) and the
        # seat's next one, its cells after a take, joins them.
        legal = self._step_legal
        if self.taken[seat] is None:
            self.taken[seat] = (action["kind"], action["motif"])
            legal[seat] = (self._shapes[seat] or self.shape(seat))[4]
            self._legal = legal
            return
        self.placed[seat] = (action["row"], action["col"])
        if None in self.placed:
            legal.pop(seat, None)  # answered: nothing left to ask it this step
            self._legal = legal
        else:
            self.reveal_and_pass()

    def action_label(self, seat: int, action: Action) -> str:
        kind = action.get("type")
        if kind == "take":
            name = MOTIF_NAME.get((action.get("kind"), action.get("motif")), str(action.get("motif")))
            arrow = f" ({action['kind']})" if action.get("kind") in ARROWS else ""
            return f"take a {name}{arrow}"
        if kind == "place":
            taken = self.taken[seat] if 0 <= seat < self.n else None
            name = f"the {MOTIF_NAME[taken]}" if taken in MOTIF_NAME else "it"
            return f"place {name} at row {action.get('row')}, col {action.get('col')}"
        cell = (action.get("row"), action.get("col"))
        stack = self.windows[seat].get(cell) if 0 <= seat < self.n else None
        if kind == "activate" and stack:
            return f"move the {CARDS[stack[-1]].name} at ({cell[0]}, {cell[1]}) {KIND[stack[-1]]}"
        if kind == "eat":
            return (f"the Monster at ({cell[0]}, {cell[1]}) eats the Flower at "
                    f"({action.get('flower_row')}, {action.get('flower_col')})")
        return str(action)

    def public_label(self, seat: int, action: Action) -> str:
        """The label any other seat or a spectator may read: a draft step is sealed (the card and
        its cell show only when every seat has placed its), activation is played in the open."""
        kind = action.get("type")
        if kind == "take":
            return "take a card (sealed)"
        if kind == "place":
            return "place the card taken (sealed)"
        return self.action_label(seat, action)

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
            "moved": sorted(self.moved[seat], key=ORDER.__getitem__),
            "fed": sorted(self.fed[seat], key=ORDER.__getitem__),
        }

    def pending_json(self, seat: int) -> dict[str, Any] | None:
        if self.taken[seat] is None:
            return None
        data: dict[str, Any] = {"kind": self.taken[seat][0], "motif": self.taken[seat][1]}
        if self.placed[seat] is not None:
            data["row"], data["col"] = self.placed[seat]
        return data

    def view(self, seat: int | None, shared: dict[str, Any] | None = None) -> dict[str, Any]:
        """The observation of ``seat``; with None, the spectator's (no hand is shown). ``shared``:
        the public record of play (log and finished rounds) already built for another view of
        this step (``views``)."""
        data: dict[str, Any] = {"round": self.round, "phase": self.stage}
        if seat is not None:
            data["seat"] = seat
        # in a draft step every seat is asked; who has already answered is sealed too
        data["to_move"] = list(range(self.n)) if self.stage == "draft" else self.to_move()
        data["first_player"] = self.first
        data["boxes"] = [list(b) for b in self.boxes]
        if self.stage == "draft":
            direction, size = self.phases[self.draft_phase]
            data["draft"] = {"phase": self.draft_phase + 1, "phases": len(self.phases),
                             "pick": self.pick + 1, "picks": size, "direction": direction}
        else:
            data["draft"] = None
        # a spectator holds no hand and has no pending choice
        data["hand"] = [] if seat is None else [card_json(c) for c in self.hands[seat]]
        data["pending"] = None if seat is None else self.pending_json(seat)
        hands = []
        for holder in range(self.n):
            known = seat is not None and self.stage == "draft" and self.knows_hand(seat, holder)
            hands.append({"seat": holder, "count": len(self.hands[holder]),
                          "cards": [card_json(c) for c in self.hands[holder]] if known else None})
        data["hands"] = hands
        data["windows"] = [self.window_view(s) for s in range(self.n)]
        data["active"] = self.active
        shared = shared or self.record_of_play()
        data["log"] = shared["log"]
        data["round_wins"] = self.round_wins()
        data["points"] = self.total_points()
        data["rounds"] = shared["rounds"]
        return data

    def record_of_play(self) -> dict[str, Any]:
        """The log and the finished rounds, as every view shows them (fresh copies)."""
        return {
            "log": copy_json(self.log),
            "rounds": [
                {"round": r["round"], "points": list(r["points"]), "winners": list(r["winners"]),
                 "windows": [[{"row": row, "col": col, "cards": [card_json(i) for i in stack]}
                              for row, col, stack in window] for window in r["windows"]]}
                for r in self.rounds
            ],
        }

    def views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The record of play, the views' longest part and the same for everyone, built once."""
        shared = self.record_of_play()
        return (self.view(None, shared) if spectator else None), [self.view(seat, shared) for seat in range(self.n)]

    def observation(self, seat: int) -> dict[str, Any]:
        return self.view(seat)

    def public_view(self) -> dict[str, Any]:
        return self.view(None)

    # ------------------------------------------------------------------ hidden information
    def located(self) -> set[str]:
        """Every card in a deck, hand or window, or removed from a window this round."""
        cards = set(self.deck)
        for hand in self.hands:
            cards.update(hand)
        for window in self.windows:
            for stack in window.values():
                cards.update(stack)
        for event in self.log:
            if event["event"] == "move" and "to_row" not in event:
                cards.add(event["card"])
            elif event["event"] == "eat":
                cards.add(event["flower"])
        return cards

    def resample_hidden(self, seat: int, rng: random.Random) -> MistyState:
        """Redraw every card ``seat`` cannot know (the cards still to be dealt, the hands it has
        not held this phase, the cards out of the round) and the other seats' sealed choices;
        a fresh seed for future rounds."""
        other = self.clone()
        slots = [other.deck]
        if other.stage == "draft":
            slots += [other.hands[t] for t in range(other.n) if not other.knows_hand(seat, t)]
        pool = [card for slot in slots for card in slot]
        pool += sorted(set(CARD_IDS) - other.located(), key=ORDER.__getitem__)  # out of the round
        rng.shuffle(pool)
        for slot in slots:
            size = len(slot)
            slot[:] = pool[:size]
            del pool[:size]
        for hand in other.hands:
            hand.sort(key=ORDER.__getitem__)
        for t in range(other.n):
            if t != seat and other.taken[t] is not None:
                other.taken[t] = rng.choice(sorted({KIND_MOTIF[c] for c in other.hands[t]}))
                if other.placed[t] is not None:
                    other.placed[t] = rng.choice(legal_cells(other.windows[t], other.boxes))
        other.seed = draw_seed(rng)
        other._touch()
        return other

    def _copy_mutables(self, other: MistyState) -> None:
        """Every container play mutates is copied; log events and round summaries are never
        changed once written, so they are shared."""
        other.deck = list(self.deck)
        other.hands = [list(h) for h in self.hands]
        other.taken, other.placed = list(self.taken), list(self.placed)
        other.windows = [{cell: list(s) for cell, s in w.items()} for w in self.windows]
        other.sizes = list(self.sizes)
        other.moved = [set(m) for m in self.moved]
        other.fed = [set(f) for f in self.fed]
        other.log = list(self.log)
        other.rounds = list(self.rounds)
        other._arrows = None if self._arrows is None else (self._arrows[0].copy(), self._arrows[1].copy())
        other._shapes = list(self._shapes)  # each seat's an immutable tuple
        other._step_legal = {}  # the clone's own cache, filled as it is asked
        other._takes = None if self._takes is None else list(self._takes)  # each list read-only

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
            "pending": [self.pending_json(s) for s in range(self.n)],
            "windows": [self.window_rows(s) for s in range(self.n)],
            "sizes": [None if s is None else list(s) for s in self.sizes],
            "active": self.active,
            "moved": [sorted(m, key=ORDER.__getitem__) for m in self.moved],
            "fed": [sorted(f, key=ORDER.__getitem__) for f in self.fed],
            "log": copy_json(self.log),
            "rounds": copy_json(self.rounds),
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
        state.hands = [list(h) for h in data.get("hands", [[]] * n)]
        state.windows = [{(int(r), int(c)): list(stack) for r, c, stack in w} for w in data["windows"]]
        sizes = data.get("sizes", [None] * n)
        state.sizes = [None if s is None else (int(s[0]), int(s[1])) for s in sizes]
        state.active = data.get("active")
        state.moved = [set(m) for m in data.get("moved", [[]] * n)]
        state.fed = [set(f) for f in data.get("fed", [[]] * n)]
        state.log = copy_json(data.get("log", []))
        state.rounds = copy_json(data.get("rounds", []))
        state.validate(n)
        for hand in state.hands:
            hand.sort(key=ORDER.__getitem__)
        for seat, pending in enumerate(data.get("pending", [None] * n)):
            if pending is None:
                continue
            if state.stage != "draft":
                raise PositionError(f"seat {seat}: a pending choice outside the draft")
            try:  # the sealed choice must be one the seat could make
                state.apply(seat, {"type": "take", "kind": pending.get("kind"), "motif": pending.get("motif")})
                if "row" in pending:
                    state.apply(seat, {"type": "place", "row": pending["row"], "col": pending.get("col")})
            except IllegalActionError as exc:
                raise PositionError(f"seat {seat}: pending {pending!r} is not a legal choice") from exc
        state._touch()
        if state.stage == "activation":
            state.advance_activation()
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
            if not (0 <= self.draft_phase < len(self.phases)
                    and 0 <= self.pick < self.phases[self.draft_phase][1]):
                raise PositionError("bad draft phase or pick")
        if self.stage == "activation":
            if self.active is None or not 0 <= self.active < n:
                raise PositionError("the activation stage needs an active seat")
            for seat in range(n):
                size = self.sizes[seat]
                if size is None or any(not (0 <= r < size[0] and 0 <= c < size[1])
                                       for r, c in self.windows[seat]):
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
    engine_version="1.1.0",
    variants=_variants(),
    state_class=MistyState,
    card_texts=CARD_TEXTS,
)
