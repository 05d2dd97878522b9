"""Tricky Twist: a position rebuilt from a seat's observation.

What the observation gives: the seat's hand, its reserve's cards (not their order) and its pending
pick, every seat's hand and reserve sizes, the cards publicly back in a hand (``take_back``), the
trick on the table, every pile, the Bonus cards, this round's tricks and the round summaries.
Unknown: the other seats' hands and reserves (and the order of the seat's own reserve), their
sealed picks and round-end choices. The engine's ``resample_hidden`` deals the unknown cards so
that every seat that did not follow a family held none of it then; ``redraw`` then moves each
other seat's reserve among the cards a player would have put away (its shortest families), where
that evidence allows.
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.tricky_twist.data import (
    BONUS_VALUE,
    CARD_FAMILY,
    CARD_IDS,
    CARD_ORDER,
    CARD_VALUE,
    RESERVE_SIZE,
)
from referee.games.tricky_twist.engine import FAMILY_BIT

from ..decision import Decision
from ..greedy.tricky_twist import reserve_pick
from .common import UNKNOWN, base_position, fill_unknown


def ids(views: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in views]


def rebuild(decision: Decision) -> tuple[dict[str, Any], Any]:
    obs = decision.observation
    seat, n = decision.seat, decision.players
    phase = obs["phase"]
    known_in_hand = [ids(k) for k in obs["known_in_hand"]]
    pick = obs["pending_pick"]["id"] if obs["pending_pick"] else None
    hands, reserves = [], []
    for y in range(n):
        if y == seat:
            hands.append(ids(obs["hand"]))
            reserves.append(ids(obs["reserve"]))  # its order is redrawn with the rest
        else:
            # a seat's pending pick is sealed: it is still in its hand here (the count shows it)
            hidden = obs["hand_counts"][y] - len(known_in_hand[y])
            hands.append(known_in_hand[y] + [UNKNOWN] * hidden)
            reserves.append([UNKNOWN] * obs["reserve_counts"][y])
    picks: list[str | None] = [None] * n
    picks[seat] = pick
    leader = obs["leader"]
    turn = obs["turn"] if obs["turn"] is not None else leader
    log = [{"leader": r["leader"], "draws": list(r["draws"]),
            "plays": [[p["seat"], p["card"]["id"]] for p in r["plays"]], "winner": r["winner"],
            "trick": ids(r["trick"]), "false_tricks": [[f["seat"], f["card"]["id"]] for f in r["false_tricks"]],
            "bonus": [[b["seat"], b["bonus"]] for b in r["bonus"]],
            "take_back": [[t["seat"], t["card"]["id"] if t["card"] else None] for t in r["take_back"]]}
           for r in obs["log"]]
    state: dict[str, Any] = {
        "round": obs["round"], "first": obs["first_player"], "phase": phase,
        "scoring_card": obs["scoring_card"]["id"],
        "hands": hands, "reserves": reserves,
        "reserve_step": obs["reserve_step"] if phase == "reserve" else RESERVE_SIZE,
        "picks": picks, "leader": leader, "turn": turn,
        "draw_offered": (turn - leader) % n if phase == "draw" else (n if phase == "play" else 0),
        "draws": list(obs["draws"]),
        "trick": [[t["seat"], t["card"]["id"]] for t in obs["trick"]],
        "tricks": [[ids(p) for p in piles] for piles in obs["tricks"]],
        "false_tricks": [ids(f) for f in obs["false_tricks"]],
        "bonus_available": list(obs["bonus"]["available"]),
        "bonus_held": [list(b) for b in obs["bonus"]["held"]],
        "bonus_spent": list(obs["bonus"]["spent"]),
        "bonus_queue": _bonus_queue(log, n) if phase in ("bonus", "take_back") else [],
        "known_in_hand": known_in_hand,
        "batch": list(obs["to_move"]) if phase == "round_end" else [],
        "choices": [[dict(a) for a in obs["my_choices"]] if y == seat else [] for y in range(n)],
        "totals": list(obs["totals"]),
    }
    located = {c for h in hands for c in h} | {c for r in reserves for c in r}
    located.update(c for _, c in state["trick"])
    located.update(c for piles in state["tricks"] for p in piles for c in p)
    located.update(c for f in state["false_tricks"] for c in f)
    if pick:
        located.add(pick)
    state = fill_unknown(state, [c for c in CARD_IDS if c not in located])
    state["log"] = log
    state["history"] = obs["rounds"]
    return base_position(decision, state), None


def _bonus_queue(log: list[dict[str, Any]], n: int) -> list[int]:
    """The seats still to choose a Bonus card for the last trick's 7s (clockwise from its winner),
    less those that have chosen."""
    last = log[-1]
    winner = last["winner"]
    sevens = [winner] if any(CARD_VALUE[c] == BONUS_VALUE for c in last["trick"]) else []
    sevens += [s for s, c in last["false_tricks"] if CARD_VALUE[c] == BONUS_VALUE]
    sevens.sort(key=lambda s: (s - winner) % n)
    return sevens[len(last["bonus"]):]


def redraw(state: Any, seat: int, rng: random.Random, context: Any) -> None:
    """Each other seat's reserve drawn among the cards it would have put away.

    The engine deals the unknown cards evenly between hands and reserves, but a player builds its
    reserve from its shortest families (the void makes a false trick of its choosing): its hand
    is short of some families and its reserve full of them. Each seat's reserve is therefore
    redrawn among ``reserve_guess`` of its dealt hand (what it played this round, holds and keeps
    in reserve), where the seat's hidden cards and the follow rule's evidence allow."""
    if state.phase == "reserve" and state.reserve_step == 0:
        return
    picks = state.reserve_step if state.phase == "reserve" else RESERVE_SIZE
    for y in range(state.n):
        if y != seat and state.reserves[y]:
            _redraw_reserve(state, y, picks, rng)


def reserve_guess(dealt: list[str], picks: int) -> set[str]:
    """The first ``picks`` cards the greedy bot's rule (``reserve_pick``) puts away from ``dealt``,
    the hand in the engine's card order as the bot sees it."""
    hand = sorted(dealt, key=CARD_ORDER.__getitem__)
    chosen = set()
    for _ in range(picks):
        card = reserve_pick(hand)
        hand.remove(card)
        chosen.add(card)
    return chosen


