"""Bszzzz!'s search hooks: a position rebuilt from a seat's observation, and the playouts.

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

from collections.abc import Hashable

from ..hooks import UNKNOWN, SearchHooks, base_position, fill_unknown
from ..interface import Action, MatchConfig
from .data import DECKS, SWATTER, SWATTERS
from .engine import swat_value


def ids(views: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in views]


def window(view: dict[str, Any]) -> dict[str, Any]:
    """A resolved window as the position keeps it (cards by id)."""
    return dict(view, top=view["top"]["id"] if view["top"] else None, priority=list(view["priority"]),
                plays=[dict(p, card=p["card"]["id"] if p["card"] else None) for p in view["plays"]])


def rebuild(config: MatchConfig, seat: int, obs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    n = config.players
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
    pool = [c.id for c in DECKS[config.options["deck"]] if c.id not in located]
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
    return base_position(config, state, [{"colour": c} for c in colours]), None


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


# ---------------------------------------------------------------------- playouts
SHED = 0.8  # how often a seat that may pass sheds a card instead


def playout(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Swat a trick worth a point to this seat; otherwise mostly shed a trick card; else pass."""
    _, cards, may_pass = state._legal_for(seat)
    trick = state.trick
    swatter = None
    others = []
    for action, card in zip(legal, cards):
        if card.kind == SWATTER:
            swatter = swatter or action
        else:
            others.append(action)
    if swatter is not None and trick and swat_value(state.colours[seat], [c for _, c in trick]) >= 1:
        return swatter
    if others and (not may_pass or rng.random() < SHED):
        return others[rng.randrange(len(others))]
    return legal[-1] if may_pass else legal[rng.randrange(len(legal))]


def action_key(action: Action) -> Hashable:
    """A seat's three swatters are one choice (they differ only by id): their statistics are not split."""
    card = action.get("card")
    if card is not None and card.startswith("swatter-"):
        return ("play", "swatter")
    return tuple(action.items())


def score(state: Any) -> list[float]:
    return state.totals


# uniformly random seats spend their swatters on anything and keep cards a real player sheds: the
# playout policy plays them, in the tree too
HOOKS = SearchHooks(rebuild=rebuild, score=score, score_scale=6.0, playout=playout, model_opponents=True,
                    action_key=action_key)
