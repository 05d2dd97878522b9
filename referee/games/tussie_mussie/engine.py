"""Tussie Mussie: the rules, top to bottom.

A round: Offers (to the left in seat order from the first player, then to the right going
counter-clockwise), Pre-Presentation (keepsakes revealed, then each seat from the first player uses
its abilities), Presentation (scoring). Three rounds; the first player moves one seat left.

Solo (``variant=solo``, one seat): four turns per round, each a Turn card laying out two tiles that
the seat splits with the apprentice (an automaton of the engine, hand index 1).

Choices where the rulings (rules.md) are silent (the platform's):
- The Orchid's actions offer the four colours other than its own white (white = not using it).
- The Snapdragon moves distinct tiles: its second move offers the other columns, or stopping.
- A seat with no usable Pre-Presentation ability is not asked anything in that phase.
- The solo seat's face-down tiles on the table are named by position ("the left face-down tile").

Position JSON (``to_position()["state"]``), every tile by its id (data.TILE_IDS):
``round`` (0-2), ``first`` (first player), ``phase`` (``offer`` | ``take`` | ``distribute`` |
``pre`` | ``over``), ``stack`` (top last), ``hands``: per seat (solo: seat 0 then the apprentice)
the arrangement, columns left to right, each ``[tile, row, seen]`` (``row`` ``bouquet`` or
``keepsakes``; ``seen`` the bit mask of seats that know a face-down tile) or ``null`` for a kept
gap; ``revealed`` (keepsakes revealed this round); ``offers`` (the round's ``[offerer, receiver]``
list) and ``offer_index``; ``offer`` (``{"tiles": [a, b], "face_up": id or null}``) or null;
``out`` (tiles out of the round, ``[tile, seen]``); ``pre_order``, ``pre_index``, ``used`` (per
hand, the ability tiles already used), ``orchid`` (per hand), ``larkspur`` (tiles drawn, pending a
replacement) or null, ``snap_moved`` (the column moved first, pending a second move) or null;
``points`` (per finished round, per hand), ``history`` (round summaries); solo only: ``turns``
(Turn deck, top last), ``turn_card``, ``layout`` (``[[tile, side], ...]``), ``kept`` (the tiles the
apprentice kept, with ``kept_from``: the tiles it kept them from).
"""
from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from typing import Any

from ..interface import (
    Action,
    GameDescription,
    GameState,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
    copy_json,
)
from ..ranking import competition_ranks, ranks_with_tiebreak
from ..seeding import draw_keys, draw_seed
from .data import ALPHABETICAL_RANK, CARD_TEXTS, COLOURS, PRE_PRESENTATION, ROWS, TILE_IDS, TILES, TURN_CARDS
from .scoring import score_arrangement

ROUNDS = 3
TURNS_PER_SOLO_ROUND = 4
ALL_SEEN = (1 << 8) - 1  # every seat (and the spectator) knows a face-up tile
ORCHID_COLOURS = tuple(c for c in COLOURS if c != "white")

SCORING_OPTIONS = (
    OptionSpec("honeysuckle", "choice", "any_row", ("any_row", "bouquet_only"),
               doc="Honeysuckle counts adjacent Bouquet tiles whatever its row, or only from the Bouquet"),
    OptionSpec("marigold_gap", "choice", "close", ("close", "keep"),
               doc="a Marigold's discarded column closes up, or stays empty and breaks adjacency"),
)
SOLO_OPTIONS = SCORING_OPTIONS + (
    OptionSpec("apprentice_head_start", "bool", False,
               doc="the apprentice starts with one face-up tile and keeps one more each round"),
    OptionSpec("apprentice_keeps_facedown", "bool", False,
               doc="the tiles the apprentice keeps between rounds lie face down"),
)


def tile_json(tile_id: str) -> dict[str, Any]:
    """What a viewer needs to draw a tile."""
    t = TILES[tile_id]
    return {"id": t.id, "name": t.name, "colour": t.colour, "hearts": t.hearts, "timing": t.timing}


# Each tile's JSON, and each column's by tile and row, shared by the round summaries (views and
# positions copy them out)
TILE_JSON = {t: tile_json(t) for t in TILE_IDS}
COLUMN_JSON = {t: {row: {"tile": TILE_JSON[t], "row": row} for row in ROWS} for t in TILE_IDS}
GAP = {"gap": True}  # a Marigold's emptied column under marigold_gap=keep (in the records; views copy it)
TAKE_ACTIONS = [{"type": "take", "side": "face_up"}, {"type": "take", "side": "face_down"}]
OFFER_ACTIONS = {t: {"type": "offer", "face_up": t} for t in TILE_IDS}  # shared: legal lists are read-only
TURN_CARD_IDS = tuple(sorted(TURN_CARDS))  # the Turn deck before its shuffle
# Pre-Presentation actions, shared likewise
ORCHID_ACTIONS = [{"type": "orchid", "colour": colour} for colour in ORCHID_COLOURS]
LARKSPUR_DRAW = {"type": "larkspur_draw"}
SNAPDRAGON_STOP = {"type": "snapdragon_stop"}
DONE = {"type": "done"}
# a Snapdragon, Marigold or Larkspur (per drawn tile) choice of each column (an arrangement never has
# more columns than tiles)
SNAPDRAGON_ACTIONS = [{"type": "snapdragon", "column": c} for c in range(len(TILE_IDS))]
MARIGOLD_ACTIONS = [{"type": "marigold", "column": c} for c in range(len(TILE_IDS))]
LARKSPUR_REPLACE = {t: [{"type": "larkspur_replace", "tile": t, "column": c} for c in range(len(TILE_IDS))]
                    for t in TILE_IDS}
