"""Kuhn poker's search hooks (``referee.games.hooks``): a position rebuilt from a seat's
observation, and a playout policy.

What the observation gives: the seat's own card, this hand's betting, the totals and every
finished hand (the cards shown at a showdown, its own always). Unknown: the other seat's card of
this hand and of each hand that ended in a fold; the engine's ``resample_hidden`` redraws them
all, so the rebuilt position fills them with any card the seat did not hold.
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.hooks import SearchHooks
from referee.games.interface import Action, MatchConfig

from .data import CARDS, RANK

WHIM = 0.2  # how often the playout policy plays at random instead


def _filled(cards: list[dict[str, Any]], seat: int) -> list[str]:
    """A hand's two cards by id, the other seat's hidden one replaced by a card the seat did not hold."""
    mine = cards[seat]["id"]
    stand_in = next(c for c in CARDS if c != mine)
    return [c["id"] if not c.get("hidden") else stand_in for c in cards]


def rebuild(config: MatchConfig, seat: int, obs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    over = obs["phase"] == "over"
    rounds = [{"round": r["round"], "first": r["first"], "cards": _filled(r["cards"], seat),
               "history": [[h["seat"], h["action"]] for h in r["history"]], "end": r["end"],
               "winner": r["winner"], "points": list(r["points"])} for r in obs["rounds"]]
    cards = rounds[-1]["cards"] if over else _filled(obs["cards"], seat)
    history = rounds[-1]["history"] if over else [[h["seat"], h["action"]] for h in obs["history"]]
    state = {"round": obs["round"], "cards": cards, "history": history, "totals": list(obs["scores"]),
             "rounds": rounds, "over": over}
    return {"game": config.game, "variant": config.variant, "players": config.players,
            "options": dict(config.options), "seats": None, "seed": 0, "state": state}, None


def playout(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The greedy policy's rule on the seat's own card in the search's copy, at random a fifth of
    the time (the other seat is modelled by it in the tree: a tree where it searched for itself
    would see the searcher's card, as every determinization shares it)."""
    if rng.random() < WHIM:
        return legal[rng.randrange(len(legal))]
    rank = RANK[state.cards[seat]]
    if legal[0]["type"] == "check":
        return legal[1] if rank == 3 else legal[0]
    return legal[1] if rank >= 2 else legal[0]


def score(state: Any) -> list[float]:
    return state.totals


# a hand's tree is a handful of nodes: a fixed count of iterations settles it in milliseconds, and
# makes the mcts bot's choices a function of its seed (the same on every machine and every path)
HOOKS = SearchHooks(rebuild=rebuild, score=score, score_scale=2.0, playout=playout, model_opponents=True,
                    playouts=300)
