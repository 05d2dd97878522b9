"""The ``mcts`` house bot: Information Set MCTS on determinizations, for every game.

    python -m bots_sdk play tussie-mussie 'mcts?budget=0.05' greedy --games 200

Parameters (the house bots' spec syntax, ``name?key=value&key=value``):
- ``budget``: seconds of search per decision (default 0.05), never more than half the time the
  decision has left;
- ``playouts``: a fixed number of iterations per decision instead (then the decision depends only
  on the seed and the observation: reproducible on any machine);
- ``seed``: the search's random seed (default: the bot's own seed from the platform).
"""
from __future__ import annotations

import random
from typing import Any

from ..bot import Bot
from ..decision import Decision
from ..greedy import greedy_bot_class
from . import Determinizer
from .cutoffs import CUTOFFS
from .ismcts import EVALUATORS, search
from .playouts import POLICIES, opponent_model, random_policy

DEFAULT_BUDGET = 0.05
DEADLINE_SHARE = 0.5  # of the decision's time left, at most, whatever the budget
# Per game, the progressive bias towards the greedy bot's choice at the root (``search(prior=)``):
# where a few hundred noisy playouts cannot tell good moves from bad, the rule of thumb decides.
PRIOR_WEIGHTS: dict[str, float] = {"tricky-twist": 1.5}
# Per game, the kinds of decision left to the greedy bot without a search: a Tricky Twist reserve
# pick (one card of twelve, judged by a whole round's playouts with three hidden hands) was noise
# at these budgets; greedy's rule (shortest families away) won more: docs/search.md.
GREEDY_DECISIONS: dict[str, frozenset[str]] = {"tricky-twist": frozenset({"reserve"})}


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
        self.greedy = greedy_bot_class(game)()
        self.greedy.start(game, seat, options, self.rng.getrandbits(32))

    def decide(self, decision: Decision) -> dict[str, Any]:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        if legal[0]["type"] in GREEDY_DECISIONS.get(decision.game, ()):
            return self.greedy.decide(decision)
        seconds = None if self.playouts is not None else self.budget
        if decision.time_left is not None:
            cap = decision.time_left * DEADLINE_SHARE
            seconds = cap if seconds is None else min(seconds, cap)
        opponent = opponent_model(decision.game)
        cutoff = CUTOFFS.get(decision.game)
        sampler = Determinizer(decision)
        if cutoff is not None and cutoff.settled(sampler.base):
            return self.greedy.decide(decision)  # the rest of the round is solved exactly there
        weight = PRIOR_WEIGHTS.get(decision.game, 0.0)
        prior = self.greedy.decide(decision) if weight else None
        action, stats = search(sampler, decision.seat, legal, self.rng,
                               evaluator=EVALUATORS[decision.game],
                               policy=POLICIES.get(decision.game, random_policy), iterations=self.playouts,
                               seconds=seconds, model_opponents=opponent is not None, opponent=opponent,
                               cutoff=cutoff, prior=prior, prior_weight=weight)
        if self.playouts is not None and stats.iterations < self.playouts:
            self.log(f"mcts: stopped at {stats.iterations} of {self.playouts} playouts (the deadline)")
        return action