_DISTRIBUTE: dict[tuple, list[Action]] = {}


def round_summary(record: tuple) -> dict[str, Any]:
    """A finished round's summary (see history) from its record as present() made it: the round,
    its first player, its hands' columns, their orchids, points and column points."""
    round_index, first, hands, orchid, points, column_points = record
    return {
        "round": round_index,
        "first_player": first,
        "arrangements": [[GAP if c is None else COLUMN_JSON[c[0]][c[1]] for c in hand] for hand in hands],
        "orchid": list(orchid),
        "points": points,
        "column_points": column_points,
    }


# A match's random orders all come from one draw of 64-bit keys, draw_keys(seed, "deal"), ROUND_KEYS
# a round in round order: one hash a match, not one per purpose (nor per round), and a round's keys
# depend on the seed and round only. Of a round's keys, 1-17 shuffle the tiles; in solo key 0 picks
# the Turn cards' order among their 720, key 18 the apprentice's kept tiles among its ordered
# choices. Each is read modulo a count under 1000: a bias under 10^-16, as likely as two equal keys
# in a sorted shuffle (Draws.shuffled), and a Fisher-Yates shuffle costs less than the sort.
TURN_KEY, PICK_KEY = 0, len(TILE_IDS)
ROUND_KEYS = PICK_KEY + 1
TURN_ORDERS = tuple(itertools.permutations(TURN_CARD_IDS))


@functools.lru_cache(maxsize=64)
def match_keys(seed: int) -> tuple[int, ...]:
    """Every round's keys (cached: a match asks once a round, and a few are played at once)."""
    return draw_keys(seed, "deal", count=ROUNDS * ROUND_KEYS)


# Fisher-Yates over the tiles: each position from the last down, and how many it may swap with
# (a table, not range arithmetic at every step)
FISHER_YATES_STEPS = tuple((i, i + 1) for i in range(len(TILE_IDS) - 1, 0, -1))


def shuffled_tiles(keys: tuple[int, ...]) -> list[str]:
    """Every tile, shuffled by a round's keys: Fisher-Yates, the swap at position i by key i."""
    tiles = list(TILE_IDS)
    for i, choices in FISHER_YATES_STEPS:
        j = keys[i] % choices
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


@functools.cache
def ordered_choices(items: int, count: int) -> tuple[tuple[int, ...], ...]:
    """Every ordered choice of ``count`` of ``items`` positions (the apprentice's picks: a few)."""
    return tuple(itertools.permutations(range(items), count))


def distribute_actions(turn_card: str, sides: tuple[str, ...]) -> list[Action]:
    """A Turn card's choices for tiles laid out with these sides (memoised: a few cards)."""
    actions = _DISTRIBUTE.get((turn_card, sides))
    if actions is None:
        actions = _DISTRIBUTE[turn_card, sides] = [
            {"type": "distribute", "option": name, "slot": slot}
            for name, (choose, _, _) in TURN_CARDS[turn_card]["options"].items()
            for slot, side in enumerate(sides)
            if choose in ("*", side)
        ]
    return actions


# each Turn card as it is revealed, in one look-up: its immediate action and layout (discards the
# stack's top, left side, right side), then the seat's choices for the tiles it lays out
TURN_REVEALS = {
    card: (bool(spec.get("discard_top")), *spec["layout"], distribute_actions(card, spec["layout"]))
    for card, spec in TURN_CARDS.items()
}


def placement(sides: tuple[str, str], choice: tuple[str, str, str], slot: int) -> tuple[str, int, str, int]:
    """Where a distribute choice puts the two tiles: the row and seen mask of the one the seat
    takes from ``slot``, then of the other, the apprentice's. Everyone knows a tile seen face up
    on the table or placed face up; the seat alone one it takes face down from the table."""
    _, mine, theirs = choice
    return ("bouquet" if mine == "U" else "keepsakes", ALL_SEEN if "U" in (sides[slot], mine) else 1,
            "bouquet" if theirs == "U" else "keepsakes", ALL_SEEN if "U" in (sides[1 - slot], theirs) else 0)


# every Turn card's placements, by option then slot (a table's sides are its Turn card's: validate)
PLACEMENTS = {
    card: {option: (placement(spec["layout"], choice, 0), placement(spec["layout"], choice, 1))
           for option, choice in spec["options"].items()}
    for card, spec in TURN_CARDS.items()
}


