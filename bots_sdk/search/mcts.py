"""The ``mcts`` house bot: Information Set MCTS on determinizations, for every game with search
hooks (its package's ``search.HOOKS``).

    python -m bots_sdk play tussie-mussie 'mcts?budget=0.05' greedy --games 200

Parameters (the house bots' spec syntax, ``name?key=value&key=value``):
- ``budget``: seconds of search per decision (default 0.05), never more than half the time the
  decision has left;
- ``playouts``: a fixed number of iterations per decision instead (then the decision depends only
  on the seed and the observation: reproducible on any machine); a game whose hooks set
  ``playouts`` (a small game, settled in milliseconds) is searched that way by default;
- ``seed``: the search's random seed (default: the bot's own seed from the platform).
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.registry import package

from ..bot import Bot
from ..decision import Decision
from ..greedy import GreedyBot
from . import Determinizer, search_hooks
from .ismcts import Evaluator, SearchStats, action_key, random_policy, search

DEFAULT_BUDGET = 0.05
DEADLINE_SHARE = 0.5  # of the decision's time left, at most, whatever the budget


class MctsBot(Bot):
    name = "mcts"
    parameters = {"budget": float, "playouts": int, "seed": int}

    def __init__(self, budget: float = DEFAULT_BUDGET, playouts: int | None = None, seed: int | None = None) -> None:
        super().__init__()
        if budget <= 0 or (playouts is not None and playouts < 1):
            raise ValueError("budget must be > 0 and playouts ≥ 1")
        self.budget = budget
        self.playouts = playouts
        self.fixed_seed = seed

    def on_match_start(self, game: str, seat: int, options: dict[str, Any], seed: int) -> None:
        if self.fixed_seed is not None:
            self.rng = random.Random(self.fixed_seed)
        self.hooks = search_hooks(game)
        # the greedy policy, where the hooks lean on it (a prior, decisions left to it, a settled cutoff)
        greedy_seed = self.rng.getrandbits(32)
        self.greedy = GreedyBot() if package(game).policy is not None else None
        if self.greedy is not None:
            self.greedy.start(game, seat, options, greedy_seed)

    def decide(self, decision: Decision) -> dict[str, Any]:
        legal = decision.legal_actions
        if len(legal) == 1:
            decision.note(text="the only legal action")
            return legal[0]
        hooks = self.hooks
        if legal[0]["type"] in hooks.greedy_decisions:
            decision.note(text="left to the greedy rule (this game's search hooks)")
            return self.greedy.decide(decision)
        playouts = self.playouts if self.playouts is not None else hooks.playouts
        seconds = None if playouts is not None else self.budget
        if decision.time_left is not None:
            cap = decision.time_left * DEADLINE_SHARE
            seconds = cap if seconds is None else min(seconds, cap)
        cutoff = hooks.cutoff
        sampler = Determinizer(decision)
        if cutoff is not None and cutoff.settled(sampler.base):
            decision.note(text="the round is settled: the greedy rule plays it out")
            return self.greedy.decide(decision)  # the rest of the round is solved exactly there
        prior = self.greedy.decide(decision) if hooks.prior_weight else None
        policy = hooks.playout or random_policy
        action, stats = search(sampler, decision.seat, legal, self.rng,
                               evaluator=Evaluator(hooks.score, hooks.score_scale),
                               policy=policy, iterations=playouts,
                               seconds=seconds, model_opponents=hooks.model_opponents,
                               opponent=policy if hooks.model_opponents else None,
                               cutoff=cutoff, prior=prior, prior_weight=hooks.prior_weight,
                               key=hooks.action_key or action_key)
        if playouts is not None and stats.iterations < playouts:
            self.log(f"mcts: stopped at {stats.iterations} of {playouts} playouts (the deadline)")
        note_search(decision, action, stats)
        return action


NOTED_ACTIONS = 12  # the most visited root actions a note names (a note holds at most 1024 bytes)


def note_search(decision: Decision, chosen: dict[str, Any], stats: SearchStats) -> None:
    """The search's note: the chosen action's value estimate (its mean reward, 0..1) and the visits
    of the most visited root actions, by label."""
    labels = dict(zip(map(action_key, decision.legal_actions), decision.labels))
    ranked = sorted(stats.root, key=lambda item: -item[1])
    visits = {labels.get(action_key(action), str(action))[:60]: n for action, n, _ in ranked[:NOTED_ACTIONS]}
    value = next((v for action, _, v in stats.root if action == chosen), None)
    decision.note(value=None if value is None else round(value, 3), visits=visits,
                  text=f"{stats.iterations} playouts in {stats.seconds * 1000:.0f} ms")