def _redraw_reserve(state: Any, y: int, picks: int, rng: random.Random) -> None:
    known = state.known_in_hand[y]
    hidden = [c for c in state.hands[y] if c not in known]
    reserve = state.reserves[y]
    played = {c for rec in state.log for s, c in rec["plays"] if s == y}
    played.update(c for s, c in state.trick if s == y)
    dealt = played | set(state.hands[y]) | set(reserve)
    if state.picks[y] is not None:
        dealt.add(state.picks[y])
    guess = reserve_guess(list(dealt), picks)
    pool = hidden + reserve
    likely = [c for c in pool if c in guess]
    rng.shuffle(likely)
    if len(likely) < len(reserve):  # the guess is off (another rule, or cards already drawn)
        rest = [c for c in pool if c not in guess]
        rng.shuffle(rest)
        likely += rest[:len(reserve) - len(likely)]
    chosen = set(likely[:len(reserve)])
    if chosen == set(reserve):
        return
    new_hidden = [c for c in pool if c not in chosen]
    if not _dealable(new_hidden, state.hand_masks(y, len(new_hidden))):
        return  # the follow rule's evidence rules this split out: keep the engine's draw
    state.reserves[y] = likely[:len(reserve)]
    state.hands[y] = sorted(known + new_hidden, key=CARD_ORDER.__getitem__)


def _dealable(cards: list[str], masks: list[int]) -> bool:
    """Whether ``cards`` can fill slots each allowing the families in its mask (Hall's condition
    over the 16 sets of families)."""
    by_bit = [0] * 16
    for card in cards:
        by_bit[FAMILY_BIT[CARD_FAMILY[card]]] += 1
    need = [0] * 16
    for m in masks:
        need[m] += 1
    for subset in range(1, 16):
        slots = sum(need[m] for m in range(1, 16) if m & ~subset == 0)
        have = sum(by_bit[b] for b in (1, 2, 4, 8) if b & subset)
        if slots > have:
            return False
    return True

