"""Tussie Mussie's search hooks: a position rebuilt from a seat's observation, and the playouts.

What the observation gives: every arrangement (a hidden tile as ``{"hidden": true}``), the offer in
progress, the tiles out of the round, the stack's size, the round summaries; in solo, the
apprentice's arrangement, the table and the Turn card. What it leaves to inference:
- who else knows a face-down tile: rebuilt from the round's fixed order of offers (the receiver of
  a face-down tile knows it with its offerer; a kept face-down tile only its offerer);
- solo: which Turn cards this round has used (the observation shows only the current one). They
  are drawn among the sequences that agree with every earlier turn's traces (where each tile was
  placed, which of the apprentice's tiles the seat saw, the tiles the Turn card T6 discarded).
"""
from __future__ import annotations

import itertools
import random
from typing import Any

from ..hooks import UNKNOWN, SearchHooks, UnsupportedPosition, base_position, card_id, fill_unknown
from ..interface import Action, MatchConfig
from .data import TILE_IDS, TURN_CARDS
from .engine import ALL_SEEN
from .scoring import score_arrangement

HEAD_START = "apprentice_head_start"


def rebuild(config: MatchConfig, seat: int, obs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    n = config.players
    solo = config.variant == "solo"
    phase = obs["phase"]
    first = obs["first_player"]
    revealed = phase in ("pre", "over")
    views = list(obs["arrangements"]) + ([obs["apprentice"]] if solo else [])
    hands = [[None if c.get("gap") else [card_id(c["tile"]), c["row"], ALL_SEEN] for c in view] for view in views]

    offers: list[list[int]] = []
    offer_index = 0
    if not solo:
        left = [[(first + i) % n, (first + i + 1) % n] for i in range(n)]
        right = [[(first - i) % n, (first - i - 1) % n] for i in range(n)]
        offers = left + right
        offer_index = sum(len(h) for h in hands) // 2 if phase in ("offer", "take") else len(offers)
        if not revealed:
            _offer_masks(hands, offers, offer_index)
    kept: list[str] = []
    offset = obs["round"] + (1 if config.options.get(HEAD_START) else 0)
    if solo and not revealed:
        for column in hands[0]:
            column[2] = ALL_SEEN if column[1] == "bouquet" else 1
        for column in hands[1]:
            column[2] = ALL_SEEN if column[0] != UNKNOWN else 0

    out = []
    drawer = next((s for s in range(n) if "pink_larkspur" in obs["used"][s]), None)
    for view in obs["out_of_round"]:
        tile = card_id(view)
        if tile != UNKNOWN:
            out.append([tile, ALL_SEEN])
        else:  # solo: a Turn card's discard (nobody saw it); else another seat's Larkspur draw
            out.append([UNKNOWN, 0 if solo or drawer is None else 1 << drawer])

    offer = None
    if obs.get("offer") is not None:
        view = obs["offer"]
        up = view["face_up"]["id"] if view["face_up"] else None
        if view["drawn"] is not None:
            tiles = [t["id"] for t in view["drawn"]]
        else:
            tiles = [up, UNKNOWN] if up else [UNKNOWN, UNKNOWN]
        offer = {"tiles": tiles, "face_up": up}
        if [view["offerer"], view["receiver"]] != offers[offer_index]:
            raise UnsupportedPosition("the offer in progress is not the one the columns imply")

    pre_order, pre_index, larkspur, snap_moved = [], 0, None, None
    if phase == "pre":
        pre = obs["pre_presentation"]
        pre_order = [0] if solo else [(first + i) % n for i in range(n)]
        pre_index = pre_order.index(pre["acting"])
        larkspur = [card_id(t) for t in pre["larkspur_drawn"]] or None
        snap_moved = pre["snapdragon_moved"]

    used = [list(u) for u in obs["used"]] + ([[]] if solo else [])
    orchid = list(obs["orchid"]) + (["white"] if solo else [])
    if solo and obs["apprentice_kept_from"]:
        # the tiles the apprentice kept face down lead its arrangement this round
        kept_columns = hands[1][:offset]
        for column in kept_columns:
            column[2] = 0
        kept = [c[0] for c in kept_columns]  # markers for now: filled below
    layout = [[card_id(slot["tile"]), slot["side"]] for slot in obs["table"]]
    state: dict[str, Any] = {
        "round": obs["round"], "first": first, "phase": phase,
        "stack": [UNKNOWN] * obs["stack_size"],
        "hands": hands, "revealed": revealed,
        "offers": offers, "offer_index": offer_index, "offer": offer, "out": out,
        "pre_order": pre_order, "pre_index": pre_index, "used": used, "orchid": orchid,
        "larkspur": larkspur, "snap_moved": snap_moved,
        "points": [list(r["points"]) for r in obs["rounds"]],
        "turns": [UNKNOWN] * obs["turn_cards_left"], "turn_card": obs["turn_card"],
        "layout": layout, "kept": [], "kept_from": list(obs["apprentice_kept_from"]),
    }
    turn_sequences: list[tuple[str, ...]] = []
    if solo and phase == "distribute":
        turn_sequences = _turn_sequences(obs, hands, offset)
        if not turn_sequences:
            raise UnsupportedPosition("no sequence of Turn cards explains this round")
    # the Turn deck is drawn by redraw(); here any cards of the right number
    state["turns"] = []
    known = _located(state)
    pool = [t for t in TILE_IDS if t not in known]
    state = fill_unknown(state, pool)
    if solo:
        state["kept"] = [c[0] for c in state["hands"][1][:len(kept)]]
        # outside the distribute phase the cards left are never used (the next round reshuffles)
        left = _turns_left(turn_sequences[0], obs) if turn_sequences else sorted(TURN_CARDS)
        state["turns"] = left[:obs["turn_cards_left"]]
    state["history"] = obs["rounds"]
    return base_position(config, state), (obs, turn_sequences)


def redraw(state: Any, seat: int, rng: random.Random, context: Any) -> None:
    """Solo: the Turn deck left is hidden too (the engine keeps it): redraw it."""
    obs, sequences = context
    if sequences:
        turns = _turns_left(rng.choice(sequences), obs)
        rng.shuffle(turns)
        state.turns = turns


def _offer_masks(hands: list[list], offers: list[list[int]], done: int) -> None:
    """Who knows each face-down tile, from the round's fixed order of offers: offer k gives the
    receiver a column, then the offerer; the face-down one is known to its offerer, and to the
    receiver when the receiver took it."""
    count = [0] * len(hands)
    for offerer, receiver in offers[:done]:
        for hand in (receiver, offerer):
            column = hands[hand][count[hand]]
            count[hand] += 1
            if column[1] == "bouquet":
                column[2] = ALL_SEEN
            else:
                column[2] = (1 << offerer) | ((1 << receiver) if hand == receiver else 0)


def _located(state: dict[str, Any]) -> set[str]:
    tiles = {c[0] for h in state["hands"] for c in h if c is not None}
    tiles.update(t for t, _ in state["out"])
    tiles.update(t for t, _ in state["layout"])
    tiles.update(state["larkspur"] or [])
    if state["offer"]:
        tiles.update(state["offer"]["tiles"])
    tiles.discard(UNKNOWN)
    return tiles


def _turns_left(used: tuple[str, ...], obs: dict[str, Any]) -> list[str]:
    return [t for t in sorted(TURN_CARDS) if t != obs["turn_card"] and t not in used]


def _turn_sequences(obs: dict[str, Any], hands: list[list], offset: int) -> list[tuple[str, ...]]:
    """Every sequence of earlier Turn cards (this round) that agrees with what the seat saw."""
    done = len(hands[0])
    discards = sum(1 for t in obs["out_of_round"] if t.get("hidden"))
    traces = []
    for k in range(done):
        mine, theirs = hands[0][k], hands[1][offset + k]
        traces.append(("U" if mine[1] == "bouquet" else "D", "U" if theirs[1] == "bouquet" else "D",
                       theirs[0] != UNKNOWN))
    others = [t for t in sorted(TURN_CARDS) if t != obs["turn_card"]]
    sequences = []
    for sequence in itertools.permutations(others, done):
        used = (*sequence, obs["turn_card"])
        if sum(1 for t in used if TURN_CARDS[t].get("discard_top")) != discards:
            continue
        if all(_explains(card, trace) for card, trace in zip(sequence, traces)):
            sequences.append(sequence)
    return sequences


def _explains(card: str, trace: tuple[str, str, bool]) -> bool:
    """Whether Turn card ``card`` could have given: the seat's placement, the apprentice's, and
    whether the seat saw the apprentice's tile."""
    mine, theirs, seen = trace
    layout = TURN_CARDS[card]["layout"]
    for choose, my_place, their_place in TURN_CARDS[card]["options"].values():
        for slot, side in enumerate(layout):
            if choose not in ("*", side) or (my_place, their_place) != (mine, theirs):
                continue
            if (layout[1 - slot] == "U" or their_place == "U") == seen:
                return True
    return False


# ---------------------------------------------------------------------- playouts
WORTH_TAKING = 1.5  # what a face-up tile must add to be taken over the unknown one
WHIM = 0.2  # how often the playout policy plays at random instead


def playout(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The greedy bot's rules: take the face-up tile when it adds enough to the arrangement; offer
    face up the tile worth less to keep (face down); the rest at random."""
    kind = legal[0]["type"]
    if kind not in ("take", "offer") or rng.random() < WHIM:
        return legal[rng.randrange(len(legal))]
    columns = [None if c is None else (c[0], c[1]) for c in state.hands[seat]]
    honeysuckle = state.honeysuckle

    def value(extra: tuple[str, str] | None) -> int:
        return score_arrangement(columns + [extra] if extra else columns, honeysuckle=honeysuckle)[0]

    if kind == "take":
        gain = value((state.offer["face_up"], "bouquet")) - value(None)
        return legal[0] if gain >= WORTH_TAKING else legal[1]
    return min(legal, key=lambda a: value((a["face_up"], "keepsakes")))


def score(state: Any) -> list[float]:
    return state.totals()


# the playout policy stands for the other seats in the tree (a single-observer tree otherwise lets
# them learn from determinizations that all share the searcher's hidden tiles)
HOOKS = SearchHooks(rebuild=rebuild, redraw=redraw, score=score, score_scale=6.0, playout=playout,
                    model_opponents=True)
