"""Bszzzz!: a position rebuilt from a seat's observation.

What the observation gives: the seat's hand, every hand's size and swatter count, the trick, every
pile, this round's resolved windows (so the cards that went back to a hand and are still there)
and the round summaries. Unknown: the other seats' trick cards and the cards out of the round
(3 players), and the others' sealed submissions in this window. The engine's ``resample_hidden``
keeps what play revealed: cards known back in a hand, and the colours a turn seat that passed
cannot hold. Older rounds' summaries keep only their points (as the observation does).
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.bszzzz.data import DECKS, SWATTERS

from ..decision import Decision
from .common import UNKNOWN, base_position, fill_unknown


def ids(views: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in views]


def window(view: dict[str, Any]) -> dict[str, Any]:
    """A resolved window as the position keeps it (cards by id)."""
    return dict(view, top=view["top"]["id"] if view["top"] else None, priority=list(view["priority"]),
                plays=[dict(p, card=p["card"]["id"] if p["card"] else None) for p in view["plays"]])


def rebuild(decision: Decision) -> tuple[dict[str, Any], Any]:
    obs = decision.observation
    seat, n = decision.seat, decision.players
    colours = obs["colours"]
    trick = [[t["seat"], t["card"]["id"]] for t in obs["trick"]]
    windows = [window(w) for w in obs["windows"]]
    known: list[list[str]] = [[] for _ in range(n)]  # cards publicly back in a hand, in order
    for w in windows:
        for play in w["plays"]:
            s, card = play["seat"], play["card"]
            if play["outcome"] == "returned" and card not in known[s]:
                known[s].append(card)
            elif play["outcome"] == "applied" and card in known[s]:
                known[s].remove(card)
    taken, swatted, spent = (
        [ids(pile) for pile in obs[key]] for key in ("taken", "swatted", "spent"))
    hands = []
    for y in range(n):
        if y == seat:
            hands.append(ids(obs["hand"]))
            continue
        gone = set(swatted[y]) | set(spent[y])
        swatters = [c.id for c in SWATTERS[colours[y]] if c.id not in gone]
        hidden = obs["hand_sizes"][y] - len(swatters) - len(known[y])
        hands.append(known[y] + [UNKNOWN] * hidden + swatters)
    discard = ids(obs["discard"])
    located = {c for h in hands for c in h} | {c for _, c in trick} | set(discard)
    located.update(c for pile in taken for c in pile)
    pool = [c.id for c in DECKS[decision.options["deck"]] if c.id not in located]
    unseen = sum(h.count(UNKNOWN) for h in hands)
    turn = obs["turn"]
    if turn is None:  # Total: where an empty trick's first window starts its priority
        turn = obs["priority_start"] if obs["priority_start"] is not None and not trick else 0
    submitted = obs["submitted"]
    state: dict[str, Any] = {
        "round": obs["round"], "dealer": obs["dealer"], "turn": turn,
        "hands": hands, "out": [UNKNOWN] * (len(pool) - unseen), "trick": trick,
        "idle": obs["idle_windows"], "taken": taken, "swatted": swatted, "spent": spent,
        "discard": discard,
        "pending": [] if submitted is None else [[seat, submitted.get("card")]],
        "totals": list(obs["scores"]), "over": obs["phase"] == "over",
    }
    state = fill_unknown(state, pool)
    state["windows"] = windows
    state["rounds"] = [_summary(r, n) for r in obs["rounds"]]
    return base_position(decision, state, [{"colour": c} for c in colours]), None


def _summary(view: dict[str, Any], n: int) -> dict[str, Any]:
    """A finished round as the position keeps it; the observation details only the latest."""
    final = view.get("final_window")
    return {
        "round": view["round"], "dealer": view["dealer"], "end": view["end"], "windows": view["windows"],
        "points": list(view["points"]), "totals": list(view["totals"]),
        "taken": [ids(p) for p in view["taken"]] if "taken" in view else [[] for _ in range(n)],
        "hands": [ids(h) for h in view["hands"]] if "hands" in view else [[] for _ in range(n)],
        "final_window": window(final) if final else None,
    }


def redraw(state: Any, seat: int, rng: random.Random, context: Any) -> None:
    """Nothing beyond the engine's own resampling."""
