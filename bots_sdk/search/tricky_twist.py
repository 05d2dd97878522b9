"""Tricky Twist: a position rebuilt from a seat's observation.

What the observation gives: the seat's hand, its reserve's cards (not their order) and its pending
pick, every seat's hand and reserve sizes, the cards publicly back in a hand (``take_back``), the
trick on the table, every pile, the Bonus cards, this round's tricks and the round summaries.
Unknown: the other seats' hands and reserves (and the order of the seat's own reserve), their
sealed picks and round-end choices. The engine's ``resample_hidden`` deals the unknown cards so
that every seat that did not follow a family held none of it then.
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.tricky_twist.data import BONUS_VALUE, CARD_IDS, CARD_VALUE, RESERVE_SIZE

from ..decision import Decision
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
    """Nothing beyond the engine's own resampling."""