class TussieMussieState(GameState):
    # ------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> TussieMussieState:
        state = cls(config, seed)
        state.start_round(0)
        return state

    def __init__(self, config: MatchConfig, seed: int) -> None:
        """The match's settings and records. A round's own attributes are set by start_round (or
        from_position_state), so a new match does not build them twice.

        A state keeps under 30 attributes (with GameState's ``_legal``; 28 now): CPython 3.11 then
        stores them in the object, not in a dict of its own, and reads them faster (at 30, a solo
        playout takes 9 % more instructions). So the settings are properties below, and the rules
        that read one every round read the options directly (a property read is a Python call);
        clone() copies the attributes by name (a new one goes there too)."""
        self.config = config
        self.seed = seed
        self.solo = config.variant == "solo"
        self.n = config.players
        self.points: list[list[int]] = []
        self.summaries: list[dict[str, Any] | tuple] = []  # a round's summary or its record: see history
        # the other variant's part, never set up by its rounds: empty
        self.offers: list[list[int]] = []
        self.offer_index = 0
        self.turns: list[str] = []
        self.turn_card: str | None = None
        self.layout: list[list] = []
        self.kept: list[str] = []
        self.kept_from: list[str] = []

    @property
    def hand_count(self) -> int:
        return 2 if self.solo else self.n  # the apprentice is hand 1 in solo

    @property
    def honeysuckle(self) -> str:
        return self.config.options["honeysuckle"]

    @property
    def close_gap(self) -> bool:
        return self.config.options["marigold_gap"] == "close"

    # A round's attributes, set by start_round
    round: int
    first: int
    phase: str
    stack: list[str]
    hands: list[list[list | None]]
    revealed: bool
    offer: dict[str, Any] | None
    out: list[list]
    pre_order: list[int]
    pre_index: int
    used: list[list[str]]
    orchid: list[str]
    larkspur: list[str] | None
    snap_moved: int | None

    def start_round(self, round_index: int) -> None:
        """Deal the round from its keys (see TURN_KEY) and set up its decisions."""
        self.round = round_index
        self.first = round_index % self.n
        first_key = round_index * ROUND_KEYS
        keys = match_keys(self.seed)[first_key:first_key + ROUND_KEYS]
        self.stack = shuffled_tiles(keys)
        self.revealed = False
        self.out = []
        self.larkspur = None
        self.snap_moved = None
        self.pre_order = []
        self.pre_index = 0
        self.offer = None
        if self.solo:
            self.start_solo_turns(keys)
        else:
            self.start_offers()

    def start_solo_turns(self, keys: Sequence[int]) -> None:
        """The apprentice's carried columns (and its head start) lead its arrangement; the Turn
        deck is shuffled and its first card revealed."""
        stack = self.stack
        if self.round:
            carried = self.apprentice_keeps(keys[PICK_KEY])
            for column in carried:  # out of the stack, which keeps the others' order
                stack.remove(column[0])
        elif self.config.options["apprentice_head_start"]:
            carried = [[stack.pop(), "bouquet", ALL_SEEN]]
        else:
            carried = []
        self.hands = [[], carried]
        self.used = [[], []]
        self.orchid = ["white", "white"]
        self.turns = list(TURN_ORDERS[keys[TURN_KEY] % len(TURN_ORDERS)])
        self.phase = "distribute"
        self.next_solo_turn()

    def start_offers(self) -> None:
        """The round's offers: each seat to its left from the first player, then to its right."""
        n, f = self.n, self.first
        self.hands = [[] for _ in range(n)]
        self.used = [[] for _ in range(n)]
        self.orchid = ["white"] * n
        left = [[(f + i) % n, (f + i + 1) % n] for i in range(n)]
        right = [[(f - i) % n, (f - i - 1) % n] for i in range(n)]
        self.offers, self.offer_index = left + right, 0
        self.phase = "offer"
        self.draw_offer()

    # ------------------------------------------------------------------ offers
    def draw_offer(self) -> None:
        """The offerer draws two tiles; it alone sees them until it lays them out."""
        self.offer = {"tiles": [self.stack.pop(), self.stack.pop()], "face_up": None}
        self.phase = "offer"

    def offerer(self) -> int:
        return self.offers[self.offer_index][0]

    def receiver(self) -> int:
        return self.offers[self.offer_index][1]

    def lay_out_offer(self, face_up: str) -> None:
        self.offer["face_up"] = face_up
        self.phase = "take"

    def take_offer(self, side: str) -> None:
        """The receiver takes one tile; the offerer keeps the other, each with its side visible."""
        offerer, receiver = self.offers[self.offer_index]
        up = self.offer["face_up"]
        first, second = self.offer["tiles"]
        down = second if first == up else first
        hands = self.hands
        if side == "face_up":  # the face-down tile stays with the offerer, who alone knows it
            hands[receiver].append([up, "bouquet", ALL_SEEN])
            hands[offerer].append([down, "keepsakes", 1 << offerer])
        else:
            hands[receiver].append([down, "keepsakes", (1 << offerer) | (1 << receiver)])
            hands[offerer].append([up, "bouquet", ALL_SEEN])
        self.offer = None
        self.offer_index += 1
        if self.offer_index < len(self.offers):
            self.draw_offer()
        else:
            self.begin_pre_presentation()

    # ------------------------------------------------------------------ solo turns
    def next_solo_turn(self) -> None:
        """Reveal a Turn card, apply its immediate action, lay out two tiles."""
        self.turn_card = turn_card = self.turns.pop()
        discard_top, left, right, actions = TURN_REVEALS[turn_card]
        stack = self.stack
        if discard_top and stack:
            self.out.append([stack.pop(), 0])  # unseen by anyone
        self.layout = [[stack.pop(), left], [stack.pop(), right]]
        # the seat's choices are known now: the cache of legal_actions (as advance_pre fills it)
        self._legal = {0: actions}

    def distribute(self, option: str, slot: int) -> None:
        row, seen, other_row, other_seen = PLACEMENTS[self.turn_card][option][slot]
        layout = self.layout
        mine, apprentice = self.hands
        mine.append([layout[slot][0], row, seen])
        apprentice.append([layout[1 - slot][0], other_row, other_seen])
        if len(mine) < TURNS_PER_SOLO_ROUND:
            self.next_solo_turn()
        else:
            self.layout, self.turn_card = [], None
            self.begin_pre_presentation()

    # ------------------------------------------------------------------ Pre-Presentation
    def begin_pre_presentation(self) -> None:
        self.revealed = True
        self.phase = "pre"
        seats = [0] if self.solo else [(self.first + i) % self.n for i in range(self.n)]
        self.pre_order = seats
        self.pre_index = 0
        self.advance_pre()

    def acting(self) -> int:
        return self.pre_order[self.pre_index]

    def advance_pre(self) -> None:
        """Skip seats with nothing to decide; score the round when every seat is done."""
        while self.pre_index < len(self.pre_order):
            seat = self.pre_order[self.pre_index]
            actions = self.compute_pre_actions(seat)
            if actions:
                self._legal = {seat: actions}  # computed already: the cache of legal_actions
                return
            self.pre_index += 1
        self.present()

    def column_actions(self, table: list[Action], hand: int, skip: int | None = None) -> list[Action]:
        """``table``'s action (by column) for each column of ``hand`` holding a tile but ``skip``,
        a column of the hand's: slices of the table, unless a Marigold left a gap."""
        columns = self.hands[hand]
        if None in columns:
            return [table[i] for i, c in enumerate(columns) if c is not None and i != skip]
        if skip is None:
            return table[:len(columns)]
        return table[:skip] + table[skip + 1:len(columns)]

    def column_of(self, hand: int, tile: str) -> int | None:
        for index, column in enumerate(self.hands[hand]):
            if column is not None and column[0] == tile:
                return index
        return None

    def compute_pre_actions(self, seat: int) -> list[Action]:
        """The acting seat's choices: a pending Larkspur or Snapdragon step, or any unused ability."""
        if self.larkspur is not None:
            actions = []
            for tile in self.larkspur:
                actions += self.column_actions(LARKSPUR_REPLACE[tile], seat)
            return actions
        if self.snap_moved is not None:
            return self.column_actions(SNAPDRAGON_ACTIONS, seat, skip=self.snap_moved) + [SNAPDRAGON_STOP]
        used = self.used[seat]
        unused = []  # a loop: cheaper than a comprehension over four columns
        for column in self.hands[seat]:
            if column is not None and column[0] in PRE_PRESENTATION and column[0] not in used:
                unused.append(column[0])
        if not unused:
            return []
        actions: list[Action] = []
        if "orchid" in unused:
            actions += ORCHID_ACTIONS
        if "pink_larkspur" in unused and self.stack:
            actions.append(LARKSPUR_DRAW)
        if "snapdragon" in unused:
            actions += self.column_actions(SNAPDRAGON_ACTIONS, seat)
        marigold_due = False
        if "marigold" in unused:
            discards = self.column_actions(MARIGOLD_ACTIONS, seat, skip=self.column_of(seat, "marigold"))
            actions += discards
            marigold_due = bool(discards)
        if actions and not marigold_due:
            actions.append(DONE)
        return actions

    def use_ability(self, seat: int, action: Action) -> None:
        kind = action["type"]
        hand = self.hands[seat]
        if kind == "done":
            self.pre_index += 1
        elif kind == "orchid":
            self.used[seat].append("orchid")
            self.orchid[seat] = action["colour"]
        elif kind == "larkspur_draw":
            self.used[seat].append("pink_larkspur")
            self.larkspur = [self.stack.pop() for _ in range(min(2, len(self.stack)))]
        elif kind == "larkspur_replace":
            column = action["column"]
            unchosen = [t for t in self.larkspur if t != action["tile"]]
            self.out.append([hand[column][0], ALL_SEEN])
            self.out.extend([t, 1 << seat] for t in unchosen)  # only the drawer saw it
            hand[column] = [action["tile"], hand[column][1], ALL_SEEN]
            self.larkspur = None
        elif kind == "snapdragon":
            column = hand[action["column"]]
            column[1] = "keepsakes" if column[1] == "bouquet" else "bouquet"
            if self.snap_moved is None:
                self.used[seat].append("snapdragon")
                self.snap_moved = action["column"]
            else:
                self.snap_moved = None
        elif kind == "snapdragon_stop":
            self.snap_moved = None
        elif kind == "marigold":
            self.used[seat].append("marigold")
            self.out.append([hand[action["column"]][0], ALL_SEEN])
            if self.close_gap:
                del hand[action["column"]]
            else:
                hand[action["column"]] = None
        self.advance_pre()

    # ------------------------------------------------------------------ Presentation
    def present(self) -> None:
        """Score every arrangement, then set up the next round or end the match."""
        orchid, honeysuckle, hands = self.orchid, self.config.options["honeysuckle"], self.hands
        if self.solo:  # the seat's arrangement and the apprentice's, without a loop
            mine, my_columns = score_arrangement(hands[0], orchid[0], honeysuckle=honeysuckle)
            theirs, their_columns = score_arrangement(hands[1], orchid[1], apprentice=True, honeysuckle=honeysuckle)
            points, breakdowns = [mine, theirs], [my_columns, their_columns]
        else:
            points, breakdowns = [], []
            for hand, columns in enumerate(hands):
                # [tile, row, seen] columns: the scoring reads tile and row
                total, per_column = score_arrangement(columns, orchid[hand], honeysuckle=honeysuckle)
                points.append(total)
                breakdowns.append(per_column)
        self.points.append(points)
        # the round's record, its summary made when first read (history); the hands and orchids are
        # never changed after this: the next round has new ones
        self.summaries.append((self.round, self.first, hands, orchid, points, breakdowns))
        if self.round + 1 < ROUNDS:
            self.start_round(self.round + 1)
        else:
            self.phase = "over"

    def apprentice_keeps(self, key: int) -> list[list]:
        """The columns the apprentice carries into this round: 1 then 2 of its last arrangement's
        tiles (one more each with the head start), drawn at random by ``key``. Loops, not
        comprehensions nor min(): cheaper over so few tiles."""
        tiles = []
        for column in self.hands[1]:
            if column is not None:
                tiles.append(column[0])
        tiles.sort()
        options = self.config.options
        keep = self.round + 1 if options["apprentice_head_start"] else self.round
        if keep > len(tiles):
            keep = len(tiles)
        choices = ordered_choices(len(tiles), keep)
        facedown = options["apprentice_keeps_facedown"]
        kept = []
        carried = []
        for index in choices[key % len(choices)]:
            tile = tiles[index]
            kept.append(tile)
            carried.append([tile, "keepsakes", 0] if facedown else [tile, "bouquet", ALL_SEEN])
        self.kept_from = tiles if facedown else []
        self.kept = kept if facedown else []
        return carried

    # ------------------------------------------------------------------ the interface
    def to_move(self) -> list[int]:
        phase = self.phase
        if phase == "offer":
            return [self.offers[self.offer_index][0]]
        if phase == "take":
            return [self.offers[self.offer_index][1]]
        if phase == "distribute":
            return [0]
        if phase == "pre":
            return [self.pre_order[self.pre_index]]
        return []

    def _legal_actions(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "distribute":
            return distribute_actions(self.turn_card, tuple([side for _, side in self.layout])) if seat == 0 else []
        if phase == "offer":
            return [OFFER_ACTIONS[t] for t in self.offer["tiles"]] if seat == self.offerer() else []
        if phase == "take":
            return TAKE_ACTIONS if seat == self.receiver() else []
        if phase == "pre":
            return self.compute_pre_actions(seat) if seat == self.acting() else []
        return []

    def _apply(self, seat: int, action: Action) -> None:
        kind = action["type"]
        if kind == "offer":
            self.lay_out_offer(action["face_up"])
        elif kind == "take":
            self.take_offer(action["side"])
        elif kind == "distribute":
            self.distribute(action["option"], action["slot"])
        else:
            self.use_ability(seat, action)

    def _default_action(self, seat: int) -> Action:
        actions = self.legal_actions(seat)
        for neutral in (DONE, SNAPDRAGON_STOP):
            if neutral in actions:
                return neutral
        return actions[0]

    def action_label(self, seat: int, action: Action) -> str:
        kind = action["type"]
        def name(t: str) -> str:
            return TILES[t].name

        if kind == "offer":
            down = next(t for t in self.offer["tiles"] if t != action["face_up"])
            return f"offer the {name(action['face_up'])} face up and the {name(down)} face down"
        if kind == "take":
            if action["side"] == "face_up":
                return f"take the face-up {name(self.offer['face_up'])}"
            return "take the face-down tile"
        if kind == "distribute":
            _, mine, theirs = TURN_CARDS[self.turn_card]["options"][action["option"]]
            tile, side = self.layout[action["slot"]]
            where = "left" if action["slot"] == 0 else "right"
            shown = f"the face-up {name(tile)}" if side == "U" else f"the {where} face-down tile"
            sides = {"U": "face up", "D": "face down"}
            return (f"option {action['option']}: take {shown}, place it {sides[mine]}; "
                    f"the apprentice places the other {sides[theirs]}")
        if kind == "orchid":
            return f"Orchid: count it as {action['colour']}"
        if kind == "larkspur_draw":
            return "Pink Larkspur: draw two tiles"
        if kind == "larkspur_replace":
            old = self.hands[seat][action["column"]][0]
            return f"Pink Larkspur: replace the {name(old)} with the {name(action['tile'])}"
        if kind == "snapdragon":
            tile, row = self.hands[seat][action["column"]][:2]
            target = "Keepsakes" if row == "bouquet" else "Bouquet"
            return f"Snapdragon: move the {name(tile)} to your {target}"
        if kind == "snapdragon_stop":
            return "Snapdragon: move no more tiles"
        if kind == "marigold":
            return f"Marigold: discard the {name(self.hands[seat][action['column']][0])}"
        return "end your Pre-Presentation"

    def public_label(self, seat: int, action: Action) -> str:
        """The label any other seat or a spectator may read. Only an offer hides a tile (its
        face-down one); every other action is seen whole once played (Pre-Presentation happens
        after the keepsakes are revealed). Solo: which of two face-down table tiles was taken leaves
        no trace in any view, so it is "a face-down tile" (the seat's own label says left or right)."""
        if action["type"] == "offer":
            return f"offer the {TILES[action['face_up']].name} face up and a tile face down"
        if action["type"] == "distribute" and self.layout[action["slot"]][1] == "D":
            _, mine, theirs = TURN_CARDS[self.turn_card]["options"][action["option"]]
            sides = {"U": "face up", "D": "face down"}
            return (f"option {action['option']}: take a face-down tile, place it {sides[mine]}; "
                    f"the apprentice places the other {sides[theirs]}")
        return self.action_label(seat, action)

    # ------------------------------------------------------------------ what a seat sees
    def knows(self, viewer: int | None, seen: int) -> bool:
        """Whether ``viewer`` (None: a spectator) knows a tile with this ``seen`` mask."""
        return self.revealed or seen == ALL_SEEN or (viewer is not None and bool(seen >> viewer & 1))

    @staticmethod
    def saw(viewer: int | None, seen: int) -> bool:
        """Whether ``viewer`` saw a tile that left the round (a reveal does not show those)."""
        return seen == ALL_SEEN or (viewer is not None and bool(seen >> viewer & 1))

    def arrangement_view(self, hand: int, viewer: int | None) -> list[dict | None]:
        # fresh markers, not shared constants: a view's reader may change what it was given
        return [
            {"gap": True} if c is None else {
                "row": c[1],
                "tile": tile_json(c[0]) if self.knows(viewer, c[2]) else {"hidden": True},
            }
            for c in self.hands[hand]
        ]

    def view(self, viewer: int | None, rounds: list | None = None) -> dict[str, Any]:
        """What ``viewer`` (None: a spectator) sees; ``rounds``, a copy of the finished rounds'
        records already made for another view of this step (``views``)."""
        data: dict[str, Any] = {
            "game": "tussie-mussie",
            "variant": self.config.variant,
            "round": self.round,
            "phase": self.phase,
            "first_player": self.first,
            "to_move": self.to_move(),
            "stack_size": len(self.stack),
            "scores": self.totals(),
            "arrangements": [self.arrangement_view(h, viewer) for h in range(self.n)],
            "orchid": self.orchid[: self.n],
            "used": [list(u) for u in self.used[: self.n]],
            "out_of_round": [
                tile_json(t) if self.saw(viewer, seen) else {"hidden": True} for t, seen in self.out
            ],
            # a fresh copy: views never alias the state
            "rounds": copy_json(self.history) if rounds is None else rounds,
        }
        if self.offer is not None:
            mine = viewer == self.offerer()
            up = self.offer["face_up"]
            data["offer"] = {
                "offerer": self.offerer(),
                "receiver": self.receiver(),
                "face_up": tile_json(up) if up else None,
                "drawn": [tile_json(t) for t in self.offer["tiles"]] if mine else None,
            }
        if self.phase == "pre":
            drawer = self.acting()
            drawn = self.larkspur or []
            data["pre_presentation"] = {
                "acting": drawer,
                # the drawer sees the tiles it drew; the others only how many
                "larkspur_drawn": [tile_json(t) if viewer == drawer else {"hidden": True} for t in drawn],
                "snapdragon_moved": self.snap_moved,
            }
        # solo's parts are always present (empty in the standard game): one shape per game
        data["apprentice"] = self.arrangement_view(1, viewer) if self.solo else []
        data["turn_card"] = self.turn_card
        data["turn_cards_left"] = len(self.turns)
        data["table"] = [
            {"side": side, "tile": tile_json(t) if side == "U" else {"hidden": True}} for t, side in self.layout
        ]
        data["apprentice_kept_from"] = list(self.kept_from)
        return data

    def observation(self, seat: int, rounds: list | None = None) -> dict[str, Any]:
        data = self.view(seat, rounds)
        data["seat"] = seat
        return data

    def public_view(self) -> dict[str, Any]:
        return self.view(None)

    def views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The finished rounds, the views' longest part and the same for everyone, copied once."""
        rounds = copy_json(self.history)
        seats = [self.observation(seat, rounds) for seat in range(self.config.players)]
        return (self.view(None, rounds) if spectator else None), seats

    # Read-only views (GameState.read_only_views): the finished rounds' summaries are shared, not
    # copied — once read they never change (clones share them too); only the list is new
    def read_only_public_view(self) -> dict[str, Any]:
        return self.view(None, list(self.history))

    def read_only_views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        rounds = list(self.history)
        seats = [self.observation(seat, rounds) for seat in range(self.config.players)]
        return (self.view(None, rounds) if spectator else None), seats

    def read_only_observation(self, seat: int) -> dict[str, Any]:
        return self.observation(seat, list(self.history))

    @property
    def history(self) -> list[dict[str, Any]]:
        """The finished rounds' summaries. A round's summary, its arrangements as JSON, is made from
        its record when first read (views, positions, the tie-break), not as the round ends: random
        playouts read none. Clones share the summaries once made (each list makes its own)."""
        summaries = self.summaries
        for index, summary in enumerate(summaries):
            if type(summary) is tuple:
                summaries[index] = round_summary(summary)
        return summaries

    # ------------------------------------------------------------------ result
    def totals(self) -> list[int]:
        totals = [sum(p[h] for p in self.points) for h in range(self.hand_count)]
        if self.solo:
            return [totals[0] - totals[1]]
        return totals

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def result(self) -> dict[str, Any]:
        scores = self.totals()
        detail: dict[str, Any] = {"round_points": [list(p) for p in self.points]}
        if self.solo:
            detail["apprentice_total"] = sum(p[1] for p in self.points)
            detail["best_florist"] = all(p[0] > p[1] for p in self.points)
            return {"scores": scores, "ranks": [1 if scores[0] > 0 else 2], **detail}
        final = self.history[-1]["arrangements"] if self.history else []

        def earliest_flower(seat: int) -> int:
            # tie-break: the final-round flower whose English name comes first wins
            names = [ALPHABETICAL_RANK[c["tile"]["id"]] for c in final[seat] if "tile" in c]
            return -min(names) if names else -99

        ranks = ranks_with_tiebreak(scores, earliest_flower)
        detail["ranks_before_tiebreak"] = competition_ranks(scores)
        return {"scores": scores, "ranks": ranks, **detail}

    # ------------------------------------------------------------------ hidden information
    def clone(self) -> TussieMussieState:
        """GameState.clone() without reading ``__dict__``, which would give this state and its clone
        a dict of attributes each, slower to read (see __init__): every attribute copied by name,
        the values shared, the containers by _copy_mutables."""
        other = object.__new__(type(self))
        other.config, other.seed, other.solo, other.n = self.config, self.seed, self.solo, self.n
        other.round, other.first, other.phase, other.revealed = self.round, self.first, self.phase, self.revealed
        other.offers, other.offer_index = self.offers, self.offer_index
        other.pre_index, other.snap_moved, other.turn_card = self.pre_index, self.snap_moved, self.turn_card
        other._legal = None
        self._copy_mutables(other)
        return other

    def _copy_mutables(self, other: TussieMussieState) -> None:
        """Every list play mutates is copied; the offer order and the round summaries (or records)
        are shared: they never change."""
        other.stack = list(self.stack)
        other.hands = [[None if c is None else list(c) for c in h] for h in self.hands]
        other.offer = None if self.offer is None else {"tiles": list(self.offer["tiles"]),
                                                       "face_up": self.offer["face_up"]}
        other.out = [list(o) for o in self.out]
        other.pre_order = list(self.pre_order)
        other.used = [list(u) for u in self.used]
        other.orchid = list(self.orchid)
        other.larkspur = None if self.larkspur is None else list(self.larkspur)
        other.points = list(self.points)
        other.summaries = list(self.summaries)
        other.turns = list(self.turns)
        other.layout = [list(t) for t in self.layout]
        other.kept = list(self.kept)
        other.kept_from = list(self.kept_from)

    def resample_hidden(self, seat: int, rng: random.Random) -> TussieMussieState:
        """Redraw every tile ``seat`` cannot know, among the places it cannot see into."""
        other = self.clone()
        slots: list[tuple[list, int]] = []  # (container, index) of tiles unknown to the seat
        slots += [(other.stack, i) for i in range(len(other.stack))]
        for hand in range(other.hand_count):
            for column in other.hands[hand]:
                if column is not None and not other.knows(seat, column[2]):
                    slots.append((column, 0))
        for entry in other.out:
            if not other.saw(seat, entry[1]):
                slots.append((entry, 0))
        if other.offer is not None and seat != other.offerer():
            tiles = other.offer["tiles"]
            slots += [(tiles, i) for i, t in enumerate(tiles) if t != other.offer["face_up"]]
        if other.larkspur is not None and seat != other.acting():
            slots += [(other.larkspur, i) for i in range(len(other.larkspur))]
        for i, (_tile, side) in enumerate(other.layout):
            if side == "D":
                slots.append((other.layout[i], 0))
        kept_slots = [s for s in slots if other.kept and s[0] in other.hands[1] and s[0][0] in other.kept]
        rest = [s for s in slots if s not in kept_slots]
        pool = [container[index] for container, index in slots]
        if kept_slots:
            # the apprentice kept face-down tiles from a set the seat knows: draw them from it
            candidates = [t for t in other.kept_from if t in pool]
            chosen = rng.sample(candidates, len(kept_slots))
            for (container, index), tile in zip(kept_slots, chosen):
                container[index] = tile
            for tile in chosen:
                pool.remove(tile)
            other.kept = [c[0] for c in other.hands[1] if c[0] in chosen]
        rng.shuffle(pool)
        for (container, index), tile in zip(rest, pool):
            container[index] = tile
        other.seed = draw_seed(rng)
        return other

    # ------------------------------------------------------------------ positions
    def position_state(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "first": self.first,
            "phase": self.phase,
            "stack": list(self.stack),
            "hands": [[None if c is None else list(c) for c in h] for h in self.hands],
            "revealed": self.revealed,
            "offers": [list(o) for o in self.offers],
            "offer_index": self.offer_index,
            "offer": None if self.offer is None else {
                "tiles": list(self.offer["tiles"]), "face_up": self.offer["face_up"]},
            "out": [list(o) for o in self.out],
            "pre_order": list(self.pre_order),
            "pre_index": self.pre_index,
            "used": [list(u) for u in self.used],
            "orchid": list(self.orchid),
            "larkspur": None if self.larkspur is None else list(self.larkspur),
            "snap_moved": self.snap_moved,
            "points": [list(p) for p in self.points],
            "history": copy_json(self.history),
            "turns": list(self.turns),
            "turn_card": self.turn_card,
            "layout": [list(s) for s in self.layout],
            "kept": list(self.kept),
            "kept_from": list(self.kept_from),
        }

    @classmethod
    def from_position_state(cls, config: MatchConfig, seed: int, data: dict) -> TussieMussieState:
        state = cls(config, seed)
        state.round = data["round"]
        state.first = data.get("first", state.round % config.players)
        state.phase = data["phase"]
        state.stack = list(data.get("stack", []))
        state.hands = [
            [None if c is None else [c[0], c[1], c[2] if len(c) > 2 else ALL_SEEN] for c in h]
            for h in data["hands"]
        ]
        state.revealed = data.get("revealed", state.phase in ("pre", "over"))
        state.offers = [list(o) for o in data.get("offers", [])]
        state.offer_index = data.get("offer_index", 0)
        offer = data.get("offer")
        state.offer = None if offer is None else {"tiles": list(offer["tiles"]), "face_up": offer["face_up"]}
        state.out = [list(o) for o in data.get("out", [])]
        state.pre_order = list(data.get("pre_order", []))
        state.pre_index = data.get("pre_index", 0)
        state.used = [list(u) for u in data.get("used", [[] for _ in range(state.hand_count)])]
        state.orchid = list(data.get("orchid", ["white"] * state.hand_count))
        state.larkspur = None if data.get("larkspur") is None else list(data["larkspur"])
        state.snap_moved = data.get("snap_moved")
        state.points = [list(p) for p in data.get("points", [])]
        state.summaries = list(data.get("history", []))
        state.turns = list(data.get("turns", []))
        state.turn_card = data.get("turn_card")
        state.layout = [list(s) for s in data.get("layout", [])]
        state.kept = list(data.get("kept", []))
        state.kept_from = list(data.get("kept_from", []))
        state.validate()
        if state.phase == "pre":
            state.advance_pre()  # a seat with nothing left to decide moves on, as in play
        return state

    def validate(self) -> None:
        if len(self.hands) != self.hand_count:
            raise PositionError(f"expected {self.hand_count} hands, got {len(self.hands)}")
        seen: list[str] = list(self.stack) + [t for t, _ in self.out] + list(self.larkspur or [])
        seen += [c[0] for h in self.hands for c in h if c is not None]
        seen += [t for t, _ in self.layout] + (list(self.offer["tiles"]) if self.offer else [])
        unknown = [t for t in seen if t not in TILES]
        if unknown or len(seen) != len(set(seen)):
            raise PositionError(f"tiles unknown or repeated: {sorted(set(unknown or seen))}")
        if self.phase not in ("offer", "take", "distribute", "pre", "over"):
            raise PositionError(f"unknown phase {self.phase!r}")
        for h in self.hands:
            for c in h:
                if c is not None and c[1] not in ("bouquet", "keepsakes"):
                    raise PositionError(f"unknown row {c[1]!r}")
        sides = tuple(side for _, side in self.layout)
        if self.turn_card is not None and sides != TURN_CARDS[self.turn_card]["layout"]:
            raise PositionError(f"the table's sides are not Turn card {self.turn_card}'s")


def _variants() -> dict[str, Variant]:
    return {
        "standard": Variant("standard", (2, 3, 4), SCORING_OPTIONS, "2-4 players, three rounds"),
        "solo": Variant("solo", (1,), SOLO_OPTIONS, "one seat against the apprentice"),
    }


GAME = GameDescription(
    id="tussie-mussie",
    name="Tussie Mussie",
    engine_version="1.2.0",
    variants=_variants(),
    state_class=TussieMussieState,
    card_texts=CARD_TEXTS,
)
