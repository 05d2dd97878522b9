"""The ``greedy`` house bot: each game's own greedy policy (``policy.greedy`` in its package,
``referee.games.hooks``), fed what the bot's decision holds."""
from __future__ import annotations

from typing import Any

from referee.games import MatchConfig
from referee.games.hooks import Turn
from referee.games.registry import package

from .bot import Bot
from .decision import Decision


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[str, Any] = {}  # the policy's notes, for one match

    def on_match_start(self, game: str, seat: int, options: dict[str, Any], seed: int) -> None:
        self.memory = {}

    def decide(self, decision: Decision) -> dict[str, Any]:
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        policy = greedy_policy(decision.game)
        config = MatchConfig(decision.game, decision.variant, decision.players, decision.options)
        return policy(Turn(config, decision.seat, decision.observation, legal, self.rng, self.memory))


def greedy_policy(game_id: str):
    """The game's greedy policy; ValueError where its package has none."""
    policy = package(game_id).policy
    if policy is None:
        raise ValueError(f"there is no greedy bot for {game_id}")
    return policy


def greedy_bot_class(game_id: str) -> type[Bot]:
    """The ``greedy`` house bot, checked to have a policy for ``game_id`` (ValueError otherwise)."""
    greedy_policy(game_id)
    return GreedyBot
