"""Misty: a position rebuilt from a seat's observation.

What the observation gives: the seat's hand and sealed choice, every hand it has held this draft
phase (the others: their sizes), every window, this round's log and the round summaries. Unknown:
the cards still to be dealt this round, the hands it has not held, the cards out of the round, and
the other seats' sealed choices of this step. The rebuilt state has no sealed choice for the others
(being asked or having answered looks the same to the seat), so a search asks them again.
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.misty.data import CARD_IDS
from referee.games.misty.engine import PHASES

from ..decision import Decision
from .common import UNKNOWN, base_position, fill_unknown


def rebuild(decision: Decision) -> tuple[dict[str, Any], Any]:
    obs = decision.observation
    seat, n = decision.seat, decision.players
    phases = PHASES[decision.variant]
    drafting = obs["phase"] == "draft"
    draft_phase = obs["draft"]["phase"] - 1 if drafting else len(phases)  # past the last: built
    pick = obs["draft"]["pick"] - 1 if drafting else 0
    hands = []
    for view in obs["hands"]:
        if view["seat"] == seat:
            hands.append([c["id"] for c in obs["hand"]])
        elif view["cards"] is not None:
            hands.append([c["id"] for c in view["cards"]])
        else:
            hands.append([UNKNOWN] * view["count"])
    deck_size = n * sum(size for _, size in phases[draft_phase + 1:]) if drafting else 0
    windows = [[[cell["row"], cell["col"], [c["id"] for c in cell["cards"]]] for cell in w["cells"]]
               for w in obs["windows"]]
    pending: list[Any] = [None] * n
    pending[seat] = obs["pending"]
    state: dict[str, Any] = {
        "round": obs["round"], "first": obs["first_player"], "stage": obs["phase"],
        "draft_phase": draft_phase, "pick": pick,
        "deck": [UNKNOWN] * deck_size, "hands": hands, "pending": pending, "windows": windows,
        "sizes": [None if w["rows"] is None else [w["rows"], w["cols"]] for w in obs["windows"]],
        "active": obs["active"],
        "moved": [list(w["moved"]) for w in obs["windows"]],
        "fed": [list(w["fed"]) for w in obs["windows"]],
    }
    known = {c for h in hands for c in h}
    known.update(c for w in windows for _, _, stack in w for c in stack)
    for event in obs["log"]:  # cards that left a window this round
        if event["event"] == "move" and "to_row" not in event:
            known.add(event["card"])
        elif event["event"] == "eat":
            known.add(event["flower"])
    pool = [c for c in CARD_IDS if c not in known]
    unseen = deck_size + sum(h.count(UNKNOWN) for h in hands)
    # the cards out of the round stay out of the position (the engine redraws them with the rest)
    state = fill_unknown(state, pool[:unseen])
    state["log"] = obs["log"]
    state["rounds"] = [
        {"round": r["round"], "points": list(r["points"]), "winners": list(r["winners"]),
         "windows": [[[cell["row"], cell["col"], [c["id"] for c in cell["cards"]]] for cell in w]
                     for w in r["windows"]]}
        for r in obs["rounds"]
    ]
    return base_position(decision, state), None


def redraw(state: Any, seat: int, rng: random.Random, context: Any) -> None:
    """Nothing beyond the engine's own resampling."""
